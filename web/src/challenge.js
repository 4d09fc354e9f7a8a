// Ghost challenges in the race client (docs/protocol.md: challenge, accept_challenge). On the
// results, "Challenge a friend" makes a challenge of my run and shows its link and code; the page
// /c/{ID} shows a challenge (GET /api/v1/challenges/{id}: whose run, its rules, deal and time, the
// races run against it) and races it: the room it opens is raced as any other, the ghost a rival.
// ``app`` is what the race client lends these views (main.js): conn, me, render, toast, name,
// raced, raceChallenge, enterRoom, leave, and their state: `challenges` (the page state's,
// state.js: the challenges made, the /c/ID page, the runs' times read) and `forms` (the page's
// name field, made once).
import { h } from "./dom.js";
import { explain } from "./explain.js";
import { clock, number, t } from "./i18n.js";
import { statusText } from "./state.js";
import { apiGet, raceDoc } from "./records_api.js";
import { presetTitle, raceLink, raceTime, table, when } from "./records_format.js";

// A challenge id: 8 characters of the room codes' alphabet (server/shell/names.py, CODE_ALPHABET).
const LINK = /^\/c\/([0-9A-HJKMNP-TV-Z]{8})$/;

/** The challenge a path names (/c/ID), or null. */
export const challengeOfPath = (path) => LINK.exec(path)?.[1] ?? null;

const GHOST = "ghost-"; // a ghost's player id: this and its challenge's id

// The challenges raced on this device (a result seen): their runs' replays, which show the whole
// winning line, are linked only after that, as a page of a player who has not raced it would spoil it.
const RACED = "seahaven.raced";
const RACED_KEPT = 100;

