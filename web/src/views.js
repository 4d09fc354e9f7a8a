// The views: the state (state.js) in, elements out, wired to the actions (actions.js). Each view
// is cut into parts with a key saying what they show (patch.js): a part whose key did not change
// is kept as it is, so a refresh never wipes what is being typed nor moves the focus.
import { renderBoard } from "./board_view.js";
import { PRESETS } from "./rules.js";
import { h } from "./dom.js";
import { accountView } from "./account.js";
import { challengeOffer, challengeView, ghostChallenge, ghostMargin, raceAgainButton } from "./challenge.js";
import { racerMarks } from "./marks.js";
import { arenaLobby, arenaPanel, joinArena } from "./arena.js";
import { ratingBadge } from "./ratings_view.js";
import { limitTime, presetTitle } from "./records_format.js";
import { gradeName, hintMove, hintWords } from "./words.js";
import { KEYS_HELP } from "./keys.js";
import { yoursKey, yoursPanel } from "./yours.js";
import { addRivals, againKey, againOffer, friendsKey, friendsPanel, knownKey, sentKey, sentList } from "./friends.js";
import { LANGUAGES, clock, day, language, number, rulesHelp, t, tn } from "./i18n.js";
import { DAILY_BOT_ROOM } from "./actions.js";
import { autoAllowed, autoOn, boardMoves, canHint, canUndo, destinations, inRace, myCounts, ratingText, resultLine, standingTime, statusText } from "./state.js";

export function formatTime(ms) {
  if (ms === null || ms === undefined) return "–";
  return clock(ms);
}

function presetOptions(selected) {
  return Object.values(PRESETS).map((p) => h("option", { value: p.name, selected: p.name === selected }, t(p.title)));
}

/** The parts of the page now, each [key, build]: the header, the view's parts, the keys' help.
 * ``frame``: the render's number; the account panel and a challenge's page (account.js,
 * challenge.js; their fields made once) are keyed by it, rebuilt at every render as they expect. */
export function pageParts(app, frame) {
  const { S } = app;
  const head = [`head:${S.status}:${S.statusDetail}:${S.me?.name}:${S.view}`, () => header(app)];
  const views = {
    name: () => [["name", () => nameView(app)]],
    account: () => [[`account:${frame}`, () => accountView(app.hooks)]],
    challenge: () => [[`challenge:${frame}`, () => challengeView(app.hooks, S.challenge)]],
    lobby: () => lobbyParts(app),
  };
  const body = S.view === "room" && S.room ? roomParts(app) : (views[S.view] ?? views.lobby)();
  // My friends beside my waiting room too, to invite them into it (a part of its own: presence never rebuilds the room).
  const friends = S.view === "room" && S.room?.phase === "waiting" && S.room.role === "racer" ? [[`friends:${friendsKey(S)}`, () => friendsPanel(app)]] : [];
  return [head, ...body, ...friends, ...(S.view === "room" && S.room ? [[`help:${S.room.preset}`, () => helpView(S.room.preset)]] : [])];
}

function header(app) {
  const { S } = app;
  const online = S.status === "online";
  const takeBack = () => {
    S.conn.stopped = false;
    S.conn.open();
  };
  return h(
    "header",
    { class: "bar" },
    h("h1", {}, t("Seahaven race")),
    // The status line is cut to the header's width (style.css); all of it is in its title.
    S.conn ? h("span", { class: `net ${S.status}`, role: "status", title: S.statusDetail || null }, online ? `${S.me?.name ?? ""}` : S.statusDetail || connectionName(S.status)) : null,
    // Closed for good (another tab took the session over): only the player may take it back.
    S.status === "closed" && S.view !== "name" ? h("button", { class: "quiet", onclick: takeBack }, t("Play here")) : null,
    S.view === "lobby" ? h("button", { class: "quiet", onclick: app.rename }, t("Change name")) : null,
    S.view === "lobby" ? h("button", { class: "quiet", id: "account", onclick: () => app.hooks.show("account") }, t("Account")) : null,
    h(
      "label",
      { class: "four" },
      h("input", { type: "checkbox", checked: document.body.classList.contains("four-colour"), onchange: (e) => app.fourColour(e.target.checked) }),
      " ",
      h("span", { class: "four-words" }, t("four-colour deck")),
      h("span", { class: "four-suits", "aria-hidden": "true" }, "♣♦"), // a phone's bar has room for the suits only
    ),
    // Off unless turned on here (sound.js), and the switch says so. On a phone, in the lobby only:
    // a room's header keeps to two lines there (style.css).
    h(
      "label",
      { class: S.view === "lobby" ? "sound" : "sound in-room", title: t("Short sounds for a card placed, a refused move and a win: off unless you turn them on.") },
      h("input", { type: "checkbox", id: "sound", checked: app.soundOn?.() ?? false, onchange: (e) => app.setSound(e.target.checked) }),
      " ",
      h("span", { class: "sound-words" }, t("sounds")),
      h("span", { class: "sound-icon", "aria-hidden": "true" }, "♪"),
    ),
    languageSwitch(app),
  );
}

