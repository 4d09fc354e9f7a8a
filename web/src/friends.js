// Friends, presence and invitations (docs/protocol.md, section 24): the lobby's friends panel
// (also beside my waiting room, to invite into it; in the lobby, my recent rivals to add), the
// "Add friend" offer beside a rival's name, "Race again" on a race's results (everyone I raced
// invited to a new room), the invitations I sent (said in the waiting room, with each answer)
// and the invitation toasts. Its state, filled by the server's `friends` reply
// and kept by its events (`friends`, `presence`, `invitation`, `invited`, `invite_closed`), is the
// state's (state.js, `S.friends`); the panel is a part keyed by what it shows (friendsKey), so a friend's presence never rebuilds a board.
import { h } from "./dom.js";
import { refusal } from "./explain.js";
import { list, number, t, tn } from "./i18n.js";
import { presetTitle } from "./records_format.js";
import { headToHead } from "./rivals.js";

// The friends requests' refusals in words (explain.js has the others).
const WORDS = {
  "player-not-found": () => t("No player has that handle."),
  "not-friends": () => t("You can invite only your friends."),
  blocked: () => t("That player takes no requests from you, or you block them."),
  "friends-limit": () => t("Too many friends or requests: remove some first."),
  "invite-not-found": () => t("That invitation was answered or has expired."),
  "nobody-to-invite": () => t("Nobody else raced here: there is nobody to invite. Start a new room instead."),
};
const refused = (e) => WORDS[e?.code]?.() ?? refusal(e);

/** What the panel shows: its part's key (with whether I may invite, and to what). */
export function friendsKey(S) {
  return JSON.stringify([S.friends.list, S.me?.player, inviteTo(S), lobbyRivals(S)]);
}

/** The players the lists know (any list): a rival's "Add friend" is not offered to them. */
export const knownKey = ({ friends: { list: L } }) => (L ? [...L.friends, ...L.incoming, ...L.outgoing, ...L.blocked].map((p) => p.player).join(",") : "");

/** Who is in which of my lists: a part's key, for what it offers each (a rival's "Add friend"). */
export const listsKey = ({ friends: { list: L } }) => JSON.stringify(L ? ["friends", "incoming", "outgoing", "blocked"].map((which) => L[which].map((p) => p.player)) : null);

/** Where an invitation takes a friend now: "race" (from no room, a room the server makes),
 * "room" (my waiting room, with a free seat), or null (racing, watching, full). */
function inviteTo(S) {
  const room = S.room;
  if (!room) return S.view === "lobby" ? "race" : null;
  if (room.role === "racer" && room.phase === "waiting" && room.racers.length < room.seats) return "room";
  return null;
}

const nameOf = (F, player) =>
  [...(F.list?.friends ?? []), ...(F.list?.outgoing ?? []), ...(F.list?.incoming ?? [])].find((p) => p.player === player)?.name ?? F.names.get(player) ?? t("your friend");

/** Ask for my lists (after each welcome of a registered player's session). */
export function loadFriends(app) {
  const { S } = app;
  const F = S.friends;
  if (!S.me?.identified) {
    F.list = null;
    return;
  }
  S.conn
    .call("friends")
    .then((body) => {
      F.list = body;
      app.render();
    })
    .catch(() => {
      F.list = null; // no records here: no panel
      app.render();
    });
}

/** A server message of ours: the state kept, the toasts shown. True when it was one. */
export function onFriendsMessage(app, type, body) {
  const F = app.S.friends;
  if (type === "friends") {
    const news = F.list ? friendsNews(F.list, body) : null;
    F.list = body;
    if (news) app.say(news, 8000);
  } else if (type === "presence") {
    const friend = F.list?.friends.find((f) => f.player === body.player);
    if (friend) Object.assign(friend, { state: body.state, room: body.room ?? null });
  } else if (type === "invitation") sent(app, body);
  else if (type === "invited") {
    F.invites = F.invites.filter((i) => i.invite !== body.invite).concat([body]);
    showInvites(app);
  } else if (type === "invite_closed") {
    const mine = F.sent.get(body.invite);
    if (mine && !mine.answer) {
      mine.answer = body.answer in ANSWERS ? body.answer : "expired";
      app.say(answerWords(mine), 6000);
    }
    closeInvite(app, body.invite);
  } else return false;
  return true;
}

