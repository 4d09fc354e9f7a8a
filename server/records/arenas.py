"""Finished arenas in the database (docs/arenas.md): ``ArenaArchive`` writes each once (implements
``server.shell.ports.ArenaArchive``); the reads are the API's arena documents.

An arena is one transaction keyed by its code: ``INSERT ... ON CONFLICT (code) DO NOTHING
RETURNING code`` first, and its players' rows only when that row was new, so a second write (a
retry after a lost commit acknowledgement, a node that took the pairing over and ends the arena
again) changes nothing, as a race's write does (``archive.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from server.records.database import Database
from server.records.schema import arena_players, arenas, players
from server.records.views import shown_name

__all__ = ["ArenaArchive", "arena_document", "player_arenas_page", "recent_arenas"]

ap = arena_players

SUMMARY = (
    arenas.c.code,
    arenas.c.name,
    arenas.c.preset,
    arenas.c.deal_grade,
    arenas.c.created_by,
    arenas.c.starts_at,
    arenas.c.ends_at,
    arenas.c.player_count,
)


class ArenaArchive:
    """Writes finished arenas; ``now``: the server's clock (ms), for each row's ``archived_at``."""

    def __init__(self, db: Database, *, now: Callable[[], int]) -> None:
        self.db = db
        self.now = now
        self.claim = db.insert(arenas).on_conflict_do_nothing(index_elements=["code"]).returning(arenas.c.code)

    async def write_arena(self, arena: Mapping[str, Any], standings: Sequence[Mapping[str, Any]]) -> bool:
        """Write one finished arena (``arena``: its ``arenas`` row but ``player_count`` and
        ``archived_at``; ``standings``: its ``arena_players`` rows but ``code`` and ``ends_at``);
        False when it was on record already (then nothing was written). Raises
        ``DatabaseUnavailable`` (an OSError) when the database cannot be used."""
        row = {**arena, "player_count": len(standings), "archived_at": self.now()}
        rows = [{**s, "code": arena["code"], "ends_at": arena["ends_at"]} for s in standings]
        async with self.db.write() as conn:
            if (await conn.execute(self.claim, row)).first() is None:
                return False
            if rows:
                await conn.execute(arena_players.insert(), rows)
        return True


def summary(row: Any) -> dict[str, Any]:
    """A finished arena as ``GET /api/v1/arenas`` lists it (the live ones have the same shape);
    ``row``: a result row's mapping (a RowMapping, which is no ``Mapping[str, Any]`` to mypy)."""
    return {
        "code": row["code"],
        "name": row["name"],
        "preset": row["preset"],
        "deal_grade": row["deal_grade"],
        "created_by": row["created_by"],
        "starts_at": row["starts_at"],
        "ends_at": row["ends_at"],
        "phase": "finished",
        "link_path": f"/a/{row['code']}",
        "player_count": row["player_count"],
        "archived": True,
    }


async def arena_document(conn: AsyncConnection, code: str) -> dict[str, Any] | None:
    """The finished arena ``code`` with its final standings (None: not on record)."""
    found = (await conn.execute(select(*SUMMARY).where(arenas.c.code == code))).mappings().first()
    if found is None:
        return None
    rows = (
        await conn.execute(
            select(ap.c.place, ap.c.player, ap.c.name, ap.c.points, ap.c.wins, ap.c.races, players.c.deleted_at)
            .outerjoin(players, players.c.player == ap.c.player)
            .where(ap.c.code == code)
            .order_by(ap.c.place, ap.c.player)
        )
    ).mappings()
    standings = [
        {
            "place": r["place"],
            "player": r["player"],
            "name": shown_name(r["name"], r["deleted_at"] is not None),
            "points": r["points"],
            "wins": r["wins"],
            "races": r["races"],
        }
        for r in rows
    ]
    return {**summary(found), "standings": standings}


async def recent_arenas(conn: AsyncConnection, limit: int) -> list[dict[str, Any]]:
    """The newest finished arenas, the last to end first."""
    rows = await conn.execute(select(*SUMMARY).order_by(arenas.c.ends_at.desc(), arenas.c.code.desc()).limit(limit))
    return [summary(row) for row in rows.mappings()]


async def player_arenas_page(
    conn: AsyncConnection, player: str, limit: int, before: tuple[int, str] | None
) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
    """The finished arenas the player was in, the last to end first, ``limit`` at most, from after
    the (ends_at, code) ``before``; and the key of the last one shown when there are more."""
    query = (
        select(*SUMMARY, ap.c.place, ap.c.points, ap.c.wins, ap.c.races)
        .select_from(ap.join(arenas, arenas.c.code == ap.c.code))
        .where(ap.c.player == player)
        .order_by(ap.c.ends_at.desc(), ap.c.code.desc())
    )
    if before is not None:
        ends_at, code = before
        query = query.where(or_(ap.c.ends_at < ends_at, and_(ap.c.ends_at == ends_at, ap.c.code < code)))
    rows = (await conn.execute(query.limit(limit + 1))).mappings().all()
    shown = rows[:limit]
    page = [
        {**summary(r), "place": r["place"], "points": r["points"], "wins": r["wins"], "races": r["races"]}
        for r in shown
    ]
    last = (shown[-1]["ends_at"], shown[-1]["code"]) if len(rows) > limit else None
    return page, last
