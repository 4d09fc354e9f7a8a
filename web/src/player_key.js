// The player this browser races as (main.js): registered before the first race, a new session
// said with a key (signed in, registered), the key forgotten when the account is deleted. A
// function of the page's `app` (its state `S`, `render`, `session`) and `keep` (storage.js).
import { KEY } from "./storage.js";

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
      .catch(() => {
        // records-unavailable, or an older server: race anonymously on this session
        conn.release();
        if (S.conn === conn) app.session.welcomed(welcome);
      })
      .finally(() => {
        S.registering = "asked";
      });
    return true;
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
