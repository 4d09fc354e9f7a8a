// Who a player raced: the player page's rivals, read from their races on record (the read API's
// race documents), and a recent rival's head-to-head in words (the read API's rivals list: the
// lobby's recent rivals, yours.js and friends.js). No DOM, no requests: pure.
import { counts, number, tn } from "./i18n.js";

/** Who ``player`` raced in ``docs`` (race documents, newest first; null for one that could not be
 * read), each with how often, and how often the player finished ahead of them or behind, in the
 * order last raced. A bot is one rival per pace (each room's bot has an id of its own). */
export function rivalsByRecency(player, docs) {
  const rivals = new Map();
  for (const doc of docs) {
    const me = doc?.racers.find((r) => r.player === player);
    if (!me) continue;
    for (const other of doc.racers) {
      if (other.player === player) continue;
      const key = other.bot ? `bot:${other.name}` : other.player;
      const rival = rivals.get(key) ?? { racer: other, races: 0, ahead: 0, behind: 0 };
      rival.races++;
      if (me.place < other.place) rival.ahead++;
      else rival.behind++;
      rivals.set(key, rival);
    }
  }
  return [...rivals.values()];
}

/** The same rivals, the most raced first (the player page's table). */
export const rivalsOf = (player, docs) => rivalsByRecency(player, docs).sort((a, b) => b.races - a.races);

/** A recent rival's head-to-head in words, from the read API's rivals list (GET
 * /api/v1/players/{player}/rivals: docs/api.md): ``record`` "4 wins, 3 losses" (placed ahead of
 * them, behind them), and ``deals`` "faster on 3 of 5 deals you both finished" (each one's best
 * time on a deal both finished, in any race), null when they share no finished deal. */
export function headToHead(rival) {
  // TRANSLATORS: races a player placed ahead of a rival ("wins") and behind ("losses"), listed: "4 wins, 3 losses".
  const record = counts([tn("{n} win", "{n} wins", rival.wins), tn("{n} loss", "{n} losses", rival.losses)]);
  const shared = rival.deals?.shared ?? 0;
  // TRANSLATORS: of the deals both a player and a rival finished, on how many the player's best time is the lower.
  const deals = shared ? tn("faster on {faster} of {n} deal you both finished", "faster on {faster} of {n} deals you both finished", shared, { faster: number(rival.deals.faster) }) : null;
  return { record, deals };
}
