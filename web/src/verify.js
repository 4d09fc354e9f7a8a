// A race's signed record checked in the browser (GET /api/v1/races/{race_id}/record): the checks of
// seahaven/verify.py, the reference, under its names and in its order (form, signature, published
// key, draw, one per racer, standings), each passed (ok true), failed (false, detail says why) or
// not checkable here (null, detail says why and who can). The moves are replayed by rules.js, the
// engine's port; signatures, hashes and HMACs are WebCrypto's (crypto.subtle), which a page has in
// a secure context only (https, or http://127.0.0.1): elsewhere those checks are not checkable.
// What the browser cannot do, seahaven verify does: a daily deal's draw runs the solver.
// test/verify.test.js checks all of it against vectors Python writes (tests/test_browser_verify.py).
import { dealBoard } from "./dealing.js";
import { number, t, tn } from "./i18n.js";
import { PRESETS, moveText, parseMove } from "./rules.js";
import { statusText } from "./state.js";

export const FORMAT = "seahaven-race/1";
export const ALGORITHM = "Ed25519";
const DRAW_CONTEXT = "seahaven-draw/1";
const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const GRADE_LETTERS = { g: "gentle", t: "tricky", f: "fiendish" };
const FIELDS = ["race", "preset", "deal", "started_at", "ended_at", "racers", "draw"];
const MAX_DEAL = 2 ** 40 - 1;
const encoder = new TextEncoder();

/** WebCrypto's SubtleCrypto, or null where the page has none (not a secure context). */
export const defaultSubtle = () => globalThis.crypto?.subtle ?? null;

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** A value as Python's repr would quote it in a reason: strings in quotes, the rest as JSON. */
const shown = (v) => (typeof v === "string" ? `'${v}'` : v === undefined ? "None" : JSON.stringify(v));

// -- the canonical form, keys, digests -----------------------------------------------------

/** ``value`` in RFC 8785's canonical JSON (a string: UTF-8 it for the bytes that are signed): keys
 * sorted by code unit, no blanks, strings as JSON.stringify writes them. A record holds no floats
 * and only ASCII keys: anything else throws, as Python's canonical() refuses it. */