/** The language switcher: the languages each in its own words; the choice is remembered (main.js). */
function languageSwitch(app) {
  return h(
    "select",
    { id: "lang", class: "lang", "aria-label": t("Language"), onchange: (e) => app.speak(e.target.value) },
    LANGUAGES.map(([code, name]) => h("option", { value: code, lang: code, selected: code === language() }, name)),
  );
}

function nameView(app) {
  const { S } = app;
  const input = h("input", { id: "name", name: "name", maxlength: 24, required: true, autocomplete: "nickname", value: app.storedName() });
  return h(
    "form",
    {
      class: "card-panel name-form",
      onsubmit: (e) => {
        e.preventDefault();
        app.named(input.value);
      },
    },
    h("h2", {}, S.wanted?.code ? S.wanted.watch ? t("Watch race {code}", { code: S.wanted.code }) : t("Join race {code}", { code: S.wanted.code }) : t("Race a friend at Seahaven Towers")),
    h("label", { for: "name" }, t("Your name")),
    input,
    h("button", { type: "submit" }, t("Continue")),
    // A player of this server already (another browser, a phone): sign in here instead of becoming a new one.
    h("button", { type: "button", class: "quiet", id: "sign-in-first", onclick: () => app.signInFirst(input.value) }, t("I have a player here: sign in")),
  );
}

function lobbyParts(app) {
  const { S } = app;
  const inner = [
    ["lobby-create", () => createForm(app)],
    ["lobby-join", () => joinPanel(app)],
    [`lobby-daily:${JSON.stringify(S.daily)}`, () => dailyPanel(app)],
    // My page, the boards and my recent rivals (yours.js): beside the main actions, never above them.
    [`lobby-yours:${yoursKey(S)}`, () => yoursPanel(app)],
    [`lobby-rooms:${JSON.stringify(S.rooms)}`, () => roomsPanel(app)],
  ];
  // The arena I am in comes first; else the arena panel (create or join one) after the daily race.
  const arena = [`lobby-arena:${arenaKey(S)}`, () => arenaLobby(app.hooks)];
  if (S.arena.arena) inner.unshift(arena);
  else inner.splice(4, 0, arena, [`lobby-arenas:${JSON.stringify(S.arenas)}`, () => arenasPanel(app)]);
  if (S.seat) inner.unshift([`lobby-seat:${S.seat}`, () => seatPanel(app)]);
  // My friends and what they are doing (friends.js): a side panel on a desktop, in the page on a phone.
  inner.push([`lobby-friends:${friendsKey(S)}`, () => friendsPanel(app)]);
  return [["lobby", () => h("div", { class: "lobby" }), inner]];
}

/** The arenas running now and about to start, to join from the lobby (none: nothing shown). */
function arenasPanel(app) {
  const { S } = app;
  if (!S.arenas?.length) return h("span", { hidden: true });
  const now = S.conn?.now?.() ?? Date.now();
  const minutes = (ms) => Math.max(1, Math.ceil(ms / 60_000));
  const rows = S.arenas.map((a) =>
    h(
      "tr",
      {},
      h("td", { class: "code", "data-label": t("Arena") }, a.name ? `${a.name} · ${a.code}` : a.code),
      h("td", { "data-label": t("Rules") }, presetTitle(a.preset), a.deal_grade ? ` · ${gradeName(a.deal_grade)}` : ""),
      h("td", { "data-label": t("Players") }, number(a.player_count)),
      h(
        "td",
        { "data-label": t("Time") },
        a.phase === "running" ? tn("{n} minute left", "{n} minutes left", minutes(a.ends_at - now)) : tn("starts in {n} minute", "starts in {n} minutes", minutes(a.starts_at - now)),
      ),
      h("td", { class: "go" }, h("button", { onclick: () => joinArena(app.hooks, a.code), "aria-label": t("join arena {code}", { code: a.code }) }, t("Join"))),
    ),
  );
  return h(
    "section",
    { class: "card-panel arenas-panel", "aria-labelledby": "live-arenas-h", id: "live-arenas" },
    h("h2", { id: "live-arenas-h" }, t("Live arenas")),
    h(
      "table",
      { class: "rooms" },
      h("thead", {}, h("tr", {}, ...[t("Arena"), t("Rules"), t("Players"), t("Time"), ""].map((head) => h("th", {}, head)))),
      h("tbody", {}, rows),
    ),
  );
}

/** I race in another tab or device: say where, and offer to take the seat here. */
function seatPanel(app) {
  const { S, act } = app;
  return h(
    "section",
    { class: "card-panel seat-panel", role: "status" },
    h("p", {}, t("You are racing in room {code} in another tab or device.", { code: S.seat })),
    h("button", { id: "play-here", onclick: () => act.joinRoom(S.seat, false) }, t("Play here")),
  );
}

