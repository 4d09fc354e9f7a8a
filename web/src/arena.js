// Arenas (docs/arenas.md, docs/protocol.md section 23): the arena lobby (a new arena with its rules
// and minutes, or join one by its code or its link /a/CODE), the live standings while it runs
// (beside each race: the server seats me in the next race by itself, a `room` the app enters), and
// the podium at its end. The app (main.js) passes `hooks` (conn, me, arena, render, toast) and sends
// the `arena` and `podium` events here. The arena I am in is the state's (state.js, `S.arena`: the
// hooks' `arena`).
import { h } from "./dom.js";
import { clock, number, ordinal, t, tn } from "./i18n.js";
import { presetTitle } from "./records_format.js";
import { gradeName } from "./words.js";
import { explain } from "./explain.js";
import { PRESETS } from "./rules.js";

export const ARENA_MINUTES = [5, 180];

/** The arena a /a/CODE link names (read like a room code: case does not matter), or null. */
export function arenaOfPath(pathname) {
  const m = /^\/a\/([0-9A-Za-z]{4,12})$/.exec(pathname);
  return m ? m[1].toUpperCase() : null;
}

/** An `arena` or `podium` event (or reply), kept in ``A`` (the state's `arena`): true when it was one. */
export function onArenaMessage(A, type, body) {
  if (type === "arena") {
    if (A.arena && A.arena.arena !== body.arena) A.podium = null;
    A.arena = body;
  } else if (type === "podium") {
    if (A.arena?.arena === body.arena) A.arena = { ...A.arena, phase: "finished" };
    A.podium = body;
  } else {
    return false;
  }
  return true;
}

/** Wins in a row as fire: from 2 on the next race's points count double. */
export const streakText = (streak) => (streak >= 2 ? `🔥${streak}` : streak === 1 ? "1" : "");

/** The standings' rows as shown: mine marked. */
export function standingRows(arena, me) {
  return (arena?.standings ?? []).map((s) => ({
    rank: s.rank,
    name: (s.player === me ? t("{name} (you)", { name: s.name }) : s.name) + (s.active ? "" : " " + t("(left)")),
    points: s.points,
    wins: s.wins,
    races: s.races,
    streak: streakText(s.streak),
    me: s.player === me,
  }));
}

/** "m:ss" of a span in ms (never below zero). */
export const clockText = (ms) => clock(ms);

/** What the arena's clock says at server time ``now``. */
export function arenaClock(arena, now) {
  if (!arena) return "";
  if (arena.phase === "finished" || now >= arena.ends_at) return t("The arena is over");
  if (now < arena.starts_at) return t("Starts in {time}", { time: clockText(arena.starts_at - now) });
  return t("{time} left", { time: clockText(arena.ends_at - now) });
}

/** My place in words: "You are 2nd of 4 · 3 points". */
export function myPlace(arena, me) {
  const mine = arena?.standings.find((s) => s.player === me);
  if (!mine) return "";
  const place = t("You are {place} of {count}", { place: ordinal(mine.rank), count: number(arena.standings.length) });
  return place + " · " + tn("{n} point", "{n} points", mine.points);
}

// -- requests --------------------------------------------------------------------------------

async function ask(hooks, type, body) {
  const A = hooks.arena;
  if (A.busy) return;
  A.busy = true;
  try {
    onArenaMessage(A, "arena", await hooks.conn.call(type, body));
    // From the lobby the address is the arena's, to share or reload (a room's page keeps its own).
    if (location.pathname === "/") history.replaceState(null, "", A.arena.link_path);
  } catch (e) {
    hooks.toast(explain(e));
  } finally {
    A.busy = false;
  }
  hooks.render();
}

export const joinArena = (hooks, code) => ask(hooks, "join_arena", { arena: code });
export const createArena = (hooks, preset, minutes) => ask(hooks, "create_arena", { preset, minutes });

async function leaveArena(hooks) {
  const A = hooks.arena;
  const code = A.arena?.arena;
  if (!code) return;
  if (A.arena.phase !== "finished") {
    try {
      await hooks.conn.call("leave_arena", { arena: code });
    } catch (e) {
      hooks.toast(explain(e));
    }
  }
  A.arena = null;
  A.podium = null;
  if (location.pathname.startsWith("/a/")) history.replaceState(null, "", "/");
  hooks.render();
}

// -- views -----------------------------------------------------------------------------------

function standingsTable(arena, me) {
  return h(
    "table",
    { class: "rooms arena-standings", id: "arena-standings", "aria-label": t("arena standings") },
    h("thead", {}, h("tr", {}, ...["#", t("Player"), t("Points"), t("Wins"), t("Races"), t("Streak")].map((head) => h("th", {}, head)))),
    h(
      "tbody",
      {},
      standingRows(arena, me).map((r) =>
        h("tr", { class: r.me ? "me" : "" }, h("td", {}, number(r.rank)), h("td", { class: "who" }, r.name), h("td", {}, number(r.points)), h("td", {}, number(r.wins)), h("td", {}, number(r.races)), h("td", { class: "streak" }, r.streak)),
      ),
    ),
  );
}

function podiumView(podium, me) {
  const medals = ["🥇", "🥈", "🥉"];
  return h(
    "ol",
    { class: "podium", id: "podium", "aria-label": t("podium") },
    podium.podium.map((s, i) => {
      // Said apart: the extractor does not see a message inside another's arguments.
      const name = s.player === me ? t("{name} (you)", { name: s.name }) : s.name;
      const points = tn("{n} point", "{n} points", s.points);
      const wins = tn("{n} win", "{n} wins", s.wins);
      return h("li", { class: s.player === me ? "me" : "" }, t("{medal} {name} · {points} · {wins}", { medal: medals[i] ?? "", name, points, wins }).trim());
    }),
  );
}