/** What a new friends list says to a player who may not be looking at the panel (racing, on the
 * results): a new request to me, or my request accepted; null: nothing new of either. */
export function friendsNews(before, after) {
  const asked = new Set(before.incoming.map((p) => p.player));
  const fresh = after.incoming.find((p) => !asked.has(p.player));
  if (fresh) return t("{name} asks to be your friend.", { name: fresh.name });
  const waiting = new Set(before.outgoing.map((p) => p.player));
  const known = new Set(before.friends.map((p) => p.player));
  const accepted = after.friends.find((p) => waiting.has(p.player) && !known.has(p.player));
  return accepted ? t("{name} accepted: you are friends now.", { name: accepted.name }) : null;
}

/** An invitation of mine, sent: kept with the others to the same room (those to an earlier room
 * forgotten), and said with every one still open there: "Invitation sent to Bob and Cid." */
function sent(app, body) {
  const F = app.S.friends;
  for (const [id, inv] of F.sent) if (inv.room !== body.room) F.sent.delete(id);
  F.sent.set(body.invite, { player: body.player, name: nameOf(F, body.player), room: body.room, answer: null });
  const open = [...F.sent.values()].filter((inv) => !inv.answer);
  app.say(tn("Invitation sent to {names}.", "Invitations sent to {names}.", open.length, { names: list(open.map((inv) => inv.name)) }), 6000);
}

const ANSWERS = {
  accepted: (name) => t("{name} accepted your invitation.", { name }),
  declined: (name) => t("{name} declined your invitation.", { name }),
  expired: (name) => t("{name} did not answer your invitation.", { name }),
};
const answerWords = (inv) => (inv.answer ? ANSWERS[inv.answer](inv.name) : t("Invitation sent to {name}: no answer yet.", { name: inv.name }));

/** The race in ``room`` started: the invitations I sent to its waiting room are done with. */
export function forgetSent(S, room) {
  for (const [id, inv] of S.friends.sent) if (inv.room === room) S.friends.sent.delete(id);
}

/** What the invitations I sent to ``room`` show: a part's key. */
export const sentKey = (S, room) => JSON.stringify([...S.friends.sent.values()].filter((inv) => inv.room === room));

/** The invitations I sent to my waiting room ``room``, each with its answer so far (nothing: none). */
export function sentList(S, room) {
  const mine = [...S.friends.sent.values()].filter((inv) => inv.room === room);
  if (!mine.length) return h("span", { hidden: true });
  return h(
    "section",
    { class: "card-panel invited", id: "invited", "aria-labelledby": "invited-h" },
    h("h2", { id: "invited-h" }, t("Invited")),
    h(
      "ul",
      { class: "invited-list" },
      mine.map((inv) => h("li", { class: `answer-${inv.answer ?? "open"}`, "data-player": inv.player }, answerWords(inv))),
    ),
  );
}

/** A friends request; its `friends` reply is the lists from now on. Null after a refusal (said). */
async function ask(app, type, body) {
  try {
    const reply = await app.S.conn.call(type, body);
    app.S.friends.list = reply;
    app.render();
    return reply;
  } catch (e) {
    app.say(refused(e));
    return null;
  }
}

/** "Add as a friend" on a player's page (/?friend=ID, main.js): asked once this page's session is
 * welcomed, the outcome said in the toast: asked, friends now (they had asked), friends already,
 * or the refusal in words (no such player any more, a block, too many). */
export async function addLinked(app, player) {
  const { S } = app;
  const F = S.friends;
  const said = (text) => app.say(text, 8000);
  const find = (lists, which) => lists[which].find((p) => p.player === player);
  try {
    const before = await S.conn.call("friends");
    const friend = find(before, "friends");
    if (friend) {
      F.list = before;
      app.render();
      return said(t("You and {name} are friends already.", { name: friend.name }));
    }
    const reply = await S.conn.call("add_friend", { player });
    F.list = reply;
    app.render();
    const now = find(reply, "friends");
    if (now) return said(t("You and {name} are friends now.", { name: now.name }));
    said(t("Asked {name} to be friends.", { name: find(reply, "outgoing")?.name ?? t("your friend") }));
  } catch (e) {
    // TRANSLATORS: "Add as a friend" on a player's page, for a player who has no account now (deleted, or a wrong link).
    said(e?.code === "player-not-found" ? t("That player has no account here any more.") : refused(e));
  }
}