function roomsPanel(app) {
  const { S, act } = app;
  const rows = S.rooms.map((r) =>
    h(
      "tr",
      {},
      h("td", { class: "code", "data-label": t("Room") }, r.room),
      h("td", { "data-label": t("Rules") }, presetTitle(r.preset), r.daily ? h("span", { class: "tag" }, " ", t("daily")) : null, r.rated ? h("span", { class: "tag" }, " ", t("rated")) : null),
      h("td", { "data-label": t("Deal") }, r.any_deal ? t("any deal") : r.deal ? t("chosen") : gradeName(r.deal_grade ?? "winnable")),
      h("td", { class: "seats", "data-label": t("Racers") }, `${number(r.racers)}/${number(r.seats)}`),
      h("td", { "data-label": t("Watching") }, number(r.spectators)),
      h("td", { "data-label": t("Phase") }, phaseName(r.phase)),
      h(
        "td",
        { class: "go" },
        r.phase === "waiting" && r.racers < r.seats ? h("button", { onclick: () => act.joinRoom(r.room, false), "aria-label": t("join room {code}", { code: r.room }) }, t("Join")) : null,
        h("button", { class: "quiet", onclick: () => act.joinRoom(r.room, true), "aria-label": t("watch room {code}", { code: r.room }) }, t("Watch")),
      ),
    ),
  );
  return h(
    "section",
    { class: "card-panel rooms-panel", "aria-labelledby": "rooms-h" },
    h("h2", { id: "rooms-h" }, t("Public rooms")),
    rows.length
      ? h(
          "table",
          { class: "rooms" },
          h("thead", {}, h("tr", {}, ...[t("Room"), t("Rules"), t("Deal"), t("Racers"), t("Watching"), t("Phase"), ""].map((head) => h("th", {}, head)))),
          h("tbody", {}, rows),
        )
      : h("p", { class: "muted" }, t("No public room right now: create one, or ask for a quick match.")),
  );
}

function joinPanel(app) {
  const { act } = app;
  const code = h("input", { id: "code", maxlength: 12, placeholder: t("e.g. {code}", { code: "3R12R9" }), autocomplete: "off", "aria-label": t("room code") });
  const quick = h("select", { id: "quick-preset", "aria-label": t("rules for quick match") }, presetOptions("seahaven"));
  return h(
    "section",
    { class: "card-panel", "aria-labelledby": "join-h" },
    h("h2", { id: "join-h" }, t("Join by code")),
    h(
      "form",
      {
        class: "row",
        onsubmit: (e) => {
          e.preventDefault();
          if (code.value.trim()) act.joinRoom(code.value.trim().toUpperCase(), e.submitter?.value === "watch");
        },
      },
      code,
      h("button", { type: "submit", value: "race" }, t("Join")),
      h("button", { type: "submit", value: "watch", class: "quiet" }, t("Watch")),
    ),
    h("h2", {}, t("Quick match")),
    h("div", { class: "row" }, quick, h("button", { id: "quick-match", onclick: () => act.quickMatch({ preset: quick.value }) }, t("Quick match"))),
  );
}

function dailyPanel(app) {
  const { S, act } = app;
  const d = S.daily;
  return h(
    "section",
    { class: "card-panel", "aria-labelledby": "daily-h" },
    h("h2", { id: "daily-h" }, t("Daily race")),
    d ? h("p", { class: "muted" }, t("{date} (UTC): deal {deal}, the same for everyone today.", { date: day(d.date), deal: d.deal })) : null,
    h(
      "div",
      { class: "row" },
      h("button", { id: "daily-race", onclick: () => act.quickMatch({ preset: "seahaven", daily: true }) }, t("Race today's deal")),
      // Nobody else may come: today's deal against the computer (a private room), or alone.
      h("button", { class: "quiet", id: "daily-bot", onclick: () => act.enterWith("create_room", DAILY_BOT_ROOM) }, t("vs the computer")),
      d ? h("button", { class: "quiet", id: "daily-solo", onclick: () => (window.location.href = `/solo/${d.deal}`) }, t("alone")) : null,
    ),
    d && d.entries.length
      ? h(
          "table",
          { class: "rooms daily", "aria-label": t("today's best times") },
          h("thead", {}, h("tr", {}, ...["#", t("Racer"), t("Time")].map((head) => h("th", {}, head)))),
          h("tbody", {}, d.entries.map((e) => h("tr", {}, h("td", {}, number(e.place)), h("td", { class: "who" }, e.name), h("td", {}, formatTime(e.time_ms))))),
        )
      : h("p", { class: "muted" }, t("No finish yet today.")),
  );
}

