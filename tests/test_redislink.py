"""The pipelined Redis connection of the rooms' hot path (server/store/link.py), on a real
redis-server: replies in order, one write per event-loop turn, failures that say what happened,
and a connection that comes back."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis

from server.store.base import Append
from server.store.link import Link, LinkLost, LinkTimeout, ReplyError, link_url
from server.store.stores import RedisStore, Request, Stored, StoreError
from tests.redis_proc import RedisProcess


@pytest.fixture(params=["tcp", "unix"])
async def link(request: pytest.FixtureRequest, redis_proc: RedisProcess) -> AsyncIterator[Link]:
    """A link to the test's redis-server over TCP, then over its Unix socket."""
    link = Link(redis_proc.url if request.param == "tcp" else redis_proc.unix_url, timeout=1.0)
    try:
        yield link
    finally:
        await link.close()


async def test_concurrent_calls_get_their_own_replies_in_one_write(link: Link) -> None:
    assert await link.call("PING") == b"PONG"  # connected
    pipe = link._pipe
    assert pipe is not None and pipe.transport is not None
    writes = [0]
    real_write = pipe.transport.write

    def counting_write(data: Any) -> None:
        writes[0] += 1
        real_write(data)

    pipe.transport.write = counting_write  # type: ignore[method-assign]
    replies = await asyncio.gather(*(link.call("INCRBY", f"k{n % 7}", n) for n in range(500)))
    expected: dict[int, int] = {}
    for n, reply in enumerate(replies):
        expected[n % 7] = expected.get(n % 7, 0) + n
        assert reply == expected[n % 7]  # each caller got its own command's reply
    assert writes[0] == 1  # issued in one turn of the loop: one write, one round trip


async def test_an_error_reply_fails_that_call_only(link: Link) -> None:
    await link.call("SET", "text", "x")
    outcomes: tuple[Any, ...] = await asyncio.gather(
        link.call("LPUSH", "text", "y"), link.call("GET", "text"), return_exceptions=True
    )
    wrong, right = outcomes
    assert isinstance(wrong, ReplyError) and "WRONGTYPE" in str(wrong)
    assert right == b"x"
    assert await link.call("PING") == b"PONG"


async def test_a_cancelled_call_does_not_shift_the_replies(link: Link, redis_url: str) -> None:
    slow = asyncio.ensure_future(link.call("BLPOP", "nothing", "0.3"))
    raw = aioredis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + 3
        while (await raw.info("clients"))["blocked_clients"] < 1:  # the BLPOP is in Redis, waiting
            assert time.monotonic() < deadline
            await asyncio.sleep(0.005)
    finally:
        await raw.aclose()
    slow.cancel()
    assert await link.call("ECHO", "mine") == b"mine"  # not the BLPOP's nil


async def test_scripts_run_by_digest_and_by_text_after_a_flush(link: Link, redis_url: str) -> None:
    source = "return {KEYS[1], ARGV[1]}"
    raw = aioredis.Redis.from_url(redis_url)
    try:
        sha = await raw.script_load(source)
        assert await link.script(sha, source, ["k"], ["a"]) == [b"k", b"a"]
        await raw.script_flush()
        assert await link.script(sha, source, ["k"], ["b"]) == [b"k", b"b"]  # NOSCRIPT: sent whole
        assert (await raw.script_exists(sha)) == [True]  # and cached again
    finally:
        await raw.aclose()


async def test_a_stopped_server_fails_calls_then_the_link_reconnects(redis_proc: RedisProcess) -> None:
    link = Link(redis_proc.url, timeout=1.0)
    try:
        assert await link.call("SET", "a", "1")
        redis_proc.stop()
        started = time.monotonic()
        with pytest.raises(LinkLost):
            await link.call("GET", "a")
        with pytest.raises(LinkLost, match="cannot connect"):
            await link.call("GET", "a")
        assert time.monotonic() - started < 1.0, "a dead Redis fails fast"
        redis_proc.start()
        assert await link.call("PING") == b"PONG"
    finally:
        await link.close()


