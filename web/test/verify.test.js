// The browser's check of a signed race record (src/verify.js) against the reference, Python's
// seahaven/verify.py: verify.json holds what Python makes of the same inputs (written by
// tests/test_browser_verify.py, which fails when the file is stale): canonical JSON, fingerprints,
// draw indexes, deal codes, a list's candidates, and signed records intact and altered with the
// checks Python gives each.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { setLanguage } from "../src/i18n.js";
import { base64Bytes, canonical, dealCode, drawCandidates, drawIndex, fingerprint, hexBytes, passed, verify } from "../src/verify.js";

const vectors = JSON.parse(readFileSync(new URL("./verify.json", import.meta.url), "utf8"));
const dealList = async (preset) => vectors.lists[preset] ?? null;
const byName = (checks) => Object.fromEntries(checks.map((c) => [c.name, c]));
const intact = vectors.cases.find((c) => c.title === "intact");
setLanguage("en");

test("the canonical form is Python's, byte for byte: key order, escapes, text past ASCII", () => {
  for (const { value, text } of vectors.canonical) assert.equal(canonical(value), text, JSON.stringify(value));
  const record = intact.document.record;
  assert.equal(canonical(JSON.parse(JSON.stringify(record, null, 2))), canonical(record), "blanks and order do not matter");
});

test("what has no canonical form is refused, as Python refuses it", () => {
  assert.throws(() => canonical({ time_ms: 1.5 }), /no floats/);
  assert.throws(() => canonical({ "clé": 1 }), /keys are ASCII strings, not "clé"/);
  assert.throws(() => canonical(["\ud83c"]), /Unicode text/); // a lone surrogate: no UTF-8 for it
  assert.throws(() => canonical({ f: () => 1 }), /no function/);
});

test("a key's fingerprint is Python's (SHA256: and unpadded base64)", async () => {
  for (const { key, id } of vectors.fingerprints) assert.equal(await fingerprint(base64Bytes(key)), id);
});

test("base64 and hex are read strictly, as Python's validate=True and fromhex", () => {
  assert.deepEqual([...base64Bytes("AAEC")], [0, 1, 2]);
  for (const bad of ["AAE", "AA EC", "AAEC\n", "AA=C", "@@@@"]) assert.equal(base64Bytes(bad), null, bad);
  assert.deepEqual([...hexBytes("00fFa1")], [0, 255, 161]);
  for (const bad of ["0", "0g", "zz", 12]) assert.equal(hexBytes(bad), null, String(bad));
});

test("the draw's index is Python's draw_index: empty, short and long seeds, small and huge counts", async () => {
  assert.ok(vectors.draws.length > 20);
  for (const { seed, seeds, count, index } of vectors.draws) {
    assert.equal(await drawIndex(hexBytes(seed), seeds.map(hexBytes), count), index, `${seed.slice(0, 8)} ${seeds.length} ${count}`);
  }
});

test("deal codes are seahaven/codes.py's, every preset", () => {
  for (const [preset, n, code] of vectors.codes) assert.equal(dealCode(preset, n), code);
  assert.throws(() => dealCode("nope", 1), /unknown preset 'nope'/);
  assert.throws(() => dealCode("seahaven", 0), /deal numbers run from 1/);
  assert.throws(() => dealCode("seahaven", "7"), /not '7'/);
});

test("a published list's candidates are Python's, by grade and all of them", () => {
  const text = vectors.lists.seahaven;
  for (const [grade, numbers] of Object.entries(vectors.candidates)) assert.deepEqual(drawCandidates(text, grade === "any" ? null : grade), numbers, grade);
  assert.deepEqual(drawCandidates("# a list\npreset x\nmax_states 5\nbounds 1 2\n7 g\n9 f\n", "fiendish"), [9]);
  assert.throws(() => drawCandidates("preset x\n7 q\n", null), /line 2: cannot read '7 q'/);
});