function createForm(app) {
  const { act, S } = app;
  // As last sent in this browser (the deal excepted: one asked by a "Race this deal" link).
  const last = app.lastForm?.() ?? {};
  const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);
  const preset = h("select", { name: "preset" }, presetOptions(PRESETS[last.preset] ? last.preset : "seahaven"));
  const seats = h("input", { name: "seats", type: "number", min: 2, max: 8, value: last.seats ?? 2 });
  // In minutes, as a player thinks of a race's length (the protocol's are seconds: 30 to 7200).
  const limit = h("input", { name: "time_limit", type: "number", min: 0.5, max: 120, step: 0.5, placeholder: t("none"), value: last.minutes ?? "" });
  const deal = h("input", { name: "deal", placeholder: t("a winnable deal"), autocomplete: "off", value: S.dealAsked ?? "" });
  const pub = h("input", { name: "public", type: "checkbox", checked: last.public ?? true });
  const undoBox = h("input", { name: "undo", type: "checkbox", checked: last.undo ?? true });
  // Racers may ask the server to send their safe cards home (docs/protocol.md, "Auto-move"); off: every card by hand.
  const autoBox = h("input", { name: "auto", type: "checkbox", checked: last.auto ?? true });
  // Deal difficulty is the solver's grade of a winnable deal, not the easy/medium/hard presets (cell counts).
  const grade = h("select", { name: "deal_grade" }, ["any", "gentle", "tricky", "fiendish"].map((g) => h("option", { value: g, selected: g === last.grade }, gradeName(g))));
  const bot = h("select", { name: "bot" }, [["", t("no")], ["stroll", t("stroll")], ["brisk", t("brisk")], ["sprint", t("sprint")]].map(([v, text]) => h("option", { value: v, selected: v === (last.bot ?? "") }, text)));
  const hints = h("input", { name: "hints", type: "checkbox", checked: Boolean(last.hints) });
  const lost = h("input", { name: "lost_notice", type: "checkbox", checked: Boolean(last.lost) });
  // A rated room counts for ratings and draws its deals from everyone's seeds (docs/fairness.md):
  // the server refuses it a chosen deal or hints, so the form does not offer them then.
  const rated = h("input", { name: "rated", id: "new-rated", type: "checkbox", checked: Boolean(last.rated) && !S.dealAsked });
  const offer = () => {
    deal.disabled = hints.disabled = rated.checked;
  };
  rated.onchange = offer;
  offer();
  return h(
    "form",
    {
      class: "card-panel create",
      "aria-labelledby": "create-h",
      onsubmit: async (e) => {
        e.preventDefault();
        const minutes = limit.value ? Number(limit.value) : null;
        app.keepForm?.({ preset: preset.value, seats: Number(seats.value) || 2, minutes, public: pub.checked, undo: undoBox.checked, auto: autoBox.checked, grade: grade.value, bot: bot.value, hints: hints.checked, lost: lost.checked, rated: rated.checked });
        const body = { preset: preset.value, seats: Number(seats.value) || 2, public: pub.checked, undo: undoBox.checked };
        if (!autoBox.checked) body.auto = false; // the default left out: an older server knows no such field
        if (rated.checked) body.rated = true;
        if (minutes) body.time_limit = Math.round(minutes * 60);
        const d = rated.checked ? "" : deal.value.trim();
        if (/^\d+$/.test(d)) body.deal_number = Number(d);
        else if (d) body.deal_code = d;
        else if (grade.value !== "any") body.deal_grade = grade.value;
        if (bot.value) body.bot = bot.value;
        if (hints.checked && !rated.checked) body.hints = true;
        if (lost.checked) body.lost_notice = true;
        await act.enterWith("create_room", body);
      },
    },
    h("h2", { id: "create-h" }, t("New room")),
    field(t("Rules"), preset),
    field(t("Seats"), seats),
    field(t("Time limit (minutes)"), limit),
    field(t("Deal number or code"), deal),
    field(t("Deal difficulty (winnable deals)"), grade),
    field(t("Race the computer"), bot),
    h("label", { class: "check" }, pub, " ", t("listed in the lobby")),
    h("label", { class: "check" }, undoBox, " ", t("undo allowed")),
    h("label", { class: "check" }, autoBox, " ", t("auto-move allowed")),
    h("label", { class: "check" }, hints, " ", t("hints allowed")),
    h("label", { class: "check" }, lost, " ", t("tell racers when their position is lost")),
    h("label", { class: "check" }, rated, " ", t("rated: counts for ratings, the deal drawn from everyone's seeds")),
    h("button", { type: "submit" }, t("Create room")),
  );
}

function racersPanel(book, room, ratings, raceId) {
  const finished = room.phase === "finished";
  return h(
    "ol",
    { class: "racers", "aria-label": t("racers") },
    room.racers.map((r) =>
      h(
        "li",
        { class: `${r.player === room.you ? "me" : ""} ${r.connected ? "" : "away"}` },
        h("span", { class: "who", title: r.name }, r.player === room.you && !room.solo ? t("{name} (you)", { name: r.name }) : r.name, racerMarks(r), ratingBadge(book, r, room.preset, room.you, ratings, Boolean(room.rated), raceId)),
        h("progress", { max: 52, value: r.progress, "aria-label": t("{name}: {count} of 52 cards home", { name: r.name, count: number(r.progress) }) }),
        h("span", { class: "count" }, `${number(r.progress)}/${number(52)}`),
        h("span", { class: `status ${r.status}` }, (r.connected ? statusText(r.status, finished) : t("{status}, away", { status: statusText(r.status, finished) })) + (room.rematch.includes(r.player) ? " · " + t("rematch") : "")),
      ),
    ),
  );
}