export function canonical(value) {
  if (value === null || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error(t("a signed record holds no floats"));
    return BigInt(value).toString(); // an integer's digits, never an exponent
  }
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw new Error(t("a signed record's strings are Unicode text"));
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort(); // by UTF-16 code unit, as RFC 8785 sorts
    const odd = keys.find((key) => !/^[\x00-\x7f]*$/.test(key));
    if (odd !== undefined) throw new Error(t("a signed record's keys are ASCII strings, not {key}", { key: JSON.stringify(odd) }));
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(",")}}`;
  }
  throw new Error(t("a signed record holds no {kind}", { kind: typeof value }));
}

/** Strict base64 (no blanks, padded), as Python's b64decode(validate=True) reads it; null when not. */
export function base64Bytes(text) {
  if (typeof text !== "string" || !/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return null;
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

export const base64Text = (bytes) => btoa(String.fromCharCode(...bytes));
export const hexText = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** Hex to bytes (either case, whole bytes); null when not hex. */
export function hexBytes(text) {
  if (typeof text !== "string" || !/^(?:[0-9a-fA-F]{2})*$/.test(text)) return null;
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

const sha256 = async (subtle, bytes) => new Uint8Array(await subtle.digest("SHA-256", bytes));

/** A key's name: "SHA256:" and the unpadded base64 of the SHA-256 of its raw bytes (OpenSSH's). */
export async function fingerprint(publicKey, subtle = defaultSubtle()) {
  return `SHA256:${base64Text(await sha256(subtle, publicKey)).replace(/=+$/, "")}`;
}

/** SHA-256 of ``seed`` in hex: what a room shows before its start for a secret seed. */
export const commitment = async (seed, subtle = defaultSubtle()) => hexText(await sha256(subtle, seed));

/** The index of the drawn deal among ``count``: HMAC-SHA-256 keyed by the server's seed over the
 * racers' seeds in seat order, each after its length (two bytes, big-endian), in two blocks (the
 * message then 0, then 1), read as one big-endian number modulo ``count``. */
export async function drawIndex(serverSeed, racerSeeds, count, subtle = defaultSubtle()) {
  const parts = [encoder.encode(DRAW_CONTEXT)];
  for (const seed of racerSeeds) parts.push(Uint8Array.of(seed.length >> 8, seed.length & 0xff), seed);
  const message = new Uint8Array(parts.reduce((n, p) => n + p.length, 0) + 1);
  let at = 0;
  for (const part of parts) {
    message.set(part, at);
    at += part.length;
  }
  // HMAC pads a short key with zeros to the block: an empty key is 64 zero bytes (WebCrypto refuses "").
  const raw = serverSeed.length ? serverSeed : new Uint8Array(64);
  const key = await subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  let value = 0n;
  for (const block of [0, 1]) {
    message[message.length - 1] = block;
    for (const byte of new Uint8Array(await subtle.sign("HMAC", key, message))) value = (value << 8n) | BigInt(byte);
  }
  return Number(value % BigInt(count));
}

/** The deal code of deal ``number`` under ``preset`` (seahaven/codes.py encode): SH1-ST-0001G. */
export function dealCode(preset, number) {
  const rules = PRESETS[preset];
  if (!rules) throw new Error(t("unknown preset {preset}", { preset: shown(preset) }));
  if (!Number.isSafeInteger(number) || number < 1 || number > MAX_DEAL) {
    throw new Error(t("deal numbers run from 1 to {max}, not {number}", { max: MAX_DEAL, number: shown(number) }));
  }
  let digits = "";
  for (let n = number; n; n = Math.floor(n / 32)) digits = CODE_ALPHABET[n % 32] + digits;
  digits = digits.padStart(4, "0");
  const body = rules.tag + digits;
  let total = 0;
  let factor = 2;
  for (const ch of [...body].reverse()) {
    const addend = factor * CODE_ALPHABET.indexOf(ch);
    total += Math.floor(addend / 32) + (addend % 32);
    factor = 3 - factor;
  }
  return `SH1-${rules.tag}-${digits}${CODE_ALPHABET[(32 - (total % 32)) % 32]}`;
}

/** The deals a draw picks among: the numbers of a published list's text (seahaven/winnable.py's
 * format), in its order, those of ``grade`` only unless it is null. Throws on a line it cannot read. */
export function drawCandidates(text, grade) {
  const lines = text.split(/\r\n|\n|\r/);
  if (lines.at(-1) === "") lines.pop();
  const found = [];
  lines.forEach((line, i) => {
    if (line.startsWith("#")) return;
    const parts = line.split(/\s+/).filter(Boolean);
    if (parts.length >= 2 && ["preset", "max_states", "bounds"].includes(parts[0])) return;
    if (parts.length === 2 && /^\d+$/.test(parts[0]) && parts[1] in GRADE_LETTERS) {
      if (grade === null || GRADE_LETTERS[parts[1]] === grade) found.push(Number(parts[0]));
      return;
    }
    throw new Error(t("deal list line {line}: cannot read {text}", { line: i + 1, text: shown(line) }));
  });
  return found;
}

// -- the checks ----------------------------------------------------------------------------

const check = (name, ok, detail, extra = {}) => ({ name, ok, detail, ...extra });
const NEEDS_HTTPS = () => t("this page is not in a secure context (https), where browsers check signatures and hashes: checked by `seahaven verify`");

/** No check failed (those not checkable here are not failures). */
export const passed = (checks) => checks.every((c) => c.ok !== false);

/** Every check of a signed record (the parsed JSON of /api/v1/races/{id}/record), in order.
 * ``keys``: the server's published keys (the ``keys`` of /api/v1/keys; undefined: not checked, as
 * Python without --keys; null: could not be read, ``keysError`` says why). ``dealList(preset)``: the
 * published list's text for a drawn deal (null: none published). ``subtle``: WebCrypto (null: none). */
export async function verify(document, { keys, keysError = null, dealList = async () => null, subtle = defaultSubtle() } = {}) {
  let record, signature, publicKey;
  try {
    [record, signature, publicKey] = parts(document);
  } catch (e) {
    return [check("form", false, e.message)];
  }
  const checks = [check("form", true, FORMAT), await signatureCheck(record, signature, publicKey, subtle)];
  checks.push(
    keys !== undefined
      ? await publishedCheck(record, publicKey, keys, keysError, subtle)
      : check("published key", null, t("not checked: give the server's published keys (--keys)")),
  );
  checks.push(await drawCheck(record, dealList, subtle));
  checks.push(...racerChecks(record));
  return checks;
}

function parts(document) {
  if (!isObject(document) || !isObject(document.record)) throw new Error(t("not a signed record: no 'record' object"));
  const record = document.record;
  if (record.format !== FORMAT) throw new Error(t("format {found}, not {wanted}", { found: shown(record.format), wanted: shown(FORMAT) }));
  const signer = record.signer;
  if (!isObject(signer) || signer.alg !== ALGORITHM) throw new Error(t("the record names no {alg} signer", { alg: ALGORITHM }));
  const signature = base64Bytes(String(document.signature ?? ""));
  const publicKey = base64Bytes(String(signer.key ?? ""));
  if (signature === null || publicKey === null) throw new Error(t("the signature or the signer's key is not base64"));
  if (publicKey.length !== 32 || signature.length !== 64) throw new Error(t("an Ed25519 key is 32 bytes and its signature 64"));
  const missing = FIELDS.filter((name) => !(name in record));
  if (missing.length) throw new Error(t("the record lacks {fields}", { fields: missing.join(", ") }));
  return [record, signature, publicKey];
}

async function signatureCheck(record, signature, publicKey, subtle) {
  if (!subtle) return check("signature", null, NEEDS_HTTPS());
  const name = await fingerprint(publicKey, subtle);
  if (record.signer.id !== name) {
    return check("signature", false, t("the signer's id {id} is not its key's {name}", { id: shown(record.signer.id), name }));
  }
  let signed;
  try {
    signed = encoder.encode(canonical(record));
  } catch (e) {
    return check("signature", false, e.message); // no canonical form: nothing was signed
  }
  let key;
  try {
    key = await subtle.importKey("raw", publicKey, { name: ALGORITHM }, false, ["verify"]);
  } catch (e) {
    if (e?.name === "NotSupportedError") return check("signature", null, t("this browser cannot check Ed25519 signatures: checked by `seahaven verify`"));
    return check("signature", false, t("the record was altered or not signed by {name}", { name }));
  }
  let good = false;
  try {
    good = await subtle.verify({ name: ALGORITHM }, key, signature, signed);
  } catch {
    good = false;
  }
  if (!good) return check("signature", false, t("the record was altered or not signed by {name}", { name }));
  return check("signature", true, t("{alg} by {name}", { alg: ALGORITHM, name }));
}

async function publishedCheck(record, publicKey, keys, keysError, subtle) {
  if (keys === null) return check("published key", null, keysError ?? t("the server's published keys could not be read"));
  // Without WebCrypto the key is named by the record's word for it; the bytes still decide.
  const name = subtle ? await fingerprint(publicKey, subtle) : record.signer.id;
  const key = base64Text(publicKey);
  const listed = keys.find((k) => isObject(k) && k.id === name && k.key === key);
  if (!listed) return check("published key", false, t("{name} is not among the server's published keys", { name }));
  const signedAt = record.signed_at;
  const { since, until } = listed;
  if (Number.isInteger(signedAt) && Number.isInteger(since) && signedAt < since) {
    return check("published key", false, t("signed before the key's validity ({since})", { since }));
  }
  if (Number.isInteger(signedAt) && Number.isInteger(until) && signedAt > until) {
    return check("published key", false, t("signed after the key was retired ({until})", { until }));
  }
  return check("published key", true, t("{name} is published by the server", { name }));
}

async function drawCheck(record, dealList, subtle) {
  const { draw, deal, preset } = record;
  let code;
  try {
    code = dealCode(preset, deal);
  } catch (e) {
    return check("draw", false, e.message);
  }
  if (record.deal_code !== code) {
    return check("draw", false, t("deal code {found} is not deal {deal}'s ({code})", { found: shown(record.deal_code), deal, code }));
  }
  const kind = isObject(draw) ? draw.kind : undefined;
  if (kind === "chosen") return check("draw", null, t("deal {deal} was chosen by the room's creator: nothing was drawn", { deal }));
  if (kind === "picked") return check("draw", null, t("deal {deal} was picked by the server without a commitment", { deal }));
  if (kind === "daily") {
    const day = String(draw.day);
    const date = /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T00:00:00Z`) : null;
    if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== day) {
      return check("draw", false, t("daily deal: {day} is not a day", { day: shown(draw.day) }));
    }
    return check("draw", null, t("the daily deal of {day} is the first of the day's candidates the solver wins, which the browser does not run: checked by `seahaven verify`", { day }));
  }
  if (kind === "drawn") return drawnCheck(draw, preset, deal, dealList, subtle);
  return check("draw", false, t("unknown draw {kind}", { kind: shown(kind) }));
}

