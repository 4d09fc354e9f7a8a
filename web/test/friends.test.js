// The friends' pure parts: what a new friends list says to a player not looking at the panel.
import assert from "node:assert/strict";
import { test } from "node:test";

import { friendsNews } from "../src/friends.js";

const ann = { player: "p1", name: "Ann" };
const bob = { player: "p2", name: "Bob" };
const empty = { friends: [], incoming: [], outgoing: [], blocked: [], shown_to: "friends" };

test("a new request to me is said, by name", () => {
  assert.equal(friendsNews(empty, { ...empty, incoming: [bob] }), "Bob asks to be your friend.");
  assert.equal(friendsNews({ ...empty, incoming: [bob] }, { ...empty, incoming: [bob] }), null);
});

test("my request accepted is said; a friend I accepted, a presence or a removal is not", () => {
  assert.equal(friendsNews({ ...empty, outgoing: [ann] }, { ...empty, friends: [ann] }), "Ann accepted: you are friends now.");
  assert.equal(friendsNews({ ...empty, incoming: [ann] }, { ...empty, friends: [ann] }), null);
  assert.equal(friendsNews({ ...empty, friends: [ann] }, { ...empty, friends: [ann] }), null);
  assert.equal(friendsNews({ ...empty, friends: [ann] }, empty), null);
});
