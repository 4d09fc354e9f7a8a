// /races/{race_id}: a race on record (GET /api/v1/races/{race_id}): its settings and deal, the
// final standings, and a board that steps through any racer's moves, by buttons, the slider,
// the keys (left/right, home/end, space) or played back at the recorded speed; and the race's signed
// record checked in the browser (verify.js), with the command that checks it outside it; and the
// race's analysis, when the server has made it (analysis_view.js: a graph, then the facts in words).
import { renderBoard } from "./board_view.js";
import { dealBoard } from "./dealing.js";
import { h } from "./dom.js";
import { Replay } from "./replay.js";
import { dealListDoc, raceDoc, raceRecord, recordPath, signingKeys } from "./records_api.js";
import { showAnalysis, verdictWords } from "./analysis_view.js";
import { moveText } from "./rules.js";
import { limitTime, playerName, presetTitle, raceTime, table, when } from "./records_format.js";
import { number, t, tn } from "./i18n.js";
import { statusText } from "./state.js";
import { said } from "./marks.js";
import { gradeName } from "./words.js";
import { passed, verify } from "./verify.js";

// Functions, said in the language of the moment.
const REASONS = { won: () => t("a racer put all 52 cards home"), "all-done": () => t("every racer was done"), "time-limit": () => t("time ran out"), abandoned: () => t("everyone left") };
const SPEEDS = [1, 2, 4, 8];

