// A refused request in words for people (docs/protocol.md, section 11): what happened and what to
// do, never a bare code.

const WORDS = {
  "records-unavailable": "The server's records are unavailable right now, or it keeps none: try again later.",
  "race-not-found": "That race is not on record: only a finished race can be challenged.",
  "challenge-not-found": "There is no challenge with that code: check the link.",
  "bad-key": "This device's key is no longer valid: sign in again with your handle and password.",
  "handle-taken": "That handle is taken (or one that looks too much like it): pick another.",
  "bad-credentials": "No player has that handle, or the password is wrong.",
  "not-identified": "This session is not your registered player's: open the account panel again, or sign in.",
  "already-registered": "This session is a registered player's already.",
  "already-in-room": "You are in a room: leave it first.",
  "not-finished": "The race is still on: challenge it once it is over.",
  "room-limit": "You have opened too many rooms lately: wait a minute and try again.",
  "store-unavailable": "The game store is unavailable: try again in a moment.",
  closed: "This tab is no longer connected (another tab or device took the session over): reload the page.",
  offline: "The connection was lost: wait until it is back, then try again.",
};
// Any other code's message is the server's own words (how long to wait, which field is wrong);
// these are said after words of ours (a handle's message names the rule it breaks).
const BEFORE = { "bad-handle": "That handle cannot be used: " };

/** The words for an error (a ServerError or an error body: ``code`` and ``message``). */
export function explain(error) {
  const code = error?.code;
  const message = error?.message ?? "";
  if (code in WORDS) return WORDS[code];
  if (!message.trim()) return "The server refused that request: try again later.";
  return code in BEFORE ? BEFORE[code] + stop(message) : stop(capital(message));
}

const capital = (text) => text.trim().charAt(0).toUpperCase() + text.trim().slice(1);
const stop = (text) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