/** The room's parts: its head, then what the phase shows. A board is a part of its own, kept while
 * what it shows is the same: a rival's move changes the racers' panel, not my board of 52 drawn
 * cards, and a burst of a rival's moves rebuilt it once each (a busy machine's page fell seconds
 * behind the race; a card being dragged was dropped). Everything else is rebuilt on any change. */
function roomParts(app) {
  const { S } = app;
  const room = S.room;
  const board = S.board ? S.board.text() : "";
  const all = JSON.stringify([room, board, S.selected, S.mine, S.pending.length, S.groups.length, S.undos, S.quick, S.soloStats, S.focus, S.status, S.lost, S.hint, S.autoMove, S.result?.race_id, S.finals?.size, S.ratings[room.preset], S.outside]);
  const part = (name, build) => [`${name}:${all}`, build];
  const racing = room.phase !== "waiting" && room.phase !== "countdown";
  const main = !racing
    ? part("waiting", () => waitingPanel(app))
    : room.role === "racer" && S.board
      ? [`race:${room.room}`, () => h("div", { class: "race" }), [part("controls", () => raceControls(app)), part("racers", () => racersPanel(app.ratingBook, room, S.ratings, S.result?.race_id ?? null)), ...raceBoard(app, part)]]
      : [`spectating:${room.room}`, () => h("div", { class: "race spectating" }), [part("racers", () => racersPanel(app.ratingBook, room, S.ratings, S.result?.race_id ?? null)), part("tabs", () => watchTabs(app)), spectatorBoard(app)]];
  const inner = [
    part("head", () => roomHead(app)),
    room.deal && racing ? part("deal", () => dealLine(room, location.origin)) : null,
    main,
    // The invitations I sent to my waiting room, each with its answer (friends.js).
    room.phase === "waiting" && room.role === "racer" ? [`invited:${sentKey(S, room.room)}`, () => sentList(S, room.room)] : null,
    room.phase === "finished" && room.standings.length ? [`results:${all}:${knownKey(S)}:${againKey(S)}`, () => resultsView(app)] : null,
  ].filter(Boolean);
  // Between races, the arena's standings (a placeholder outside one); arena.js also replaces the
  // panel by itself mid-race.
  return [
    [`room:${room.room}:${room.phase}`, () => h("div", { class: `room phase-${room.phase}` }), inner],
    [`room-arena:${arenaKey(S)}`, () => arenaPanel(app.hooks, true) ?? h("span", { hidden: true })],
  ];
}

/** What the arena panels show (the state's `arena`): a part rebuilt when it changes. */
function arenaKey(S) {
  const A = S.arena;
  return JSON.stringify([A.arena, A.podium, A.busy, S.me?.player, S.outside]);
}

function roomHead(app) {
  const { S, act } = app;
  const room = S.room;
  const title = presetTitle(room.preset);
  const mine = room.rated ? S.ratings[room.preset] : null;
  const facts = [
    title,
    room.daily ? t("the daily race") : null,
    tn("{n} seat", "{n} seats", room.seats),
    room.time_limit ? t("{time} limit", { time: limitTime(room.time_limit * 1000) }) : t("no time limit"),
    room.undo ? t("undo on") : t("undo off"),
    room.hints ? t("hints on") : null,
    room.auto === false ? t("no auto-move") : null,
    room.rated ? t("rated") : t("unrated"),
    mine ? t("your rating {rating}", { rating: ratingText(mine) }) : null,
    room.commitment ? t("deal drawn from everyone's seeds, commitment {short}", { short: room.commitment.slice(0, 12) }) : null,
  ].filter(Boolean);
  return h(
    "div",
    { class: "room-head" },
    room.solo ? h("h2", { id: "solo-h" }, t("Practice, alone")) : h("h2", {}, t("Room"), " ", h("span", { class: "code", id: "room-code" }, room.room)),
    room.solo && S.soloStats ? h("span", { class: "muted", id: "solo-stats" }, soloStatsText(S.soloStats)) : null,
    h("span", { class: "muted facts" }, facts.join(" · ")),
    room.role === "spectator" ? h("span", { class: "badge" }, t("watching")) : null,
    h("span", { class: "clock", id: "clock", role: "timer", "aria-label": t("race clock") }, ""),
    room.solo ? h("button", { class: "quiet", id: "new-deal", onclick: act.newDeal }, t("New deal")) : null,
    h("button", { class: "quiet", id: "leave", onclick: act.leaveAsking }, t("Leave")),
  );
}