/** Invite ``friend``: to my waiting room, or from the lobby to a room the server makes (its `room` first). */
async function invite(app, friend) {
  const { S } = app;
  try {
    const reply = await S.conn.call("invite", { player: friend.player });
    if (reply.invite) return sent(app, reply);
    app.act.showRoom(reply); // the new room: its invitation follows as an event
  } catch (e) {
    app.say(refused(e));
  }
}

/** Accept an invitation: out of the room I am in first (asked when that resigns a race), then seated in theirs. */
async function accept(app, inv) {
  const { S, act } = app;
  if (!(await act.leaveFor(inv.room))) return;
  closeInvite(app, inv.invite);
  try {
    const room = await S.conn.call("answer_invite", { invite: inv.invite, accept: true });
    act.showRoom(room);
  } catch (e) {
    app.say(refused(e));
    if (!S.room) act.backToLobby();
  }
}

function decline(app, inv) {
  closeInvite(app, inv.invite);
  app.S.conn.call("answer_invite", { invite: inv.invite, accept: false }).catch(() => {}); // answered or expired already: gone either way
}

// -- the invitation toasts: their own place in the page, shown over every view -------------------

function closeInvite(app, id) {
  const F = app.S.friends;
  const before = F.invites.length;
  F.invites = F.invites.filter((i) => i.invite !== id);
  if (F.invites.length !== before) showInvites(app);
}

/** An invitation's life (docs/protocol.md, section 24): more is never shown, whatever the clocks' skew. */
const INVITE_SECONDS = 60;

/** The seconds an invitation has left, by the server's clock (as this page estimates it). */
const secondsLeft = (app, inv) => Math.min(INVITE_SECONDS, Math.max(0, Math.ceil((inv.expires_at - (app.S.conn?.now?.() ?? Date.now())) / 1000)));

/** The open invitations as toasts (one each, kept while open), and a clock that counts them down. */
function showInvites(app) {
  const F = app.S.friends;
  let place = document.getElementById("invites");
  if (!place) {
    place = h("div", { id: "invites", class: "invites" });
    document.body.append(place);
  }
  const open = new Set(F.invites.map((i) => i.invite));
  for (const el of [...place.children]) if (!open.has(el.dataset.invite)) el.remove();
  for (const inv of F.invites) if (!place.querySelector(`[data-invite="${inv.invite}"]`)) place.append(inviteToast(app, inv));
  clearInterval(app.timers.invites);
  app.timers.invites = F.invites.length ? setInterval(() => tickInvites(app), 250) : null;
  tickInvites(app);
}

function tickInvites(app) {
  for (const inv of app.S.friends.invites) {
    const left = secondsLeft(app, inv);
    if (left <= 0) return closeInvite(app, inv.invite);
    const secs = document.querySelector(`[data-invite="${inv.invite}"] .secs`);
    if (secs) secs.textContent = t("{secs} s", { secs: number(left) });
  }
}