/** Shows race ``raceId`` in ``main``; ``R`` is the page's state (window.seahavenRecords). */
export async function showRace(main, raceId, R) {
  const race = await raceDoc(raceId);
  race.racers = race.racers.map(said); // a bot's name in the page's language
  const query = new URLSearchParams(location.search);
  const opening = dealBoard(race.preset, race.deal);
  const first = race.racers.find((r) => r.player === query.get("racer")) ?? race.racers[0];
  Object.assign(R, { race, opening, racer: null, replay: null, replayError: null, playing: false, speed: 1, timer: null });
  const view = {
    tabs: h("div", { class: "tabs", role: "tablist", "aria-label": t("whose moves") }),
    board: h("div", { id: "replay-board" }),
    text: h("span", { id: "step-text", role: "status" }),
    slider: h("input", { id: "step", type: "range", min: 0, max: 0, value: 0, "aria-label": t("move number"), oninput: (e) => jump(Number(e.target.value)) }),
    play: h("button", { id: "play", onclick: () => toggle() }, t("Play")),
    moves: h("ol", { class: "move-list", "aria-label": t("moves") }),
    analysis: h("section", { class: "card-panel analysis", "aria-labelledby": "analysis-h", hidden: true }),
    served: h("p", { class: "muted", hidden: true }, t("auto: what the server played for the racer (auto-moves, and the undos that took them back); the others are the racer's own.")),
  };
  R.view = view;
  document.title = t("Race {id}", { id: race.race_id }) + " · " + t("Seahaven race");

  const choose = (racer, step = 0) => {
    stop();
    R.racer = racer;
    try {
      R.replay = new Replay(opening, racer.moves, racer.auto ?? []);
      R.replayError = null;
    } catch (e) {
      R.replay = new Replay(opening, []);
      R.replayError = t("{name}'s moves do not replay here: {reason}", { name: racer.name, reason: e.message });
    }
    view.slider.max = R.replay.length;
    // What the server played for the racer (auto-moves, and the undos of them) says so, in words.
    view.moves.replaceChildren(
      ...R.replay.steps.map((step, i) =>
        h(
          "li",
          {},
          h(
            "button",
            { class: `quiet${step.undo ? " undo" : ""}${step.auto ? " served" : ""}`, "data-step": i + 1, onclick: () => jump(i + 1), title: step.auto ? `${raceTime(step.ms)} · ${t("auto-move")}` : raceTime(step.ms) },
            step.text,
            // TRANSLATORS: after a move in a replay's list of moves: the server played it for the racer (auto-move).
            step.auto ? h("span", { class: "by" }, " ", t("auto")) : null,
          ),
        ),
      ),
    );
    view.served.hidden = !R.replay.steps.some((step) => step.auto);
    view.tabs.replaceChildren(
      ...race.racers.map((r) =>
        h("button", { role: "tab", "aria-selected": r === racer ? "true" : "false", onclick: () => choose(r) }, r.name, r.ghost ? ` (${t("ghost")})` : ""), // a bot's name says it is one
      ),
    );
    seek(step);
  };

  const seek = (n) => {
    const { replay, racer } = R;
    const board = replay.seek(n);
    const at = replay.at;
    const step = at ? replay.steps[at - 1] : null;
    const did = step ? [raceTime(step.ms), stepWords(step)] : [t("the deal")];
    // Counted as the standings count: the racer's own moves and undos, not the server's auto-moves.
    const own = (steps) => steps.filter((s) => !s.auto).length;
    const where = t("{name}: move {at} of {count}", { name: racer.name, at: number(own(replay.steps.slice(0, at))), count: number(own(replay.steps)) });
    const judged = verdictWords(R.analysisView?.verdictAt(racer.player, at));
    view.text.textContent = R.replayError ?? [where, ...did, t("{count}/52 home", { count: number(board.progress) }), judged].filter(Boolean).join(" · ");
    R.analysisView?.mark(racer.player, at);
    view.slider.value = String(at);
    view.board.replaceChildren(renderBoard(board, { label: tn("{name}'s board after {n} move", "{name}'s board after {n} moves", at, { name: racer.name }), interactive: false }));
    for (const li of view.moves.children) li.firstChild.classList.toggle("current", Number(li.firstChild.dataset.step) === at);
    // The current move in the middle of the list, which scrolls by itself (never the page).
    const current = view.moves.children[at - 1];
    if (current) view.moves.scrollTop = current.offsetTop - view.moves.offsetTop - view.moves.clientHeight / 2;
    history.replaceState(null, "", `/races/${race.race_id}?racer=${encodeURIComponent(racer.player)}&step=${at}`);
  };

  // Playback: each next action after its recorded wait (divided by the speed chosen).
  const schedule = () => {
    clearTimeout(R.timer);
    const wait = R.replay.delayToNext();
    if (wait === null) return stop();
    R.timer = setTimeout(() => {
      seek(R.replay.at + 1);
      schedule();
    }, wait / R.speed);
  };
  const stop = () => {
    clearTimeout(R.timer);
    R.playing = false;
    view.play.textContent = t("Play");
  };
  const toggle = () => {
    if (R.playing) return stop();
    if (R.replay.at >= R.replay.length) seek(0);
    R.playing = true;
    view.play.textContent = t("Pause");
    schedule();
  };
  /** A step the reader asked for: playback stops there. */
  const jump = (n) => {
    stop();
    seek(n);
  };
  R.onKey = (e) => {
    const moves = { ArrowLeft: R.replay.at - 1, ArrowRight: R.replay.at + 1, Home: 0, End: R.replay.length };
    if (e.key in moves) {
      e.preventDefault();
      jump(moves[e.key]);
    } else if (e.key === " ") {
      e.preventDefault();
      toggle();
    }
  };

  const speed = h(
    "select",
    { id: "speed", "aria-label": t("playback speed"), onchange: (e) => ((R.speed = Number(e.target.value)), R.playing && schedule()) },
    SPEEDS.map((s) => h("option", { value: s }, `${number(s)}×`)),
  );
  const button = (id, label, text, to) => h("button", { id, class: "quiet", "aria-label": label, onclick: () => jump(to()) }, text);
  main.replaceChildren(
    h("div", { class: "records race-page" }, [
      h("section", { class: "card-panel" }, raceHead(race)),
      h("section", { class: "card-panel", "aria-labelledby": "standings-h" }, h("h2", { id: "standings-h" }, t("Standings")), standings(race)),
      view.analysis,
      h(
        "section",
        { class: "card-panel replay", "aria-labelledby": "replay-h" },
        h("h2", { id: "replay-h" }, t("Replay")),
        view.tabs,
        h(
          "div",
          { class: "controls" },
          button("first", t("the deal"), "«", () => 0),
          button("prev", t("previous move"), "‹", () => R.replay.at - 1),
          view.play,
          button("next", t("next move"), "›", () => R.replay.at + 1),
          button("last", t("last move"), "»", () => R.replay.length),
          view.slider,
          speed,
        ),
        view.text,
        view.board,
        h("details", { class: "moves" }, h("summary", {}, t("Every move")), view.moves, view.served),
        h("p", { class: "muted keys" }, t("Keys: ← → a move, Home / End the deal / the last move, space play / pause.")),
      ),
      verifyPanel(race, R),
    ]),
  );
  choose(first, Number(query.get("step")) || 0); // a shared link's step, once
  // A point of the graph (or a fact's button): that racer's move on the board, brought into view.
  const go = (player, step) => {
    const racer = race.racers.find((r) => r.player === player);
    if (!racer) return;
    if (racer === R.racer) jump(step);
    else choose(racer, step);
    view.board.scrollIntoView?.({ block: "nearest" });
  };
  R.onAnalysis = () => seek(R.replay.at); // the step's verdict said, the graph's marker placed
  showAnalysis(view.analysis, race, opening, R, go);
}

