"""Exactly once, whatever fails: real server processes archive into a private PostgreSQL.

Two nodes on one private redis-server archive into one private PostgreSQL. Races end on the racers'
node while the other node, archiving the same index, is killed (SIGKILL) again and again at random
moments (mid-transaction among them), and while the database is down (pg_ctl stop) for a while:
racing goes on, finished races wait in Redis, and once the database is back every race is written.
Counted: races archived zero times, races with a racer missing or doubled, moves on record that
differ from what the server acknowledged. All must be zero.

The outage lasts ``OUTAGE`` seconds here (CI); ``benchmarks/archive_outage.py`` runs the minute-long
one with the same checks.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator

import asyncpg
import pytest
import redis.asyncio as aioredis

from protocol.messages import CreateRoom, JoinRoom, Moved, MoveRequest, Ok, Ready, Resign, Result, RoomState, Started
from tests.helpers import wait_until
from tests.pg_proc import PgProcess
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wins import SEAHAVEN_1_WIN
from tests.wsclient import WsClient

RACES = 12
OUTAGE = 4.0
"""Seconds the database is down (CI); the benchmark's is a minute."""


@pytest.fixture
def records_db(private_postgres: PgProcess) -> str:
    return private_postgres.url


def node(redis_url: str, database: str) -> ServerProcess:
    return ServerProcess("--redis", redis_url, "--database", database, "--spectator-delay", "0")


@pytest.fixture
def racing(redis_proc: RedisProcess, records_db: str) -> Iterator[ServerProcess]:
    server = node(redis_proc.url, records_db)
    try:
        yield server
    finally:
        server.close()


async def race(server: ServerProcess, moves: int) -> tuple[str, dict[str, list[str]]]:
    """Ann and Bob race on ``server``: Ann plays ``moves`` moves of a win, Bob two, both resign."""
    ann = await WsClient.open(server.url, "Ann")
    bob = await WsClient.open(server.url, "Bob")
    try:
        state = await ann.call(CreateRoom(deal_number=1))
        assert isinstance(state, RoomState)
        assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
        for racer in (ann, bob):
            assert isinstance(await racer.call(Ready()), Ok)
        for racer in (ann, bob):
            await racer.expect(Started)
        played: dict[str, list[str]] = {ann.player: [], bob.player: []}
        for racer, line in ((ann, SEAHAVEN_1_WIN[:moves]), (bob, SEAHAVEN_1_WIN[:2])):
            for move in line:
                reply = await racer.call(MoveRequest(move=move))
                assert isinstance(reply, Moved), reply
                played[racer.player].append(move)
        await ann.call(Resign())
        await bob.call(Resign())
        result = await ann.expect(Result)
        assert result.race_id is not None
        return result.race_id, played
    finally:
        await ann.close()
        await bob.close()


async def on_record(database: str) -> dict[str, dict[str, list[str]]]:
    """Race id -> player -> moves, as the database holds them (one entry per racer row)."""
    conn = await asyncpg.connect(database)
    try:
        rows = await conn.fetch("SELECT race_id, player, moves FROM race_racers ORDER BY race_id, player")
        counts = await conn.fetch("SELECT race_id, count(*) AS n FROM races GROUP BY race_id")
    finally:
        await conn.close()
    assert all(row["n"] == 1 for row in counts)  # the primary key: never twice
    found: dict[str, dict[str, list[str]]] = {}
    for row in rows:
        moves = row["moves"]
        if isinstance(moves, str):  # asyncpg hands JSON columns over as text
            moves = json.loads(moves)
        racers = found.setdefault(row["race_id"], {})
        assert row["player"] not in racers, f"racer {row['player']} twice in {row['race_id']}"
        racers[row["player"]] = [move for _, move in moves]
    return found


async def test_races_reach_the_database_once_through_kills_and_an_outage(
    racing: ServerProcess, redis_proc: RedisProcess, records_db: str, private_postgres: PgProcess
) -> None:
    archiving = node(redis_proc.url, records_db)
    killer_rng = random.Random(7)
    played: dict[str, dict[str, list[str]]] = {}
    stop_killing = asyncio.Event()

    async def kill_now_and_then() -> None:
        nonlocal archiving
        while not stop_killing.is_set():
            await asyncio.sleep(killer_rng.uniform(0.05, 0.6))
            archiving.kill()
            archiving.close()
            archiving = node(redis_proc.url, records_db)

    killer = asyncio.create_task(kill_now_and_then())
    try:
        for number in range(RACES):
            if number == RACES // 3:
                private_postgres.stop("immediate")  # a crash of the database: no clean shutdown
            race_id, moves = await race(racing, 6 + number % 7)  # racing never waits on the database
            played[race_id] = moves
            if number == RACES // 3 + 2:
                await asyncio.sleep(OUTAGE)
                private_postgres.start()
    finally:
        stop_killing.set()
        await killer
    try:

        async def all_archived() -> bool:
            try:
                return set(await on_record(records_db)) >= set(played)
            except (OSError, asyncpg.PostgresError):
                return False

        await wait_until(all_archived, timeout=60, what="every race archived")
        found = await on_record(records_db)
        lost = [race for race in played if race not in found]
        wrong = [race for race in played if found.get(race) != played[race]]
        assert (len(lost), len(wrong)) == (0, 0), (lost, wrong)
        assert len(found) == len(played)  # nothing archived that did not happen

        # Redis flushed after archiving: the records do not depend on it.
        client = aioredis.Redis.from_url(redis_proc.url)
        try:
            await client.flushall()
        finally:
            await client.aclose()
        assert await on_record(records_db) == found
    finally:
        archiving.close()
