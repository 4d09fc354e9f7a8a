// Quick match, the daily race and solo practice's deals (actions.js puts them together). ``act``:
// the room and race actions they go on with (leaveFor, backToLobby, enterWith, ready).
import { dealListDoc } from "./records_api.js";
import { anotherDeal, dealOfCode } from "./solo.js";
import { dealCode } from "./verify.js";

/** Today's deal against the computer, in a room of its own nobody else may join (the pace is the
 * terminal's, and quick match's waiting bot's). */
export const DAILY_BOT_ROOM = { preset: "seahaven", daily: true, bot: "brisk", public: false };

/** {dailyInstead, botInstead, quickMatch, quickReady, newDeal}. */
export function matchActions(app, act) {
  const S = app.S;

  /** Waiting alone for a rival in the daily race: today's deal against the computer (``bot``), or
   * alone (the /solo/ page), out of the waiting room first. */
  async function dailyInstead(bot) {
    const deal = S.room?.deal ?? S.daily?.deal;
    if (bot) return botInstead();
    if (!(await act.leaveFor())) return;
    if (deal) window.location.assign(`/solo/${deal}`);
    else act.backToLobby();
  }

  /** Waiting alone for a quick match's partner (the daily race's too): the computer instead, in a
   * room of our own on the same rules (today's deal for the daily race), its race starting at once
   * (ready by itself, as a quick match's is once paired). */
  async function botInstead() {
    const room = S.room;
    const body = room?.daily ? DAILY_BOT_ROOM : { preset: room?.preset ?? "seahaven", bot: "brisk", public: false };
    if (!(await act.leaveFor())) return;
    S.quick = true;
    S.quickReadied = null;
    await act.enterWith("create_room", body);
    if (!S.room) S.quick = false;
    quickReady();
  }

  /** Quick match (``body``: its preset, or today's daily race): the race starts once paired, with
   * no Ready to press (quickReady). */
  async function quickMatch(body) {
    S.quick = true;
    S.quickReadied = null;
    await act.enterWith("quick_match", body);
    if (!S.room) S.quick = false;
    quickReady();
  }

  /** In a quick match's room with a partner now (they joined mine, or I was moved to theirs): say
   * ready for the player, once a room: the race starts as soon as both are. */
  function quickReady() {
    const room = S.room;
    if (!S.quick || room?.phase !== "waiting" || room.role !== "racer" || room.racers.length < 2 || S.quickReadied === room.room) return;
    const me = room.racers.find((r) => r.player === room.you);
    if (!me) return;
    S.quickReadied = room.room;
    if (me.status !== "ready") act.ready();
  }

  /** Solo practice: another deal of the same rules, one proven winnable where the list is known. */
  async function newDeal() {
    const room = S.room;
    if (!room?.solo) return;
    const current = dealOfCode(room.deal).number;
    let text = null;
    try {
      text = (await dealListDoc(room.preset)).text;
    } catch {
      // no records API here: any deal
    }
    window.location.assign(`/solo/${dealCode(room.preset, anotherDeal(room.preset, current, text))}`);
  }

  return { dailyInstead, botInstead, quickMatch, quickReady, newDeal };
}
