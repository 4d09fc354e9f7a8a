// A refused request in words for people (docs/protocol.md, section 11): what happened and what to
// do, never a bare code. The codes are stable; their words are the catalogs' (i18n.js), so each
// player reads them in their language. The server's own English message says more (how long to
// wait, which field is wrong, why a move is illegal): English players read it where the page
// always showed it, and a code the browser does not know is said in the server's words.
import { language, t } from "./i18n.js";

// Functions, so that each is said in the language of the moment. These are the codes whose words
// are ours in every language (the server's message is for other clients).
const WORDS = {
  "records-unavailable": () => t("The server's records are unavailable right now, or it keeps none: try again later."),
  "race-not-found": () => t("That race is not on record: only a finished race can be challenged."),
  "challenge-not-found": () => t("There is no challenge with that code: check the link."),
  "bad-key": () => t("This device's key is no longer valid: sign in again with your handle and password."),
  "handle-taken": () => t("That handle is taken (or one that looks too much like it): pick another."),
  "bad-credentials": () => t("No player has that handle, or the password is wrong."),
  "not-identified": () => t("This session is not your registered player's: open the account panel again, or sign in."),
  "already-registered": () => t("This session is a registered player's already."),
  "already-in-room": () => t("You are in a room: leave it first."),
  "not-finished": () => t("The race is still on: challenge it once it is over."),
  "room-limit": () => t("You have opened too many rooms lately: wait a minute and try again."),
  "store-unavailable": () => t("The game store is unavailable: try again in a moment."),
  closed: () => t("This tab is no longer connected (another tab or device took the session over): reload the page."),
  offline: () => t("The connection was lost: wait until it is back, then try again."),
};

// Every other code of protocol/errors.py (tests/test_web_i18n.py checks that none is missing): in
// English the server's message is shown instead, which names the detail.
const CODES = {
  "bad-frame": () => t("The server could not read that request."),
  "unknown-type": () => t("The server does not know that request."),
  "bad-field": () => t("The server refused a field of that request."),
  "bad-seq": () => t("That request came out of order: try again."),
  "hello-first": () => t("The connection is not ready yet: try again in a moment."),
  "bad-token": () => t("Your earlier session has expired."),
  "rate-limited": () => t("Too many requests: wait a moment and try again."),
  "room-not-found": () => t("There is no room with that code."),
  "room-unavailable": () => t("That room cannot be reached right now: try again in a moment."),
  "room-full": () => t("That room is full."),
  "race-in-progress": () => t("The race has begun."),
  "not-in-room": () => t("You are not in a room."),
  "not-a-racer": () => t("Only the racers can do that."),
  "not-started": () => t("The race has not started yet."),
  "race-over": () => t("The race is over."),
  "not-racing": () => t("You are no longer racing."),
  "illegal-move": () => t("That move is not allowed."),
  "undo-disabled": () => t("Undo is off in this room."),
  "nothing-to-undo": () => t("There is nothing to undo."),
  "undo-limit": () => t("No undo is left."),
  "move-limit": () => t("No move is left: the race's move limit is reached."),
  "bad-deal": () => t("That deal number or code does not work."),
  internal: () => t("The server ran into an error: try again."),
  "hints-off": () => t("Hints are off in this room."),
  "bad-handle": () => t("That handle cannot be used."),
  "arena-not-found": () => t("There is no arena with that code."),
  "arena-over": () => t("That arena is over."),
  banned: () => t("A moderator has banned this player from the server."),
  "name-reserved": () => t("That name is reserved: pick another."),
  "player-not-found": () => t("No player has that handle."),
  "not-friends": () => t("You can invite only your friends."),
  blocked: () => t("That player takes no requests from you, or you block them."),
  "friends-limit": () => t("Too many friends or requests: remove some first."),
  "invite-not-found": () => t("That invitation was answered or has expired."),
  "nobody-to-invite": () => t("Nobody else raced here: there is nobody to invite. Start a new room instead."),
};

/** The codes the browser says in words of its own, for the test against protocol/errors.py. */
export const KNOWN_CODES = [...Object.keys(WORDS), ...Object.keys(CODES)];

// Any other code's message is the server's own words (how long to wait, which field is wrong);
// these are said after words of ours (a handle's message names the rule it breaks).
const BEFORE = { "bad-handle": () => t("That handle cannot be used:") };

/** The words for an error (a ServerError or an error body: ``code`` and ``message``). */
export function explain(error) {
  const code = error?.code;
  const message = error?.message ?? "";
  if (code in WORDS) return WORDS[code]();
  if (language() !== "en" && code in CODES) return CODES[code]();
  if (!message.trim()) return t("The server refused that request: try again later.");
  return code in BEFORE ? `${BEFORE[code]()} ${stop(message)}` : stop(capital(message));
}

/** A refusal where the page says the server's words as they are (a toast, "e4 refused: ..."):
 * in English the message itself, in another language the code's words. */
export const refusal = (error) => (language() === "en" || !(error?.code in CODES || error?.code in WORDS) ? (error?.message ?? "") : explain(error));

const capital = (text) => text.trim().charAt(0).toUpperCase() + text.trim().slice(1);
const stop = (text) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