function waitingPanel(app) {
  const { S, act } = app;
  const room = S.room;
  const link = `${location.origin}/r/${room.room}`;
  const me = room.racers.find((r) => r.player === room.you);
  const alone = room.role === "racer" && room.racers.length === 1;
  return h(
    "section",
    { class: "card-panel waiting" },
    // A room with a free seat has a link to share; a full one (an arena's, a ghost's) has none.
    room.racers.length < room.seats ? h("p", {}, t("Share this link:"), " ", h("a", { href: link, id: "share" }, link), " ", h("button", { class: "quiet", onclick: () => navigator.clipboard?.writeText(link).then(() => act.say(t("link copied"))) }, t("Copy"))) : null,
    racersPanel(app.ratingBook, room, S.ratings, S.result?.race_id ?? null),
    // Quick match readies the player once paired: alone, there is nothing to press.
    room.role === "racer" && !(S.quick && alone)
      ? h("button", { id: "ready", class: me?.status === "ready" ? "quiet" : "", onclick: act.ready }, me?.status === "ready" ? t("Not ready") : t("Ready"))
      : null,
    alone
      ? h(
          "p",
          { id: "alone", class: "muted" },
          room.daily
            ? t("The daily race starts once another racer joins: share the link, or wait for one.")
            : S.quick
              ? t("The race starts as soon as another racer is found: no Ready to press.")
              : t("The race starts once another racer joins and both are ready."),
        )
      : null,
    // Nobody may come: today's deal against the computer, or alone, without waiting on.
    alone && room.daily
      ? h(
          "div",
          { class: "row", id: "daily-instead" },
          h("button", { class: "quiet", id: "daily-bot-instead", onclick: () => act.dailyInstead(true) }, t("Nobody yet: race the computer instead")),
          h("button", { class: "quiet", id: "daily-solo-instead", onclick: () => act.dailyInstead(false) }, t("Practise it alone")),
        )
      : null,
    // A quick match nobody has answered yet: the computer instead, at once.
    alone && S.quick && !room.daily
      ? h("div", { class: "row", id: "quick-instead" }, h("button", { class: "quiet", id: "bot-instead", onclick: act.botInstead }, t("Nobody yet: race the computer instead")))
      : null,
    h("div", { id: "countdown", class: "countdown", "aria-live": "assertive" }, ""),
    h("p", { id: "match", class: "muted" }, ""),
    h("p", { class: "muted" }, tn("{n} watching", "{n} watching", room.spectators)),
  );
}

/** My games alone on these rules: "5 played · 3 won · best 2:35 · 2 in a row". */
export function soloStatsText(s) {
  const parts = [tn("{n} played", "{n} played", s.played), tn("{n} won", "{n} won", s.won)];
  if (s.best !== null) parts.push(t("best {time}", { time: formatTime(s.best) }));
  if (s.streak >= 2) parts.push(tn("{n} in a row", "{n} in a row", s.streak));
  return parts.join(" · ");
}

/** The deal the room races, once it is dealt: its number, and a link to practise it alone. */
function dealLine(room, origin) {
  const practice = `${origin}/solo/${room.deal}`;
  if (room.solo) return h("p", { class: "muted deal", id: "deal" }, t("Deal {deal} · share it:", { deal: room.deal }), " ", h("a", { href: practice, id: "solo-link" }, practice));
  return h("p", { class: "muted deal", id: "deal" }, t("Deal {deal}", { deal: room.deal }), " · ", h("a", { href: practice, id: "solo-link", target: "_blank", rel: "noopener" }, t("practise it alone")));
}

/** The moves on a board and the undos apart ("11 moves · 1 undo"): an undo takes a move back. */
export const countsText = ({ moves, undos }) => tn("{n} move", "{n} moves", moves) + (undos ? " · " + tn("{n} undo", "{n} undos", undos) : "");

// Where I am once out of the race, in a sentence ("You are forfeit." said it awkwardly).
const OUT_OF_THE_RACE = { finished: () => t("You finished."), resigned: () => t("You resigned."), forfeit: () => t("You lost your seat: you were away too long.") };

/** After the race, every racer's board at the end (the server's histories): whose is shown, a
 * rival's on its tab; null while racing. */
function finalShown(S) {
  const room = S.room;
  return room.phase !== "racing" && S.finals?.size ? (S.finals.has(S.focus) ? S.focus : room.you) : null;
}

function raceControls(app) {
  const { S, act } = app;
  const room = S.room;
  const status = S.mine?.status ?? "racing";
  const live = room.phase === "racing";
  const note =
    status === "stuck"
      ? room.undo
        ? t("Stuck: no legal move. Undo, or resign.")
        : t("Stuck: no legal move left.")
      : S.lost && live
        ? room.undo
          ? t("No win is left from here: undo, or resign.")
          : t("No win is left from here.")
        : status !== "racing"
          ? (OUT_OF_THE_RACE[status]?.() ?? t("You are {status}.", { status: statusText(status, room.phase === "finished") }))
          : S.hint
            ? t("Hint: {move}", { move: hintWords(S.board, S.hint) })
            : "";
  return h(
    "div",
    { class: "controls" },
    h("span", { class: "mine", id: "mine" }, t("{count}/52 home", { count: number(S.board.progress) }) + " · " + countsText(myCounts(S))),
    // Undo takes back a move of mine (with its auto-moves): the opening's safe cards are nobody's.
    room.undo && live ? h("button", { id: "undo", onclick: act.undo, disabled: !canUndo(S) || !S.groups.length }, t("Undo")) : null,
    room.hints && live ? h("button", { id: "hint", onclick: act.hint, disabled: !canHint(S) }, t("Hint")) : null,
    live && (status === "racing" || status === "stuck") ? h("button", { class: "quiet", onclick: () => confirm(t("Resign this race?")) && act.resign() }, t("Resign")) : null,
    live ? autoToggle(S, act) : null,
    h("span", { class: `note ${status}`, role: "status" }, note),
  );
}

