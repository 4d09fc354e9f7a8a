"""A guest who registers keeps its races (docs/protocol.md, ``register``): the registration's
transaction hands the guest's racer rows, ghost challenges and arena standings to the new player,
once; a race of the guest archived later is filed under the player; a second registration of the
same guest claims nothing. On a real SQLite file and a real PostgreSQL database; and across the
kill of a real server process."""

from __future__ import annotations

import asyncio
import dataclasses

import asyncpg
import sqlalchemy as sa

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    Error,
    Identity,
    Leave,
    Moved,
    MoveRequest,
    Ok,
    Register,
    Resign,
    Result,
)
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.database import Database
from server.records.reader import Reader
from server.records.schema import challenges, guest_claims, race_racers
from server.rooms.history import RaceRecord
from tests.archiving import node
from tests.helpers import wait_until
from tests.pg_proc import PgProcess
from tests.race_records import T0, copies, raced_record
from tests.redis_proc import RedisProcess
from tests.wins import SEAHAVEN_1_WIN
from tests.wsclient import WsClient, race_of_two

NOW = T0 + 3_600_000
GUEST = "pGUESTANN01"
PLAYER = "uANNPLAYER012"


def clock() -> int:
    return NOW


def as_guest(record: RaceRecord) -> RaceRecord:
    """The race with Ann racing as the guest ``GUEST``."""
    racers = tuple(dataclasses.replace(r, player=GUEST) if r.player == "ann" else r for r in record.racers)
    return dataclasses.replace(record, racers=racers)


async def races_of(reader: Reader, player: str) -> list[str]:
    return sorted(r["race_id"] for r in (await reader.player_races(player))["races"])


async def test_a_guests_races_become_the_players_once(database: Database) -> None:
    archive, accounts, reader = Archive(database, now=clock), Accounts(database), Reader(database, now=clock)
    first, second, later = (as_guest(r) for r in copies(raced_record(), 3))
    await archive.write_races([first, second])
    async with database.write() as conn:  # a ghost challenge of the guest's first run
        await conn.execute(
            challenges.insert().values(
                challenge="GHOST001", race_id=first.race_id, player=GUEST, created_at=NOW, created_by=GUEST
            )
        )
    assert await races_of(reader, GUEST) == sorted([first.race_id, second.race_id])

    assert await accounts.create_player(PLAYER, "Ann", "hash-ann", NOW, guest=GUEST) == 2
    assert await races_of(reader, PLAYER) == sorted([first.race_id, second.race_id])
    assert await races_of(reader, GUEST) == []
    async with database.read() as conn:
        ghost = (await conn.execute(sa.select(challenges.c.player))).scalar_one()
        rows = (
            await conn.execute(sa.select(race_racers.c.player, sa.func.count()).group_by(race_racers.c.player))
        ).all()
    assert ghost == PLAYER
    assert dict(rows.tuples() if hasattr(rows, "tuples") else rows) == {PLAYER: 2, "bob": 2}  # none doubled

    # The same guest registering again (a retry, a second player made from that session) claims nothing.
    assert await accounts.create_player("uSECOND000012", "Ann", "hash-2", NOW, guest=GUEST) == 0
    assert await races_of(reader, "uSECOND000012") == []

    # A race of the guest that reaches the database after the claim is the player's.
    assert await archive.write_race(later) is True
    assert await races_of(reader, PLAYER) == sorted([first.race_id, second.race_id, later.race_id])
    assert await races_of(reader, GUEST) == []
    async with database.read() as conn:
        claims = (await conn.execute(sa.select(guest_claims.c.guest, guest_claims.c.player))).all()
    assert [tuple(c) for c in claims] == [(GUEST, PLAYER)]


async def test_a_player_made_without_a_guest_claims_nothing(database: Database) -> None:
    archive, accounts, reader = Archive(database, now=clock), Accounts(database), Reader(database, now=clock)
    await archive.write_race(as_guest(raced_record()))
    assert await accounts.create_player(PLAYER, "Ann", "hash-ann", NOW) == 0
    assert await races_of(reader, PLAYER) == []
    assert len(await races_of(reader, GUEST)) == 1


async def race_once(ann: WsClient, bob: WsClient) -> str:
    """Ann and Bob race on deal 1 and both resign; out of the room again. The race's id."""
    await race_of_two(ann, bob, CreateRoom(deal_number=1))
    assert isinstance(await ann.call(MoveRequest(move=SEAHAVEN_1_WIN[0])), Moved)
    for racer in (ann, bob):
        assert isinstance(await racer.call(Resign()), Ok)
    result = await ann.expect(Result)
    for racer in (ann, bob):
        await racer.call(Leave())
    assert result.race_id is not None
    return result.race_id


async def registered_when_up(client: WsClient) -> Identity:
    """``register``, again while the database is coming back (records-unavailable)."""
    for _ in range(60):
        answer = await client.call(Register())
        if isinstance(answer, Identity):
            return answer
        assert isinstance(answer, Error) and answer.code == ErrorCode.RECORDS_UNAVAILABLE, answer
        await asyncio.sleep(0.5)
    raise AssertionError("the database did not come back")


async def test_a_guests_races_are_claimed_once_across_a_node_kill(
    redis_proc: RedisProcess, private_postgres: PgProcess
) -> None:
    """Two races of a guest: one archived at once, one waiting in Redis while the database is down.
    The guest registers as the database comes back, and its node is killed (SIGKILL) at once; a new
    node archives what was left. Counted: each race on record once, the guest's racer rows all the
    player's, none left under the guest, none doubled."""
    database = private_postgres.url
    first = node(redis_proc.url, database)
    try:
        ann = await WsClient.open(first.url, "Ann")
        bob = await WsClient.open(first.url, "Bob")
        guest = ann.player
        raced = [await race_once(ann, bob)]
        await wait_until(lambda: _on_record(database, raced), 30, what="the first race on record")
        private_postgres.stop()
        raced.append(await race_once(ann, bob))  # its archive waits for the database
        private_postgres.start()
        identity = await registered_when_up(ann)
        first.kill()
    finally:
        first.close()
    second = node(redis_proc.url, database)
    try:
        await wait_until(lambda: _on_record(database, raced), 60, what="both races on record")
        conn = await asyncpg.connect(database)
        try:
            rows = await conn.fetch("SELECT race_id, player FROM race_racers ORDER BY race_id, player")
            races = await conn.fetch("SELECT race_id FROM races")
            claims = await conn.fetch("SELECT guest, player FROM guest_claims")
        finally:
            await conn.close()
    finally:
        second.close()
    assert sorted(r["race_id"] for r in races) == sorted(raced)
    mine = [r["race_id"] for r in rows if r["player"] == identity.player]
    assert sorted(mine) == sorted(raced)  # each race once, under the player
    assert [r for r in rows if r["player"] == guest] == []
    assert len(rows) == 2 * len(raced)
    assert [(c["guest"], c["player"]) for c in claims] == [(guest, identity.player)]


async def _on_record(database: str, race_ids: list[str]) -> bool:
    try:
        conn = await asyncpg.connect(database)
    except OSError:
        return False
    try:
        found = await conn.fetch("SELECT race_id FROM races WHERE race_id = ANY($1::text[])", race_ids)
    finally:
        await conn.close()
    return len(found) == len(race_ids)
