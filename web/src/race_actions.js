// A racer's requests around the race (actions.js puts them together): ready, resign, rematch, a
// hint, auto-move's switch. ``act``: the actions they go on with (request, autoNow).
import { hintWords } from "./words.js";
import { t } from "./i18n.js";
import { autoAllowed, autoOn, canHint, lostText } from "./state.js";

/** 128 random bits in hex: a racer's seed for a drawn room's deal (the server counts them in the draw). */
function randomSeed() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** {started, ready, resign, rematch, hint, toggleAuto, say}. */
export function raceActions(app, act) {
  const S = app.S;

  /** The race started: the server plays the opening's safe cards if asked (ready.auto), else here. */
  function started() {
    const server = S.autoAsked === S.room?.room;
    if (!server) act.autoNow();
  }

  async function ready() {
    const room = S.room;
    if (room.role !== "racer" || (room.phase !== "waiting" && room.phase !== "countdown")) return;
    const me = room.racers.find((r) => r.player === room.you);
    const wanted = me?.status !== "ready";
    // Our share of a drawn room's deal (docs/fairness.md): fresh random bits with every ready;
    // with auto-move on, the server plays the opening's safe cards at the start.
    const auto = wanted && autoOn(S);
    const body = wanted ? { ready: true, seed: randomSeed(), ...(auto ? { auto: true } : {}) } : { ready: false };
    if ((await act.request("ready", body)) !== null) asked(auto);
  }

  async function resign() {
    await act.request("resign");
  }

  async function rematch() {
    if (S.room.role !== "racer") return;
    const auto = autoOn(S);
    if ((await act.request("rematch", { seed: randomSeed(), ...(auto ? { auto: true } : {}) })) !== null) asked(auto);
  }

  /** Whether the server plays this room's next opening for me, kept for a reload meanwhile. */
  function asked(auto) {
    S.autoAsked = auto ? S.room.room : null;
    app.keepAsked?.(S.autoAsked);
  }

  /** Ask the server for a hint (rooms with hints: the standings count it). */
  async function hint() {
    if (!canHint(S)) return;
    const advice = await act.request("hint");
    if (!advice) return;
    if (advice.kind === "hint") {
      S.hint = advice.move;
      app.say(t("Hint: {move}", { move: hintWords(S.board, advice.move) }));
    } else if (advice.kind === "lost") {
      S.lost = true;
      app.say(lostText(S.room.undo));
    } else if (advice.kind === "won") {
      app.say(t("The board is won already."));
    } else {
      app.say(t("No hint found in time: ask again in a moment."));
    }
    app.render();
  }

  /** Auto-move on or off (kept in this browser); on mid-race, the safe cards waiting go home now. */
  function toggleAuto() {
    if (S.room && !autoAllowed(S)) {
      app.say(t("No auto-move in this room: every card by hand"));
      return app.render();
    }
    S.autoMove = !S.autoMove;
    app.keepAuto(S.autoMove);
    app.say(S.autoMove ? t("auto-move to the foundations on") : t("auto-move to the foundations off"));
    app.render();
    act.autoNow();
  }

  const say = (text) => app.say(text);

  return { started, ready, resign, rematch, hint, toggleAuto, say };
}
