"""A room's stored keys get their TTL from the room path's appends: every lifecycle event and the
first move after an eighth of the TTL give it; the moves in between leave it (5 Redis commands fewer
a move), so a log outlives its last append by at least 7/8 of its TTL (real redis-server)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from protocol.messages import Moved, MoveRequest, Resign, Result
from server.shell.roompath import REFRESH_AFTER
from server.store.redisstore import RedisStore
from tests.helpers import MakeServer, fake
from tests.racing import room_with, solution, start_race

ROOM_TTL = 3600.0
FINISHED_TTL = 900.0


@pytest.fixture
async def raw(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


async def test_moves_leave_the_ttl_until_an_eighth_of_it_passed(
    make_redis_server: MakeServer, raw: aioredis.Redis
) -> None:
    server = await make_redis_server(room_ttl=ROOM_TTL, finished_ttl=FINISHED_TTL)
    assert isinstance(server.store, RedisStore)
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    log = server.store.log_key(state.room)
    moves = iter(str(m) for m in solution())

    async def pttl() -> int:
        return int(await raw.pttl(log))

    assert isinstance(await ann.call(MoveRequest(move=next(moves))), Moved)
    assert (ROOM_TTL - 5) * 1000 < await pttl() <= ROOM_TTL * 1000  # the start gave it
    await raw.pexpire(log, 10_000)
    assert isinstance(await ann.call(MoveRequest(move=next(moves))), Moved)
    assert 0 < await pttl() <= 10_000  # a move soon after: left as it was
    fake(server).advance(int(ROOM_TTL * REFRESH_AFTER * 1000))
    assert isinstance(await ann.call(MoveRequest(move=next(moves))), Moved)
    assert (ROOM_TTL - 5) * 1000 < await pttl() <= ROOM_TTL * 1000  # an eighth later: given again
    await raw.pexpire(log, 10_000)
    await ann.call(Resign())
    await bob.call(Resign())
    await ann.expect(Result)
    assert (FINISHED_TTL - 5) * 1000 < await pttl() <= FINISHED_TTL * 1000  # the end gives its own
