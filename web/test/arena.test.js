// The arena's and the ratings' pure parts: the /a/CODE link, standings as shown, the clock, my
// place, and the numbers beside racers' names.
import assert from "node:assert/strict";
import { test } from "node:test";

import { arenaClock, arenaOfPath, myPlace, onArenaMessage, standingRows, streakText } from "../src/arena.js";
import { initialState } from "../src/state.js";
import { RatingBook, ratingFromDoc, ratingWithChange, shownRating } from "../src/ratings_view.js";

const line = (rank, player, points, wins, streak, active = true) => ({ rank, player, name: player.toUpperCase(), points, races: 3, wins, streak, active });
const ARENA = {
  arena: "7KQ2M9",
  preset: "seahaven",
  deal_grade: null,
  starts_at: 1000,
  ends_at: 301_000,
  phase: "running",
  link_path: "/a/7KQ2M9",
  standings: [line(1, "ann", 8, 3, 3), line(2, "bob", 2, 1, 0), line(3, "cid", 0, 0, 0, false)],
};

test("an arena link is /a/ and a code, read like a room code", () => {
  assert.equal(arenaOfPath("/a/7kq2m9"), "7KQ2M9");
  assert.equal(arenaOfPath("/a/7KQ2M9/"), null);
  assert.equal(arenaOfPath("/r/7KQ2M9"), null);
  assert.equal(arenaOfPath("/a/../x"), null);
});

test("the standings mark me, the players who left and a streak's fire", () => {
  const rows = standingRows(ARENA, "bob");
  assert.deepEqual(
    rows.map((r) => [r.rank, r.name, r.points, r.streak, r.me]),
    [
      [1, "ANN", 8, "🔥3", false],
      [2, "BOB (you)", 2, "", true],
      [3, "CID (left)", 0, "", false],
    ],
  );
  assert.equal(streakText(1), "1");
  assert.equal(streakText(2), "🔥2");
  assert.deepEqual(standingRows(null, "bob"), []);
});

test("the arena's clock: before, during, after", () => {
  assert.equal(arenaClock(ARENA, 0), "Starts in 0:01");
  assert.equal(arenaClock(ARENA, 1000), "5:00 left");
  assert.equal(arenaClock(ARENA, 240_500), "1:00 left");
  assert.equal(arenaClock(ARENA, 301_000), "The arena is over");
  assert.equal(arenaClock({ ...ARENA, phase: "finished" }, 2000), "The arena is over");
});

test("my place in words", () => {
  assert.equal(myPlace(ARENA, "ann"), "You are 1st of 3 · 8 points");
  assert.equal(myPlace(ARENA, "bob"), "You are 2nd of 3 · 2 points");
  assert.equal(myPlace(ARENA, "zed"), "");
});

test("arena and podium frames keep the arena I am in; other frames are not theirs", () => {
  const A = initialState().arena; // the state's: the arena I am in
  assert.equal(onArenaMessage(A, "room", {}), false);
  assert.equal(onArenaMessage(A, "arena", ARENA), true);
  assert.equal(A.arena.arena, "7KQ2M9");
  assert.equal(onArenaMessage(A, "podium", { arena: "7KQ2M9", podium: ARENA.standings.slice(0, 2) }), true);
  assert.equal(A.arena.phase, "finished");
  assert.equal(A.podium.podium.length, 2);
  onArenaMessage(A, "arena", { ...ARENA, arena: "OTHER1" }); // another arena: the old podium goes
  assert.equal(A.podium, null);
});

test("a rating is shown with ? while provisional, and its change after a race", () => {
  assert.equal(shownRating({ rating: 1500, provisional: true }), "1500?");
  assert.equal(shownRating({ rating: 1712, provisional: false }), "1712");
  assert.equal(ratingWithChange({ rating: 1523, provisional: false, change: 14 }), "1523 +14");
  assert.equal(ratingWithChange({ rating: 1486, provisional: true, change: -9 }), "1486? -9");
  assert.equal(ratingWithChange({ rating: 1500, provisional: true, change: 0 }), "1500? +0");
  assert.equal(ratingWithChange({ rating: 1500, provisional: false }), "1500");
});

test("other racers' ratings come from their player page, asked once each", async () => {
  const asked = [];
  const docs = { ann: { ratings: [{ preset: "seahaven", rating: 1579, provisional: true, races: 1 }, { preset: "freecell", rating: 1400, provisional: false, races: 12 }] } };
  const book = new RatingBook(async (player, fresh) => {
    asked.push(fresh ? `${player} again` : player);
    if (!(player in docs)) throw new Error("not found");
    return docs[player];
  });
  let loads = 0;
  assert.equal(book.get("ann", "seahaven", () => loads++), null); // asked, not there yet
  assert.equal(book.get("ann", "seahaven", () => loads++), null);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(book.get("ann", "seahaven"), { rating: 1579, provisional: true });
  assert.deepEqual(book.get("ann", "freecell"), { rating: 1400, provisional: false });
  assert.equal(book.get("ann", "penguin"), null);
  assert.equal(book.get("anon", "seahaven"), null);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(book.get("anon", "seahaven"), null);
  assert.deepEqual(asked, ["ann", "anon"]);
  assert.equal(loads, 1);
  book.forget(["ann"]);
  assert.deepEqual(book.get("ann", "seahaven"), { rating: 1579, provisional: true }, "the old number until the new one comes");
  assert.deepEqual(asked, ["ann", "anon", "ann again"]);
  assert.equal(ratingFromDoc(null, "seahaven"), null);
});