const racedList = (store) => {
  try {
    const list = JSON.parse(store.getItem(RACED) ?? "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
};

/** Whether ``challenge`` was raced on this device (``store``: its localStorage). */
export const racedHere = (store, challenge) => racedList(store).includes(challenge);

/** Remember that ``challenge`` was raced here (the newest kept). */
export function noteRaced(store, challenge) {
  const list = racedList(store).filter((c) => c !== challenge);
  store.setItem(RACED, JSON.stringify([challenge, ...list].slice(0, RACED_KEPT)));
}

/** The challenge whose ghost races in ``room``, or null: a room of people (and bots). */
export const ghostChallenge = (room) => room.racers.find((r) => r.ghost)?.player.slice(GHOST.length) ?? null;

/** The link to share: the challenge's page on this server. */
export const challengeUrl = (origin, challenge) => `${origin}/c/${challenge}`;

/** How a run ended, from its racer on record: "finished in 3:03.2", "resigned with 30/52 home", "12/52 home when the race ended". */
export function runSummary(racer) {
  if (racer.status === "finished") return t("finished in {time}", { time: raceTime(racer.time_ms) });
  if (racer.status === "racing") return t("{count}/52 home when the race ended", { count: number(racer.progress) });
  return t("{status} with {count}/52 home", { status: statusText(racer.status, true), count: number(racer.progress) });
}

// -- the results: challenge a friend to race my run ------------------------------------------

/** The results' offer to challenge a friend to my run of race ``raceId``. */
export function challengeOffer(app, raceId) {
  const state = app.challenges.made.get(raceId) ?? {};
  if (state.reply) {
    const { challenge } = state.reply;
    const link = challengeUrl(location.origin, challenge);
    const copy = () => navigator.clipboard?.writeText(link).then(() => app.toast(t("challenge link copied")));
    return h(
      "div",
      { class: "challenge-offer", id: "challenge-made" },
      h("p", {}, t("Send this link: whoever opens it races your run on the same deal."), " ", h("a", { href: link, id: "challenge-link", target: "_blank", rel: "noopener" }, link), " ", h("button", { class: "quiet", onclick: copy }, t("Copy"))),
      h("p", { class: "muted" }, t("Or the code, for the terminal client:"), " ", h("span", { class: "code", id: "challenge-code" }, challenge)),
    );
  }
  return h(
    "div",
    { class: "challenge-offer" },
    h("button", { id: "challenge", disabled: Boolean(state.busy), onclick: () => makeChallenge(app, raceId) }, t("Challenge a friend")),
    state.error ? h("p", { class: "error", role: "alert", id: "challenge-error" }, state.error) : null,
  );
}

async function makeChallenge(app, raceId) {
  const { made } = app.challenges;
  made.set(raceId, { busy: true });
  app.render();
  try {
    made.set(raceId, { reply: await app.conn.call("challenge", { race_id: raceId }) });
  } catch (e) {
    made.set(raceId, { error: explain(e) });
  }
  app.render();
}

// -- the page /c/{ID} -------------------------------------------------------------------------

/** The page of ``challenge``: read once from the API, then shown with its "Race it" button. */
export function challengeView(app, challenge) {
  const { page } = app.challenges;
  if (page.challenge !== challenge) {
    Object.assign(page, { challenge, doc: null, run: null, error: null, raceError: null, busy: false });
    load(app, challenge);
  }
  app.forms.challengeName ??= h("input", { id: "name", name: "name", maxlength: 24, required: true, autocomplete: "nickname", value: app.name() });
  const head = h("h2", { id: "challenge-h" }, t("Challenge"), " ", h("span", { class: "code" }, challenge));
  if (page.error) return h("section", { class: "card-panel challenge-page" }, head, h("p", { class: "error", role: "alert", id: "challenge-error" }, page.error), lobbyLink());
  if (!page.doc) return h("section", { class: "card-panel challenge-page" }, head, h("p", { class: "muted" }, t("Loading…")));
  const doc = page.doc;
  const me = app.me?.player;
  const spoilers = app.raced(challenge) || doc.player === me || doc.results.some((r) => r.player === me);
  const madeFrom = t("Their moves come in at the times they played them, a ghost beside you. Made {when}, from race", { when: when(doc.created_at) });
  return h(
    "section",
    { class: "card-panel challenge-page", "aria-labelledby": "challenge-h" },
    head,
    h("p", { id: "challenge-facts" }, t("Race {name}'s run: {rules}, deal #{deal}, {how}.", { name: doc.name, rules: presetTitle(doc.preset), deal: doc.deal, how: page.run ? runSummary(page.run) : t("time {time}", { time: raceTime(doc.time_ms) }) })),
    spoilers
      ? h("p", { class: "muted", id: "challenge-made-from" }, madeFrom, " ", raceLink(doc.race_id), ".")
      : h("p", { class: "muted", id: "challenge-made-from" }, t("Their moves come in at the times they played them, a ghost beside you. Made {when}; the replays are linked here once you have raced it.", { when: when(doc.created_at) })),
    h(
      "form",
      {
        class: "row",
        onsubmit: (e) => {
          e.preventDefault();
          page.busy = true;
          page.raceError = null;
          app.render();
          app.raceChallenge(challenge, app.forms.challengeName.value.trim() || "player");
        },
      },
      h("label", { for: "name" }, t("Your name")),
      app.forms.challengeName,
      h("button", { type: "submit", id: "race-it", disabled: page.busy }, t("Race it")),
    ),
    page.raceError ? h("p", { class: "error", role: "alert", id: "race-error" }, page.raceError) : null,
    h("h3", {}, t("Raced so far")),
    doc.results.length
      ? table(
          [t("Racer"), t("Result"), t("Time"), ""],
          doc.results.map((r) => h("tr", {}, h("td", {}, r.name), h("td", {}, r.place === 1 ? t("beat the ghost") : t("the ghost won")), h("td", {}, raceTime(r.time_ms)), h("td", {}, spoilers ? raceLink(r.race_id, t("replay")) : ""))),
          { class: "challenge-results" },
        )
      : h("p", { class: "muted", id: "no-results" }, t("Nobody has raced it yet: be the first.")),
    lobbyLink(),
  );
}

const lobbyLink = () => h("p", {}, h("a", { href: "/" }, t("To the lobby")));

async function load(app, challenge) {
  const { page } = app.challenges;
  try {
    // Fresh: a race run against it a moment ago is in its results (the API lets a copy live 10 s).
    const doc = await apiGet(`/challenges/${challenge}`, {}, { fresh: true });
    let run = null;
    try {
      run = (await raceDoc(doc.race_id)).racers.find((r) => r.player === doc.player) ?? null;
    } catch {
      // the run's time is shown without how it ended
    }
    if (page.challenge !== challenge) return;
    Object.assign(page, { doc, run });
  } catch (e) {
    if (page.challenge !== challenge) return;
    page.error = e.status === 404 ? explain({ code: "challenge-not-found" }) : explain(e);
  }
  app.render();
}

/** Race the challenge on the open connection: the room it opens replaces the page. Null, or
 * why not in words (also on the challenge's page). */
export async function acceptChallenge(app, challenge) {
  const { page } = app.challenges;
  try {
    app.enterRoom(await app.conn.call("accept_challenge", { challenge }));
    return null;
  } catch (e) {
    Object.assign(page, { raceError: explain(e), busy: false });
    app.render();
    return page.raceError;
  }
}

// -- the results of a race against a ghost -----------------------------------------------------

/** Its run's finishing time (ms; null: it did not finish, or not known yet): the challenge's
 * page read it; after a reload it is read again, and the results shown again once it comes. */
function runTime(app, challenge) {
  const { page, runTimes } = app.challenges;
  if (page.challenge === challenge && page.doc) return page.doc.time_ms ?? null;
  if (!runTimes.has(challenge)) {
    runTimes.set(challenge, null);
    apiGet(`/challenges/${challenge}`).then(
      (doc) => {
        runTimes.set(challenge, doc.time_ms ?? null);
        app.render();
      },
      () => {}, // the margin is not said: the results say the rest
    );
  }
  return runTimes.get(challenge);
}

/** A gap between two times as a racer says it: "35.2 s", past a minute "1:05.3". */
const gap = (ms) => (ms < 60_000 ? t("{secs} s", { secs: number(ms / 1000, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) }) : raceTime(ms));

/** How the race against the ghost went, by how much: "You beat the ghost by 35.2 s"; "The ghost
 * finished in 3:03.2; you had 40/52 home". Null in a room without a ghost, or before the end. */
export function ghostMargin(app, room) {
  const challenge = ghostChallenge(room);
  const standings = room.phase === "finished" ? (room.standings ?? []) : [];
  const me = standings.find((s) => s.player === room.you);
  const ghost = standings.find((s) => s.ghost);
  if (!challenge || !me || !ghost) return null;
  // The ghost's finish: in this race when it got there, else its run's (the race ended first).
  const theirs = ghost.status === "finished" ? ghost.time_ms : runTime(app, challenge);
  if (me.status === "finished") {
    if (theirs === null || theirs === undefined) return t("You beat the ghost.");
    return theirs >= me.time_ms ? t("You beat the ghost by {time}", { time: gap(theirs - me.time_ms) }) : t("The ghost beat you by {time}", { time: gap(me.time_ms - theirs) });
  }
  if (ghost.status === "finished") return t("The ghost finished in {time}; you had {count}/52 home.", { time: clock(ghost.time_ms), count: number(me.progress) });
  return null;
}

/** A ghost never asks for a rematch: racing it again is a new room of its challenge. */
export function raceAgainButton(app, challenge) {
  const again = async () => {
    await app.leave();
    const refused = await acceptChallenge(app, challenge);
    if (refused) app.toast(refused);
  };
  return h("button", { id: "race-again", onclick: again }, t("Race the ghost again"));
}
