"""What the server tests share: the one server factory, waiting for a condition, a server's address.

Racing helpers (a room with racers, a started race, a known solution) are in tests/racing.py; the
fake clock is tests/fakeclock.py. The ``make_server`` fixtures (tests/conftest.py) are this
factory on a backend.
"""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from server.app import RaceServer
from server.config import Config
from server.play.daily import DailyTimes
from server.play.dealpool import DealPool
from server.shell.clock import Clock
from server.shell.ports import Accounts, RaceArchive
from server.store.stores import MemoryStore, RedisStore, Store
from tests.fakeclock import FakeClock

MakeServer = Callable[..., Awaitable[RaceServer]]
"""``await make(clock=None, *, bot_time_scale=0.0, archive=None, accounts=None, **config)``: a
started RaceServer (``archive``: finished races into that database; ``accounts``: its registered
players)."""

HINT_SECONDS = 20.0
"""A solver worker starting on a busy machine is slow; its answer is not (the server's hint budget)."""


@asynccontextmanager
async def server_factory(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[MakeServer]:
    """Start RaceServers on free ports with fast test settings, and stop them all at the end.

    ``backend`` "memory": each server has its own MemoryStore and deal pool (the servers share one
    daily board, as Redis nodes do); "redis": the store, the deal pool and the daily board are all
    in the test's private redis-server (one key prefix per factory), as ``seahaven-server --redis``
    runs them. Settings: a countdown of 0 starts a race at once, no spectator delay, no rate limit
    in practice; any ``Config`` field can be given. The servers share one FakeClock unless given a
    clock, so time passes only when the test advances it; bots play without pauses unless given a
    ``bot_time_scale``.
    """
    servers: list[RaceServer] = []
    prefix = f"t{uuid.uuid4().hex[:8]}:"
    shared_clock = FakeClock()
    shared_daily = DailyTimes(MemoryStore())

    async def make(
        clock: Clock | None = None,
        *,
        bot_time_scale: float = 0.0,
        archive: RaceArchive | None = None,
        accounts: Accounts | None = None,
        **overrides: Any,
    ) -> RaceServer:
        store: Store
        daily: DailyTimes | None
        if backend == "memory":
            store, daily = MemoryStore(), shared_daily
        else:  # the pool and the board in the store's own Redis, under its prefix
            store, daily = RedisStore(request.getfixturevalue("redis_url"), prefix=prefix), None
        settings: dict[str, Any] = {"port": 0, "countdown_ms": 0, "rate": 10_000, "burst": 10_000}
        settings["spectator_delay_ms"] = 0  # tests of the delay set it
        settings.update(overrides)
        server = RaceServer(
            Config(**settings),
            store,
            clock if clock is not None else shared_clock,
            pool=DealPool(store),
            bot_time_scale=bot_time_scale,
            hint_seconds=HINT_SECONDS,
            daily_board=daily,
            archive=archive,
            accounts=accounts,
        )
        await server.start()
        servers.append(server)
        return server

    try:
        yield make
    finally:
        for server in servers:
            await server.stop()


def fake(server: RaceServer) -> FakeClock:
    """The server's clock, to move it on."""
    assert isinstance(server.clock, FakeClock)
    return server.clock


def url_of(server: RaceServer) -> str:
    return f"ws://127.0.0.1:{server.port}"


async def wait_until(
    condition: Callable[[], bool | Awaitable[bool]],
    timeout: float = 10.0,  # noqa: ASYNC109 - a deadline for the failure message, not a cancellation
    *,
    what: str | Callable[[], str] | None = None,
    interval: float = 0.02,
) -> None:
    """Return once ``condition()`` (a plain or an async function) is true; fail if ``timeout``
    seconds pass first, saying what was awaited (``what``, or the condition's name) and for how long.

    For what gives no signal to await: a count in the server, a process gone, a key expired.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = condition()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return
        if loop.time() >= deadline:
            detail = what() if callable(what) else what or getattr(condition, "__qualname__", repr(condition))
            raise AssertionError(f"not reached within {timeout} s: {detail}")
        await asyncio.sleep(interval)