async function drawnCheck(draw, preset, deal, dealList, subtle) {
  const seed = hexBytes(draw.seed);
  const seeds = Array.isArray(draw.seeds) ? draw.seeds.map(hexBytes) : [null];
  if (seed === null || seeds.includes(null)) return check("draw", false, t("the draw's seeds are not hex"));
  if (!subtle) return check("draw", null, NEEDS_HTTPS());
  if ((await commitment(seed, subtle)) !== draw.commitment) return check("draw", false, t("the server's seed does not match its commitment"));
  let text = null;
  try {
    text = await dealList(preset);
  } catch {
    text = null;
  }
  if (typeof text !== "string") {
    return check("draw", null, t("the server publishes no {preset} list to read the draw in: checked by `seahaven verify`", { preset }));
  }
  if (draw.list !== hexText(await sha256(subtle, encoder.encode(text)))) {
    return check("draw", false, t("the draw read a list other than the published {preset} list", { preset }));
  }
  let candidates;
  try {
    candidates = drawCandidates(text, draw.grade ?? null);
  } catch (e) {
    return check("draw", false, e.message);
  }
  if (!candidates.length) return check("draw", false, t("the published list has no {grade} deal", { grade: String(draw.grade) }));
  const drawn = candidates[await drawIndex(seed, seeds, candidates.length, subtle)];
  if (drawn !== deal) return check("draw", false, t("the seeds draw deal {drawn}, not {deal}", { drawn, deal }));
  const shown = { deal, count: number(candidates.length), seeds: seeds.length + 1, commitment: draw.commitment.slice(0, 12) };
  return check("draw", true, t("deal {deal} drawn from {count} published deals by {seeds} seeds (commitment {commitment})", shown));
}