/** What a replay's step did, in words: its move, or the move an undo took back; what the server
 * played for the racer (auto-move) says so. */
function stepWords(step) {
  const move = moveText(step.move);
  if (step.undo) return step.auto ? t("undo (took back the auto-move {move})", { move }) : t("undo (took back {move})", { move });
  return step.auto ? t("{move} (auto-move)", { move: step.text }) : step.text;
}

function raceHead(race) {
  const facts = [
    presetTitle(race.preset),
    race.deal_grade ? t("deal #{deal} ({grade})", { deal: race.deal, grade: gradeName(race.deal_grade) }) : t("deal #{deal}", { deal: race.deal }),
    race.chosen ? t("deal chosen by the room's creator") : null,
    race.daily ? t("daily race of {day}", { day: race.daily }) : null,
    race.time_limit_ms ? t("{time} limit", { time: limitTime(race.time_limit_ms) }) : t("no time limit"),
    race.undo ? t("undo on") : t("undo off"),
    race.hints ? t("hints allowed") : t("hints off"),
  ].filter(Boolean);
  const copy = () => navigator.clipboard?.writeText(race.deal_code).then(() => (document.getElementById("copied").textContent = t("copied")));
  return [
    h("h2", {}, t("Race"), " ", h("span", { class: "code", id: "race-id" }, race.race_id), race.archived ? null : h("span", { class: "badge" }, t("not archived yet"))),
    h("p", { class: "muted", id: "race-facts" }, facts.join(" · ")),
    h("p", { class: "muted" }, t("Started {start}; over {end}: {reason}.", { start: when(race.started_at), end: when(race.ended_at), reason: REASONS[race.end_reason]?.() ?? race.end_reason })),
    h(
      "p",
      { class: "deal" },
      t("Deal code"),
      " ",
      h("span", { class: "code", id: "deal-code" }, race.deal_code),
      " ",
      h("button", { class: "quiet", onclick: copy }, t("Copy")),
      h("span", { id: "copied", class: "muted", "aria-live": "polite" }),
      h("span", { class: "muted" }, " · "),
      h("a", { href: `/?deal=${encodeURIComponent(race.deal_code)}`, id: "race-this-deal" }, t("Race this deal")),
      h("span", { class: "muted" }, " ", t("(a new room on it, from the lobby)")),
    ),
  ];
}

function standings(race) {
  const rows = race.racers.map((r) =>
    h(
      "tr",
      {},
      h("td", {}, number(r.place)),
      h("td", {}, playerName(r)),
      h("td", {}, statusText(r.status, true)), // a record is of a race over: "racing" then means did not finish
      h("td", {}, `${number(r.progress)}/${number(52)}`),
      // The racer's own moves left on the board, as the live results count them: an undo takes
      // its move back (both are among the record's own moves); what the server played (auto) is not theirs.
      h("td", {}, number(Math.max(0, r.moves.length - (r.auto?.length ?? 0) - 2 * r.undos))),
      h("td", {}, number(r.undos)),
      h("td", {}, number(r.hints)),
      h("td", {}, raceTime(r.status === "finished" ? r.time_ms : null)), // only a finish has a time
      r.proven ? h("td", { title: t("the server's engine replayed these moves on the deal and they win it") }, t("proven")) : h("td", {}),
    ),
  );
  return table([t("Place"), t("Racer"), t("Status"), t("Home"), t("Moves"), t("Undos"), t("Hints"), t("Time"), ""], rows, { class: "standings" });
}

// -- the signed record, checked here ----------------------------------------------------------

// What each check is called on the page (verify.js names them as seahaven verify does).
const CHECK_NAMES = {
  form: () => t("Record form"),
  signature: () => t("Signature"),
  "published key": () => t("Published key"),
  draw: () => t("Draw of the deal"),
  standings: () => t("Standings"),
};
const STATES = {
  passed: { mark: "✓", word: () => t("passed") },
  failed: { mark: "✗", word: () => t("failed") },
  unchecked: { mark: "–", word: () => t("not checked here") },
};
const stateOf = (check) => (check.ok === true ? "passed" : check.ok === false ? "failed" : "unchecked");

