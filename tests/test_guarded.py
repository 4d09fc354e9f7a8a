"""The store's one guarded call, on a real redis-server stalled with SIGSTOP: every call counted once
in the metrics, the first slow failure trips the breaker, and then calls (a room's append, a
session save) are refused without being sent until the probe hears Redis again."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import AsyncIterator

import pytest

from server.shell.metrics import Metrics
from server.shell.sessions import SessionTable
from server.store.base import Append, Stored, StoreError
from server.store.guarded import Breaker
from server.store.redisstore import RedisStore
from tests.metrics_scrape import scrape, value
from tests.redis_proc import RedisProcess

LATENCY = "seahaven_store_latency_seconds_count"
ERRORS = "seahaven_store_errors_total"


@pytest.fixture
async def guarded(redis_proc: RedisProcess) -> AsyncIterator[tuple[RedisStore, Breaker, Metrics]]:
    store = RedisStore(redis_proc.url, prefix="guard:", timeout=0.6)  # a stall fails in 0.6 s >= slow
    breaker, metrics = Breaker(slow=0.5), Metrics("n")
    store.guard(breaker, metrics)
    try:
        yield store, breaker, metrics
    finally:
        await store.close()


async def recovered(breaker: Breaker) -> None:
    deadline = time.monotonic() + 10
    while breaker.stalled:  # the probe pings every 0.25 s
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)


async def test_an_append_is_counted_once_and_refused_unsent_while_stalled(
    guarded: tuple[RedisStore, Breaker, Metrics], redis_proc: RedisProcess
) -> None:
    store, breaker, metrics = guarded
    assert await store.append_at("R", [b"first"], Append(60, 0)) == Stored(1)
    assert value(metrics, LATENCY, operation="append") == 1  # once: one layer, one observation
    assert (ERRORS, (("operation", "append"),)) not in scrape(metrics)
    assert redis_proc._proc is not None
    pid = redis_proc._proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(StoreError):
            await store.append_at("R", [b"slow"], Append(60, 1))  # waits for the timeout...
        assert time.monotonic() - started >= 0.5
        assert breaker.stalled and breaker.trips == 1  # ...and trips the breaker
        started = time.monotonic()
        with pytest.raises(StoreError, match="stalled"):
            await store.append_at("R", [b"refused"], Append(60, 1))  # refused at once, never sent
        assert time.monotonic() - started < 0.1
        assert breaker.refused == 1
        assert value(metrics, LATENCY, operation="append") == 3
        assert value(metrics, ERRORS, operation="append") == 2
        assert await store.ping() is False  # /healthz: at once, while stalled
        assert breaker.refused == 2
    finally:
        os.kill(pid, signal.SIGCONT)
    await recovered(breaker)
    log = await store.load("R")
    assert b"refused" not in log  # never sent: it cannot land later
    assert log[0] == b"first"
    assert await store.ping() is True
    assert breaker.trips == 1


async def test_session_saves_go_through_the_guard(
    guarded: tuple[RedisStore, Breaker, Metrics], redis_proc: RedisProcess
) -> None:
    store, breaker, metrics = guarded
    table = SessionTable(store, store, room_ttl=60, lobby_ttl=60)
    session = await table.open("Ann")
    assert value(metrics, LATENCY, operation="put_session") == 1
    assert redis_proc._proc is not None
    pid = redis_proc._proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(StoreError):
            await store.memo("R", "p")  # a slow failure trips the breaker
        assert breaker.stalled
        session.name = "Refused"
        with pytest.raises(StoreError, match="stalled"):
            await table.save(session)  # refused, unsent
        assert value(metrics, ERRORS, operation="put_session") == 1
        assert value(metrics, LATENCY, operation="put_session") == 2
    finally:
        os.kill(pid, signal.SIGCONT)
    await recovered(breaker)
    stored = await store.get_session(session.token)
    assert stored is not None and b"Refused" not in stored and b"Ann" in stored
