// Builds the browser client into the server package: node build.mjs [OUT_DIR]
// (default ../server/http/webroot). Asset names carry a content hash, so the server may let
// browsers cache them for a year; index.html names the current ones.
import { build } from "esbuild";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "server", "http", "webroot"));
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

const result = await build({
  entryPoints: { app: join(here, "src", "main.js") },
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022"],
  entryNames: "[name]-[hash]",
  outdir: join(out, "assets"),
  metafile: true,
  legalComments: "none",
  logLevel: "warning",
});
const names = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = names.find((n) => n.endsWith(".js"));
const css = names.find((n) => n.endsWith(".css"));
const page = readFileSync(join(here, "src", "index.html"), "utf8").replace("{{css}}", css).replace("{{js}}", js);
writeFileSync(join(out, "index.html"), page);
console.log(`built ${out}: index.html ${names.join(" ")}`);