/** The "Verify this race" panel: a button that reads the race's signed record and the server's
 * keys and runs every check (verify.js) in this browser, a list of the checks with their outcome in
 * words, and the verdict in a live region; then the command line that checks the same record
 * elsewhere, and the record itself to download. ``R.verification``: the last outcome. */
function verifyPanel(race, R) {
  const origin = location.origin;
  const page = `${origin}/races/${encodeURIComponent(race.race_id)}`;
  const command = ["seahaven", "verify", page, "--keys", origin].join(" ");
  const checks = h("ol", { id: "verify-checks", class: "checks", "aria-label": t("checks") });
  const verdict = h("p", { id: "verify-verdict", class: "verdict", role: "status", "aria-live": "polite" });
  const button = h("button", { id: "verify", onclick: () => run() }, t("Verify this race"));
  const racerName = (player) => race.racers.find((r) => r.player === player)?.name ?? player;
  const label = (check) => (check.name.startsWith("racer ") ? t("Racer {name}", { name: racerName(check.player) }) : (CHECK_NAMES[check.name]?.() ?? check.name));
  const conclude = (state, text) => {
    verdict.dataset.verdict = state;
    verdict.textContent = text;
  };

  const run = async () => {
    button.disabled = true;
    checks.replaceChildren();
    conclude("checking", t("Checking…"));
    try {
      let signed;
      try {
        signed = await raceRecord(race.race_id);
      } catch (e) {
        R.verification = { error: e.status ?? 0 };
        if (e.status === 404 && race.archived) return conclude("missing", t("This race was filed before the server signed its races: it has no signed record."));
        if (e.status === 404) return conclude("missing", t("This race is not on record yet: the server signs a race when it files it, a moment after it ends. Try again shortly."));
        if (e.status === 429 || e.status === 503) {
          const wait = e.retryAfter ?? 5;
          return conclude("busy", tn("The server is busy: try again in {n} second.", "The server is busy: try again in {n} seconds.", wait));
        }
        return conclude("error", t("The signed record could not be read: {reason}", { reason: e.message }));
      }
      let keys = null;
      let keysError = null;
      try {
        keys = (await signingKeys()).keys;
        if (!Array.isArray(keys)) throw new Error(t("not a list of keys"));
      } catch (e) {
        keys = null;
        keysError = t("the server's published keys could not be read: {reason}", { reason: e.message });
      }
      const outcome = await verify(signed, { keys, keysError, dealList: async (preset) => (await dealListDoc(preset)).text });
      checks.replaceChildren(
        ...outcome.map((check) => {
          const state = stateOf(check);
          return h(
            "li",
            { class: `check ${state}`, "data-check": check.name, "data-state": state },
            h("span", { class: "mark", "aria-hidden": "true" }, STATES[state].mark),
            h("span", { class: "what" }, h("strong", {}, label(check)), " ", h("span", { class: "state" }, STATES[state].word())),
            h("span", { class: "why" }, check.detail),
          );
        }),
      );
      const ok = passed(outcome);
      const failed = outcome.filter((c) => c.ok === false).length;
      const left = outcome.filter((c) => c.ok === null).length;
      R.verification = { checks: outcome, passed: ok };
      if (!ok) conclude("not-verified", tn("Not verified: {n} check failed.", "Not verified: {n} checks failed.", failed));
      else if (left) conclude("verified", tn("Verified: every check passed but {n}, not checked here (why below).", "Verified: every check passed but {n}, not checked here (why below).", left));
      else conclude("verified", t("Verified: every check passed."));
    } finally {
      button.disabled = false;
    }
  };

  const copy = () => navigator.clipboard?.writeText(command).then(() => (document.getElementById("command-copied").textContent = t("copied")));
  return h(
    "section",
    { class: "card-panel verify", "aria-labelledby": "verify-h" },
    h("h2", { id: "verify-h" }, t("Verify this race")),
    h("p", { class: "muted" }, t("The server signed this race's record: the deal and how it was drawn, every move with its time, the standings. Your browser can check the signature and replay every move by the rules.")),
    h("p", {}, button),
    verdict,
    checks,
    h("p", { class: "muted" }, t("Or check it with the seahaven package, on a computer of your own:")),
    h("p", { class: "command" }, h("code", { id: "verify-command" }, command), " ", h("button", { class: "quiet", onclick: copy }, t("Copy")), h("span", { id: "command-copied", class: "muted", "aria-live": "polite" })),
    h("p", {}, h("a", { href: `/api/v1${recordPath(race.race_id)}`, id: "record-link", download: `race-${race.race_id}.json` }, t("Download the signed record (JSON)"))),
  );
}
