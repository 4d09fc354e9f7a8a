"""``redis+sentinel://``: the store reaches the master Redis Sentinel names, and follows a failover.
Real processes: a master, its replica (``--replicaof``) and a sentinel (``redis-server --sentinel``:
the Debian package redis-sentinel is this same binary in sentinel mode)."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from server.store.base import Append, Stored, StoreError, chain
from server.store.redisstore import RedisStore
from server.store.urls import check_url, sentinels
from tests.redis_proc import HOST, RedisProcess, free_port, redis_server_binary


class SentinelProcess:
    """One sentinel watching service ``svc`` at ``master`` (quorum 1, down after 500 ms)."""

    def __init__(self, master: RedisProcess) -> None:
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="seahaven-sentinel-"))
        conf = self.dir / "sentinel.conf"
        conf.write_text(
            f"port {self.port}\nbind {HOST}\ndir {self.dir}\n"
            f"sentinel monitor svc {HOST} {master.port} 1\n"
            "sentinel down-after-milliseconds svc 500\nsentinel failover-timeout svc 3000\n"
        )
        self.proc = subprocess.Popen(
            [redis_server_binary(), str(conf), "--sentinel"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection((HOST, self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        self.close()
        raise AssertionError("redis-server --sentinel did not come up")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def watched() -> Iterator[tuple[RedisProcess, RedisProcess, SentinelProcess]]:
    master = RedisProcess().start()
    replica = RedisProcess(extra=("--replicaof", HOST, str(master.port))).start()
    sentinel = SentinelProcess(master)
    try:
        yield master, replica, sentinel
    finally:
        sentinel.close()
        replica.close()
        master.close()


def test_sentinel_urls_are_read() -> None:
    found = sentinels("redis+sentinel://:secret@10.0.0.1:26379,10.0.0.2:26379/seahaven/2")
    assert (found.hosts, found.service, found.db) == ([("10.0.0.1", 26379), ("10.0.0.2", 26379)], "seahaven", 2)
    assert found.options == {"password": "secret"}
    assert check_url("redis+sentinel://h:26379/svc") == "redis+sentinel://h:26379/svc"
    for bad in ("redis+sentinel://h:26379", "redis+sentinel://h/svc", "redis+sentinel://h:1/svc/x"):
        with pytest.raises(ValueError, match="sentinel") as info:
            check_url(bad)
        assert "secret" not in str(info.value)


async def test_the_store_follows_a_failover(watched: tuple[RedisProcess, RedisProcess, SentinelProcess]) -> None:
    master, replica, sentinel = watched
    store = RedisStore(f"redis+sentinel://{HOST}:{sentinel.port}/svc", prefix="sen:", timeout=1.0)
    on_replica = aioredis.Redis.from_url(replica.url)
    try:
        assert await store.append_at("R", [b"created"], Append(60, 0, None, "n", tip="")) == Stored(1)
        for _ in range(200):  # replicated before the master dies (--durability replicated would wait)
            if await on_replica.llen("sen:{room:R}:log") == 1:
                break
            await asyncio.sleep(0.05)
        os.kill(master.pid, signal.SIGKILL)
        tip = chain("", [b"created"])[0]
        appended = None
        for _ in range(60):  # the sentinel sees the master down, promotes the replica
            try:
                appended = await store.append_at("R", [b"move"], Append(60, 1, None, "n", tip=tip))
                break
            except StoreError:
                await asyncio.sleep(0.25)
        assert appended == Stored(2)
        await on_replica.connection_pool.disconnect()  # a promoted replica closes its clients' connections
        assert (await on_replica.info("replication"))["role"] == "master"
        assert await on_replica.lrange("sen:{room:R}:log", 0, -1) == [b"created", b"move"]
        assert await store.load("R") == [b"created", b"move"]
    finally:
        await on_replica.aclose()
        await store.close()