/** A racer's board (or, after the race, the tabs and the board of whose end is shown): a part
 * keyed by what it draws, so that it stays while only the rest of the room changes. */
function raceBoard(app, part) {
  const { S, act } = app;
  const room = S.room;
  const rival = finalShown(S);
  const tabs = rival ? part("final-tabs", () => finalTabs(app, rival)) : null;
  if (rival && rival !== room.you) {
    const name = room.racers.find((r) => r.player === rival)?.name ?? t("racer");
    const board = S.finals.get(rival);
    return [tabs, [`final:${JSON.stringify([rival, name, board.text()])}`, () => renderBoard(board, { label: t("{name}'s board", { name }), interactive: false })]];
  }
  const status = S.mine?.status ?? "racing";
  const hint = S.hint && status === "racing" ? hintMove(S.hint) : null;
  const legal = destinations(S);
  const interactive = inRace(S);
  const key = JSON.stringify([S.board.text(), S.selected, hint ? S.hint : null, [...legal], interactive]);
  const mine = [`board:${key}`, () => renderBoard(S.board, { label: t("your board"), selected: S.selected, hint, legal, interactive, onPick: act.pick, onClear: act.clear, onDrop: act.drop })];
  return tabs ? [tabs, mine] : [mine];
}

/** Once the race is over, whose board a racer looks at: theirs, or a rival's (a bot's) at the end. */
function finalTabs(app, shown) {
  const { S, act } = app;
  const room = S.room;
  return h(
    "div",
    { class: "tabs", role: "tablist", "aria-label": t("whose board"), id: "final-boards" },
    room.racers
      .filter((r) => r.player === room.you || S.finals.has(r.player))
      .map((r) => h("button", { role: "tab", "aria-selected": r.player === shown ? "true" : "false", onclick: () => act.watch(r.player) }, r.player === room.you ? t("your board") : r.name, r.player === room.you ? null : racerMarks(r))),
  );
}

/** The auto-move switch: the player's setting, or, in a room that forbids it, off and saying so. */
function autoToggle(S, act) {
  const allowed = autoAllowed(S);
  const box = h("input", { type: "checkbox", id: "auto-move", checked: autoOn(S), disabled: !allowed, onchange: act.toggleAuto });
  return h("label", { class: `check auto${allowed ? "" : " off"}`, title: allowed ? null : t("No auto-move in this room: every card by hand") }, box, " ", t("auto-move"));
}

function watchTabs(app) {
  const { S, act } = app;
  const room = S.room;
  return h(
    "div",
    { class: "tabs", role: "tablist", "aria-label": t("whose board") },
    room.racers.map((r) => h("button", { role: "tab", "aria-selected": r.player === S.focus ? "true" : "false", onclick: () => act.watch(r.player) }, r.name, racerMarks(r))),
  );
}

/** The watched racer's board: a part keyed by what it draws (raceBoard). */
function spectatorBoard(app) {
  const { S } = app;
  const focus = S.boards.get(S.focus);
  if (!focus) return [`no-board:${S.focus}`, () => h("p", { class: "muted" }, t("The boards show once the race starts."))];
  const name = S.room.racers.find((r) => r.player === S.focus)?.name ?? t("racer");
  return [`watched:${JSON.stringify([S.focus, name, focus.text()])}`, () => renderBoard(focus, { label: t("{name}'s board", { name }), interactive: false })];
}