async def test_a_stalled_server_times_out_every_call_in_flight(redis_proc: RedisProcess) -> None:
    link = Link(redis_proc.url, timeout=0.3)
    try:
        assert await link.call("PING") == b"PONG"
        os.kill(redis_proc.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            outcomes = await asyncio.gather(*(link.call("INCR", "n") for _ in range(20)), return_exceptions=True)
            waited = time.monotonic() - started
        finally:
            os.kill(redis_proc.pid, signal.SIGCONT)
        assert all(isinstance(o, LinkTimeout) for o in outcomes)
        assert 0.25 <= waited < 1.5
        assert await link.call("PING") == b"PONG"  # a new connection
    finally:
        await link.close()


async def test_callers_waiting_to_connect_share_one_failed_attempt() -> None:
    """A server that accepts connections but never answers the handshake (stopped): the calls
    that queued behind the first attempt fail with it, not one timeout after another."""
    with RedisProcess(databases=2) as redis_proc:
        link = Link(f"redis://127.0.0.1:{redis_proc.port}/1", timeout=0.3)  # SELECT 1 on connecting
        os.kill(redis_proc.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            outcomes = await asyncio.gather(*(link.call("PING") for _ in range(20)), return_exceptions=True)
            waited = time.monotonic() - started
        finally:
            os.kill(redis_proc.pid, signal.SIGCONT)
        assert all(isinstance(o, LinkLost) and "cannot connect" in str(o) for o in outcomes), outcomes
        assert waited < 1.5  # one attempt's 0.3 s, not 20 of them
        assert await link.call("PING") == b"PONG"  # answered again: the next call connects
        await link.close()


async def test_a_closed_link_fails_calls_and_does_not_reconnect(redis_url: str) -> None:
    link = Link(redis_url, timeout=1.0)
    assert await link.call("PING") == b"PONG"
    raw = aioredis.Redis.from_url(redis_url)
    try:
        before = len(await raw.client_list())
        await link.close()
        with pytest.raises(LinkLost, match="closed"):
            await link.call("PING")
        deadline = time.monotonic() + 3
        while len(await raw.client_list()) != before - 1:  # its connection goes...
            assert time.monotonic() < deadline, await raw.client_list()
            await asyncio.sleep(0.01)
        with pytest.raises(LinkLost, match="closed"):
            await link.call("PING")
        assert len(await raw.client_list()) == before - 1  # ...and no new one comes
    finally:
        await raw.aclose()


async def test_password_and_database_from_the_url() -> None:
    """Over TCP and over the Unix socket alike."""
    with RedisProcess(databases=4) as redis_proc:
        await _password_and_database(redis_proc)


async def _password_and_database(redis_proc: RedisProcess) -> None:
    raw = aioredis.Redis.from_url(redis_proc.url)
    await raw.config_set("requirepass", "s3cret")
    try:
        link = Link(f"redis://:s3cret@127.0.0.1:{redis_proc.port}/3", timeout=1.0)
        try:
            await link.call("SET", "where", "db3")
        finally:
            await link.close()
        link = Link(f"unix://:s3cret@{redis_proc.socket_path}?db=2", timeout=1.0)
        try:
            await link.call("SET", "where", "db2 through the socket")
        finally:
            await link.close()
        wrong = Link(f"redis://:nope@127.0.0.1:{redis_proc.port}/0", timeout=1.0)
        with pytest.raises(ReplyError):
            await wrong.call("PING")
        await wrong.close()
        db3 = aioredis.Redis.from_url(f"redis://:s3cret@127.0.0.1:{redis_proc.port}/3")
        assert await db3.get("where") == b"db3"
        await db3.aclose()
        db2 = aioredis.Redis.from_url(f"redis://:s3cret@127.0.0.1:{redis_proc.port}/2")
        assert await db2.get("where") == b"db2 through the socket"
        await db2.aclose()
    finally:
        await raw.aclose()


def test_only_plain_single_servers_get_a_link() -> None:
    assert link_url("redis://127.0.0.1:6379/0")
    assert link_url("unix:///run/redis.sock?db=2")
    assert not link_url("rediss://127.0.0.1:6379/0")
    assert not link_url("redis+cluster://127.0.0.1:7000")
    with pytest.raises(ValueError):
        Link("rediss://127.0.0.1:6379/0")


@pytest.mark.parametrize("over", ["tcp", "unix"])
async def test_the_store_appends_over_the_link_in_one_call_per_move(redis_proc: RedisProcess, over: str) -> None:
    """A move is one script call: EVALSHA, with the reads and writes inside it; a node alone
    with its room publishes nothing. A Redis on this host can be reached through its Unix socket."""
    store = RedisStore(redis_proc.url if over == "tcp" else redis_proc.unix_url, prefix="hot:")
    raw = aioredis.Redis.from_url(redis_proc.url)
    try:
        assert isinstance(await store.append_at("R", [b"created"], Append(60, 0, None, "node-a")), Stored)
        await raw.config_resetstat()
        n = 40
        for i in range(1, n + 1):
            assert isinstance(
                await store.append_at("R", [b"move"], Append(60, i, Request("p", i, b"ok"), "node-a")), Stored
            )
        stats = await raw.info("commandstats")
        calls = {name.removeprefix("cmdstat_"): s["calls"] for name, s in stats.items()}
        assert calls["evalsha"] == n
        assert "publish" not in calls
        assert store._link is not None and store._link._pipe is not None  # it went over the link
        sock = store._link._pipe.transport.get_extra_info("socket") if store._link._pipe.transport else None
        assert sock is not None and sock.family == (socket.AF_UNIX if over == "unix" else socket.AF_INET)
        # After a script flush (a restarted Redis), the next append still lands, once.
        await raw.script_flush()
        assert isinstance(
            await store.append_at("R", [b"move"], Append(60, n + 1, Request("p", n + 1, b"ok"), "node-a")), Stored
        )
        assert len(await store.load("R")) == n + 2
    finally:
        await raw.aclose()
        await store.close()


async def test_the_store_maps_link_failures_to_store_errors() -> None:
    with RedisProcess(appendonly=False) as redis_proc:
        await _failures_mapped(redis_proc)


async def _failures_mapped(redis_proc: RedisProcess) -> None:
    store = RedisStore(redis_proc.url, prefix="lost:", timeout=0.5)
    try:
        assert isinstance(await store.append_at("R", [b"a"], Append(60, 0, None, "n")), Stored)
        redis_proc.stop()
        with pytest.raises(StoreError, match="unavailable"):
            await store.append_at("R", [b"b"], Append(60, 1, None, "n"))
        with pytest.raises(StoreError, match="unavailable"):
            await store.read_from("R", 0, "n")
        redis_proc.start()  # no persistence: a blank server
        assert await store.read_from("R", 0, "n") == (0, [], "")
        assert isinstance(await store.append_at("R", [b"a"], Append(60, 0, None, "n")), Stored)
    finally:
        await store.close()
