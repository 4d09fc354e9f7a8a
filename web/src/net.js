// The seahaven.v1 connection (docs/protocol.md): msgpack maps in binary frames, replies matched by
// seq, events handed to the app. Comes back by itself after a drop, says hello with the token and
// resends the requests still unanswered with their old seq, so nothing is played twice. With a
// registered player's key (section 21) a hello that opens a session says the key: the session is
// that player's. A key the server refuses is dropped (onKey(null)); one it cannot check now is kept,
// and this time the session is anonymous. Seated in a room (a "room" message with role racer), it
// moves to the room's address, /r/CODE (docs/protocol.md, "Room addresses"): a new socket resumes the
// session there (the server closes the old one with 4001) and the calls still unanswered are sent
// again; a balancer hashing the path puts the room's racers on one node. Every reconnection uses it.
import { decode, encode } from "@msgpack/msgpack";
import { t } from "./i18n.js";

export const SUBPROTOCOL = "seahaven.v1";
// Wrong version; replaced by another tab or device; removed by the server's moderators (4003, try
// another node, is a drop like any other: back in a second, through the balancer).
const FINAL_CLOSES = new Set([4000, 4001, 4004]);

/** The room's address under the server's: its path with /r/CODE added. */
export function roomUrl(url, room) {
  const at = new URL(url);
  at.pathname = `${at.pathname.replace(/\/+$/, "")}/r/${encodeURIComponent(room)}`;
  at.search = at.hash = "";
  return at.href;
}

export class ServerError extends Error {
  constructor(body) {
    super(body.message || body.code);
    this.code = body.code;
  }
}

export class Connection {
  /** onEvent(type, body), onStatus(state, detail): "online" | "offline" | "closed". */
  constructor(url, { onEvent, onStatus, onWelcome, onKey = () => {} }) {
    this.base = url;
    this.url = url; // the room's address once seated in one
    this.room = null;
    this.previous = null; // the connection a move to the room's address replaces, read until it closes
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.onWelcome = onWelcome;
    this.onKey = onKey;
    this.name = "player";
    this.token = null;
    this.key = null;
    this.keyNow = true; // say the key at the next hello that opens a session
    this.seq = 0;
    this.waiting = new Map(); // seq -> {type, body, resolve, reject}
    this.ws = null;
    this.online = false;
    this.offset = 0; // server clock minus ours
    this.retry = null;
    this.stopped = false;
    this.removing = null; // the server said it removes us (a moderator closed our room): its words
    this.holding = false; // requests wait (but register): this session is becoming the player's
  }

  now() {
    return Date.now() + this.offset;
  }

  clock(serverTime) {
    if (typeof serverTime === "number") this.offset = serverTime - Date.now();
  }

  start(name, token, key = null) {
    this.name = name;
    this.token = token;
    this.key = key;
    this.open();
  }

  open() {
    clearTimeout(this.retry);
    this.previous = null;
    this.removing = null;
    const ws = new WebSocket(this.url, SUBPROTOCOL);
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    ws.onopen = () => this.hello(ws);
    ws.onmessage = (e) => this.receive(ws, e.data);
    ws.onclose = (e) => this.closed(ws, e);
  }

  async hello(ws) {
    const seq = ++this.seq;
    let body = { name: this.name };
    if (this.token) body = { name: this.name, token: this.token };
    else if (this.key && this.keyNow) body = { name: this.name, key: this.key };
    ws.send(encode({ type: "hello", seq, body }));
    this.helloSeq = seq;
    this.helloKey = "key" in body;
    this.helloResumes = "token" in body;
  }

