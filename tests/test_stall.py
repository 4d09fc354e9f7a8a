"""A stalled Redis (SIGSTOP of a real redis-server): one slow failure, then fast answers until it is back."""

from __future__ import annotations

import asyncio
import os
import signal
import urllib.error
import urllib.request

from protocol.errors import ErrorCode
from protocol.messages import Error, ListRooms, Moved, MoveRequest, Rooms
from server.app import RaceServer
from tests.helpers import MakeServer, wait_until
from tests.racing import room_with, solution, start_race
from tests.redis_proc import RedisProcess


def healthz(server: RaceServer) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code


async def test_a_stalled_redis_costs_one_timeout_then_answers_fast(
    make_redis_server: MakeServer, redis_proc: RedisProcess
) -> None:
    server = await make_redis_server()
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    moves = [str(m) for m in solution()]
    assert isinstance(await ann.call(MoveRequest(move=moves[0])), Moved)
    assert redis_proc._proc is not None
    pid = redis_proc._proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        # The first call waits for the store timeout and trips the breaker...
        first = await bob.call(ListRooms())
        assert isinstance(first, Error) and first.code == ErrorCode.STORE_UNAVAILABLE
        assert server.breaker.stalled and server.breaker.trips == 1
        # ...then every request that needs the store is refused without waiting on Redis.
        for _ in range(5):
            answer = await bob.call(MoveRequest(move=moves[0]))
            assert isinstance(answer, Error) and answer.code == ErrorCode.STORE_UNAVAILABLE
        assert await asyncio.to_thread(healthz, server) == 503
        assert server.breaker.refused >= 6
        assert server.breaker.trips == 1
    finally:
        os.kill(pid, signal.SIGCONT)
    await wait_until(lambda: not server.breaker.stalled, what="the probe to notice Redis is back")
    assert await asyncio.to_thread(healthz, server) == 200
    assert isinstance(await bob.call(ListRooms()), Rooms)
    assert isinstance(await bob.call(MoveRequest(move=moves[0])), Moved)
