// What the account panel, the challenges and the arena (account.js, challenge.js, arena.js) use of
// the page: `app.hooks`. A function of the page's `app` (its state `S`, `say`, `render`, `act`,
// `session`, `player`) and `keep` (storage.js).
import { openAccount } from "./account.js";
import { racedHere } from "./challenge.js";
import { KEY } from "./storage.js";

export function makeHooks(app, keep) {
  const S = app.S;
  const { store } = keep;
  const hooks = {
    get conn() {
      return S.conn;
    },
    get me() {
      return S.me;
    },
    get arena() {
      return S.arena;
    },
    get account() {
      return S.account;
    },
    get challenges() {
      return S.challenges;
    },
    // The panels' form fields, made once by their views (DOM, so the page's, not the state's): a
    // render rebuilds the panel but keeps what was typed.
    forms: {},
    // Their state is their own part of the state (account, challenges, arena): a render they ask
    // for rebuilds their views (S.outside is in the parts' keys).
    render: () => {
      S.outside++;
      app.render();
    },
    toast: (text) => app.say(text),
    enterRoom: (room) => app.act.showRoom(room),
    leave: () => app.act.leave(),
    name: () => keep.storedName(),
    raced: (challenge) => racedHere(store, challenge),
    storedKey: () => keep.storedKey(),
    useKey: (key) => app.player.useKey(key),
    forgetKey: () => app.player.forgetKey(),
    show(view) {
      S.view = view;
      if (view === "account") openAccount(hooks);
      app.render();
      app.act.refreshRooms();
    },
    /** "Race it" on a challenge's page: connect (with this name) if need be, then accept it. */
    raceChallenge(challenge, name) {
      store.setItem(KEY.name, name);
      if (S.conn?.online) return app.session.raceChallenge(challenge);
      S.wanted = { challenge };
      if (!S.conn) app.session.connect();
    },
  };
  return hooks;
}
