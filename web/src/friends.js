// Friends, presence and invitations (docs/protocol.md, section 24): the lobby's friends panel
// (also beside my waiting room, to invite into it), the "Add friend" offer beside a rival's name,
// and the invitation toasts. Its state is its own (`F`), filled by the server's `friends` reply
// and kept by its events (`friends`, `presence`, `invitation`, `invited`, `invite_closed`); the
// panel is a part keyed by what it shows (friendsKey), so a friend's presence never rebuilds a board.
import { h } from "./dom.js";
import { refusal } from "./explain.js";
import { number, t } from "./i18n.js";
import { presetTitle } from "./records_format.js";

export const F = {
  list: null, // the last `friends` body: {friends, incoming, outgoing, blocked, shown_to}; null: none (not a registered player, no records)
  invites: [], // invitations to me, still open: the `invited` bodies, oldest first
  sent: new Map(), // invitations I sent, still open: invite id -> the friend's name
};

// The friends requests' refusals in words (explain.js has the others).
const WORDS = {
  "player-not-found": () => t("No player has that handle."),
  "not-friends": () => t("You can invite only your friends."),
  blocked: () => t("That player takes no requests from you, or you block them."),
  "friends-limit": () => t("Too many friends or requests: remove some first."),
  "invite-not-found": () => t("That invitation was answered or has expired."),
};
const refused = (e) => WORDS[e?.code]?.() ?? refusal(e);

/** What the panel shows: its part's key (with whether I may invite, and to what). */
export function friendsKey(S) {
  return JSON.stringify([F.list, S.me?.player, inviteTo(S)]);
}

/** The players the lists know (any list): a rival's "Add friend" is not offered to them. */
export const knownKey = () => (F.list ? [...F.list.friends, ...F.list.incoming, ...F.list.outgoing, ...F.list.blocked].map((p) => p.player).join(",") : "");

/** Where an invitation takes a friend now: "race" (from no room, a room the server makes),
 * "room" (my waiting room, with a free seat), or null (racing, watching, full). */
function inviteTo(S) {
  const room = S.room;
  if (!room) return S.view === "lobby" ? "race" : null;
  if (room.role === "racer" && room.phase === "waiting" && room.racers.length < room.seats) return "room";
  return null;
}

const nameOf = (player) => [...(F.list?.friends ?? []), ...(F.list?.outgoing ?? []), ...(F.list?.incoming ?? [])].find((p) => p.player === player)?.name ?? t("your friend");

/** Ask for my lists (after each welcome of a registered player's session). */
export function loadFriends(app) {
  const { S } = app;
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
  if (type === "friends") F.list = body;
  else if (type === "presence") {
    const friend = F.list?.friends.find((f) => f.player === body.player);
    if (friend) Object.assign(friend, { state: body.state, room: body.room ?? null });
  } else if (type === "invitation") sent(app, body);
  else if (type === "invited") {
    F.invites = F.invites.filter((i) => i.invite !== body.invite).concat([body]);
    showInvites(app);
  } else if (type === "invite_closed") {
    const name = F.sent.get(body.invite);
    if (name !== undefined) {
      F.sent.delete(body.invite);
      const said = { accepted: t("{name} accepted your invitation.", { name }), declined: t("{name} declined your invitation.", { name }) };
      app.say(said[body.answer] ?? t("{name} did not answer your invitation.", { name }), 6000);
    }
    closeInvite(app, body.invite);
  } else return false;
  return true;
}

function sent(app, body) {
  const name = nameOf(body.player);
  F.sent.set(body.invite, name);
  app.say(t("Invitation sent to {name}.", { name }), 6000);
}

/** A friends request; its `friends` reply is the lists from now on. Null after a refusal (said). */
async function ask(app, type, body) {
  try {
    const reply = await app.S.conn.call(type, body);
    F.list = reply;
    app.render();
    return reply;
  } catch (e) {
    app.say(refused(e));
    return null;
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

let ticking = null;

function closeInvite(app, id) {
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
  let place = document.getElementById("invites");
  if (!place) {
    place = h("div", { id: "invites", class: "invites" });
    document.body.append(place);
  }
  const open = new Set(F.invites.map((i) => i.invite));
  for (const el of [...place.children]) if (!open.has(el.dataset.invite)) el.remove();
  for (const inv of F.invites) if (!place.querySelector(`[data-invite="${inv.invite}"]`)) place.append(inviteToast(app, inv));
  clearInterval(ticking);
  ticking = F.invites.length ? setInterval(() => tickInvites(app), 250) : null;
  tickInvites(app);
}

function tickInvites(app) {
  for (const inv of F.invites) {
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
    h("p", { id: `invite-${inv.invite}`, role: "alert" }, t("{name} invites you to race ({rules})", { name: inv.name, rules: presetTitle(inv.preset) })),
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
  const L = F.list;
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
    people.length ? [h("h3", { id }, title), h("ul", { class: "people", "aria-labelledby": id }, people.map((p) => h("li", {}, h("span", { class: "person" }, who(p)), h("span", { class: "acts" }, acts(p)))))] : [];
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

/** "Add as a friend", under a race's results: a button for each registered rival I have nothing
 * with yet (none: nothing shown). */
export function addRivals(app, racers) {
  const { S } = app;
  if (!F.list || !S.me?.identified) return null;
  const known = new Set(knownKey().split(","));
  const rivals = racers.filter((r) => r.player !== S.me.player && /^u/.test(r.player) && !known.has(r.player));
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
