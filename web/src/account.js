// The account panel, opened from the lobby (docs/protocol.md, section 21): who I am on this server
// (my player id, my handle, my page), claim a handle, set a password, sign in on this device with a
// handle and password, export my data, delete my account. Every refusal is said in words
// (explain.js). ``app`` is what the race client lends the panel (main.js): conn, me, render, show,
// storedKey, useKey (race as the player a key names: a new session said with it), forgetKey, and
// the panel's state: `account` (the page state's, state.js) and `forms` (its fields, made once).
import { h } from "./dom.js";
import { explain } from "./explain.js";
import { t } from "./i18n.js";

/** The player a key names (its part before the dot: ID.SECRET). */
export const keyPlayer = (key) => key.split(".", 1)[0];

/** The export's file name: the player and the day (UTC) it was taken. */
export const exportFileName = (player, date) => `seahaven-${player}-${date.toISOString().slice(0, 10)}.json`;

/** My page on the records pages: by handle when I have one (it reads better), else by id. */
export const myPagePath = (me) => `/players/${encodeURIComponent(me.handle ?? me.player)}`;

/** Called as the panel opens. A tab whose session began before this browser had a player here
 * races anonymously (the token's session) while the key waits for a new session; the panel's
 * requests need the player's own, so the panel says hello with the key (once per page). */
export function openAccount(app) {
  const A = app.account;
  A.note = null;
  A.deleting = false;
  const key = app.storedKey();
  if (app.me && !app.me.identified && key && !A.triedKey) {
    A.triedKey = true;
    app.useKey(key);
  }
}

export function accountView(app) {
  const A = app.account;
  const me = app.me;
  const parts = [h("h2", { id: "account-h" }, t("Account"))];
  if (A.note) parts.push(h("p", { id: "account-note", class: A.note.error ? "error" : "done", role: A.note.error ? "alert" : "status" }, A.note.text));
  if (!me || app.conn?.online === false) parts.push(h("p", { class: "muted" }, t("Connecting…")));
  else parts.push(me.identified ? playerPart(app, me) : anonymousPart(app));
  parts.push(signInPart(app), h("button", { class: "quiet", id: "account-back", onclick: () => app.show("lobby") }, t("Back to the lobby")));
  return h("section", { class: "card-panel account", "aria-labelledby": "account-h" }, parts);
}

/** The form fields, made once: a render (any event) rebuilds the view but keeps what was typed. */
function fields(app) {
  app.forms.account ??= {
    handle: h("input", { id: "handle", maxlength: 64, required: true, autocomplete: "username", "aria-describedby": "handle-rules" }),
    password: h("input", { id: "new-password", type: "password", minlength: 8, maxlength: 128, required: true, autocomplete: "new-password" }),
    signHandle: h("input", { id: "sign-in-handle", maxlength: 64, required: true, autocomplete: "username" }),
    signPassword: h("input", { id: "sign-in-password", type: "password", maxlength: 128, required: true, autocomplete: "current-password" }),
    deleteWord: h("input", { id: "delete-word", maxlength: 64, autocomplete: "off", spellcheck: "false", "aria-describedby": "delete-warning" }),
  };
  return app.forms.account;
}

function playerPart(app, me) {
  const A = app.account;
  const f = fields(app);
  const fact = (label, value, id) => [h("dt", {}, label), h("dd", { id }, value)];
  return h(
    "div",
    { class: "account-player" },
    h("dl", { class: "facts" }, fact(t("Player"), me.player, "account-player"), fact(t("Handle"), me.handle ?? t("none yet"), "account-handle")),
    h("p", {}, h("a", { href: myPagePath(me), id: "account-page", target: "_blank", rel: "noopener" }, t("My page"))),
    form(
      app,
      "claim-form",
      () => claim(app, f.handle.value.trim()),
      h("label", { for: "handle" }, me.handle ? t("A new handle") : t("Claim a handle")),
      f.handle,
      button(app, "claim", me.handle ? t("Change handle") : t("Claim")),
      h("p", { class: "muted", id: "handle-rules" }, t("3 to 24 letters, digits and _ - . ; the first to claim one holds it.")),
    ),
    form(
      app,
      "password-form",
      () => setPassword(app, f.password.value),
      h("label", { for: "new-password" }, t("Password")),
      f.password,
      button(app, "set-password", t("Set password")),
      h("p", { class: "muted" }, t("8 characters or more. With your handle, it signs you in on another device.")),
    ),
    h(
      "div",
      { class: "row" },
      h("button", { id: "export", class: "quiet", disabled: A.busy, onclick: () => act(app, () => exportData(app)) }, t("Export my data")),
      h("button", { id: "delete-account", class: "danger", disabled: A.busy || A.deleting, "aria-expanded": A.deleting ? "true" : "false", onclick: () => askToDelete(app) }, t("Delete my account")),
    ),
    A.deleting ? deletePart(app, me) : null,
  );
}

/** What the player types to delete their account for good: their handle, else their name. */
export const deleteWord = (me) => me.handle ?? me.name ?? me.player;

