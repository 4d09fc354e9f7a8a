// The public read API (docs/api.md), read by the records pages: races, players, boards.

export class ApiError extends Error {
  /** ``retryAfter``: the seconds a 429 or a 503 asks to wait (null: none said). */
  constructor(status, code, message, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/** GET ``path`` under /api/v1 (``query``: an object of parameters, empty ones left out): the JSON
 * document, or an ApiError with the API's own message (docs/api.md, Errors). ``fresh``: asked of
 * the server again even while the browser's copy is in date (by its ETag: a 304 costs nothing);
 * ``unkept``: neither read from the browser's cache nor kept there (a page opened next asks again). */
export async function apiGet(path, query = {}, { fresh = false, unkept = false } = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== null && value !== undefined && value !== "") params.set(key, String(value));
  const search = params.toString();
  let response;
  try {
    response = await fetch(`/api/v1${path}${search ? `?${search}` : ""}`, { headers: { Accept: "application/json" }, cache: unkept ? "no-store" : fresh ? "no-cache" : "default" });
  } catch {
    throw new ApiError(0, "offline", "the server cannot be reached: check the connection and reload");
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: a proxy's error page, say
  }
  if (response.ok && body !== null) return body;
  const error = body?.error;
  const wait = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
  throw new ApiError(response.status, error?.code ?? "bad-reply", error?.message ?? `the server answered ${response.status}`, Number.isNaN(wait) ? null : wait);
}

export const raceDoc = (raceId) => apiGet(`/races/${encodeURIComponent(raceId)}`);
/** The API path of a race's signed record (docs/fairness.md): what the verify panel reads and links. */
export const recordPath = (raceId) => `/races/${encodeURIComponent(raceId)}/record`;
export const raceRecord = (raceId) => apiGet(recordPath(raceId));
/** A race's analysis (``status`` pending, done or failed); ``options`` as apiGet's (``fresh``: a
 * pending answer, which the browser may keep for seconds, asked again). */
export const raceAnalysis = (raceId, options = {}) => apiGet(`/races/${encodeURIComponent(raceId)}/analysis`, {}, options);
export const signingKeys = () => apiGet("/keys");
/** A preset's published list of winnable deals, ``{preset, sha256, text}``: what a drawn deal was drawn from. */
export const dealListDoc = (preset) => apiGet(`/deal-lists/${encodeURIComponent(preset)}`);
export const playerDoc = (player, options = {}) => apiGet(`/players/${encodeURIComponent(player)}`, {}, options);
export const playerRaces = (player, cursor = null, limit = 20) => apiGet(`/players/${encodeURIComponent(player)}/races`, { limit, cursor });
/** The people ``player`` raced last, the newest race together first, each with the head-to-head
 * (``{player, rivals: [{player, name, handle, races, wins, losses, last_race, last_raced_at,
 * deals: {shared, faster, slower, latest}}]}``); ``options`` as apiGet's. */
export const playerRivals = (player, limit = 20, options = {}) => apiGet(`/players/${encodeURIComponent(player)}/rivals`, { limit }, options);
export const playerRatings = (player, limit = 20) => apiGet(`/players/${encodeURIComponent(player)}/ratings`, { limit });
/** The arenas running now and to come (and the last finished one: the API's least). */
export const arenaList = () => apiGet("/arenas", { limit: 1 });
export const playerArenas = (player, limit = 20) => apiGet(`/players/${encodeURIComponent(player)}/arenas`, { limit });
export const boardDoc = (preset, { period = "all", day = null, grade = null, offset = 0, limit = 50 } = {}) =>
  apiGet(`/leaderboards/${encodeURIComponent(preset)}`, { period, day, grade, offset: offset || null, limit });