  receive(ws, data) {
    if ((ws !== this.ws && ws !== this.previous) || typeof data === "string") return;
    const msg = decode(new Uint8Array(data));
    const { type, re, body } = msg;
    if (re !== null && re === this.helloSeq && (type === "welcome" || type === "error")) {
      this.helloSeq = null;
      if (type === "error") {
        if (body.code === "bad-token" && this.token) {
          this.token = null; // the session expired: start a new one
          this.onWelcome(null, body);
          this.hello(ws);
        } else if (this.helloKey && body.code === "bad-key") {
          this.key = null; // not a player of this server (any more)
          this.onKey(null);
          this.hello(ws);
        } else if (this.helloKey && (body.code === "records-unavailable" || body.code === "rate-limited")) {
          this.keyNow = false; // the server cannot check it now: anonymous this time, keep it
          this.hello(ws);
        } else {
          this.onStatus("offline", body.message);
        }
        return;
      }
      this.token = body.token;
      this.seq = Math.max(this.seq, body.last_seq);
      // A new session has answered none of the calls waiting here (made before its hello, or
      // handed over from another session): numbered after its hello, they are new requests to it.
      if (!this.helloResumes) for (const [seq, call] of [...this.waiting]) this.waiting.delete(seq) && this.waiting.set(++this.seq, call);
      this.clock(body.server_time);
      this.online = true;
      // Calls the welcome makes wait their turn: every waiting call goes out after it, in seq order.
      this.welcoming = true;
      try {
        this.onWelcome(body, null);
      } finally {
        this.welcoming = false;
      }
      for (const [seq, call] of this.waiting) this.write(call.type, call.body, seq);
      this.onStatus("online");
      return;
    }
    if (type === "pong" || type === "countdown" || type === "started" || type === "room") this.clock(body.server_time);
    if (type === "room" && body.role === "racer" && body.room !== this.room) this.follow(body.room);
    const call = re === null ? undefined : this.waiting.get(re);
    if (call) {
      this.waiting.delete(re);
      if (type === "error" && body.code === "rate-limited" && call.retries < 5) {
        call.retries++;
        this.waiting.set(re, call);
        setTimeout(() => this.write(call.type, call.body, re), 1000);
        return;
      }
      if (type === "error") call.reject(new ServerError(body));
      else call.resolve(body);
      return;
    }
    if (re === null) this.onEvent(type, body);
  }

  closed(ws, e) {
    if (ws !== this.ws) return;
    this.online = false;
    // After `removing`, the close is final whatever its code: a busy page that did not answer the
    // server's close frame in time sees the connection aborted (1006), not 4004.
    if (FINAL_CLOSES.has(e.code) || this.stopped || this.removing !== null) {
      for (const call of this.waiting.values()) call.reject(new ServerError({ code: "closed", message: e.reason }));
      this.waiting.clear();
      // 4001: the player's session went on elsewhere; said in words, not in the server's reason.
      const why = e.code === 4001 ? t("Playing in another tab or device") : e.reason || this.removing;
      this.onStatus("closed", why || t("the connection was closed"));
      return;
    }
    // Moves are not resent: the room state that follows the next welcome already holds every move
    // the server got, and the board is rebuilt from it.
    for (const [seq, call] of this.waiting) {
      if (call.type === "move" || call.type === "undo") {
        this.waiting.delete(seq);
        call.reject(new ServerError({ code: "offline", message: "connection lost" }));
      }
    }
    this.onStatus("offline", t("connection lost: coming back…"));
    this.retry = setTimeout(() => this.open(), 1000);
  }

  /** Move to the room's address: a new socket says hello with the token (its welcome sends the
   * unanswered calls again); the old one is read until the server closes it, and its close ignored. */
  follow(room) {
    this.room = room;
    this.url = roomUrl(this.base, room);
    if (!this.online) return; // the next connection uses it
    const old = this.ws;
    this.open();
    this.previous = old;
  }

  write(type, body, seq) {
    if (this.welcoming || (this.holding && type !== "register")) return; // sent after the welcome, by handOver or by release
    if (this.online && this.ws.readyState === WebSocket.OPEN) this.ws.send(encode({ type, seq, body }));
  }

  /** Send the requests held back meanwhile here after all (the session stays this one). */
  release() {
    this.holding = false;
    for (const [seq, call] of this.waiting) this.write(call.type, call.body, seq);
  }

  /** Send a request; resolves with the reply's body, rejects with a ServerError. */
  call(type, body = {}) {
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { type, body, resolve, reject, retries: 0 });
      this.write(type, body, seq);
    });
  }

  /** Drop the connection now, as a network failure would (tests and "reconnect" use it). */
  drop() {
    if (this.ws) this.ws.close();
  }

  /** The calls still waiting, taken from this connection (its close rejects none of them): sent
   * on ``next`` instead, each answering its caller once ``next`` is welcomed. */
  handOver(next) {
    const calls = [...this.waiting.values()];
    this.waiting.clear();
    for (const call of calls) next.call(call.type, call.body).then(call.resolve, call.reject);
  }

  /** The server said it is removing this connection (a `notice` that closed our room): the close
   * that follows ends it for good, as a 4004 would, even if it comes as an abort. */
  removed(why) {
    this.removing = why;
  }

  /** Close for good without a word more to the page: a new Connection has taken its place, and
   * this one's late close must not mark that one offline. Calls still waiting are rejected. */
  retire() {
    this.stopped = true;
    clearTimeout(this.retry);
    this.onEvent = this.onStatus = this.onWelcome = () => {};
    this.drop();
  }
}