test("a real signed record passes every check, as it does in Python", async () => {
  const checks = await verify(intact.document, { keys: vectors.keys, dealList });
  assert.deepEqual(
    checks.map((c) => [c.name, c.ok]),
    intact.checks.map(([name, ok]) => [name, ok]),
  );
  assert.ok(passed(checks));
  assert.deepEqual(
    checks.map((c) => c.name),
    ["form", "signature", "published key", "draw", "racer p_ann", "racer bot:carl", "racer zoë-🂡", "standings"],
  );
  assert.ok(checks.every((c) => c.ok === true));
  const racers = checks.filter((c) => c.name.startsWith("racer "));
  assert.deepEqual(racers.map((c) => c.player), ["p_ann", "bot:carl", "zoë-🂡"]);
});

test("every altered copy fails the checks it fails in Python, and only those", async () => {
  assert.ok(vectors.cases.length >= 25);
  for (const { title, document, keys, fails, checks: expected } of vectors.cases) {
    const checks = await verify(document, { keys: keys ?? undefined, dealList });
    assert.deepEqual(
      checks.map((c) => [c.name, c.ok]),
      expected.map(([name, ok]) => [name, ok]),
      title,
    );
    assert.deepEqual(
      checks.filter((c) => c.ok === false).map((c) => c.name),
      fails,
      title,
    );
    assert.equal(passed(checks), fails.length === 0, title);
  }
});

test("every check says why in Python's words (but for the engine's own and a racer still racing)", async () => {
  // The engines word a refused move each their own way; a racer still on at the end "did not
  // finish", as the replay page's standings say.
  const theirs = (detail) =>
    detail
      .replace(/: illegal move \S+: /, ": ")
      .replace(": pop from empty list", ": there is no move to take back")
      .replace(/, racing$/, ", did not finish");
  for (const { title, document, keys, checks: expected } of vectors.cases) {
    const checks = await verify(document, { keys: keys ?? undefined, dealList });
    expected.forEach(([name, , detail], i) => assert.equal(checks[i].detail, theirs(detail), `${title}: ${name}`));
  }
});

test("the named alterations fail the named checks: a move, a time, a standing, the deal, the seed, the signature", async () => {
  const fails = async (title) => {
    const { document, keys } = vectors.cases.find((c) => c.title === title);
    return (await verify(document, { keys, dealList })).filter((c) => c.ok === false).map((c) => c.name);
  };
  assert.deepEqual(await fails("one move"), ["signature", "racer p_ann"]);
  assert.deepEqual(await fails("one move, signed"), ["racer p_ann"]);
  assert.deepEqual(await fails("one time, signed"), ["racer p_ann"]);
  assert.deepEqual(await fails("one standing, signed"), ["standings"]);
  assert.ok((await fails("the deal")).includes("draw"));
  assert.deepEqual(await fails("the seed"), ["signature", "draw"]);
  assert.deepEqual(await fails("the seed, signed"), ["draw"]);
  assert.deepEqual(await fails("the signature"), ["signature"]);
});

test("what the server played is checked as Python checks it: the rule's move, an undo of its own hand", async () => {
  const served = vectors.cases.find((c) => c.title === "auto-moves");
  const ann = served.document.record.racers[0];
  const marked = new Set(ann.auto);
  // The vectors hold a race played with auto-move, an undo of a move with auto-moves in it: the
  // server's undos (marked), then the racer's (not), and the racer's own moves left unmarked.
  const undo = ann.moves.findIndex(([, text], i) => text === "undo" && marked.has(i));
  assert.ok(undo > 0 && marked.has(undo - 1) && ann.moves.slice(undo).some(([, text], i) => text === "undo" && !marked.has(undo + i)));
  assert.ok(ann.moves.some(([, text], i) => text !== "undo" && !marked.has(i)));
  const checks = byName(await verify(served.document, { keys: vectors.keys, dealList }));
  assert.ok(Object.values(checks).every((c) => c.ok === true));
  assert.equal(checks["racer p_ann"].detail, `${ann.moves.length} moves replayed (${ann.auto.length} by auto-move): finished in ${ann.time_ms} ms`);

  const why = async (title) => {
    const { document, keys } = vectors.cases.find((c) => c.title === title);
    const failed = (await verify(document, { keys, dealList })).filter((c) => c.ok === false);
    return failed.map((c) => `${c.name}: ${c.detail}`);
  };
  assert.deepEqual(await why("auto-moves, an own move marked, signed"), ["racer p_ann: move 1 (3c) is no auto-move: the rule gives none"]);
  assert.deepEqual(await why("auto-moves, two swapped, signed"), ["racer p_ann: move 5 (a#) is no auto-move: the rule gives 3#"]);
  assert.deepEqual(await why("auto-moves, an auto-move's undo unmarked, signed"), ["racer p_ann: move 7 (undo) takes back an auto-move out of turn"]);
  assert.deepEqual(await why("auto-moves, an own move's undo marked, signed"), ["racer p_ann: move 10 (undo) takes back a move of the racer's out of turn"]);
  assert.deepEqual(await why("auto-moves, one unmarked, signed"), [], "a move the racer may have made: no mark to check");
  assert.deepEqual(await why("auto-moves, no marks, signed"), [], "a record from before the marks: every entry the racer's");
});