function resultsView(app) {
  const { S, act, hooks } = app;
  const room = S.room;
  const reasons = { won: room.solo ? t("you put all 52 cards home") : t("a racer put all 52 cards home"), "all-done": t("every racer is done"), "time-limit": t("time ran out"), abandoned: t("nobody is left") };
  const me = room.racers.find((r) => r.player === room.you);
  return h(
    "section",
    { class: "card-panel results", "aria-labelledby": "results-h" },
    h("h2", { id: "results-h" }, t("Results")),
    h("p", { class: "moment", id: "moment", role: "status" }, resultLine(room)),
    ghostMargin(hooks, room) ? h("p", { id: "ghost-margin" }, ghostMargin(hooks, room)) : null,
    S.result?.reason ? h("p", { class: "muted" }, t("The race is over: {reason}.", { reason: reasons[S.result.reason] ?? S.result.reason })) : null,
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, ...[t("Place"), t("Racer"), t("Status"), t("Home"), t("Moves"), t("Time")].map((head) => h("th", {}, head)))),
      h(
        "tbody",
        {},
        room.standings.map((s) =>
          h(
            "tr",
            { class: s.player === room.you ? "me" : "" },
            h("td", {}, number(s.place)),
            h("td", { class: "who", title: s.name }, s.name, racerMarks(s), ratingBadge(app.ratingBook, s, room.preset, room.you, S.ratings, Boolean(room.rated), S.result?.race_id ?? null)),
            h("td", {}, statusText(s.status, true)),
            h("td", {}, `${number(s.progress)}/${number(52)}`),
            h("td", { class: "moves" }, number(boardMoves(s)), s.undos ? h("span", { class: "undos muted" }, tn("{n} undo", "{n} undos", s.undos)) : null),
            h("td", {}, formatTime(standingTime(s))),
          ),
        ),
      ),
    ),
    recordsLinks(S),
    addRivals(app, room.standings),
    room.role === "racer" && me && S.result?.race_id ? challengeOffer(hooks, S.result.race_id) : null,
    room.role === "racer" && me && ghostChallenge(room) ? raceAgainButton(hooks, ghostChallenge(room)) : null,
    room.role === "racer" && me && !ghostChallenge(room)
      ? h("button", { id: "rematch", onclick: act.rematch, disabled: room.rematch.includes(room.you) }, room.solo ? t("Play it again") : room.rematch.includes(room.you) ? t("Waiting for the others…") : t("Rematch"))
      : null,
    // Race again: everyone raced here invited to a new room and a new deal (not the same room as Rematch).
    me && !ghostChallenge(room) ? againOffer(app) : null,
    room.solo ? h("button", { id: "results-new-deal", onclick: act.newDeal }, t("New deal")) : null,
    h("button", { class: "quiet", onclick: act.leave }, t("Back to the lobby")),
  );
}

/** The race on record, the boards and my page (the records pages), each in a tab of its own so
 * the room stays open here for a rematch. */
function recordsLinks(S) {
  const raceId = S.result?.race_id;
  if (!raceId) return null;
  const link = (href, id, text) => h("a", { href, id, target: "_blank", rel: "noopener" }, text);
  return h(
    "p",
    { class: "row" },
    link(`/races/${raceId}`, "replay-link", t("Replay this race")),
    link("/boards", "boards-link", t("Leaderboards")),
    S.me ? link(`/players/${encodeURIComponent(S.me.player)}`, "my-page-link", t("My page")) : null,
  );
}

/** The keys, and the rules of the room's preset when the build has them (the rules domain). */
function helpView(preset) {
  const keys = h("details", { class: "help" }, h("summary", {}, t("Keys")), h("dl", {}, KEYS_HELP().flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
  const rules = rulesHelp(preset);
  if (!rules) return keys;
  const help = h("details", { class: "help rules-help", id: "rules-help" }, h("summary", {}, t("How to play {rules}", { rules: presetTitle(preset) })), h("dl", {}, rules.flatMap(([topic, text]) => [h("dt", {}, topic), h("dd", {}, text)])));
  return h("div", { class: "helps" }, help, keys);
}

const CONNECTION = { connecting: () => t("connecting"), offline: () => t("offline"), closed: () => t("closed") };
/** The connection's state in words. */
const connectionName = (status) => CONNECTION[status]?.() ?? status;



const PHASES = { waiting: () => t("waiting"), countdown: () => t("countdown"), racing: () => t("racing"), finished: () => t("finished") };
/** A room's phase in words. */
export const phaseName = (phase) => PHASES[phase]?.() ?? phase;

/** Quick match's wait while I am alone in the room: its rating window, widening each second. */
export function matchText(S, now) {
  const room = S.room;
  const m = S.match;
  if (!m || m.room !== room.room || room.phase !== "waiting" || room.racers.length !== 1) return "";
  const since = now - m.at;
  const waited = m.waited_ms + since;
  const secs = Math.floor(waited / 1000);
  if (waited >= m.anyone_after_ms) return t("Looking for a racer: anyone now · waited {secs} s", { secs: number(secs) });
  const window = m.window + Math.floor((m.widens * since) / 1000);
  return t("Looking for a racer near {rating} ±{window} · waited {secs} s · anyone from {after} s", { rating: m.rating, window, secs: number(secs), after: number(Math.floor(m.anyone_after_ms / 1000)) });
}

/** The clocks, every few hundred ms, without rebuilding the view. */
export function tick(S) {
  const room = S.room;
  if (!room || !S.conn) return;
  const now = S.conn.now();
  const match = document.getElementById("match");
  if (match) match.textContent = matchText(S, Date.now());
  const countdown = document.getElementById("countdown");
  if (countdown) countdown.textContent = room.phase === "countdown" && room.starts_at ? t("Starting in {secs}…", { secs: number(Math.max(0, Math.ceil((room.starts_at - now) / 1000))) }) : "";
  const clock = document.getElementById("clock");
  if (clock && room.started_at) {
    if (room.phase === "finished") {
      const me = room.standings.find((s) => s.player === room.you);
      clock.textContent = me && standingTime(me) !== null ? formatTime(me.time_ms) : "";
    } else {
      const left = room.ends_at ? " · " + t("{time} left", { time: formatTime(room.ends_at - now) }) : "";
      clock.textContent = formatTime(now - room.started_at) + left;
    }
  }
}
