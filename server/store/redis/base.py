"""What every part of the Redis store shares: the client, the pipelined link, the one guarded call
(``_run``), the key layout's format check, and the keys of a room, which several parts write.

The key layout is in the module docstring of ``server.store.redisstore``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError
from redis.maint_notifications import MaintNotificationsConfig

from server.store.base import LAYOUT_FORMAT, StoreError, check_replicas, ttl_ms
from server.store.bells import ARENA, EVERY_NODE
from server.store.guarded import Breaker, CallGuard, Observer
from server.store.link import Link, link_url
from server.store.urls import CLUSTER_SCHEMES, SENTINEL_SCHEME, cluster_seeds, describe, sentinels

__all__ = ["RedisBase", "as_bytes", "deadline_ms", "text"]

T = TypeVar("T")

_GLOB_SPECIAL = frozenset("*?[]\\")


def _glob_escape(text: str) -> str:
    return "".join("\\" + ch if ch in _GLOB_SPECIAL else ch for ch in text)


def deadline_ms(ms: int) -> int:
    """Unix time in ms, ``ms`` from now: a listing's deadline as the index scores it.

    The index only uses it to tell a listing published again from a stale one, so clocks of the
    server nodes need to agree to well within a listing's TTL, not exactly.
    """
    return time.time_ns() // 1_000_000 + ms


def as_bytes(value: bytes | str) -> bytes:
    """A reply element as bytes (the client is made with decode_responses=False, so it already is)."""
    return value.encode() if isinstance(value, str) else bytes(value)


def _stops_asked() -> int:
    """How many times the running task has been asked to stop (cancelled) so far."""
    task = asyncio.current_task()
    return task.cancelling() if task is not None else 0


def text(value: bytes | str) -> str:
    """A reply element as text."""
    return as_bytes(value).decode()


class RedisBase:
    """The Redis store's connections and its one guarded call, which every part (a mixin per
    protocol, composed into :class:`~server.store.redisstore.RedisStore`) goes through; the keys
    of a room, which the rooms, the lobby, the nodes and the archives write; the lobby's index
    (``P listings``), which a room's ``expire`` and ``delete`` keep too. The arguments are
    :class:`~server.store.redisstore.RedisStore`'s."""

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "seahaven:",
        timeout: float = 2.0,
        max_connections: int = 32,
        pipelined: bool = True,
        replicas: int = 0,
        replica_timeout: float = 1.0,
        **redis_options: Any,
    ) -> None:
        self.prefix = prefix
        self._where = describe(url)
        options: dict[str, Any] = {
            "decode_responses": False,
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "retry": Retry(NoBackoff(), 0),
            "max_connections": max_connections,
            # Redis OSS has no maintenance notifications, and with them on ("auto", redis-py's default)
            # the pool skips its check that a pooled connection is still open before handing it out:
            # after a Redis restart the first command would then go to a dead socket.
            "maint_notifications_config": MaintNotificationsConfig(enabled=False),
        }
        options.update(redis_options)
        self.cluster = urlsplit(url).scheme in CLUSTER_SCHEMES
        if replicas and self.cluster:
            raise ValueError("waiting for replicas (WAIT) is for one Redis server, not a Redis Cluster")
        if replicas and replica_timeout >= timeout:
            # The WAIT's answer comes after its timeout: at or past the call's own, every append
            # would fail as unanswered instead of as not acknowledged by a replica.
            raise ValueError(
                f"the replica timeout ({replica_timeout:g} s) must be shorter than the call timeout ({timeout:g} s)"
            )
        self.replicas = check_replicas(replicas)
        """A room append is answered Stored only once this many replicas have it (Redis WAIT)."""
        self._replica_ms = ttl_ms(replica_timeout)
        self._redis: aioredis.Redis | RedisCluster
        self._sentinel: Sentinel | None = None
        self._service = ""
        self._master_options: dict[str, Any] = {}
        if self.cluster:
            seeds, url_options = cluster_seeds(url)
            self._redis = RedisCluster(startup_nodes=seeds, **{**options, **url_options})
        elif urlsplit(url).scheme == SENTINEL_SCHEME:
            # The master as the sentinels name it now: every new connection asks them again, so
            # after a failover the next call (the store resends an idempotent one once) reaches the
            # promoted replica. No pipelined link (it keeps one fixed address).
            found = sentinels(url)
            self._sentinel = Sentinel(found.hosts, socket_timeout=timeout, socket_connect_timeout=timeout)
            self._service = found.service
            self._redis = self._sentinel.master_for(found.service, db=found.db, **{**options, **found.options})
            self._master_options = {"db": found.db, **found.options}
        else:
            self._redis = aioredis.Redis.from_pool(aioredis.ConnectionPool.from_url(url, **options))
        # At most ``max_connections`` calls at once; a burst waits its turn here instead of failing
        # with "too many connections" (redis-py's BlockingConnectionPool would wait too, but halves
        # the throughput under concurrency).
        self._slots = asyncio.Semaphore(max_connections)
        # The first call goes alone, the others wait for it: it checks the key layout's format, and on
        # a cluster it warms redis-py's asyncio RedisCluster (8.1), which drops connections in use when
        # many calls race its first use ("'NoneType' object has no attribute 'writelines'").
        self._ready = False
        self._readying = asyncio.Lock()
        self._refusal: StoreError | None = None
        """Set once the store was found in a newer key layout: every call fails with it."""
        self._index = f"{prefix}listings"
        # Each part registers its Lua (server/store/scripts.py) on first use.
        self._url = url
        self._timeout = timeout
        # The rooms' appends and reads go over one pipelined connection (server/store/link.py) where
        # it can speak to the server; redis-py's client costs more CPU per call than the move.
        self._link = Link(url, timeout=timeout) if pipelined and link_url(url) else None
        self._guard = CallGuard(self._ping)
        # The doorbells' subscriptions are the doorbells part's (made on first use).

    # The {...} part is the Redis Cluster hash tag: all of a room's keys share one slot.

    def log_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:log"

    def listing_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:listing"

    def chain_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:chain"

    def replies_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:replies"

    def where_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:where"

    def holders_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:holders"

    def archive_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:archive"

    def room_keys(self, room: str) -> list[str]:
        """Every key the room owns (one slot)."""
        return [
            self.log_key(room),
            self.chain_key(room),
            self.listing_key(room),
            self.replies_key(room),
            self.where_key(room),
            self.holders_key(room),
            self.archive_key(room),
        ]

    def _marked_keys(self, room: str) -> list[str]:
        """The room's keys as EXPIRE_ROOM and CLEAR_ARCHIVE take them: the marks, then the keys kept
        while marked (log, chain, replies, holders), then the others (listing, where)."""
        return [
            self.archive_key(room),
            self.log_key(room),
            self.chain_key(room),
            self.replies_key(room),
            self.holders_key(room),
            self.listing_key(room),
            self.where_key(room),
        ]

    @property
    def format_key(self) -> str:
        return f"{self.prefix}format"

    def bell(self, kind: str, key: str) -> str:
        """A doorbell's pub/sub channel: its room's, session's or player's own, in that one's slot
        (a shard channel on a cluster), or for the arenas and the moderators the one every node
        hears (``EVERY_NODE``)."""
        if kind in EVERY_NODE:
            return f"{self.prefix}bell:{ARENA}"
        if kind == "wiped":
            kind = "room"
        return f"{self.prefix}{{{kind}:{key}}}:bell"

    @property
    def index_key(self) -> str:
        return self._index

    def guard(self, breaker: Breaker | None, observer: Observer | None) -> None:
        self._guard = CallGuard(self._ping, breaker, observer)

    async def _run(
        self,
        operation: str,
        what: str,
        call: Callable[[], Awaitable[T]],
        *,
        idempotent: bool = True,
        pooled: bool = True,
        guarded: bool = True,
    ) -> T:
        """``call`` through the guard (refused while the breaker is open, reported under
        ``operation``), with its failures as StoreError (``what`` failed); resent once after a lost
        connection when ``idempotent``. A ``pooled`` call (redis-py's) waits for one of the pool's
        slots first. The one coroutine frame between a store method and its Redis call."""
        guard = self._guard
        started = guard.admit(operation) if guarded else 0.0
        failed = False
        stops = _stops_asked() if pooled else 0
        # A link call holds no pool slot (the link is one connection, never exhausted), and takes
        # no context manager for it: an ``async with`` is two coroutine frames on every move.
        if pooled:
            await self._slots.acquire()
        try:
            attempts = 2 if idempotent else 1
            for attempt in range(1, attempts + 1):
                try:
                    if not self._ready:
                        await self._get_ready()
                    return await call()
                except RedisConnectionError as exc:
                    if attempt < attempts:
                        continue
                    raise StoreError(f"redis store at {self._where} unavailable: {what} failed: {exc}") from exc
                except RedisClusterException as exc:  # no reachable node, or a slot with no node
                    raise StoreError(f"redis store at {self._where} unavailable: {what} failed: {exc}") from exc
                except (RedisError, OSError) as exc:
                    raise StoreError(f"redis store at {self._where}: {what} failed: {exc}") from exc
            raise AssertionError("unreachable")  # pragma: no cover
        except StoreError:
            failed = True
            raise
        finally:
            if pooled:
                self._slots.release()
            if guarded:
                guard.settle(operation, started, failed)
            if pooled and _stops_asked() > stops:
                # redis-py may answer a cancellation that came during its call with a connection
                # error (which the retry above then hides) or a result: the task was stopped all the
                # same, and a loop that went on (a heartbeat's) would keep a graceful stop waiting
                # for ever. (A call made after a stop was delivered, in clean-up, runs as before.)
                raise asyncio.CancelledError

    async def _get_ready(self) -> None:
        """The first call's work (the others wait): warm a cluster client, check the layout's format."""
        async with self._readying:
            if self._refusal is not None:
                raise self._refusal
            if self._ready:
                return
            if isinstance(self._redis, RedisCluster):
                await self._redis.ping(target_nodes=RedisCluster.PRIMARIES)
            await self._redis.set(self.format_key, LAYOUT_FORMAT, nx=True)
            found = await self._redis.get(self.format_key)
            try:
                layout = int(found) if found is not None else LAYOUT_FORMAT
            except ValueError:
                layout = LAYOUT_FORMAT + 1  # not a version this code knows how to read: newer
            if layout > LAYOUT_FORMAT:
                self._refusal = StoreError(
                    f"redis store at {self._where}, prefix {self.prefix!r}: its key layout is format "
                    f"{as_bytes(found or b'?').decode(errors='replace')}, "
                    f"newer than this node knows ({LAYOUT_FORMAT}): "
                    "upgrade this node (nothing was written)"
                )
                raise self._refusal
            self._ready = True

    def _keep_index(self, pipe: Any, ms: int) -> None:
        """Queue commands keeping the index's TTL >= ``ms`` (a set without a TTL gets one)."""
        pipe.pexpire(self._index, ms, nx=True)
        pipe.pexpire(self._index, ms, gt=True)

    def _scan_rooms(self, kind: str, key_type: str) -> Callable[[], Awaitable[list[str]]]:
        """The call listing, sorted, the rooms that have a ``P{room:ID}:kind`` key of ``key_type``: a
        SCAN (never KEYS), of every master on a cluster (redis-py's ``scan_iter`` visits each)."""
        head = f"{self.prefix}{{room:"
        tail = f"}}:{kind}"
        pattern = f"{_glob_escape(head)}*{tail}"

        async def call() -> list[str]:
            found: set[str] = set()
            async for raw in self._redis.scan_iter(match=pattern, count=1000, _type=key_type):
                try:
                    key = as_bytes(raw).decode()
                except UnicodeDecodeError:
                    continue
                found.add(key[len(head) : -len(tail)])
            return sorted(found)

        return call

    async def _ping(self) -> bool:
        """The unguarded ping (the guard's own, and its breaker's probe); never raises."""

        async def call() -> bool:
            if isinstance(self._redis, RedisCluster):  # every master, not just one
                return bool(await self._redis.ping(target_nodes=RedisCluster.PRIMARIES))
            return bool(await self._redis.ping())

        try:
            return await self._run("ping", "ping", call, guarded=False)
        except StoreError:
            return False

    def ping(self) -> Awaitable[bool]:
        return self._guard.ping()

    async def close(self) -> None:
        await self._guard.close()
        if self._link is not None:
            await self._link.close()
        await self._redis.aclose()
