// Who a player raced, read from their races on record (the read API's race documents): the
// player page's rivals and the lobby's recent ones (yours.js). No DOM, no requests: pure.

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

/** The people ``player`` raced last (bots and ghosts left out: they have no page of their own),
 * at most ``count``, the last raced first. */
export const recentRivals = (player, docs, count) =>
  rivalsByRecency(player, docs)
    .filter((r) => !r.racer.bot && !r.racer.ghost)
    .slice(0, count);
