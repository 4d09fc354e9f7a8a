"""The ratings as the read API shows them: a player's ratings, their history, the rating boards.

Every number shown is ``server.records.ratings.shown`` of the model's ``mu``; a rating is
provisional until ``PROVISIONAL_RACES`` rated races (docs/ratings.md). The boards leave
provisional ratings out, as lichess does, and rank the others by ``mu`` (ties share a rank).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from server.records.ratings import PROVISIONAL_RACES, is_provisional, shown
from server.records.schema import players, race_racers, races, rating_history, ratings

__all__ = ["player_ratings", "rating_board", "rating_history_page"]

rh = rating_history


async def player_ratings(conn: AsyncConnection, player: str) -> list[dict[str, Any]]:
    """The player's rating on each preset they were rated on (preset order)."""
    rows = await conn.execute(
        select(ratings.c.preset, ratings.c.mu, ratings.c.races)
        .where(ratings.c.player == player, ratings.c.races > 0)
        .order_by(ratings.c.preset)
    )
    return [
        {"preset": row.preset, "rating": shown(row.mu), "provisional": is_provisional(row.races), "races": row.races}
        for row in rows
    ]


async def rating_history_page(
    conn: AsyncConnection, player: str, preset: str | None, limit: int, before: tuple[int, str] | None
) -> tuple[list[dict[str, Any]], tuple[int, str] | None]:
    """What each rated race did to the player's rating (on ``preset``, None: on every preset),
    newest first, ``limit`` at most, from after the (ended_at, race_id) ``before``; and the key
    of the last one shown when there are more."""
    query = (
        select(
            rh.c.race_id,
            rh.c.preset,
            rh.c.ended_at,
            rh.c.rating_before,
            rh.c.rating_after,
            rh.c.races,
            race_racers.c.place,
            races.c.racer_count,
        )
        .join(race_racers, and_(race_racers.c.race_id == rh.c.race_id, race_racers.c.player == rh.c.player))
        .join(races, races.c.race_id == rh.c.race_id)
        .where(rh.c.player == player)
        .order_by(rh.c.ended_at.desc(), rh.c.race_id.desc())
    )
    if preset is not None:
        query = query.where(rh.c.preset == preset)
    if before is not None:
        ended_at, race_id = before
        query = query.where(or_(rh.c.ended_at < ended_at, and_(rh.c.ended_at == ended_at, rh.c.race_id < race_id)))
    rows = (await conn.execute(query.limit(limit + 1))).all()
    page = rows[:limit]
    entries = [
        {
            "race_id": row.race_id,
            "preset": row.preset,
            "ended_at": row.ended_at,
            "rating": row.rating_after,
            "change": row.rating_after - row.rating_before,
            "provisional": is_provisional(row.races),
            "races": row.races,
            "place": row.place,
            "racers": row.racer_count,
        }
        for row in page
    ]
    more = len(rows) > limit
    return entries, (page[-1].ended_at, page[-1].race_id) if more else None


async def rating_board(conn: AsyncConnection, preset: str, limit: int, offset: int) -> list[dict[str, Any]]:
    """The settled ratings of ``preset``, best first: ``limit + 1`` rows at most (one more tells
    the caller there is a next page), from ``offset`` on."""
    ranked = (
        select(
            ratings.c.player,
            ratings.c.mu,
            ratings.c.races,
            players.c.display_name,
            func.rank().over(order_by=ratings.c.mu.desc()).label("rank"),
        )
        .join(players, players.c.player == ratings.c.player)
        .where(
            ratings.c.preset == preset,
            ratings.c.races >= PROVISIONAL_RACES,
            players.c.deleted_at.is_(None),
        )
        .subquery()
    )
    rows = await conn.execute(select(ranked).order_by(ranked.c.rank, ranked.c.player).limit(limit + 1).offset(offset))
    return [
        {
            "rank": int(row.rank),
            "player": row.player,
            "name": row.display_name,
            "rating": shown(row.mu),
            "races": row.races,
        }
        for row in rows
    ]
