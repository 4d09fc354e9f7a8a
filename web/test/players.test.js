// The account panel's and the ghost challenges' pure parts: errors in words, links, names.
import assert from "node:assert/strict";
import { test } from "node:test";

import { exportFileName, keyPlayer, myPagePath } from "../src/account.js";
import { challengeOfPath, challengeUrl, runSummary } from "../src/challenge.js";
import { explain } from "../src/explain.js";
import { markNames } from "../src/marks.js";

test("every account and challenge error is said in words, never as its code", () => {
  const codes = ["records-unavailable", "race-not-found", "challenge-not-found", "bad-key", "handle-taken", "bad-credentials", "not-identified"];
  const said = codes.map((code) => explain({ code, message: "" }));
  for (const [i, text] of said.entries()) {
    assert.ok(!text.includes(codes[i]), `${codes[i]}: ${text}`);
    assert.match(text, /^[A-Z].*[.]$/, text);
  }
  assert.equal(new Set(said).size, codes.length, "each its own words");
  assert.equal(explain({ code: "bad-credentials", message: "no such handle, or a wrong password" }), "No player has that handle, or the password is wrong.");
});

test("a handle's rule and a wait are the server's own words, as sentences", () => {
  assert.equal(explain({ code: "bad-handle", message: "a handle has 3 to 24 characters" }), "That handle cannot be used: a handle has 3 to 24 characters.");
  assert.equal(explain({ code: "rate-limited", message: "too many sign-in attempts: wait 5 minutes" }), "Too many sign-in attempts: wait 5 minutes.");
  assert.equal(explain({ code: "room-full", message: "all 2 seats are taken" }), "All 2 seats are taken.");
  assert.equal(explain({ code: "mystery", message: "" }), "The server refused that request: try again later.");
  assert.equal(explain(undefined), "The server refused that request: try again later.");
});

test("a challenge link is /c/ and 8 characters of the room codes' alphabet", () => {
  assert.equal(challengeOfPath("/c/7KQ2M9XD"), "7KQ2M9XD");
  for (const path of ["/c/7kq2m9xd", "/c/7KQ2M9X", "/c/7KQ2M9XDE", "/c/7KQ2M9XI", "/c/7KQ2M9XU", "/c/7KQ2M9XD/", "/r/7KQ2M9XD", "/"]) {
    assert.equal(challengeOfPath(path), null, path);
  }
  assert.equal(challengeUrl("http://h:8", "7KQ2M9XD"), "http://h:8/c/7KQ2M9XD");
});

test("a run is summed up by how it ended", () => {
  assert.equal(runSummary({ status: "finished", time_ms: 183_204, progress: 52 }), "finished in 3:03.2");
  assert.equal(runSummary({ status: "resigned", time_ms: 9000, progress: 30 }), "resigned with 30/52 home");
  assert.equal(runSummary({ status: "racing", time_ms: 9000, progress: 12 }), "12/52 home when the race ended");
});

test("bots and ghosts are marked, people are not", () => {
  assert.deepEqual(markNames({ name: "Ann" }), []);
  assert.deepEqual(markNames({ name: "Ann", ghost: true }), ["ghost"]);
  assert.deepEqual(markNames({ name: "Bot", bot: true, ghost: false }), ["bot"]);
});

test("the account's names: the key's player, the export's file, my page by handle", () => {
  assert.equal(keyPlayer("uQ4T7M0K2ZP9R.h7Vq0c2LxY3nW9sK1mB5tR8pD4fJ6gZ_aE0uN2wC7yQ"), "uQ4T7M0K2ZP9R");
  assert.equal(exportFileName("uQ4T7M0K2ZP9R", new Date(Date.UTC(2026, 4, 18, 23, 59))), "seahaven-uQ4T7M0K2ZP9R-2026-05-18.json");
  assert.equal(myPagePath({ player: "uQ4T7M0K2ZP9R", handle: "Élodie" }), "/players/%C3%89lodie");
  assert.equal(myPagePath({ player: "uQ4T7M0K2ZP9R", handle: null }), "/players/uQ4T7M0K2ZP9R");
});

test("a player's rivals: who they raced, how often, ahead or behind; a bot is one rival per pace", async () => {
  const { rivalsOf } = await import("../src/rivals.js");
  const race = (...racers) => ({ racers: racers.map(([player, name, place, bot = false]) => ({ player, name, place, bot })) });
  const docs = [
    race(["me", "Me", 1], ["ann", "Ann", 2]),
    race(["ann", "Ann", 1], ["me", "Me", 2], ["bot-1", "Computer (brisk)", 3, true]),
    null, // a race that could not be read
    race(["bot-2", "Computer (brisk)", 1, true], ["me", "Me", 2]),
    race(["bob", "Bob", 1], ["cid", "Cid", 2]), // not the player's
  ];
  const seen = rivalsOf("me", docs).map((r) => [r.racer.name, r.races, r.ahead, r.behind]);
  assert.deepEqual(seen, [
    ["Ann", 2, 1, 1],
    ["Computer (brisk)", 2, 1, 1],
  ]);
});

test("a recent rival's head-to-head in words: wins and losses, then the deals both finished", async () => {
  const { headToHead } = await import("../src/rivals.js");
  const { setLanguage } = await import("../src/i18n.js");
  const rival = (wins, losses, shared, faster) => ({ player: "u1", name: "Bob", races: wins + losses, wins, losses, deals: { shared, faster, slower: shared - faster, latest: [] } });
  try {
    assert.deepEqual(headToHead(rival(4, 3, 5, 3)), { record: "4 wins, 3 losses", deals: "faster on 3 of 5 deals you both finished" });
    assert.deepEqual(headToHead(rival(1, 0, 1, 0)), { record: "1 win, 0 losses", deals: "faster on 0 of 1 deal you both finished" });
    // No deal both finished (both resigned, say): nothing said of deals.
    assert.equal(headToHead(rival(0, 1, 0, 0)).deals, null);
    assert.equal(headToHead({ wins: 0, losses: 1 }).deals, null);
    setLanguage("fr");
    const fr = headToHead(rival(4, 3, 5, 3));
    assert.match(fr.record, /^4 victoires.* 3 défaites$/);
    assert.equal(fr.deals, "plus rapide sur 3 des 5 donnes que vous avez tous deux terminées");
  } finally {
    setLanguage("en");
  }
});

test("a player's page offers 'Add as a friend' to anyone but that player, for a registered one", async () => {
  const { addFriendHref } = await import("../src/player_page.js");
  assert.equal(addFriendHref("u7k2m9q4", "u2a8c4d1.secret"), "/?friend=u7k2m9q4");
  assert.equal(addFriendHref("u7k2m9q4", null), "/?friend=u7k2m9q4"); // never played here: the lobby asks a name first
  assert.equal(addFriendHref("u7k2m9q4", "u7k2m9q4.secret"), null); // my own page
  assert.equal(addFriendHref("s1b2c3d4", "u2a8c4d1.secret"), null); // not a registered player: nobody to ask
});
