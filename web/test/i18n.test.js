// The catalog function (src/i18n.js) with the catalogs the build made from the .po files:
// plurals by each language's Plural-Forms (Babel's CLDR rules), placeholders, the fallback to
// English, and numbers, times and dates in the locale's form through Intl.
import { test } from "node:test";
import assert from "node:assert/strict";
import CATALOGS from "../src/catalogs.json" with { type: "json" };
import { clock, day, number, ordinal, pickLanguage, setLanguage, t, tn } from "../src/i18n.js";
import { compile, pluralRule } from "../src/plural.js";

const moves = (n) => tn("{n} move", "{n} moves", n);

test("the language is the chosen one, else the browser's first we speak, else English", () => {
  assert.equal(pickLanguage(null, ["nl-NL", "en-US"]), "nl");
  assert.equal(pickLanguage(null, ["de-DE", "fr-CA", "it"]), "fr");
  assert.equal(pickLanguage("it", ["nl-NL"]), "it");
  assert.equal(pickLanguage("xx", ["de"]), "en");
  assert.equal(pickLanguage(null, []), "en");
  assert.equal(setLanguage("de"), "en");
});

test("plural forms follow each language's rule: French counts 0 as one, Dutch and English do not", () => {
  setLanguage("en");
  assert.deepEqual([0, 1, 2].map(moves), ["0 moves", "1 move", "2 moves"]);
  setLanguage("nl");
  assert.deepEqual([0, 1, 2, 21].map(moves), ["0 zetten", "1 zet", "2 zetten", "21 zetten"]);
  setLanguage("fr");
  assert.deepEqual([0, 1, 2].map(moves), ["0 coup", "1 coup", "2 coups"]);
  assert.equal(moves(1000000), "1\u202f000\u202f000 coups"); // CLDR's "many" form of French (U+202F groups)
  setLanguage("it");
  assert.deepEqual([1, 2].map(moves), ["1 mossa", "2 mosse"]);
  setLanguage("en");
});

test("the Plural-Forms expressions Babel wrote are read without eval", () => {
  for (const [lang, { plural }] of Object.entries(CATALOGS)) {
    assert.match(plural, /nplurals=\d; plural=/, lang);
    const rule = pluralRule(plural);
    assert.equal(rule(1), 0, lang);
  }
  assert.equal(pluralRule(CATALOGS.fr.plural)(0), 0);
  assert.equal(pluralRule(CATALOGS.fr.plural)(1000000), 1);
  assert.equal(pluralRule(CATALOGS.nl.plural)(0), 1);
  const polish = compile("(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)");
  assert.deepEqual([1, 2, 5, 12, 22, 25].map(polish), [0, 1, 2, 2, 1, 2]);
  assert.throws(() => compile("alert(1)"), /bad plural expression/);
  assert.throws(() => compile("n ==="), /bad plural expression/);
});

test("placeholders are filled by name, in the language's order", () => {
  setLanguage("nl");
  assert.equal(t("{rank} of {suit}", { rank: "tien", suit: "schoppen" }), "schoppen tien");
  setLanguage("fr");
  assert.equal(t("Deal {deal}", { deal: 42 }), "Donne 42");
  assert.equal(t("{name} won", {}), "{name} a gagné"); // a missing one stays visible, not "undefined"
  setLanguage("en");
});

test("a message a catalog lacks falls back to English", () => {
  setLanguage("it");
  assert.equal(t("A text no catalog has, {n}", { n: 3 }), "A text no catalog has, 3");
  assert.equal(tn("{n} thing nobody counts", "{n} things nobody counts", 2), "2 things nobody counts");
  setLanguage("en");
});

test("numbers, race clocks, days and ordinals in the locale's form", () => {
  setLanguage("fr");
  assert.equal(number(1234.5), "1\u202f234,5");
  assert.equal(clock(65_000), "1:05");
  assert.equal(day("2026-12-02"), "2 décembre 2026");
  assert.deepEqual([1, 2].map(ordinal), ["1er", "2e"]);
  setLanguage("nl");
  assert.equal(number(1234.5), "1.234,5");
  assert.equal(day("2026-12-02"), "2 december 2026");
  assert.equal(ordinal(3), "3e");
  setLanguage("it");
  assert.equal(day("2026-12-02"), "2 dicembre 2026");
  setLanguage("en");
  assert.equal(number(1234.5), "1,234.5");
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22].map(ordinal), ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]);
  assert.equal(day("2026-12-02"), "December 2, 2026");
});
