// The moves on the board (actions.js puts them together): played at once on the local board and
// rolled back if the server refuses them. With auto-move on (and allowed by the room), a move brings
// its auto-moves at once (rules.js autoMove, the server's rule) and asks the server to play the same
// (`move.auto`): one request, checked against the reply's `auto`; an undo takes the group back.
import { FOUNDATION, moveText } from "./rules.js";
import { moveWords, reasonWords, withSymbols } from "./words.js";
import { refusal } from "./explain.js";
import { language, t } from "./i18n.js";
import { autoOn, racing, settled, canUndo } from "./state.js";

/** Why ``move`` is refused, in the player's language: the rules port's reason is the engine's
 * English; other languages say the move and the refusal code's words. */
export const refusedText = (move, why) =>
  language() === "en" ? withSymbols(why) : (reasonWords(why) ?? t("{move} refused: {reason}", { move: moveText(move), reason: refusal({ code: "illegal-move", message: why }) }));

/** The server played the auto-moves played here (a move's `moved.auto`; an undo's `undone`). */
export function sameAuto(action, reply) {
  if (action.undo) return (reply.undone ?? 1) === action.auto.length + 1;
  const theirs = reply.auto ?? [];
  return theirs.length === action.auto.length && action.auto.every((m, i) => moveText(m) === theirs[i]);
}

/** The moves: {play, undo, resync, autoNow}. */
export function boardActions(app) {
  const S = app.S;

  async function play(move) {
    S.selected = null;
    if (!racing(S)) return app.render();
    const why = S.board.reason(move);
    if (why !== null) {
      app.sound?.("refuse");
      app.say(refusedText(move, why));
      return app.render();
    }
    const words = moveWords(S.board, move);
    // A card taken off a foundation asks for no auto-move: it would go straight back.
    const auto = autoOn(S) && move.sa !== FOUNDATION;
    S.board.push(move);
    app.sound?.("place");
    const played = [];
    for (let next = auto ? S.board.autoMove() : null; next; next = S.board.autoMove()) {
      S.board.push(next);
      played.push(next);
    }
    S.groups.push(played.length);
    S.hint = null;
    app.announce?.(t("played {move}: {count} of 52 home", { move: words, count: S.board.progress }));
    await settle({ move, undo: false, auto: played }, "move", auto ? { move: moveText(move), auto: true } : { move: moveText(move) });
  }

  async function undo() {
    S.selected = null;
    if (!canUndo(S)) return app.render();
    if (!S.groups.length) {
      app.say(t("nothing to undo")); // the opening's safe cards are nobody's move
      return app.render();
    }
    // My last move and the auto-moves after it, those first.
    const taken = [];
    for (let n = S.groups.pop(); n > 0; n--) taken.unshift(S.board.pop());
    const move = S.board.pop();
    S.undos++;
    S.hint = null;
    await settle({ move, undo: true, auto: taken }, "undo", {});
  }

  /** Send an action already shown; roll it (and every later one) back if the server refuses it.
   * The server's auto-moves must be the ones played here: if not, the room state is fetched again. */
  async function settle(action, type, body) {
    S.pending.push(action);
    app.render();
    const gen = S.gen;
    try {
      const reply = await S.conn.call(type, body);
      if (gen !== S.gen) return;
      const at = S.pending.indexOf(action);
      if (at >= 0) S.pending.splice(at, 1);
      settled(S, reply);
      // Not pending any more: rolled back here with an earlier refused action, yet played there.
      if (at < 0 || !sameAuto(action, reply)) resync(t("The board is out of step with the server: catching up…"));
    } catch (e) {
      if (gen !== S.gen) return;
      const at = S.pending.indexOf(action);
      if (at < 0) return app.render(); // rolled back already, with an earlier refused action
      for (const later of S.pending.splice(at).reverse()) {
        if (later.undo) {
          S.board.push(later.move);
          for (const m of later.auto) S.board.push(m);
          S.groups.push(later.auto.length);
          S.undos--;
        } else {
          for (let i = 0; i <= later.auto.length; i++) S.board.pop();
          S.groups.pop();
        }
      }
      const what = type === "undo" ? t("undo") : moveText(action.move);
      if (e.code === "offline") app.say(t("{move} not played: the connection was lost", { move: what }));
      else {
        app.sound?.("refuse");
        app.say(t("{move} refused: {reason}", { move: what, reason: refusal(e) }));
      }
    }
    app.render();
  }

  /** The board fell out of step with the server's: fetch the room state again, as after a dropped
   * connection (net.js comes back by itself; the room frame that follows its welcome rebuilds the
   * board, a spectator joins again). Replies to what was sent before are ignored from now. */
  function resync(why) {
    S.resync = null;
    if (!S.conn?.online) return; // coming back already: the room state follows
    S.gen++;
    S.pending = [];
    app.say(why);
    S.conn.drop();
  }

  /** Auto-move turned on mid-race, or a race whose opening the server was not asked to play (an
   * arena's, whose racers are seated ready): the safe cards waiting now go home, the first as a
   * move of mine and the rest as its auto-moves: one request. */
  function autoNow() {
    if (!autoOn(S) || !racing(S) || S.pending.length) return;
    const next = S.board.autoMove();
    if (next) play(next);
  }

  return { play, undo, resync, autoNow };
}
