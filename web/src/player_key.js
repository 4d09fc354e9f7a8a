// The player this browser races as (main.js): registered before the first race, a new session
// said with a key (signed in, registered), the key forgotten when the account is deleted. A
// function of the page's `app` (its state `S`, `render`, `session`) and `keep` (storage.js).
import { KEY } from "./storage.js";

/** A first registration the server could not answer (its records out of reach for a moment) is
 * asked again on the session after these pauses: not for ever, as a server that keeps no players
 * says the same. */
export const REGISTER_PAUSES_MS = [1000, 2000, 4000, 8000, 16000, 32000];

/** {becomePlayer, useKey, forgetKey}. */
export function playerKey(app, keep) {
  const S = app.S;
  const { store } = keep;

  /** A browser without a key becomes a registered player of this server before it races: the
   * anonymous session's first call registers, and a new session said with the key takes its place
   * (useKey) before anything else is done, so the first race is already the player's (its page,
   * ratings and records). True while that happens. Not in a room (a resumed race keeps its seat: the
   * key is kept for the next session), nor after the player chose to race anonymously (an account
   * deleted here), nor again after a server that keeps no players said so. */
  function becomePlayer(welcome) {
    if (welcome.identified || welcome.room || S.room || S.signingIn || keep.storedKey() || store.getItem(KEY.anonymous)) return false;
    if (S.registering) return S.registering === "asking";
    S.registering = "asking";
    const conn = S.conn;
    conn.holding = true; // a request made meanwhile (Create room at once) is the player's, not this session's
    conn
      .call("register")
      .then((identity) => {
        if (!identity.key) throw new Error("no key");
        if (S.conn !== conn) return keep.keepKey(identity.key);
        useKey(identity.key);
        conn.handOver(S.conn); // a request made meanwhile (Create room at once) goes to the player's session
      })
      .catch((error) => {
        // records-unavailable, or an older server: race anonymously on this session (for now)
        conn.release();
        if (S.conn === conn) app.session.welcomed(welcome);
        if (error?.code === "records-unavailable") askAgain(0);
      })
      .finally(() => {
        S.registering = "asked";
      });
    return true;
  }

  /** Register again after the ``tries``-th pause, on the session open then. A key that comes is
   * the player's from the next session: at once from the lobby, and after the room otherwise (a
   * seat is not given up; the key is said at the next connection). */
  function askAgain(tries) {
    setTimeout(() => {
      if (!unregistered()) return;
      const conn = S.conn;
      conn
        .call("register")
        .then((identity) => {
          if (!identity.key || !unregistered()) return;
          if (S.conn === conn && !S.room && !S.wanted && conn.waiting.size === 0) useKey(identity.key);
          else keep.keepKey(identity.key);
        })
        .catch((error) => {
          if (error?.code === "records-unavailable" && tries + 1 < REGISTER_PAUSES_MS.length) askAgain(tries + 1);
        });
    }, REGISTER_PAUSES_MS[tries]);
  }

  /** Nobody yet: no key kept, not signing in, not racing anonymously by choice, nor welcomed as a player. */
  function unregistered() {
    return !keep.storedKey() && !S.signingIn && !store.getItem(KEY.anonymous) && !S.me?.identified;
  }

  /** Race as the player ``key`` names from now on (signed in, registered: account.js): a new
   * session, said with the key (a token would resume this one, which is not that player's). */
  function useKey(key) {
    S.signingIn = false;
    keep.keepKey(key);
    store.removeItem(KEY.anonymous);
    S.conn.retire();
    keep.forgetToken();
    S.me = null;
    app.session.connect();
    app.render();
  }

  /** The account is deleted: forget its key, and race on anonymously without registering again. */
  function forgetKey() {
    keep.keepKey(null);
    store.setItem(KEY.anonymous, "1");
    S.conn.key = null;
  }

  return { becomePlayer, useKey, forgetKey };
}