/** Two moves the same (Python's Move tuples equal): null is no move. */
const sameMove = (a, b) => a !== null && b !== null && a.sa === b.sa && a.s === b.s && a.da === b.da && a.d === b.d && a.n === b.n;

/** Python's tuple order: item by item, a shorter prefix first. */
function compareKeys(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/** Each racer's moves replayed (one check per racer), then the standings recomputed. */
function racerChecks(record) {
  const span = record.ended_at - record.started_at;
  const limit = (isObject(record.settings) ? record.settings.time_limit_ms : null) ?? null;
  const racers = Array.isArray(record.racers) ? record.racers : [];
  const checks = [];
  const keys = [];
  for (const racer of racers) {
    const [result, key] = racerCheck(record, isObject(racer) ? racer : {}, span, limit);
    checks.push(result);
    keys.push(key);
  }
  const places = racers.map((r) => r?.place ?? null);
  if (places.some((place, i) => place !== i + 1)) {
    checks.push(check("standings", false, t("places {places} are not 1 to {count} in order", { places: JSON.stringify(places), count: racers.length })));
  } else if (keys.some((key, i) => i > 0 && compareKeys(keys[i - 1], key) > 0)) {
    checks.push(check("standings", false, t("the places are not in the order the race's rule gives")));
  } else {
    checks.push(check("standings", true, t("places follow times, progress and who got there first")));
  }
  return checks;
}

/** One racer's check and their standing's sort key: finishers by time, then by progress and who
 * reached it first, quitters last (the room's rule); an empty key for a racer who failed. */
function racerCheck(record, racer, span, limit) {
  const player = racer.player;
  const name = `racer ${player}`;
  const fail = (detail) => [check(name, false, detail, { player }), []];
  let board;
  try {
    board = dealBoard(record.preset, record.deal);
  } catch (e) {
    return fail(e.message);
  }
  const moves = Array.isArray(racer.moves) ? racer.moves : [];
  // What the server played for the racer (auto-moves, and the undos of them): the indices in moves
  // the record marks (a record older than the marks has none). Each marked move must be the rule's
  // (rules.js autoMove) where it is played, and an undo take back a move of its own hand.
  const marks = racer.auto === undefined ? [] : racer.auto;
  const index = (i) => Number.isInteger(i) && i >= 0 && i < moves.length;
  if (!Array.isArray(marks) || new Set(marks).size !== marks.length || !marks.every(index)) {
    return fail(t("auto is not a list of distinct move indices"));
  }
  const served = new Set(marks);
  const byServer = []; // for each move on the board: whether the server played it
  let previous = 0;
  let reached = 0;
  let finishedAt = null;
  for (const [index, entry] of moves.entries()) {
    const [at, text] = Array.isArray(entry) && entry.length === 2 ? entry : [null, null];
    if (!Number.isInteger(at) || at < previous || at > span || (limit !== null && at > limit)) {
      return fail(t("move {n} at {at} ms is out of order or outside the race", { n: index + 1, at: shown(at) }));
    }
    previous = at;
    const before = board.progress;
    const auto = served.has(index);
    try {
      if (text === "undo") {
        if (byServer.length && byServer.at(-1) !== auto) {
          return fail(
            byServer.at(-1)
              ? t("move {n} (undo) takes back an auto-move out of turn", { n: index + 1 })
              : t("move {n} (undo) takes back a move of the racer's out of turn", { n: index + 1 }),
          );
        }
        if (board.pop() === null) throw new Error(t("there is no move to take back"));
        byServer.pop();
      } else {
        if (typeof text !== "string") throw new Error(t("not a move"));
        const move = parseMove(text);
        const rule = auto ? board.autoMove() : null;
        if (auto && !sameMove(rule, move)) {
          return fail(
            rule === null
              ? t("move {n} ({move}) is no auto-move: the rule gives none", { n: index + 1, move: text })
              : t("move {n} ({move}) is no auto-move: the rule gives {rule}", { n: index + 1, move: text, rule: moveText(rule) }),
          );
        }
        board.push(move);
        byServer.push(auto);
      }
    } catch (e) {
      return fail(t("move {n} ({move}) is not legal: {reason}", { n: index + 1, move: String(text), reason: e.message }));
    }
    if (board.progress !== before) reached = at;
    if (board.isWon() && finishedAt === null) finishedAt = at;
  }
  const status = racer.status;
  const won = board.isWon();
  if (won !== (status === "finished")) {
    return fail(won ? t("status {status} but the board is won", { status: shown(status) }) : t("status {status} but the board is not won", { status: shown(status) }));
  }
  if (status === "stuck" && board.legalMoves().length > 0) return fail(t("status 'stuck' but a legal move is left"));
  if (racer.progress !== board.progress) {
    return fail(t("progress {found} but {home} cards are home", { found: shown(racer.progress), home: board.progress }));
  }
  const time = won ? finishedAt : reached;
  if (racer.time_ms !== time) return fail(t("time {found} ms but the moves give {time} ms", { found: shown(racer.time_ms), time }));
  const auto = served.size;
  if (won) {
    const detail = auto
      ? tn("{n} move replayed ({auto} by auto-move): finished in {time} ms", "{n} moves replayed ({auto} by auto-move): finished in {time} ms", moves.length, { auto: number(auto), time })
      : tn("{n} move replayed: finished in {time} ms", "{n} moves replayed: finished in {time} ms", moves.length, { time });
    return [check(name, true, detail, { player }), [0, time, 0]];
  }
  const quit = status === "resigned" || status === "forfeit" ? 2 : 1;
  const home = { home: board.progress, status: statusText(status, true) };
  const detail = auto
    ? tn("{n} move replayed ({auto} by auto-move): {home}/52 home, {status}", "{n} moves replayed ({auto} by auto-move): {home}/52 home, {status}", moves.length, { auto: number(auto), ...home })
    : tn("{n} move replayed: {home}/52 home, {status}", "{n} moves replayed: {home}/52 home, {status}", moves.length, home);
  return [check(name, true, detail, { player }), [quit, -board.progress, reached]];
}
