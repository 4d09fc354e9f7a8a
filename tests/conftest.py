"""Shared fixtures: a Chromium per browser test module, a private redis-server per test, a local
Redis Cluster per session, the store under contract test on every backend, a solver worker pool,
race servers (tests/helpers.py's factory) on both backends or on one, and the records' database on
SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
import pytest_asyncio
import redis.asyncio as aioredis
from playwright.async_api import Browser

from server.play.dealpool import worker_executor
from server.records.database import Database, open_database
from server.records.migrate import migrate
from server.store.stores import MemoryStore, RedisStore, Store
from tests.browser_pages import chromium
from tests.fakeclock import FakeClock, Seconds
from tests.helpers import MakeServer, server_factory
from tests.pg_proc import PgProcess, answers_now, scratch_database, shared_url
from tests.redis_cluster import LocalCluster
from tests.redis_proc import RedisProcess

ManualClock = Seconds
"""The name tests/test_store.py imports the seconds clock by (that file is kept by another change)."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """One headless Chromium for a browser test module: each page gets a browser context of its
    own (so its own storage), and starting Chromium per test would cost more than the tests."""
    async with chromium() as launched:
        yield launched


@pytest_asyncio.fixture(loop_scope="module")
async def close_pages(browser: Browser) -> AsyncIterator[None]:
    """A test's pages closed after it (their connections drop): ``usefixtures("close_pages")``."""
    yield
    for context in browser.contexts:
        await context.close()


@pytest.fixture
def redis_proc() -> Iterator[RedisProcess]:
    """A fresh redis-server on a free loopback port (appendonly yes, so a restart keeps the data)."""
    proc = RedisProcess(appendonly=True)
    try:
        yield proc.start()
    finally:
        proc.close()


@pytest.fixture
def redis_url(redis_proc: RedisProcess) -> str:
    return redis_proc.url


@pytest.fixture
async def redis(redis_proc: RedisProcess) -> AsyncIterator[aioredis.Redis]:
    """A plain client on the test's redis-server, to look at what the server stored."""
    client = aioredis.Redis.from_url(redis_proc.url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    """A local 3-master Redis Cluster, shared by the session's tests (each uses its own key prefix)."""
    cluster = LocalCluster()
    try:
        yield cluster.start()
    finally:
        cluster.close()


@pytest.fixture(scope="module")
def executor() -> Iterator[ProcessPoolExecutor]:
    """One solver worker process, shared by a test module's solver-backed tests."""
    pool = worker_executor(1)
    try:
        yield pool
    finally:
        pool.shutdown(cancel_futures=True)


@pytest.fixture
def clock() -> Seconds:
    """A fake clock in seconds, for a MemoryStore's TTLs."""
    return FakeClock().seconds


@pytest.fixture(params=["memory", "redis", "cluster"])
async def store(request: pytest.FixtureRequest, clock: Seconds) -> AsyncIterator[Store]:
    """The store under test: a MemoryStore on the manual ``clock``, or a RedisStore (unique prefix) on
    one redis-server or on the session's Redis Cluster."""
    backend: Store
    if request.param == "memory":
        backend = MemoryStore(clock=clock)
    elif request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
        backend = RedisStore(url, prefix=f"test-{uuid.uuid4().hex[:8]}:")
    else:
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        backend = RedisStore(cluster.url, prefix=f"test-{uuid.uuid4().hex[:8]}:")
    try:
        yield backend
    finally:
        await backend.close()


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> str:
    """Where ``make_server``'s servers keep their rooms (tests/helpers.py ``server_factory``)."""
    return str(request.param)


@pytest.fixture
async def make_server(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[MakeServer]:
    """Race servers on each backend in turn."""
    async with server_factory(backend, request) as make:
        yield make


@pytest.fixture
async def make_memory_server(request: pytest.FixtureRequest) -> AsyncIterator[MakeServer]:
    """Race servers on memory stores only (what a test checks does not depend on the store)."""
    async with server_factory("memory", request) as make:
        yield make


@pytest.fixture
async def make_redis_server(request: pytest.FixtureRequest) -> AsyncIterator[MakeServer]:
    """Race servers on the test's private redis-server only."""
    async with server_factory("redis", request) as make:
        yield make


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A PostgreSQL server's maintenance URL: the shared one (``SEAHAVEN_TEST_PG``), else a private
    one started for the session. Tests create databases of their own on it (``scratch_database``)."""
    url = shared_url()
    if answers_now(url):
        yield url
        return
    with PgProcess() as private:
        yield private.url


@pytest.fixture(params=["sqlite", "postgres"])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """An empty database: a SQLite file in ``tmp_path``, or a fresh database on ``pg_server``."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'records.db'}"
        return
    async with scratch_database(request.getfixturevalue("pg_server")) as url:
        yield url


@pytest.fixture
async def database(database_url: str, tmp_path: Path) -> AsyncIterator[Database]:
    """The records' database, open and migrated, on SQLite and on PostgreSQL in turn."""
    db = open_database(database_url, tmp_path)
    await migrate(db)
    try:
        yield db
    finally:
        await db.close()


@pytest.fixture
def private_postgres() -> Iterator[PgProcess]:
    """A PostgreSQL server of the test's own, started; the test may stop and start it."""
    with PgProcess() as private:
        yield private
