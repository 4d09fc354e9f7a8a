// Picking on the board (actions.js puts them together): a click or key picks a card and plays it
// onto a place, a drag lets it go there, the selection cleared or set, a spectator's board chosen.
// ``act``: the moves they go on with (play).
import { FOUNDATION, COLUMN, CELL, mv } from "./rules.js";
import { cardName, placeName } from "./words.js";
import { t, tn } from "./i18n.js";
import { hasCard, racing, runFrom } from "./state.js";
import { refusedText } from "./board_actions.js";

/** The selection and where it may go, in words: "ten of spades selected: 2 places, cell a, column 4". */
function selectionWords(board, sel) {
  const card = sel.area === COLUMN ? board.cols[sel.index][board.cols[sel.index].length - sel.n] : sel.area === CELL ? board.cells[sel.index] : board.foundationTop(sel.index);
  const to = board.legalMoves().filter((m) => m.sa === sel.area && m.s === sel.index && m.n === sel.n);
  const what = sel.n > 1 ? tn("{card} and {n} below", "{card} and {n} below", sel.n - 1, { card: cardName(card) }) : cardName(card);
  return t("{cards} selected: {places}", { cards: what, places: to.length ? to.map((m) => placeName(m.da, m.d)).join(", ") : t("nowhere to go") });
}

/** {pick, drop, clear, select, watch}. */
export function pickActions(app, act) {
  const S = app.S;

  /** Offline in a race, a move is not played: say so rather than drop it without a word. */
  function offline() {
    const on = S.room?.phase === "racing" && S.room.role === "racer" && S.status !== "online";
    if (on) app.say(t("Offline: the board waits until the connection is back."));
    return on;
  }

  /** Click (or key) on a place: pick the source, or play onto this place. */
  function pick(area, index, depth = null) {
    if (offline() || !racing(S)) return;
    const board = S.board;
    const sel = S.selected;
    if (sel && sel.area === area && sel.index === index) {
      const smart = board.smartMove(area, index);
      if (smart) return act.play(smart);
      app.say(t("that card has nowhere to go"));
      return;
    }
    if (sel) {
      const move = mv(sel.area, sel.index, area, area === FOUNDATION ? 0 : index, sel.n);
      const why = board.reason(move);
      if (why === null || !hasCard(board, area, index)) return act.play(move);
      app.sound?.("refuse");
      app.say(refusedText(move, why)); // then that card is the selection: a click's way to choose again
    }
    if (!hasCard(board, area, index)) return;
    S.selected = { area, index, n: area === COLUMN ? runFrom(board, index, depth) : 1 };
    app.announce?.(selectionWords(board, S.selected));
    app.render();
  }

  /** A drag let go over a place: that move, or the reason it is not one (never a new selection). */
  function drop(from, area, index) {
    if (offline() || !racing(S)) return;
    return act.play(mv(from.area, from.index, area, area === FOUNDATION ? 0 : index, from.n));
  }

  const clear = () => {
    S.selected = null;
    app.render();
  };
  const select = (selection) => {
    S.selected = selection;
    app.render();
  };
  const watch = (player) => {
    S.focus = player;
    app.render();
  };


  return { pick, drop, clear, select, watch };
}