test("what the browser cannot check is said, not failed: a daily deal, no list, no WebCrypto", async () => {
  const daily = byName(await verify(vectors.daily, { keys: vectors.keys, dealList }));
  assert.equal(daily.draw.ok, null);
  assert.match(daily.draw.detail, /2027-01-15.*seahaven verify/);
  assert.ok(Object.values(daily).every((c) => c.ok !== false));

  const unlisted = byName(await verify(intact.document, { keys: vectors.keys, dealList: async () => null }));
  assert.equal(unlisted.draw.ok, null);
  assert.match(unlisted.draw.detail, /no seahaven list.*seahaven verify/);
  const failing = byName(await verify(intact.document, { keys: vectors.keys, dealList: async () => { throw new Error("404"); } }));
  assert.equal(failing.draw.ok, null);

  // An http page on another host than localhost has no crypto.subtle: no signature, no hashes.
  const bare = await verify(intact.document, { keys: vectors.keys, dealList, subtle: null });
  const named = byName(bare);
  assert.equal(named.signature.ok, null);
  assert.match(named.signature.detail, /secure context/);
  assert.equal(named.draw.ok, null);
  assert.equal(named["published key"].ok, true);
  assert.equal(named["racer p_ann"].ok, true);
  assert.ok(passed(bare));

  const unread = byName(await verify(intact.document, { keys: null, keysError: "HTTP 503", dealList }));
  assert.deepEqual([unread["published key"].ok, unread["published key"].detail], [null, "HTTP 503"]);
});

test("what is not a signed record fails its form and nothing else is checked", async () => {
  for (const [doc, reason] of [
    [null, /no 'record' object/],
    [{ record: [] }, /no 'record' object/],
    [{ record: { ...intact.document.record, format: "x" }, signature: intact.document.signature }, /format 'x', not 'seahaven-race\/1'/],
    [{ record: intact.document.record, signature: "abc" }, /not base64/],
    [{ record: intact.document.record, signature: "AAAA" }, /32 bytes and its signature 64/],
    [{ record: { ...intact.document.record, racers: undefined }, signature: intact.document.signature }, /lacks racers/],
  ]) {
    const checks = await verify(JSON.parse(JSON.stringify(doc) ?? "null"), { keys: vectors.keys, dealList });
    assert.equal(checks.length, 1);
    assert.equal(checks[0].name, "form");
    assert.equal(checks[0].ok, false);
    assert.match(checks[0].detail, reason);
  }
});

test("the reasons are said in the reader's language", async () => {
  const { document, keys } = vectors.cases.find((c) => c.title === "one move, signed");
  setLanguage("fr");
  try {
    const checks = await verify(document, { keys, dealList });
    const ann = checks.find((c) => c.name === "racer p_ann");
    assert.equal(ann.ok, false);
    assert.doesNotMatch(ann.detail, /is not legal/);
  } finally {
    setLanguage("en");
  }
});
