"""Shared fixtures: a private redis-server per test, a local Redis Cluster per session, and the store
under contract test on every backend, and a solver worker pool."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ProcessPoolExecutor

import pytest

from server.play.dealpool import worker_executor
from server.store.stores import MemoryStore, RedisStore, Store
from tests.redis_cluster import LocalCluster
from tests.redis_proc import RedisProcess


class ManualClock:
    """A monotonic clock that only moves when told to (inject into MemoryStore)."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        assert seconds >= 0, "a monotonic clock never goes back"
        self.now += seconds


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
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture(params=["memory", "redis", "cluster"])
async def store(request: pytest.FixtureRequest, clock: ManualClock) -> AsyncIterator[Store]:
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