/** Deleting cannot be undone, so it is asked twice: the button opens this warning, and the
 * account goes only once the player has typed their handle (or name) in it. */
function deletePart(app, me) {
  const A = app.account;
  const f = fields(app);
  const word = deleteWord(me);
  const matches = () => f.deleteWord.value.trim().toLowerCase() === word.toLowerCase();
  const go = button(app, "delete-for-good", t("Delete for good"));
  go.classList.add("danger");
  go.disabled = A.busy || !matches();
  f.deleteWord.oninput = () => (go.disabled = A.busy || !matches());
  return form(
    app,
    "delete-form",
    () => (matches() ? deleteAccount(app) : Promise.reject(new Error(t("Type {word} to delete your account.", { word })))),
    h("h3", { id: "delete-h" }, t("Delete your account?")),
    h("p", { id: "delete-warning" }, t("Your handle, password and keys go at once; your races stay on record, as 'deleted player'. This cannot be undone.")),
    h("label", { for: "delete-word" }, t("To confirm, type {word}", { word })),
    f.deleteWord,
    h("div", { class: "row" }, go, h("button", { type: "button", id: "delete-keep", class: "quiet", onclick: () => keep(app) }, t("Keep my account"))),
  );
}

function askToDelete(app) {
  const A = app.account;
  A.deleting = true;
  A.note = null;
  fields(app).deleteWord.value = "";
  app.render();
  document.getElementById("delete-word")?.focus();
}

function keep(app) {
  const A = app.account;
  A.deleting = false;
  app.render();
  document.getElementById("delete-account")?.focus();
}

function anonymousPart(app) {
  const A = app.account;
  const key = app.storedKey();
  if (key) {
    return h(
      "div",
      {},
      h("p", {}, t("This tab races anonymously for now; your player on this server is {player}.", { player: keyPlayer(key) })),
      h("button", { id: "use-key", disabled: A.busy, onclick: () => app.useKey(key) }, t("Race as my player")),
    );
  }
  return h(
    "div",
    {},
    h("p", {}, t("You race anonymously: nothing keeps your races together. A player of this server has a page, bests and a history.")),
    h("button", { id: "register", disabled: A.busy, onclick: () => act(app, () => register(app)) }, t("Make me a player")),
  );
}

function signInPart(app) {
  const f = fields(app);
  return form(
    app,
    "sign-in-form",
    () => signIn(app, f.signHandle.value.trim(), f.signPassword.value),
    h("h3", {}, t("Sign in on this device")),
    h("p", { class: "muted" }, t("With the handle and password of a player of this server: this device races as that player from then on.")),
    h("label", { for: "sign-in-handle" }, t("Handle")),
    f.signHandle,
    h("label", { for: "sign-in-password" }, t("Password")),
    f.signPassword,
    button(app, "sign-in", t("Sign in")),
  );
}

const form = (app, id, run, ...children) => h("form", { id, class: "account-form", onsubmit: (e) => (e.preventDefault(), act(app, run)) }, children);
const button = (app, id, text) => h("button", { type: "submit", id, disabled: app.account.busy }, text);

/** Run one account request: the panel is busy meanwhile, then says how it went. */
async function act(app, run) {
  const A = app.account;
  A.busy = true;
  A.note = null;
  app.render();
  try {
    A.note = { text: await run(), error: false };
  } catch (e) {
    A.note = { text: explain(e), error: true };
  }
  A.busy = false;
  app.render();
}

async function claim(app, handle) {
  const identity = await app.conn.call("claim_handle", { handle });
  app.me.handle = identity.handle;
  fields(app).handle.value = "";
  return t("Your handle is {handle} now.", { handle: identity.handle });
}

async function setPassword(app, password) {
  await app.conn.call("set_password", { password });
  fields(app).password.value = "";
  return app.me.handle ? t("Password set: sign in with your handle and it on another device.") : t("Password set. Claim a handle too: signing in needs it.");
}

async function signIn(app, handle, password) {
  const identity = await app.conn.call("sign_in", { handle, password });
  fields(app).signPassword.value = "";
  app.useKey(identity.key);
  return t("Signed in as {player}: this device races as that player now.", { player: identity.handle ?? identity.player });
}

async function register(app) {
  const identity = await app.conn.call("register");
  app.useKey(identity.key);
  return t("You are a player of this server now: your races are kept together.");
}

async function exportData(app) {
  const { data } = await app.conn.call("export_data");
  const url = URL.createObjectURL(new Blob([data], { type: "application/json" }));
  const link = h("a", { href: url, download: exportFileName(app.me.player, new Date()), hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000); // the download has started by then
  return t("Your data is downloaded: a JSON file of your account and every race of yours on record.");
}

async function deleteAccount(app) {
  const A = app.account;
  await app.conn.call("delete_account");
  A.deleting = false;
  fields(app).deleteWord.value = "";
  app.forgetKey();
  Object.assign(app.me, { identified: false, handle: null });
  return t("Your account is deleted: you race on anonymously.");
}
