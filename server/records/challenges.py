"""Ghost challenges on record: ``ChallengeRecords`` implements ``server.shell.ports.ChallengeBook``
over the ``challenges`` table, and lists the challenges of a player's runs with what they led to.

A challenge names a racer's row (``race_racers``: the foreign key), so the race is written before
the challenge when it is still only live in the store (the archive's write: a second one, the
archiver's, changes nothing). A challenge's results (``server/records/challenge_results.py``) are
the races raced against its ghost. Every method raises ``DatabaseUnavailable`` (an OSError) when
the database cannot be used.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from server.records.archive import Archive
from server.records.challenge_results import RESULTS, challenge_of, result_view, results_query
from server.records.database import Database
from server.records.reader import deleted_among
from server.records.rows import record_of
from server.records.schema import challenges, race_racers, races
from server.records.views import shown_name
from server.rooms.events import unpack
from server.rooms.history import ChallengeRun, RaceRecord, races_of
from server.rooms.raceid import room_of
from server.store.base import chain
from server.store.interfaces import RoomLog

__all__ = ["ChallengeRecords"]


class ChallengeRecords:
    """The challenges in ``db``; races not yet archived are read from ``live`` (the rooms' logs)
    and written with ``archive`` before a challenge of them is recorded."""

    def __init__(self, db: Database, archive: Archive, *, live: RoomLog | None = None) -> None:
        self.db = db
        self.archive = archive
        self.live = live

    # -- the ChallengeBook port --------------------------------------------------------------

    async def race(self, race_id: str) -> RaceRecord | None:
        async with self.db.read() as conn:
            record = await archived_race(conn, race_id)
        return record if record is not None else await self.live_race(race_id)

    async def add(self, challenge: str, race: RaceRecord, player: str, by: str, at: int) -> bool:
        await self.archive.write_race(race)  # the challenge's row needs the run's
        claim = (
            self.db.insert(challenges)
            .values(challenge=challenge, race_id=race.race_id, player=player, created_at=at, created_by=by)
            .on_conflict_do_nothing(index_elements=["challenge"])
            .returning(challenges.c.challenge)
        )
        async with self.db.write() as conn:
            return (await conn.execute(claim)).first() is not None

    async def get(self, challenge: str) -> ChallengeRun | None:
        async with self.db.read() as conn:
            row = (await conn.execute(select(challenges).where(challenges.c.challenge == challenge))).mappings().first()
            if row is None:
                return None
            race = await archived_race(conn, row["race_id"])
            deleted = await deleted_among(conn, [row["player"]])
        assert race is not None  # the foreign key keeps the race while its challenge is there
        if deleted:  # a deleted account's run races on, under the name its races now show
            racers = tuple(
                dataclasses.replace(r, name=shown_name(r.name, True)) if r.player in deleted else r for r in race.racers
            )
            race = dataclasses.replace(race, racers=racers)
        return ChallengeRun(row["challenge"], race, row["player"], row["created_by"], row["created_at"])

    # -- what challenges led to ----------------------------------------------------------------

    async def of_player(self, player: str, limit: int = RESULTS) -> list[dict[str, Any]]:
        """The challenges of ``player``'s runs, newest first, each with its results (for the
        player's page: who raced their ghost, and how it went)."""
        async with self.db.read() as conn:
            made = (
                await conn.execute(
                    select(challenges)
                    .where(challenges.c.player == player)
                    .order_by(challenges.c.created_at.desc(), challenges.c.challenge)
                    .limit(limit)
                )
            ).mappings()
            found = {row["challenge"]: dict(row) for row in made}
            rows = (await conn.execute(results_query(list(found)))).mappings().all() if found else []
            deleted = await deleted_among(conn, [r["player"] for r in rows])
        for entry in found.values():
            entry["results"] = []
        for row in rows:
            found[challenge_of(row)]["results"].append(result_view(row, deleted))
        return list(found.values())

    async def live_race(self, race_id: str) -> RaceRecord | None:
        """A finished race still only in its room's log (None: not there, or not readable here)."""
        if self.live is None:
            return None
        try:
            code = room_of(race_id)
        except ValueError:
            return None
        try:
            data = await self.live.load(code)
            records = races_of([unpack(entry) for entry in data], chain("", data))
        except ValueError:  # a newer build's log, or one that does not replay: no race to show
            return None
        return next((record for record in records if record.race_id == race_id), None)


async def archived_race(conn: AsyncConnection, race_id: str) -> RaceRecord | None:
    """The archived race ``race_id``, racers by place (None: not archived)."""
    race = (await conn.execute(select(races).where(races.c.race_id == race_id))).mappings().first()
    if race is None:
        return None
    rr = race_racers
    query = select(rr).where(rr.c.race_id == race_id).order_by(rr.c.place, rr.c.player)
    return record_of(race, (await conn.execute(query)).mappings().all())
