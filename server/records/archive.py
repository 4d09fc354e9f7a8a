"""Finished races into the database, each once: ``Archive`` implements ``RaceArchive`` (``archiver.py``).

Each race is one transaction keyed by its id: ``INSERT ... ON CONFLICT (race_id) DO NOTHING
RETURNING race_id`` first; when no row comes back the race was there already, and nothing else is
written, so a second write of a race (a retry after a lost commit acknowledgement, two archivers
at once, a re-recorded log) changes nothing. Two writers of one race at the same moment serialise
on the key (PostgreSQL makes the second wait for the first's commit, then do nothing; SQLite
admits one writer at a time). The racers' rows are written in the same transaction, so a race is
on record whole or not at all. So is its signed record (``server.records.signing``: one signature
per race, by the key of the node that wrote it), and its place in the analysis queue
(``server.records.analyses``: analysed once). So are its ratings (``server.records.ratings``): a rated race
updates its racers' ratings in that same transaction, so a race written twice rates once; once it
committed, the ``rated`` hooks hear what changed (the players are told: ``server/players/ratings.py``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from protocol.messages import ANONYMOUS_PREFIX, REGISTERED_PREFIX
from server.records.database import Database
from server.records.ratings import rate_race
from server.records.rows import proofs, race_row, racer_rows
from server.records.schema import (
    analysis_queue,
    guest_claims,
    players,
    race_racers,
    race_signatures,
    races,
    signing_keys,
)
from server.records.signing import SigningKey, race_document
from server.records.views import DELETED_NAME
from server.rooms.history import RaceRecord
from server.rooms.rated import Told

__all__ = ["Archive"]


class Archive:
    """Writes race records; ``now``: the server's clock (ms), for each row's ``archived_at``;
    ``key``: what signs them (None: a key of this object's own, for tests and benchmarks)."""

    def __init__(self, db: Database, *, now: Callable[[], int], key: SigningKey | None = None) -> None:
        self.db = db
        self.now = now
        self.key = key if key is not None else SigningKey.generate()
        self.listed = db.insert(signing_keys).on_conflict_do_nothing(index_elements=["key_id"])
        self.key_listed = False
        """This key is in ``signing_keys`` (it is put there once, with the first race it signs)."""
        # Built once: executed with each race's values as parameters (no statement to build per race).
        self.claim = db.insert(races).on_conflict_do_nothing(index_elements=["race_id"]).returning(races.c.race_id)
        self.rated: list[Told] = []
        """Told the rating changes of each race this archive wrote, after its commit (whoever
        wrote it: the archiver, or a challenge of a race not archived yet)."""

    async def write_races(self, records: Sequence[RaceRecord]) -> None:
        """Write each race in its own transaction; one already there is left as it is. Raises
        ``DatabaseUnavailable`` (an OSError) when the database cannot be used: the races before
        the failing one are written, the failing one not at all."""
        for record in records:
            await self.write_race(record)

    async def write_race(self, record: RaceRecord) -> bool:
        """Write one race; False when it was on record already (then nothing was written)."""
        # The engine's replay runs before the transaction: the write lock is held for the writes only.
        racers = racer_rows(record, proofs(record))
        now = self.now()
        race = race_row(record, now)
        async with self.db.write() as conn:
            if (await conn.execute(self.claim, race)).first() is None:
                return False
            guests = [r.player for r in record.racers if r.player.startswith(ANONYMOUS_PREFIX)]
            if guests:  # a guest who registered since: the race is the player's (server/records/accounts.py)
                await self.db.serialize(conn, guests)  # not at once with the guest's claim: see it, or be seen
                claimed = select(guest_claims.c.guest, guest_claims.c.player).where(guest_claims.c.guest.in_(guests))
                became = {guest: player for guest, player in (await conn.execute(claimed)).all()}
                racers = [{**r, "player": became.get(r["player"], r["player"])} for r in racers]
            if racers:
                await conn.execute(race_racers.insert(), racers)
            filed = {r.player: row["player"] for r, row in zip(record.racers, racers, strict=True)}
            await self.sign(conn, record, filed, now)
            queued = {"race_id": record.race_id, "queued_at": now, "taken_until": None, "tries": 0}
            await conn.execute(analysis_queue.insert(), queued)
            registered = [r.player for r in record.racers if r.player.startswith(REGISTERED_PREFIX)]
            if registered:
                # A racer who deleted their account before the race reached the database is on
                # record as a deleted player too (server/records/accounts.py). Only registered
                # players have accounts: a race of anonymous racers and bots costs no statement.
                gone = select(players.c.player).where(
                    players.c.player.in_(registered), players.c.deleted_at.is_not(None)
                )
                renamed = update(race_racers).where(
                    race_racers.c.race_id == record.race_id, race_racers.c.player.in_(gone)
                )
                await conn.execute(renamed.values(name=DELETED_NAME))
            changes = await rate_race(conn, self.db, record, now)
        self.key_listed = True
        if changes:
            for hook in self.rated:
                await hook(changes)
        return True

    async def sign(self, conn: AsyncConnection, record: RaceRecord, players: dict[str, str], now: int) -> None:
        """The race's signed record, in its transaction (its key listed first, once per process)."""
        if not self.key_listed:
            await conn.execute(self.listed, {"key_id": self.key.key_id, "public_key": self.key.public, "since": now})
        document = race_document(record, players, self.key, now)
        await conn.execute(
            race_signatures.insert(),
            {"race_id": record.race_id, "key_id": self.key.key_id, "document": json.dumps(document)},
        )