/** The arena I am in: its clock, link, standings (me highlighted), podium, and leaving it; null when
 * in none. ``inRoom``: shown beside a race (compact: no link). */
export function arenaPanel(hooks, inRoom = false) {
  const A = hooks.arena;
  const arena = A.arena;
  if (!arena) return null;
  const me = hooks.me?.player;
  const link = `${location.origin}${arena.link_path}`;
  const title = presetTitle(arena.preset);
  // Out of the pairing (raced elsewhere when paired, or left): said, with the way back in.
  const out = arena.phase === "running" && arena.standings.some((s) => s.player === me && !s.active);
  const waiting = out
    ? h("p", { id: "arena-out" }, t("You are out of the pairing: no race is made for you."), " ", h("button", { id: "arena-rejoin", onclick: () => joinArena(hooks, arena.arena) }, t("Race in the arena again")))
    : !inRoom && arena.phase === "running"
      ? h("p", { class: "muted", id: "arena-wait" }, t("Waiting for the next race: the server seats you as soon as another player is free."))
      : null;
  return h(
    "section",
    { class: `card-panel arena phase-${arena.phase}`, "aria-labelledby": "arena-h", id: "arena", "data-in-room": inRoom },
    h("h2", { id: "arena-h" }, t("Arena"), " ", h("span", { class: "code" }, arena.arena)),
    h("p", { class: "muted" }, title + (arena.deal_grade ? " · " + t("{grade} deals", { grade: gradeName(arena.deal_grade) }) : "") + " · ", h("span", { id: "arena-clock" }, arenaClock(arena, hooks.conn?.now() ?? Date.now())), " · ", h("span", { id: "arena-place" }, myPlace(arena, me))),
    inRoom ? null : h("p", {}, t("Share this link:"), " ", h("a", { href: link, id: "arena-link" }, link), " ", h("button", { class: "quiet", id: "copy-arena-link", onclick: () => navigator.clipboard?.writeText(link).then(() => hooks.toast(t("link copied"))) }, t("Copy"))),
    A.podium ? h("h3", {}, t("Podium")) : null,
    A.podium ? podiumView(A.podium, me) : null,
    waiting,
    standingsTable(arena, me),
    h("button", { class: "quiet", id: "leave-arena", onclick: () => leaveArena(hooks) }, arena.phase === "finished" ? t("Close the arena") : t("Leave the arena")),
  );
}

/** The lobby's arena section: the arena I am in, else a new one and joining one by its code. */
export function arenaLobby(hooks) {
  const A = hooks.arena;
  if (A.arena) return arenaPanel(hooks);
  const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);
  const F = A.form;
  const code = h("input", { id: "arena-code", maxlength: 12, placeholder: t("e.g. {code}", { code: "7KQ2M9" }), autocomplete: "off", "aria-label": t("arena code"), value: F.code, oninput: (e) => (F.code = e.target.value) });
  const preset = h(
    "select",
    { id: "arena-preset", "aria-label": t("arena rules"), onchange: (e) => (F.preset = e.target.value) },
    Object.values(PRESETS).map((p) => h("option", { value: p.name, selected: p.name === F.preset }, presetTitle(p.name))),
  );
  const minutes = h("input", { id: "arena-minutes", type: "number", min: ARENA_MINUTES[0], max: ARENA_MINUTES[1], value: F.minutes, "aria-label": t("arena minutes"), oninput: (e) => (F.minutes = e.target.value) });
  return h(
    "section",
    { class: "card-panel", "aria-labelledby": "arena-lobby-h", id: "arena-lobby" },
    h("h2", { id: "arena-lobby-h" }, t("Arena")),
    h("p", { class: "muted" }, t("A timed event: race after race against the players nearest you in the standings.")),
    h(
      "form",
      {
        class: "row",
        onsubmit: (e) => {
          e.preventDefault();
          if (code.value.trim()) joinArena(hooks, code.value.trim());
        },
      },
      code,
      h("button", { type: "submit", id: "join-arena" }, t("Join arena")),
    ),
    h(
      "form",
      {
        class: "row",
        onsubmit: (e) => {
          e.preventDefault();
          const m = Math.min(ARENA_MINUTES[1], Math.max(ARENA_MINUTES[0], Number(minutes.value) || 30));
          createArena(hooks, preset.value, m);
        },
      },
      field(t("Rules"), preset),
      field(t("Minutes"), minutes),
      h("button", { type: "submit", id: "create-arena" }, t("New arena")),
    ),
  );
}

/** Show the arena's news: beside a race, its panel alone is replaced (a rebuild of the whole view
 * mid-race would drop a card being dragged); anywhere else the view is rebuilt. */
export function showArena(hooks) {
  const A = hooks.arena;
  const panel = document.getElementById("arena");
  if (panel && "inRoom" in panel.dataset && A.arena) panel.replaceWith(arenaPanel(hooks, true));
  else hooks.render();
}

/** The arena's clock, every half second, without rebuilding the view. */
export function tickArena(hooks) {
  const A = hooks.arena;
  const clock = document.getElementById("arena-clock");
  if (clock && A.arena) clock.textContent = arenaClock(A.arena, hooks.conn?.now() ?? Date.now());
}
