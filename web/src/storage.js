// What the page keeps in the browser (main.js hands it to the parts as `keep`): the player's name,
// key and settings in localStorage (the browser's), the session token and a race's wishes in
// sessionStorage (this tab's: a reload resumes them; another tab is a session of its own, beside
// this one, of the same player). Nothing here is kept in memory: the storages are the state.
import { STORAGE_KEY } from "./i18n.js";

export const KEY = {
  name: "seahaven.name",
  token: "seahaven.token",
  key: "seahaven.key", // the registered player's secret key (docs/protocol.md, section 21)
  anonymous: "seahaven.anonymous", // the player deleted their account here: register no more by itself
  four: "seahaven.fourColour",
  opening: "seahaven.opening",
  auto: "seahaven.autoMove", // "off": no auto-move to the foundations
  sound: "seahaven.sound", // "on": short sounds (sound.js); off unless the player turned them on
  asked: "seahaven.autoAsked", // this tab's: the room whose next opening the server plays for me (ready.auto)
  quick: "seahaven.quick", // this tab's: waiting in a quick match (ready by itself once paired, after a reload too)
  form: "seahaven.newRoom", // the lobby's new-room form as last sent (its deal excepted)
  lang: STORAGE_KEY, // the language the player chose with the switcher (else the browser's)
};

/** The page's keeping, over ``store`` (localStorage) and ``tab`` (sessionStorage). */
export function keeping(store, tab) {
  return {
    store,
    tab,
    /** The new-room form's last settings (JSON-able), kept in this browser. */
    lastForm() {
      try {
        return JSON.parse(store.getItem(KEY.form) ?? "{}") ?? {};
      } catch {
        return {};
      }
    },
    keepForm: (settings) => store.setItem(KEY.form, JSON.stringify(settings)),
    // The last race's opening board: a racer's room state after a reload holds only the current
    // board, and undo needs the moves from the opening.
    openingOf(deal) {
      try {
        const saved = JSON.parse(store.getItem(KEY.opening) ?? "null");
        return saved?.deal === deal ? saved : null;
      } catch {
        return null;
      }
    },
    keepOpening: (opening) => store.setItem(KEY.opening, JSON.stringify(opening)),
    keepQuick: (on) => (on ? tab.setItem(KEY.quick, "1") : tab.removeItem(KEY.quick)),
    keepAuto: (on) => store.setItem(KEY.auto, on ? "on" : "off"),
    keepAsked: (code) => (code ? tab.setItem(KEY.asked, code) : tab.removeItem(KEY.asked)),
    storedName: () => store.getItem(KEY.name) ?? "",
    keepName: (name) => store.setItem(KEY.name, name),
    storedKey: () => store.getItem(KEY.key),
    keepKey(key) {
      if (key) store.setItem(KEY.key, key);
      else store.removeItem(KEY.key);
    },
    token: () => tab.getItem(KEY.token),
    keepToken: (token) => tab.setItem(KEY.token, token),
    forgetToken: () => tab.removeItem(KEY.token),
  };
}
