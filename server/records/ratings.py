"""Ratings: the model (OpenSkill's Plackett-Luce), the shown number, and the update of one rated race.

docs/ratings.md is the argument. A player's skill on a preset is a normal belief, mean ``mu`` and
spread ``sigma``; each rated race updates the beliefs of its rated racers from their places. The
update runs inside the race's own write transaction (``Archive.write_race``), after the race row
was claimed: a race on record already writes nothing, so it rates nothing again.

Two archivers rating two races of one player at once must not lose either update: the players'
rows are made (``INSERT ... ON CONFLICT DO NOTHING``) and then read ``FOR UPDATE``, both in player
order, so on PostgreSQL the second transaction waits at the first shared row until the first
commits, and then reads what it wrote (READ COMMITTED re-reads a locked row); one order for every
writer means no deadlock. SQLite has one writer at a time (``BEGIN IMMEDIATE``), and there the
``FOR UPDATE`` is left out (SQLAlchemy renders none).
"""

from __future__ import annotations

from typing import Final

from openskill.models import PlackettLuce
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from server.records.database import Database
from server.records.schema import players, rating_history, ratings
from server.rooms.history import RaceRecord
from server.rooms.rated import RatingChange, rated_racers

__all__ = ["BASE", "MODEL", "MU", "PROVISIONAL_RACES", "SCALE", "SIGMA", "is_provisional", "rate_race", "shown"]

MU: Final = 25.0
"""A new player's mean (OpenSkill's default)."""
SIGMA: Final = MU / 3
"""A new player's spread: three of them span 0 to 50, everyone from the weakest to the best."""
MODEL: Final = PlackettLuce(mu=MU, sigma=SIGMA, beta=MU / 6, tau=MU / 300)
"""OpenSkill's defaults, spelled out: ``beta`` (the spread of one race's performance around the
skill), ``tau`` (added to sigma before each race, so a rating never freezes)."""

BASE: Final = 1500
"""The shown number of a new player (``mu`` = ``MU``)."""
SCALE: Final = 30
"""Shown points per unit of ``mu``: two settled players (sigma small) ``d`` points apart finish
ahead of each other with odds of about 10^(d/400), as two Elo players would
(400 / (ln 10 * sqrt(2) * beta) = 29.5)."""
PROVISIONAL_RACES: Final = 10
"""Rated races on a preset before a rating stops being provisional (and enters the board)."""


def shown(mu: float) -> int:
    """The number a player sees: ``BASE`` for a new player, ``SCALE`` points per unit of ``mu``."""
    return round(BASE + SCALE * (mu - MU))


def is_provisional(races: int) -> bool:
    return races < PROVISIONAL_RACES


async def rate_race(conn: AsyncConnection, db: Database, record: RaceRecord, now: int) -> list[RatingChange]:
    """Rate ``record``'s rated racers (``server.rooms.rated``), in ``conn``'s write transaction,
    which has just written the race and its racers; what changed (``[]``: the race rates nobody).
    ``now``: the archive's clock (ms), each changed row's ``updated_at``.

    Only players with a live account are rated (a deleted one is left out as if they had not
    raced), so every ``ratings`` row is an account's."""
    racers = rated_racers(record)
    if not racers:
        return []
    ids = sorted({r.player for r in racers})
    live = await conn.execute(select(players.c.player).where(players.c.player.in_(ids), players.c.deleted_at.is_(None)))
    accounts = set(live.scalars())
    racers = [r for r in racers if r.player in accounts]
    if len(racers) < 2:
        return []
    preset, ids = record.settings.preset, sorted(accounts)
    fresh = db.insert(ratings).on_conflict_do_nothing(index_elements=["player", "preset"])
    await conn.execute(
        fresh, [{"player": p, "preset": preset, "mu": MU, "sigma": SIGMA, "races": 0, "updated_at": now} for p in ids]
    )
    locked = (
        select(ratings.c.player, ratings.c.mu, ratings.c.sigma, ratings.c.races)
        .where(ratings.c.preset == preset, ratings.c.player.in_(ids))
        .order_by(ratings.c.player)
        .with_for_update()
    )
    before = {row.player: row for row in await conn.execute(locked)}
    teams = MODEL.rate(
        [[MODEL.rating(mu=before[r.player].mu, sigma=before[r.player].sigma)] for r in racers],
        ranks=[float(r.place) for r in racers],  # equal places tie (the standings give none today)
    )
    changes: list[RatingChange] = []
    history: list[dict[str, object]] = []
    for racer, (after,) in zip(racers, teams, strict=True):
        old = before[racer.player]
        count = old.races + 1
        await conn.execute(
            update(ratings)
            .where(ratings.c.player == racer.player, ratings.c.preset == preset)
            .values(mu=after.mu, sigma=after.sigma, races=count, updated_at=now)
        )
        rating, was = shown(after.mu), shown(old.mu)
        changes.append(
            RatingChange(racer.player, preset, record.race_id, rating, rating - was, is_provisional(count), count)
        )
        history.append(
            {
                "race_id": record.race_id,
                "player": racer.player,
                "preset": preset,
                "mu_before": old.mu,
                "sigma_before": old.sigma,
                "mu_after": after.mu,
                "sigma_after": after.sigma,
                "rating_before": was,
                "rating_after": rating,
                "races": count,
                "ended_at": record.ended_at,
            }
        )
    await conn.execute(rating_history.insert(), history)
    return changes
