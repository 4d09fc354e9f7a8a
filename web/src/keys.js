// The keys (the terminal client's): a key and the state in, the action to take out, as
// [name, ...arguments] for the actions (actions.js), or null. Pure: only `S.armed` (a key that
// needs a second press) and the selection's run length change here.
import { CELL, COLUMN, FOUNDATION, canHint, racing, runLength } from "./state.js";
import { t } from "./i18n.js";

/** The keys' help, [keys, what they do], in the language of the moment. */
export const KEYS_HELP = () => [
  ["1-9, 0", t("columns (0 is the tenth)")],
  ["a-h", t("free cells")],
  [t("# or ."), t("the foundations")],
  [t("same key, space, enter"), t("smart move")],
  [t("up / down"), t("one card more / fewer from a run")],
  [t("escape"), t("drop the selection")],
  ["u", t("undo")],
  ["?", t("a hint (rooms with hints)")],
  ["m", t("auto-move to the foundations on / off")],
  ["r", t("ready / rematch")],
  [t("R (twice)"), t("resign")],
  [t("l (twice in a race)"), t("leave")],
  ["[ / ]", t("spectating: previous / next racer")],
];

/** The action for ``key`` in state ``S``; ``prevent``: the key is the page's (no scrolling). */
export function keyAction(S, key) {
  const room = S.room;
  if (!room) return null;
  const armed = S.armed;
  S.armed = null;
  if (key === "Escape") return ["clear"];
  if (room.role === "spectator" && (key === "[" || key === "]")) {
    const ids = room.racers.map((r) => r.player);
    const at = ids.indexOf(S.focus);
    return ["watch", ids[(at + (key === "]" ? 1 : ids.length - 1)) % ids.length]];
  }
  if (key === "r") return room.phase === "finished" ? ["rematch"] : ["ready"];
  if (key === "R" && room.phase === "racing") {
    if (armed === "R") return ["resign"];
    S.armed = "R";
    return ["say", t("press R again to resign")];
  }
  if (key === "l") {
    if (room.phase !== "racing" || armed === "l") return ["leave"];
    S.armed = "l";
    return ["say", t("press l again to leave (leaving resigns)")];
  }
  if (key === "m") return ["toggleAuto"];
  if (key === "?" && canHint(S)) return ["hint"];
  if (key === "?" && room.role === "racer" && !room.hints) return ["say", t("No hints in this room: it was made without them")];
  if (key === "u") return ["undo"];
  if (!racing(S)) return null;
  const board = S.board;
  const col = "1234567890".indexOf(key);
  const cell = "abcdefgh".indexOf(key);
  if (col >= 0 && col < board.rules.columns) return ["pick", COLUMN, col, S.selected ? null : board.cols[col].length - 1];
  if (cell >= 0 && cell < board.rules.cells) return ["pick", CELL, cell];
  if (key === "#" || key === ".") {
    const sel = S.selected;
    if (sel && sel.area !== FOUNDATION) return ["pick", FOUNDATION, 0];
    if (!board.rules.foundation_takeback) return null;
    const start = sel?.area === FOUNDATION ? sel.index + 1 : 0;
    for (let i = 0; i < 4; i++) {
      const suit = (start + i) % 4;
      if (board.home[suit]) return ["select", { area: FOUNDATION, index: suit, n: 1 }];
    }
    return null;
  }
  if ((key === " " || key === "Enter" || key === "s") && S.selected) return ["pick", S.selected.area, S.selected.index];
  if ((key === "ArrowUp" || key === "ArrowDown") && S.selected?.area === COLUMN) {
    const max = runLength(board, S.selected.index);
    return ["select", { ...S.selected, n: Math.max(1, Math.min(max, S.selected.n + (key === "ArrowUp" ? 1 : -1))) }];
  }
  return null;
}

/** Keys the page takes from the browser (no scrolling, no button press) when they act. */
export const OWN_KEYS = new Set([" ", "Enter", "ArrowUp", "ArrowDown", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
