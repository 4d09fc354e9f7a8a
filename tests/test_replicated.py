"""``--durability replicated``: a room append is answered Stored only once a replica has it (Redis
WAIT, sent with the append in one round trip), on a real master and a real replica (redis-server
--replicaof). A stalled replica makes the append fail as not acknowledged, though the master has it;
a resend of the same request, once the replica is back, is answered from the stored reply."""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis

from server.store.base import Append, Duplicate, Request, Stored, StoreError, chain
from server.store.redisstore import RedisStore
from tests.redis_proc import HOST, RedisProcess
from tests.server_proc import ServerProcess


@pytest.fixture
def pair() -> Iterator[tuple[RedisProcess, RedisProcess]]:
    """A master and its replica, the replica in sync."""
    master = RedisProcess().start()
    replica = RedisProcess(extra=("--replicaof", HOST, str(master.port))).start()
    try:
        yield master, replica
    finally:
        replica.close()
        master.close()


async def in_sync(master: RedisProcess) -> None:
    client = aioredis.Redis.from_url(master.url)
    try:
        for _ in range(200):
            info = await client.info("replication")
            replica = info.get("slave0", {})
            # Online and caught up: its acknowledged offset is the master's, so a WAIT asks only
            # for what comes next (a replica that is still applying a backlog could miss a WAIT's
            # timeout on a loaded machine).
            if (
                info.get("connected_slaves") == 1
                and "online" in str(replica.get("state", ""))
                and replica.get("offset") == info.get("master_repl_offset")
            ):
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"the replica never came online: {info}")
    finally:
        await client.aclose()


@pytest.mark.parametrize("pipelined", [True, False], ids=["link", "pooled"])
async def test_an_append_is_stored_once_a_replica_has_it(
    pair: tuple[RedisProcess, RedisProcess], pipelined: bool
) -> None:
    master, replica = pair
    await in_sync(master)
    # 2 s: long enough that a replica which is up answers a WAIT on a loaded machine (0.5 s failed
    # once in CI), short enough for the stalled case below; the call's own timeout is longer still.
    store = RedisStore(master.url, prefix="rep:", replicas=1, replica_timeout=2.0, timeout=4.0, pipelined=pipelined)
    on_replica = aioredis.Redis.from_url(replica.url)
    try:
        events = [b"created", b"move"]
        assert await store.append_at("R", events, Append(60, 0, Request("p", 1, b"r1"), "n", tip="")) == Stored(2)
        # Acknowledged: the replica holds it already (WAIT returned 1 before the answer).
        assert await on_replica.lrange("rep:{room:R}:log", 0, -1) == events
        os.kill(replica.pid, signal.SIGSTOP)
        try:
            with pytest.raises(StoreError, match="reached 0 of 1 replica"):
                await store.append_at(
                    "R", [b"late"], Append(60, 2, Request("p", 2, b"r2"), "n", tip=chain("", events)[-1])
                )
        finally:
            os.kill(replica.pid, signal.SIGCONT)
        await in_sync(master)
        # On the master all along; the resend gets the stored reply once the replica has it too.
        again = await store.append_at(
            "R", [b"late"], Append(60, 2, Request("p", 2, b"r2"), "n", tip=chain("", events)[-1])
        )
        assert again == Duplicate(3, b"r2")
        assert await on_replica.llen("rep:{room:R}:log") == 3
    finally:
        await on_replica.aclose()
        await store.close()


def test_a_replica_timeout_must_be_shorter_than_the_call_timeout() -> None:
    with pytest.raises(ValueError, match="must be shorter than the call timeout"):
        RedisStore("redis://127.0.0.1:1", replicas=1, replica_timeout=2.0, timeout=2.0)


def test_replicated_durability_needs_one_redis_server() -> None:
    with pytest.raises(ValueError, match="not a Redis Cluster"):
        RedisStore("redis+cluster://127.0.0.1:7000", replicas=1)
    with pytest.raises(AssertionError, match="server did not start"):
        ServerProcess("--durability", "replicated")  # no --redis: refused at start
