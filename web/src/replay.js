// One racer's recorded actions, stepped through on a board: the race record lists each move
// (docs/notation.md) or "undo" with its time from the start, in the order the server applied them,
// and marks those the server played for the racer (``auto``: auto-moves, and the undos of them).
import { parseMove } from "./rules.js";

export class Replay {
  /** ``opening``: the deal's Board (left as it is); ``actions``: [ms, move or "undo"] pairs;
   * ``auto``: the indices of the actions the server played (each step's ``auto``). Throws, naming
   * the step, when an action does not apply (the record and these rules disagree). */
  constructor(opening, actions, auto = []) {
    this.board = opening.copy();
    this.at = 0;
    // Each step keeps its move: the one played, or for an undo the one taken back, so that
    // stepping back over an undo plays that move again.
    this.steps = [];
    const served = new Set(auto);
    const probe = opening.copy();
    actions.forEach(([ms, text], i) => {
      const where = `step ${i + 1} (${text})`;
      const byServer = served.has(i);
      if (text === "undo") {
        const move = probe.pop();
        if (move === null) throw new Error(`${where}: there is no move to take back`);
        this.steps.push({ ms, text, undo: true, move, auto: byServer });
        return;
      }
      let move;
      try {
        move = parseMove(text);
        probe.push(move);
      } catch (e) {
        throw new Error(`${where}: ${e.message}`);
      }
      this.steps.push({ ms, text, undo: false, move, auto: byServer });
    });
  }

  get length() {
    return this.steps.length;
  }

  /** The board after the first ``n`` actions (clamped to 0..length): the one board, moved there. */
  seek(n) {
    const to = Math.max(0, Math.min(this.steps.length, Math.trunc(n)));
    while (this.at < to) {
      const step = this.steps[this.at++];
      if (step.undo) this.board.pop();
      else this.board.push(step.move);
    }
    while (this.at > to) {
      const step = this.steps[--this.at];
      if (step.undo) this.board.push(step.move);
      else this.board.pop();
    }
    return this.board;
  }

  /** The race time (ms from the start) of the board after ``n`` actions: 0 for the opening. */
  timeAt(n) {
    return n <= 0 ? 0 : this.steps[Math.min(n, this.steps.length) - 1].ms;
  }

  /** How long playback at recorded speed waits before the next action; null at the end. */
  delayToNext() {
    if (this.at >= this.steps.length) return null;
    return Math.max(0, this.steps[this.at].ms - this.timeAt(this.at));
  }
}