function inviteToast(app, inv) {
  const yes = () => accept(app, inv);
  const no = () => decline(app, inv);
  const onkeydown = (e) => {
    if (e.target !== e.currentTarget) return; // a button's own Enter is its click
    if (e.key === "Enter" || e.key === "a") yes();
    else if (e.key === "Escape" || e.key === "d") no();
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  const toast = h(
    "section",
    { class: "invite card-panel", "data-invite": inv.invite, tabindex: "0", "aria-labelledby": `invite-${inv.invite}`, onkeydown },
    // Said once as it comes (role alert); the seconds are the eye's, not read out each second.
    h(
      "p",
      { id: `invite-${inv.invite}`, role: "alert" },
      // Race again (race_again): someone of my last race asks its people to a new room and a new deal.
      inv.again ? t("{name} asks you to race again (new deal)", { name: inv.name }) : t("{name} invites you to race ({rules})", { name: inv.name, rules: presetTitle(inv.preset) }),
    ),
    h(
      "div",
      { class: "row" },
      h("span", { class: "secs muted", "aria-hidden": "true" }, t("{secs} s", { secs: number(secondsLeft(app, inv)) })),
      h("button", { class: "invite-accept", onclick: yes, title: t("a or Enter on the invitation") }, t("Accept")),
      h("button", { class: "quiet invite-decline", onclick: no }, t("Decline")),
    ),
  );
  // Nothing else has the focus (the lobby, the results): the invitation takes it, for its keys.
  if (!document.activeElement || document.activeElement === document.body) queueMicrotask(() => toast.isConnected && toast.focus({ preventScroll: true }));
  return toast;
}

// -- the panel -----------------------------------------------------------------------------------

const STATES = {
  lobby: () => t("in the lobby"),
  waiting: (room) => (room ? t("waiting in room {code}", { code: room }) : t("waiting in a room")),
  racing: () => t("racing"),
  watching: () => t("watching"),
  offline: () => t("offline"),
};
/** A friend's presence in words. */
export const stateWords = (state, room) => (STATES[state] ?? STATES.offline)(room);

/** The panel (an empty hidden element for a session with no friends lists). */
export function friendsPanel(app) {
  const { S, act } = app;
  const L = S.friends.list;
  if (!L) return h("span", { hidden: true });
  const to = inviteTo(S);
  const who = (p) => {
    const handle = p.handle ? "@" + p.handle : null; // a handle as players write it
    return h("span", { class: "who", title: [p.name, handle].filter(Boolean).join(" ") }, p.name, handle ? h("span", { class: "muted handle" }, " ", handle) : null);
  };
  // Each button says what it does, and to whom (that part for screen readers: the row shows who).
  const button = (text, p, onclick, quiet = true) => h("button", { class: quiet ? "quiet" : "", onclick }, text, whom(p));
  const friends = L.friends.map((f) =>
    h(
      "li",
      { class: `friend state-${f.state}`, "data-player": f.player },
      h("span", { class: "dot", "aria-hidden": "true" }),
      h("span", { class: "person" }, who(f), h("span", { class: "state muted" }, stateWords(f.state, f.room))),
      h(
        "span",
        { class: "acts" },
        to && f.state !== "offline" ? button(to === "room" ? t("Invite to my room") : t("Invite to race"), f, () => invite(app, f), false) : null,
        (f.state === "racing" || f.state === "watching") && f.room && f.room !== S.room?.room ? button(t("Watch"), f, () => act.joinRoom(f.room, true)) : null,
        // A friend waiting for racers, seen from the lobby: their room's seat, as its link would give.
        f.state === "waiting" && f.room && !S.room ? button(t("Join"), f, () => act.joinRoom(f.room, false)) : null,
        button(t("Remove"), f, () => ask(app, "remove_friend", { player: f.player })),
        button(t("Block"), f, () => block(app, f)),
      ),
    ),
  );
  const section = (id, title, people, acts) =>
    people.length ? [h("h3", { id }, title), h("ul", { class: "people", "aria-labelledby": id }, people.map((p) => h("li", { "data-player": p.player }, h("span", { class: "person" }, who(p)), h("span", { class: "acts" }, acts(p)))))] : [];
  const field = h("input", { id: "friend-handle", maxlength: 24, autocomplete: "off", placeholder: t("their handle"), "aria-label": t("a friend's handle") });
  const add = async (e) => {
    e.preventDefault();
    const handle = field.value.trim();
    if (!handle) return;
    const reply = await ask(app, "add_friend", { handle });
    if (!reply) return;
    field.value = "";
    const friend = reply.friends.find((f) => f.handle?.toLowerCase() === handle.toLowerCase());
    app.say(friend ? t("You and {name} are friends now.", { name: friend.name }) : t("Asked {name} to be friends.", { name: handle }));
  };
  const shown = h(
    "select",
    { id: "shown-to", onchange: (e) => ask(app, "set_presence", { shown_to: e.target.value }) },
    h("option", { value: "friends", selected: L.shown_to !== "nobody" }, t("friends")),
    h("option", { value: "nobody", selected: L.shown_to === "nobody" }, t("nobody")),
  );
  return h(
    "section",
    { class: "card-panel friends", id: "friends", "aria-labelledby": "friends-h" },
    h("h2", { id: "friends-h" }, t("Friends")),
    friends.length ? h("ul", { class: "people friends-list", "aria-labelledby": "friends-h" }, friends) : h("p", { class: "muted", id: "no-friends" }, t("No friend yet: add one by their handle, or from a race's results.")),
    ...section("incoming-h", t("Asking to be your friend"), L.incoming, (p) => [
      button(t("Accept"), p, () => ask(app, "add_friend", { player: p.player }), false),
      button(t("Decline"), p, () => ask(app, "remove_friend", { player: p.player })),
    ]),
    ...section("outgoing-h", t("Asked by you"), L.outgoing, (p) => [button(t("Cancel"), p, () => ask(app, "remove_friend", { player: p.player }))]),
    ...section("blocked-h", t("Blocked"), L.blocked, (p) => [button(t("Unblock"), p, () => ask(app, "unblock_player", { player: p.player }))]),
    ...panelRivals(app),
    h("form", { class: "row add-friend", onsubmit: add }, field, h("button", { type: "submit", id: "add-friend" }, t("Add a friend"))),
    h("label", { class: "field shown-to" }, h("span", {}, t("Show what I'm doing to")), shown),
  );
}

async function block(app, f) {
  const sure = await app.ask(t("Block {name}?", { name: f.name }), t("They can no longer ask you, invite you or see what you are doing, and you no longer see them."), t("Block"), t("Cancel"));
  if (sure) ask(app, "block_player", { player: f.player });
}

/** Whom a button of a person's row acts on: said to screen readers ("Remove: Bob"), seen in the row. */
const whom = (p) => h("span", { class: "sr-only" }, ": ", p.name);

// -- recent rivals: the people I raced last, to add as friends ----------------------------------

/** How many of my recent rivals (the lobby's, yours.js) the friends panel lists. */
const PANEL_RIVALS = 6;

/** The recent rivals the friends panel lists: in the lobby only, once read (yours.js), those I
 * may ask (registered players), those of my lists left out (the panel lists them already). */
function lobbyRivals(S) {
  const y = S.yours;
  if (S.view !== "lobby" || S.room || !y?.rivals?.length || y.player !== S.me?.player || !S.friends.list) return null;
  const listed = new Set(knownKey(S).split(","));
  const rivals = y.rivals.filter((r) => registered(r.player) && !listed.has(r.player)).slice(0, PANEL_RIVALS);
  return rivals.length ? rivals : null;
}

/** The friends panel's "Recent rivals": each with their head-to-head in short and what I may do. */
function panelRivals(app) {
  const rivals = lobbyRivals(app.S);
  if (!rivals) return [];
  return [
    h("h3", { id: "friend-rivals-h" }, t("Recent rivals")),
    h(
      "ul",
      { class: "people friend-rivals", "aria-labelledby": "friend-rivals-h" },
      rivals.map((r) =>
        h(
          "li",
          { "data-player": r.player },
          h("span", { class: "person" }, h("a", { href: playerHref(r.player), class: "who", title: r.name }, r.name), h("span", { class: "state muted h2h" }, headToHead(r).record)),
          h("span", { class: "acts" }, rivalAct(app, r, "friends")),
        ),
      ),
    ),
  ];
}

/** A registered player's id (an anonymous racer's is a session's: nobody to ask to be friends). */
const registered = (player) => /^u/.test(player);

/** A player's page (the records pages). */
export const playerHref = (player) => `/players/${encodeURIComponent(player)}`;

/** What I may do about a recent rival (``where``: the panel's name, for the button's id): "Add
 * friend" (a registered player I have nothing with), "Request sent" once asked (the button kept,
 * its focus too, saying so), "Accept" when they asked me; a friend is said so; nothing for a
 * player I block, or one who is not registered (nobody to ask). The friends panel lists only
 * those I have nothing with: once asked, they are under "Asked by you" there, the focus with them. */
export function rivalAct(app, rival, where) {
  const L = app.S.friends.list;
  if (!L || !app.S.me?.identified || !registered(rival.player)) return null;
  const is = (people) => people.some((p) => p.player === rival.player);
  if (is(L.blocked)) return null;
  if (is(L.friends)) return h("span", { class: "muted rival-friend" }, t("your friend"));
  const id = `${where}-rival-${rival.player}`;
  if (is(L.outgoing)) return h("button", { id, class: "quiet sent", "aria-disabled": "true" }, t("Request sent"), whom(rival));
  const add = async () => {
    const reply = await ask(app, "add_friend", { player: rival.player });
    if (!reply) return;
    app.say(reply.friends.some((f) => f.player === rival.player) ? t("You and {name} are friends now.", { name: rival.name }) : t("Asked {name} to be friends.", { name: rival.name }));
    // The part was rebuilt: the focus where it was, or (the friends panel) on their row in my lists now.
    const row = [...document.querySelectorAll("#friends li")].find((li) => li.dataset.player === rival.player);
    (document.getElementById(id) ?? row?.querySelector("button"))?.focus();
  };
  if (is(L.incoming)) return h("button", { id, class: "quiet", onclick: add }, t("Accept"), whom(rival));
  return h("button", { id, class: "quiet add-rival-friend", onclick: add }, t("Add friend"), whom(rival));
}

// -- race again: the people of a finished race, invited to a new room -----------------------------

/** The people I raced in the room's race (bots and ghosts are nobody to invite). */
const peopleRaced = (room) => (room.standings ?? []).filter((s) => s.player !== room.you && !s.bot && !s.ghost);

/** An open "race again" invitation to me from someone of this race: theirs answers it, not a room of mine. */
const againFrom = (F, room) => F.invites.find((i) => i.again && peopleRaced(room).some((p) => p.player === i.player));

/** What the results' race-again offer shows: a part's key. */
export const againKey = (S) => JSON.stringify([Boolean(S.friends.list), S.me?.identified, againFrom(S.friends, S.room ?? {})?.invite]);

/** "Race again" on a finished race's results, for a registered racer who raced people: a new
 * room, a new deal, each of them invited (race_again). Null when there is nobody to invite, or
 * one of them asked already (their invitation is the way). */
export function againOffer(app) {
  const { S } = app;
  const room = S.room;
  const people = peopleRaced(room);
  if (!S.friends.list || !S.me?.identified || room.role !== "racer" || room.solo || !people.length || againFrom(S.friends, room)) return null;
  return [
    // Once: a second press while the first is answered would be refused from the new room.
    h("button", { id: "race-again-all", "aria-describedby": "race-again-note", onclick: (e) => raceAgain(app, e.currentTarget) }, t("Race again")),
    // TRANSLATORS: under a race's results, beside Rematch (the same room, once everyone asks): what "Race again" does.
    h("p", { class: "muted again-note", id: "race-again-note" }, t("A new room and a new deal, {names} invited: whoever accepts races.", { names: list(people.map((p) => p.name)) })),
  ];
}

/** Race again: seated at once in a new room (the reply), then an `invitation` event for each
 * person invited, said as it comes; their names are the race's (they need not be friends). */
async function raceAgain(app, button) {
  const { S, act } = app;
  for (const p of peopleRaced(S.room)) S.friends.names.set(p.player, p.name);
  button.disabled = true;
  try {
    act.showRoom(await S.conn.call("race_again"));
  } catch (e) {
    button.disabled = false;
    app.say(refused(e));
  }
}

/** "Add as a friend", under a race's results: a button for each registered rival I have nothing
 * with yet (none: nothing shown). */
export function addRivals(app, racers) {
  const { S } = app;
  if (!S.friends.list || !S.me?.identified) return null;
  const known = new Set(knownKey(S).split(","));
  const rivals = racers.filter((r) => r.player !== S.me.player && registered(r.player) && !known.has(r.player));
  if (!rivals.length) return null;
  const add = async (racer) => {
    const reply = await ask(app, "add_friend", { player: racer.player });
    if (reply) app.say(reply.friends.some((f) => f.player === racer.player) ? t("You and {name} are friends now.", { name: racer.name }) : t("Asked {name} to be friends.", { name: racer.name }));
  };
  return h(
    "p",
    { class: "row add-rivals", id: "add-rivals" },
    h("span", { class: "muted" }, t("Add as a friend:")),
    rivals.map((r) => h("button", { class: "quiet add-rival", "aria-label": t("Add {name} as a friend", { name: r.name }), onclick: () => add(r) }, "+ ", r.name)),
  );
}
