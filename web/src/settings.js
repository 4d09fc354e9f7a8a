// The player's name and settings (main.js): the first screen's name and sign-in, a new name, the
// language, the sounds, four colours. A function of the page's `app` (its state `S`, `say`,
// `render`, `hooks`, `session`) and `keep` (storage.js), over ``win``.
import { openAccount } from "./account.js";
import { speakAsStored, t } from "./i18n.js";
import { said } from "./marks.js";
import { makeSound } from "./sound.js";
import { KEY } from "./storage.js";

/** A name as the server will show it: trimmed; one of nothing but spaces is no name. */
export const cleanName = (text) => text.trim();

/** The page's language as stored (or the browser's), its title in it. */
export function speakAsAsked(win) {
  speakAsStored(win);
  win.document.title = t("Seahaven race");
}

/** {named, signInFirst, rename, speak, sound, soundOn, setSound, fourColour}. */
export function settings(win, app, keep) {
  const S = app.S;
  const { store } = keep;
  const { sound, soundOn, setSound } = makeSound();
  setSound(store.getItem(KEY.sound) === "on");
  return {
    named(text) {
      const name = cleanName(text);
      if (!name) return app.say(t("A name needs a letter or a digit."));
      store.setItem(KEY.name, name);
      S.view = "lobby";
      if (app.session.playerOnline()) {
        // The player's name, on every device of theirs from now on (the session goes on).
        S.conn.call("set_name", { name }).then(
          () => {
            S.me = { ...S.me, name };
            app.render();
          },
          (e) => app.say(e.message),
        );
        return app.render();
      }
      app.session.connect();
      app.render();
    },
    /** "I have a player here: sign in" on the first screen: connect without becoming a new
     * player, and open the account panel, whose sign-in makes this browser that player. */
    signInFirst(text) {
      store.setItem(KEY.name, cleanName(text) || "player"); // as connect() names a nameless session
      S.signingIn = true;
      S.view = "account";
      app.session.connect();
      openAccount(app.hooks);
      app.render();
    },
    /** A new name: a guest's is a new session (the server fixes the name at hello); a player's
     * is changed in place (set_name, in named). */
    rename() {
      if (app.session.playerOnline()) {
        S.view = "name";
        return app.render();
      }
      S.conn.retire();
      keep.forgetToken();
      S.view = "name";
      app.render();
    },
    /** The switcher: speak ``lang`` from now on, here and after a reload. */
    speak(lang) {
      store.setItem(KEY.lang, lang);
      speakAsAsked(win);
      // A bot's name is said in the page's language: said again in this one.
      if (S.room) {
        S.room.racers = S.room.racers.map(said);
        S.room.standings = S.room.standings?.map(said) ?? S.room.standings;
        if (S.result) S.result.standings = S.room.standings;
      }
      app.render();
    },
    /** Short sounds (sound.js): played by the parts through ``app.sound``, when on. */
    sound,
    soundOn,
    /** The sounds' switch: kept in this browser; turned on, a sound says what they are like. */
    setSound(on) {
      setSound(on);
      store.setItem(KEY.sound, on ? "on" : "off");
      app.say(on ? t("Sounds on: a card placed, a refused move, a win.") : t("Sounds off."));
      sound("place");
    },
    fourColour(on) {
      win.document.body.classList.toggle("four-colour", on);
      store.setItem(KEY.four, on ? "1" : "");
    },
  };
}
