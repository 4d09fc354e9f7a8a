// Builds the browser client into the server package: node build.mjs [OUT_DIR]
// (default ../server/http/webroot). Two pages, each its own bundle: the race client (index.html,
// main.js) and the records pages (records.html, records.js: replays, player pages, boards).
// Asset names carry a content hash, so the server may let browsers cache them for a year; each
// page names its current ones.
import { build } from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "server", "http", "webroot"));
const PAGES = [
  { name: "app", entry: "main.js", page: "index.html" },
  { name: "records", entry: "records.js", page: "records.html" },
];
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

const result = await build({
  entryPoints: Object.fromEntries(PAGES.map((p) => [p.name, join(here, "src", p.entry)])),
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022"],
  absWorkingDir: here, // the metafile names entries from here: src/main.js
  entryNames: "[name]-[hash]",
  outdir: join(out, "assets"),
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});
const outputs = Object.entries(result.metafile.outputs);
const names = [];
for (const { entry, page } of PAGES) {
  const [js, meta] = outputs.find(([, o]) => o.entryPoint === `src/${entry}`);
  const css = basename(meta.cssBundle);
  const html = readFileSync(join(here, "src", page), "utf8").replace("{{css}}", css).replace("{{js}}", basename(js));
  writeFileSync(join(out, page), html);
  names.push(page, basename(js), css);
}
console.log(`built ${out}: ${names.join(" ")}`);
