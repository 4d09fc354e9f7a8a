"""The store in Redis: redis-py asyncio, and the pipelined link for the rooms' appends and reads.

Every key is under a configurable prefix; one Redis server (``redis://``, ``rediss://``, ``unix://``)
or a Redis Cluster (``redis+cluster://``).

Redis key layout, format 1 (``P`` is the prefix, ``seahaven:`` by default)::

    P format             string  the key layout version written here (LAYOUT_FORMAT); no TTL
    P{room:ID}:log       list    the room's event log, one msgpack event per element; PEXPIRE = room TTL,
                                 none while the room has archive marks (but for the plain ``append``,
                                 which knows no marks: tests and benchmarks use it, the rooms never)
    P{room:ID}:chain     list    beside the log: element i is the log's chain tip after its first i + 1
                                 events (``base.chain``); the append checks the caller's tip at the
                                 index it appends at, then pushes the links the caller computed
                                 (the script computes them only for a caller that names no tip);
                                 same TTL as the log (none while marked)
    P{room:ID}:replies   hash    each player's last stored request: player -> seq, player:r -> reply
                                 frame, player:v -> the memo's format (MEMO_FORMAT; absent = 1)
    P{room:ID}:holders   set     the nodes that read or wrote the room's log: whom its doorbell rings for
    P{room:ID}:where     hash    player -> the node their connection to the room was last on
    P{room:ID}:listing   string  the room's public lobby entry (opaque summary bytes); own TTL
    P{room:ID}:archive   set     ids of the room's finished races not yet in the database, added by the
                                 append that stores each race's end; no TTL. While it exists the log,
                                 replies and holders keep no TTL; its last mark cleared, they get one
    P archive:due        zset    rooms for the archivers: room -> stamp (Redis TIME in microseconds,
                                 above the room's previous stamp), filled after the marking append; no TTL
    P listings           zset    ids that may have a listing, scored by the listing's deadline (unix ms);
                                 listings() removes members whose listing key is gone and whose deadline
                                 passed; the set's TTL is kept >= every listing's TTL
    P{session:TOKEN}     string  session data; own TTL
    P{player:ID}         string  a registered player as the database last said (PlayerCache); own TTL
    P{player:ID}:session string  the token of that player's live session; own TTL
    P{player:ID}:rating:PRESET  string  the player's shown rating on PRESET (RatingCache, an integer in
                                 decimal), written after each rated race; own TTL
    P{match:QUEUE}       hash    the quick match's waiters of one kind of race (QUEUE: the preset, and
                                 its grade or daily day): player -> "rating joined node room"
                                 (server/store/matching.py); PEXPIRE 2 minutes, renewed by every call
    P{attempts:WHAT}     string  a counter of attempts at WHAT (sign-in tries); expires with its window
    P nodes              zset    node -> the deadline of its last beat (unix ms)
    P{node:NAME}:rooms   set     the rooms NAME located members in (``locate``), until a survivor hands
                                 them over (``hand_over``) once NAME stopped beating; the sessions' TTL
    P rooms:due          zset    room -> when it next needs a node (unix ms: countdown, grace, time limit),
                                 polled by every node (``claim_due``), which loads what is due; no TTL
    P dealpool:PRESET:GRADE  set deal numbers ready to deal; SPOP hands each to one room only
    P daily:PRESET:DAY   zset    member: player id + TAB + name, score: best time (ms); DAY is
                                 YYYY-MM-DD; expires a week after its first entry
    P{room:ID}:bell      (pub/sub channel, not a key) the room's doorbell: its appends, ``wiped``
    P{session:TOKEN}:bell  (channel) the session's doorbell (taken over on another node)
    P{player:ID}:bell    (channel) frames for the player's connection, wherever it is
    P bell:arena         (channel) the arenas' and the moderators' doorbells, heard by every node
                         (the data begins with the kind and the key: "arena CODE ...", "admin bans");
                         the only channel not in a slot of its own
                         (server/store/bells.py: shard channels on a cluster, plain ones on one Redis)
    P{arena:CODE}:meta   string  an arena's definition (server/play/arenas.py); the arena's TTL
    P{arena:CODE}:players hash   player -> the player's entry in the arena (points, streak, race)
    P{arena:CODE}:done   set     what the arena did once (the races it scored, its end)
    P arenas             set     the live arenas' codes
    P NAME:lease         string  the holder of a lease (the arenas' pairing: arena); PX its TTL
    P{player:ID}:presence  string  what the player is doing, as the node holding their connection last
                                 said it (server/play/friends.py); own TTL, renewed while connected
    P{invite:ID}         string  an invitation to race, until answered (GETDEL) or expired; own TTL
    P bans               hash    the moderators' list: name:FOLD, address:IP, network:CIDR,
                                 reserved:FOLD -> the entry (server/shell/moderation.py); no TTL

The braces are Redis Cluster hash tags: every key of one room hashes to one slot, so each atomic
update of a room (a Lua script: the append, ``expire``) runs on one node; sessions are spread by their
own tags. The lobby index and the archive index are the keys shared by all rooms: each is updated in
its own call after the room's keys, never inside a room's script. So a crash between a marking append
and ``index_archive`` leaves a mark the index lacks: ``marked_rooms`` (a SCAN of every master) finds it.

Format versions, so that a later change can be rolled out node by node:

- The key layout: the first call of a store reads ``P format`` (and writes this code's
  ``LAYOUT_FORMAT`` when there is none). Absent or older is read as it is (today's layout is 1). A
  newer one means keys this code does not know how to read or write: every call (the first
  included) fails with a :class:`StoreError` saying so, before anything is written, so a node
  started on it refuses to start. Bumping ``P format`` is the step after every node runs code
  that knows the new layout.
  Archive marks came as new keys in format 1 (nothing older changed meaning, so the format stayed):
  a node of an older build does not know them, and its appends and ``expire`` give a marked room's
  log a TTL again. Run every node on a build that knows marks before archiving counts on them (a
  newer node's next append or ``expire`` of the room takes the TTL off again).
  The chains (``P{room:ID}:chain``) came the same way: a node of an older build appends without
  extending the chain, and the next newer node's append or read builds it again from the log (one
  pass over it) before checking a tip; only nodes that know chains are refused a forked log.
  The links given by the appending node (issue 42) changed no key and no format: the list holds
  the same tips whoever computed them, so nodes that compute them in Lua and nodes that hand them
  over share a room, each checking the other's tips.
- Reply memos: each stored request's reply carries its format (``player:v``; absent = 1). A memo
  in a newer format is not served: ``memo`` returns None and a resend of its request is answered
  ``Duplicate`` with no memo (as for one replaced by a later request). What clients receive of a
  memo they can read is the stored frame, byte for byte.

Every failure to talk to Redis surfaces as :class:`StoreError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError
from redis.maint_notifications import MaintNotificationsConfig

from server.store.base import (
    DEAD_NODES_KEPT,
    LAYOUT_FORMAT,
    MEMO_FORMAT,
    Appended,
    Behind,
    Duplicate,
    Forked,
    Request,
    Ring,
    Stored,
    StoreError,
    chain,
    check_count,
    check_races,
    check_rating,
    check_replicas,
    check_ttl,
    ttl_ms,
)
from server.store.bells import ARENA, BROADCAST, EVERY_NODE, Subscriptions
from server.store.guarded import Breaker, Guard, Observer
from server.store.link import Link, ReplyError, link_url
from server.store.matching import QUEUE_TTL_MS, Matched, Waiter, Window
from server.store.scripts import (
    APPEND,
    APPEND_AT,
    CLEAR_ARCHIVE,
    DEQUEUE,
    DROP_IF,
    ENQUEUE,
    EXPIRE_ROOM,
    INDEX_ARCHIVE,
    LEASE,
    MATCH_WAITERS,
    PRUNE_LISTINGS,
    READ_FROM,
    RECORD_DAILY,
    SWAP_PLAYER_ENTRY,
    SWAP_PLAYER_SESSION,
    UNINDEX_ARCHIVE,
    WRITE_ARENA,
)
from server.store.urls import CLUSTER_SCHEMES, SENTINEL_SCHEME, cluster_seeds, describe, sentinels

__all__ = ["RedisStore"]

T = TypeVar("T")

_GLOB_SPECIAL = frozenset("*?[]\\")


def _glob_escape(text: str) -> str:
    return "".join("\\" + ch if ch in _GLOB_SPECIAL else ch for ch in text)


def _deadline_ms(ms: int) -> int:
    """Unix time in ms, ``ms`` from now: a listing's deadline as the index scores it.

    The index only uses it to tell a listing published again from a stale one, so clocks of the
    server nodes need to agree to well within a listing's TTL, not exactly.
    """
    return time.time_ns() // 1_000_000 + ms


def _bytes(value: bytes | str) -> bytes:
    """A reply element as bytes (the client is made with decode_responses=False, so it already is)."""
    return value.encode() if isinstance(value, str) else bytes(value)


def _appended(reply: list[Any]) -> Appended:
    """The append script's reply (scripts.APPEND_AT) as the tagged result."""
    if reply[0] == -2:
        return Duplicate(int(reply[1]), None if reply[2] is None else _bytes(reply[2]))
    if reply[0] == -1:
        return Behind(int(reply[1]), [_bytes(e) for e in reply[2]], _bytes(reply[3]).decode())
    if reply[0] == -3:
        return Forked(int(reply[1]), [_bytes(e) for e in reply[2]])
    return Stored(int(reply[0]))


def _memo_format(raw: bytes | str | None) -> int | None:
    """A memo's format (absent: 1); None when unreadable (a later code's idea of a version)."""
    if raw is None:
        return 1
    try:
        return int(raw)
    except ValueError:
        return None


def _stops_asked() -> int:
    """How many times the running task has been asked to stop (cancelled) so far."""
    task = asyncio.current_task()
    return task.cancelling() if task is not None else 0


class RedisStore:
    """The store in Redis (>= 7.0), every key under ``prefix`` (see the module docstring for the layout).

    ``url`` is one Redis server (``redis://``, ``rediss://``, ``unix://``) or a Redis Cluster given by
    one or more seed nodes (``redis+cluster://host:port[,host:port...]``, ``rediss+cluster://`` for TLS);
    on a cluster it uses redis-py's ``RedisCluster``, which follows slot moves by itself.

    ``timeout`` bounds connecting and every reply (seconds); at most ``max_connections`` calls run at
    once, more wait their turn. On one server over TCP (``redis://``) the rooms' appends and
    reads go, unless ``pipelined`` is False, over one pipelined connection instead
    (:class:`~server.store.link.Link`: commands issued in one event-loop turn share a write).
    The client never retries by itself: an append is not idempotent and a blind resend after a lost
    reply would store a move twice. Idempotent operations are retried once, immediately, on a connection
    error (a connection dropped while idle in the pool). Failures raise :class:`StoreError`; once Redis
    is back the next call reconnects.
    ``redis_options`` go to ``redis.asyncio.ConnectionPool.from_url`` (e.g. ``connection_class``), or
    to ``RedisCluster`` on a cluster.

    Every public method (but ``doorbells`` and ``close``) goes through :meth:`_run`, the guarded call.
    TTLs are checked when a method is called (bad input never reaches the guard).
    """

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
        self._append = self._redis.register_script(APPEND)
        self._expire_room = self._redis.register_script(EXPIRE_ROOM)
        self._append_at_text = _sharded(APPEND_AT) if self.cluster else APPEND_AT
        self._append_at = self._redis.register_script(self._append_at_text)
        self._read_from = self._redis.register_script(READ_FROM)
        self._prune = self._redis.register_script(PRUNE_LISTINGS)
        self._record_daily = self._redis.register_script(RECORD_DAILY)
        self._clear_archive = self._redis.register_script(CLEAR_ARCHIVE)
        self._index_archive = self._redis.register_script(INDEX_ARCHIVE)
        self._unindex_archive = self._redis.register_script(UNINDEX_ARCHIVE)
        self._url = url
        self._timeout = timeout
        # The rooms' appends and reads go over one pipelined connection (server/store/link.py) where
        # it can speak to the server; redis-py's client costs more CPU per call than the move.
        self._link = Link(url, timeout=timeout) if pipelined and link_url(url) else None
        self._guard = Guard(self._ping)
        self._bells = Subscriptions(
            self._subscriber,
            self._route,
            self._doorbell,
            self.bell(ARENA, ""),
            self._learn_slots,
            sharded=self.cluster,
            timeout=timeout,
        )

    # -- keys ----------------------------------------------------------------------------------------

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
    def nodes_key(self) -> str:
        return f"{self.prefix}nodes"

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

    def _doorbell(self, channel: str, data: bytes) -> tuple[str, str, bytes] | None:
        """The doorbell (kind, key, data) a message on ``channel`` is; None if none of ours."""
        if channel == self.bell(ARENA, ""):  # "kind key data"
            said, _, rest = data.partition(b" ")
            about, _, rest = rest.partition(b" ")
            return said.decode(errors="replace"), about.decode(errors="replace"), rest
        head, tail = f"{self.prefix}{{", "}:bell"
        if not (channel.startswith(head) and channel.endswith(tail)):
            return None
        kind, _, key = channel[len(head) : -len(tail)].partition(":")
        if kind == "room" and data.startswith(b"wiped "):  # a log length never starts with a letter
            return "wiped", key, data[len(b"wiped ") :]
        return kind, key, data

    def session_key(self, token: str) -> str:
        return f"{self.prefix}{{session:{token}}}"

    @property
    def index_key(self) -> str:
        return self._index

    @property
    def archive_index_key(self) -> str:
        return f"{self.prefix}archive:due"

    def deals_key(self, preset: str, grade: str) -> str:
        return f"{self.prefix}dealpool:{preset}:{grade}"

    def daily_key(self, preset: str, day: str) -> str:
        return f"{self.prefix}daily:{preset}:{day}"

    # -- the guarded call ----------------------------------------------------------------------------

    def guard(self, breaker: Breaker | None, observer: Observer | None) -> None:
        self._guard = Guard(self._ping, breaker, observer)

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
                    f"{_bytes(found or b'?').decode(errors='replace')}, newer than this node knows ({LAYOUT_FORMAT}): "
                    "upgrade this node (nothing was written)"
                )
                raise self._refusal
            self._ready = True

    # -- rooms ---------------------------------------------------------------------------------------

    def append(self, room: str, events: Sequence[bytes], ttl: float) -> Awaitable[int]:
        ms = ttl_ms(ttl)
        key = self.log_key(room)

        async def call() -> int:
            return int(await self._append(keys=[key], args=[ms, *events]))

        return self._run("append", f"append to room {room!r}", call, idempotent=not events)

    def append_at(
        self,
        room: str,
        events: Sequence[bytes],
        ttl: float,
        expected: int,
        request: Request | None = None,
        holder: str | None = None,
        archive: Sequence[str] = (),
        *,
        tip: str | None = None,
        refresh: bool = True,
        tips: Sequence[str] | None = None,
    ) -> Awaitable[Appended]:
        ms = ttl_ms(ttl) if refresh else -ttl_ms(ttl)  # negative: leave the TTL (scripts.APPEND_AT)
        races = " ".join(check_races(archive)) if archive else ""
        keys, bell = self._append_keys(room)
        # An empty reply (no frame is empty) asks the script to forget the player's memo: ends_stay.
        who: tuple[str, int, bytes] = ("", 0, b"")
        if request is not None:
            who = (request.player, request.seq, b"" if request.ends_stay else request.reply)
        named = "*" if tip is None else tip
        # The new links, so that the script computes no SHA-1 (a caller that has them, the room
        # path, saves computing them twice); with no tip named the script computes its own.
        links: Sequence[str] = ()
        if tip is not None and events:
            links = chain(tip, events) if tips is None else tips
            if len(links) != len(events):
                raise ValueError(f"{len(links)} chain tips for {len(events)} events")
        node = holder or ""
        args: list[bytes | str | int] = [ms, expected, *who, bell, node, races, named, len(links), *links, *events]
        link = self._link
        call: Callable[[], Awaitable[Appended]]
        if self.replicas:
            call = functools.partial(self._append_replicated, room, keys, args)
        elif link is not None:

            async def call() -> Appended:
                return _appended(await link.script(self._append_at.sha, self._append_at_text, keys, args))

        else:

            async def call() -> Appended:
                return _appended(await self._append_at(keys=keys, args=args))

        # Safe to resend: the expected length (and the request) make a second run a no-op.
        return self._run("append", f"append to room {room!r}", call, pooled=link is None)

    async def _append_replicated(self, room: str, keys: list[str], args: list[bytes | str | int]) -> Appended:
        """The append, then ``WAIT replicas timeout`` on the same connection, sent together (one
        round trip); a Stored append that fewer replicas confirmed in time fails (StoreError): the
        move is on the master but not acknowledged (a resend of its request gets its reply once
        replicated, or is judged again if a failover lost it)."""
        waiting = (self.replicas, self._replica_ms)
        link = self._link
        if link is not None:
            sent = link.call("EVALSHA", self._append_at.sha, len(keys), *keys, *args)
            waited = link.call("WAIT", *waiting)  # same event-loop turn: one write with the append
            try:
                reply = await sent
            except ReplyError as exc:
                with contextlib.suppress(Exception):
                    await waited
                if not str(exc).startswith("NOSCRIPT"):
                    raise
                reply = await link.call("EVAL", APPEND_AT, len(keys), *keys, *args)
                waited = link.call("WAIT", *waiting)
            confirmed = await waited
        else:
            async with self._redis.pipeline(transaction=False) as pipe:
                await self._append_at(keys=keys, args=args, client=pipe)  # type: ignore[arg-type]  # queued in the pipeline
                pipe.execute_command("WAIT", *waiting)
                reply, confirmed = await pipe.execute()
        appended = _appended(reply)
        if isinstance(appended, Stored) and int(confirmed) < self.replicas:
            raise StoreError(
                f"redis store at {self._where}: append to room {room!r} reached {confirmed} of "
                f"{self.replicas} replica(s) within {self._replica_ms} ms: not acknowledged"
            )
        return appended

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - the store lives as long as the process
    def _append_keys(self, room: str) -> tuple[list[str], str]:
        """The keys and doorbell channel of a room's appends, built once per live room."""
        keys = [
            self.log_key(room),
            self.replies_key(room),
            self.holders_key(room),
            self.archive_key(room),
            self.chain_key(room),
        ]
        return keys, self.bell("room", room)

    def _read(self, room: str, start: int, holder: str | None) -> Callable[[], Awaitable[tuple[int, list[bytes], str]]]:
        """The call reading the room's log from ``start`` (see ``read_from``)."""
        keys = [self.log_key(room), self.holders_key(room), self.chain_key(room)]
        args: list[bytes | str | int] = [start, holder or ""]
        link = self._link

        async def call() -> tuple[int, list[bytes], str]:
            if link is not None:
                length, events, tip = await link.script(self._read_from.sha, READ_FROM, keys, args)
            else:
                length, events, tip = await self._read_from(keys=keys, args=args)
            return int(length), [_bytes(e) for e in events], _bytes(tip).decode()

        return call

    def read_from(self, room: str, start: int, holder: str | None = None) -> Awaitable[tuple[int, list[bytes], str]]:
        call = self._read(room, start, holder)
        return self._run("read_from", f"read room {room!r}", call, pooled=self._link is None)

    def memo(self, room: str, player: str) -> Awaitable[tuple[int, bytes] | None]:
        async def call() -> tuple[int, bytes] | None:
            seq, reply, version = await self._redis.hmget(
                self.replies_key(room), [player, f"{player}:r", f"{player}:v"]
            )
            if seq is None or reply is None:
                return None
            memo_format = _memo_format(version)
            if memo_format is None or memo_format > MEMO_FORMAT:
                return None  # written by a newer node: not ours to serve
            return int(seq), _bytes(reply)

        return self._run("memo", f"read replies of room {room!r}", call)

    def load(self, room: str, holder: str | None = None) -> Awaitable[list[bytes]]:
        if holder is not None:
            read = self._read(room, 0, holder)

            async def held() -> list[bytes]:
                return (await read())[1]

            return self._run("load", f"load room {room!r}", held, pooled=self._link is None)

        async def call() -> list[bytes]:
            return [_bytes(event) for event in await self._redis.lrange(self.log_key(room), 0, -1)]

        return self._run("load", f"load room {room!r}", call)

    def expire(self, room: str, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            # The room's keys at once (one slot), then the shared index.
            await self._expire_room(keys=self._marked_keys(room), args=[ms])
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self._index, {room: _deadline_ms(ms)}, xx=True)
                self._keep_index(pipe, ms)
                await pipe.execute()

        return self._run("expire", f"expire room {room!r}", call)

    def delete(self, room: str) -> Awaitable[None]:
        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(*self.room_keys(room))  # one slot: one command (its archive marks too)
                pipe.zrem(self._index, room)
                await pipe.execute()

        return self._run("delete", f"delete room {room!r}", call)

    def room_ids(self) -> Awaitable[list[str]]:
        return self._run("room_ids", "list rooms", self._scan_rooms("log", "list"))

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
                    key = _bytes(raw).decode()
                except UnicodeDecodeError:
                    continue
                found.add(key[len(head) : -len(tail)])
            return sorted(found)

        return call

    # -- doorbells -----------------------------------------------------------------------------------

    def ring(self, kind: str, key: str, data: str | bytes) -> Awaitable[None]:
        channel = self.bell(kind, key)
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if kind in EVERY_NODE:
            raw = kind.encode() + b" " + key.encode() + b" " + raw
        elif kind == "wiped":
            raw = b"wiped " + raw
        command = "SPUBLISH" if self.cluster and kind not in EVERY_NODE else "PUBLISH"

        async def call() -> None:
            await self._redis.execute_command(command, channel, raw)

        return self._run("ring", f"ring {kind}", call)

    def listen(self, bells: Collection[tuple[str, str]]) -> Awaitable[None]:
        return self._bells.listen([self.bell(kind, key) for kind, key in bells])

    def unlisten(self, bells: Collection[tuple[str, str]]) -> None:
        self._bells.unlisten([self.bell(kind, key) for kind, key in bells])

    def _route(self, channel: str) -> str:
        """The master of a shard channel's slot (one Redis: its one connection)."""
        if isinstance(self._redis, RedisCluster):
            node = self._redis.get_node_from_key(channel)
            if node is not None:
                return str(node.name)
        return BROADCAST

    async def _learn_slots(self) -> None:
        if isinstance(self._redis, RedisCluster):
            await self._redis.initialize()

    def _subscriber(self, route: str) -> aioredis.Redis:
        """A plain connection for pub/sub: on a cluster, to the master ``route`` names (or for the
        arenas' channel, to a seed: PUBLISH reaches every node). No read timeout: a quiet channel is
        not a dead one (TCP keepalive and the health check are)."""
        url = self._url
        if self._sentinel is not None:
            return cast(
                aioredis.Redis,
                self._sentinel.master_for(
                    self._service,
                    socket_keepalive=True,
                    health_check_interval=10,
                    socket_connect_timeout=self._timeout,
                    **self._master_options,
                ),
            )
        if self.cluster:
            seeds, options = cluster_seeds(url)
            host, port = (seeds[0].host, int(seeds[0].port))
            if route != BROADCAST:
                name, _, number = route.rpartition(":")
                host, port = name, int(number)
            return aioredis.Redis(
                host=host,
                port=port,
                socket_keepalive=True,
                health_check_interval=10,
                socket_connect_timeout=self._timeout,
                **{k: v for k, v in options.items() if k in ("username", "password", "ssl")},
            )
        return aioredis.Redis.from_url(
            url, socket_keepalive=True, health_check_interval=10, socket_connect_timeout=self._timeout
        )

    async def doorbells(self, ring: Ring) -> None:
        await self._bells.run(ring)

    # -- nodes ---------------------------------------------------------------------------------------

    def beat(self, node: str, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self.nodes_key, {node: _deadline_ms(ms)})
                pipe.zremrangebyscore(self.nodes_key, "-inf", _deadline_ms(-int(DEAD_NODES_KEPT * 1000)))  # long gone
                pipe.pexpire(self.nodes_key, 10 * ms)
                await pipe.execute()

        return self._run("beat", "beat", call)

    def leave(self, node: str) -> Awaitable[None]:
        async def call() -> None:
            await self._redis.zadd(self.nodes_key, {node: _deadline_ms(-1)}, xx=True)

        return self._run("leave", "say a node left", call)

    def alive(self) -> Awaitable[set[str]]:
        async def call() -> set[str]:
            nodes: list[Any] = await self._redis.zrangebyscore(self.nodes_key, _deadline_ms(0), "+inf")
            return {_bytes(node).decode() for node in nodes}

        return self._run("alive", "list nodes", call)

    def dead(self) -> Awaitable[set[str]]:
        async def call() -> set[str]:
            nodes: list[Any] = await self._redis.zrangebyscore(self.nodes_key, "-inf", f"({_deadline_ms(0)}")
            return {_bytes(node).decode() for node in nodes}

        return self._run("dead", "list dead nodes", call)

    def placed_key(self, node: str) -> str:
        return f"{self.prefix}{{node:{node}}}:rooms"

    @property
    def due_key(self) -> str:
        return f"{self.prefix}rooms:due"

    def locate(self, room: str, player: str, node: str, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)
        key = self.where_key(room)
        placed = self.placed_key(node)

        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hset(key, player, node)
                pipe.pexpire(key, ms)
                pipe.sadd(placed, room)  # the node's own slot: a separate command of the pipeline
                pipe.pexpire(placed, ms)
                await pipe.execute()

        return self._run("locate", f"locate in room {room!r}", call)

    def located(self, room: str) -> Awaitable[dict[str, str]]:
        async def call() -> dict[str, str]:
            found = await self._redis.hgetall(self.where_key(room))
            return {_bytes(k).decode(): _bytes(v).decode() for k, v in found.items()}

        return self._run("located", f"read room {room!r} locations", call)

    def set_due(self, room: str, at: int | None) -> Awaitable[None]:
        async def call() -> None:
            if at is None:
                await self._redis.zrem(self.due_key, room)
            else:
                await self._redis.zadd(self.due_key, {room: at})

        return self._run("set_due", f"set room {room!r} due", call)

    def claim_due(self, now: int, lease: int, count: int) -> Awaitable[list[str]]:
        check_count(count)

        async def call() -> list[str]:
            found: list[Any] = await self._redis.zrangebyscore(self.due_key, "-inf", now, start=0, num=count)
            rooms = [_text(room) for room in found]
            if rooms:  # not atomic with the read: two nodes may claim a room at once, and both load it
                await self._redis.zadd(self.due_key, dict.fromkeys(rooms, now + lease), xx=True)
            return rooms

        return self._run("claim_due", "claim due rooms", call)

    def hand_over(self, node: str, now: int) -> Awaitable[int]:
        placed = self.placed_key(node)

        async def call() -> int:
            rooms = [_text(room) for room in await self._redis.smembers(placed)]
            if rooms:
                await self._redis.zadd(self.due_key, dict.fromkeys(rooms, now), lt=True)  # new ones added too
            await self._redis.delete(placed)
            return len(rooms)

        return self._run("hand_over", f"hand node {node!r}'s rooms over", call)

    # -- lobby ---------------------------------------------------------------------------------------

    def _keep_index(self, pipe: Any, ms: int) -> None:
        """Queue commands keeping the index's TTL >= ``ms`` (a set without a TTL gets one)."""
        pipe.pexpire(self._index, ms, nx=True)
        pipe.pexpire(self._index, ms, gt=True)

    def set_listing(self, room: str, summary: bytes | None, ttl: float) -> Awaitable[None]:
        key = self.listing_key(room)
        # Not transactions: the listing lives in its room's slot, the index in its own. One round trip
        # on one Redis; listings() tolerates either half missing.
        if summary is None:

            async def remove() -> None:
                async with self._redis.pipeline(transaction=False) as pipe:
                    pipe.delete(key)
                    pipe.zrem(self._index, room)
                    await pipe.execute()

            return self._run("set_listing", f"remove listing {room!r}", remove)
        ms = ttl_ms(ttl)

        async def publish() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(key, summary, px=ms)
                pipe.zadd(self._index, {room: _deadline_ms(ms)})
                self._keep_index(pipe, ms)
                await pipe.execute()

        return self._run("set_listing", f"set listing {room!r}", publish)

    def listings(self) -> Awaitable[dict[str, bytes]]:
        async def call() -> dict[str, bytes]:
            members: list[Any] = await self._redis.zrange(self._index, 0, -1)  # no scores asked: ids
            ids = sorted(_bytes(raw).decode() for raw in members)
            if not ids:
                return {}
            # One key per command, so a cluster pipeline can send each to its room's node.
            async with self._redis.pipeline(transaction=False) as pipe:
                for room in ids:
                    pipe.get(self.listing_key(room))
                    pipe.exists(self.log_key(room))
                replies = await pipe.execute()
            # The time after the reads: a listing Redis expired just now is past its deadline by then
            # (taken before them, a listing that expired in between stayed in the index one call more).
            now = _deadline_ms(0)
            summaries, logs = replies[0::2], replies[1::2]
            result: dict[str, bytes] = {}
            gone: list[str] = []
            for room, summary, log_live in zip(ids, summaries, logs, strict=True):
                if summary is None:
                    gone.append(room)
                elif log_live:
                    result[room] = bytes(summary)
            if gone:
                await self._prune(keys=[self._index], args=[now, *gone])
            return result

        return self._run("listings", "list public rooms", call)

    # -- sessions ------------------------------------------------------------------------------------

    def put_session(self, token: str, data: bytes, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.session_key(token), data, px=ms)

        return self._run("put_session", "store session", call)

    def get_session(self, token: str) -> Awaitable[bytes | None]:
        async def call() -> bytes | None:
            raw = await self._redis.get(self.session_key(token))
            return None if raw is None else _bytes(raw)

        return self._run("get_session", "read session", call)

    def delete_session(self, token: str) -> Awaitable[None]:
        async def call() -> None:
            await self._redis.delete(self.session_key(token))

        return self._run("delete_session", "delete session", call)

    # -- deal pool -----------------------------------------------------------------------------------

    def add_deals(self, preset: str, grade: str, numbers: Sequence[int]) -> Awaitable[None]:
        async def call() -> None:
            if numbers:
                await self._redis.sadd(self.deals_key(preset, grade), *numbers)

        return self._run("add_deals", f"add {preset} {grade} deals", call)

    def pop_deal(self, preset: str, grade: str) -> Awaitable[int | None]:
        async def call() -> int | None:
            value = await self._redis.spop(self.deals_key(preset, grade))
            return None if value is None else int(cast(bytes, value))  # one member: no count asked

        # Not resent: a lost reply may have popped a deal already (the shipped lists then serve).
        return self._run("pop_deal", f"take a {preset} {grade} deal", call, idempotent=False)

    def count_deals(self, preset: str, grade: str) -> Awaitable[int]:
        async def call() -> int:
            return int(await self._redis.scard(self.deals_key(preset, grade)))

        return self._run("count_deals", f"count {preset} {grade} deals", call)

    # -- daily boards --------------------------------------------------------------------------------

    def record_daily(self, preset: str, day: str, player: str, name: str, time_ms: int, ttl: float) -> Awaitable[None]:
        seconds = max(1, int(check_ttl(ttl)))

        async def call() -> None:
            await self._record_daily(keys=[self.daily_key(preset, day)], args=[f"{player}\t{name}", time_ms, seconds])

        return self._run("record_daily", f"record a {preset} daily time", call)

    def daily_best(self, preset: str, day: str, count: int) -> Awaitable[list[tuple[str, str, int]]]:
        async def call() -> list[tuple[str, str, int]]:
            rows: list[Any] = await self._redis.zrange(self.daily_key(preset, day), 0, count - 1, withscores=True)
            best = []
            for member, score in rows:
                player, _, name = _bytes(member).decode().partition("\t")
                best.append((player, name, int(score)))
            return best

        return self._run("daily_best", f"read the {preset} daily board", call)

    # -- archives ------------------------------------------------------------------------------------

    def index_archive(self, room: str) -> Awaitable[None]:
        async def call() -> None:
            await self._index_archive(keys=[self.archive_index_key], args=[room])

        # Resent after a lost connection: a second run only moves the stamp on, which the archivers allow.
        return self._run("index_archive", f"index room {room!r} for archiving", call)

    def archive_due(self, count: int) -> Awaitable[list[tuple[str, int]]]:
        check_count(count)

        async def call() -> list[tuple[str, int]]:
            rows: list[Any] = await self._redis.zrange(self.archive_index_key, 0, count - 1, withscores=True)
            return [(_bytes(room).decode(), int(stamp)) for room, stamp in rows]

        return self._run("archive_due", "list rooms due for archiving", call)

    def archive_marks(self, room: str) -> Awaitable[list[str]]:
        async def call() -> list[str]:
            marks: set[Any] = await self._redis.smembers(self.archive_key(room))
            return sorted(_bytes(race).decode() for race in marks)

        return self._run("archive_marks", f"read room {room!r} archive marks", call)

    def clear_archive(self, room: str, races: Sequence[str], ttl: float) -> Awaitable[int]:
        ms = ttl_ms(ttl)
        names = check_races(races)

        async def call() -> int:
            return int(await self._clear_archive(keys=self._marked_keys(room), args=[ms, *names]))

        return self._run("clear_archive", f"clear room {room!r} archive marks", call)

    def archive_backlog(self) -> Awaitable[int]:
        async def call() -> int:
            return int(await self._redis.zcard(self.archive_index_key))

        return self._run("archive_backlog", "count rooms due for archiving", call)

    def unindex_archive(self, room: str, stamp: int) -> Awaitable[bool]:
        async def call() -> bool:
            # The marks (the room's slot), then the index (its own): a mark added after the SCARD
            # comes with an index_archive after it, which either changes the stamp (this ZREM is
            # skipped) or indexes the room again after the ZREM.
            if await self._redis.scard(self.archive_key(room)):
                return False
            return bool(await self._unindex_archive(keys=[self.archive_index_key], args=[room, stamp]))

        return self._run("unindex_archive", f"unindex room {room!r} from archiving", call)

    def marked_rooms(self) -> Awaitable[list[str]]:
        return self._run("marked_rooms", "list rooms with archive marks", self._scan_rooms("archive", "set"))

    # -- lifecycle -----------------------------------------------------------------------------------

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

    # -- players (PlayerCache) -----------------------------------------------------------------------
    # The keys are in the module docstring: P{player:ID}, P{player:ID}:session, P{attempts:WHAT}.

    def player_key(self, player: str) -> str:
        return f"{self.prefix}{{player:{player}}}"

    def player_session_key(self, player: str) -> str:
        return f"{self.prefix}{{player:{player}}}:session"

    def attempts_key(self, what: str) -> str:
        return f"{self.prefix}{{attempts:{what}}}"

    @functools.cached_property
    def _swap_player_session(self) -> Any:
        return self._redis.register_script(SWAP_PLAYER_SESSION)

    def player_entry(self, player: str) -> Awaitable[bytes | None]:
        async def call() -> bytes | None:
            raw = await self._redis.get(self.player_key(player))
            return None if raw is None else _bytes(raw)

        return self._run("player_entry", "read a player", call)

    def fill_player(self, player: str, entry: bytes, ttl: float) -> Awaitable[bool]:
        ms = ttl_ms(ttl)

        async def call() -> bool:
            return bool(await self._redis.set(self.player_key(player), entry, px=ms, nx=True))

        return self._run("fill_player", "cache a player", call)

    def mark_player(self, player: str, entry: bytes, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.player_key(player), entry, px=ms)

        return self._run("mark_player", "mark a player", call)

    @functools.cached_property
    def _swap_player_entry(self) -> Any:
        return self._redis.register_script(SWAP_PLAYER_ENTRY)

    def swap_player_entry(self, player: str, expected: bytes, entry: bytes, ttl: float) -> Awaitable[bool]:
        ms = ttl_ms(ttl)

        async def call() -> bool:
            keys = [self.player_key(player)]
            return bool(await self._swap_player_entry(keys=keys, args=[expected, entry, ms]))

        # Resent, a swap that landed finds its own entry and says False: the caller marks the
        # player (the safe side) instead.
        return self._run("swap_player_entry", "swap a player's entry", call)

    def player_session(self, player: str) -> Awaitable[str | None]:
        async def call() -> str | None:
            raw = await self._redis.get(self.player_session_key(player))
            return None if raw is None else _bytes(raw).decode()

        return self._run("player_session", "read a player's session", call)

    def swap_player_session(
        self, player: str, expected: str | None, token: str | None, ttl: float
    ) -> Awaitable[str | None]:
        ms = ttl_ms(ttl)

        async def call() -> str | None:
            keys = [self.player_session_key(player)]
            kept = await self._swap_player_session(keys=keys, args=[expected or "", token or "", ms])
            return _bytes(kept).decode() or None

        # Safe to resend: a swap that landed finds its own token and changes nothing more.
        return self._run("swap_player_session", "swap a player's session", call)

    def count_attempt(self, what: str, window: float) -> Awaitable[int]:
        ms = ttl_ms(window)
        key = self.attempts_key(what)

        async def call() -> int:
            async with self._redis.pipeline(transaction=True) as pipe:  # one key: one slot
                pipe.incr(key)
                pipe.pexpire(key, ms, nx=True)
                count, _ = await pipe.execute()
            return int(count)

        # Not resent: a lost reply may have counted the attempt already.
        return self._run("count_attempt", "count an attempt", call, idempotent=False)

    # -- ratings (RatingCache) -----------------------------------------------------------------------
    # P{player:ID}:rating:PRESET (the module docstring): in the player's own slot, beside their entry.

    def rating_key(self, player: str, preset: str) -> str:
        return f"{self.prefix}{{player:{player}}}:rating:{preset}"

    # -- friends (FriendStore): P{player:ID}:presence, P{invite:ID} -----------------------------------

    def presence_key(self, player: str) -> str:
        return f"{self.prefix}{{player:{player}}}:presence"

    def invite_key(self, invite: str) -> str:
        return f"{self.prefix}{{invite:{invite}}}"

    def put_presence(self, player: str, value: bytes, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.presence_key(player), value, px=ms)

        return self._run("put_presence", "keep a presence", call)

    def presences(self, players: Sequence[str]) -> Awaitable[list[bytes | None]]:
        async def call() -> list[bytes | None]:
            if not players:
                return []
            pipe = self._redis.pipeline(transaction=False)
            for player in players:
                pipe.get(self.presence_key(player))
            return [None if raw is None else _bytes(raw) for raw in await pipe.execute()]

        return self._run("presences", "read presences", call)

    @functools.cached_property
    def _drop_if(self) -> Any:
        return self._redis.register_script(DROP_IF)

    def drop_presence(self, player: str, value: bytes) -> Awaitable[bool]:
        async def call() -> bool:
            return bool(await self._drop_if(keys=[self.presence_key(player)], args=[value]))

        return self._run("drop_presence", "drop a presence", call)

    def put_invite(self, invite: str, value: bytes, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.invite_key(invite), value, px=ms)

        return self._run("put_invite", "keep an invitation", call)

    def take_invite(self, invite: str) -> Awaitable[bytes | None]:
        async def call() -> bytes | None:
            raw = await self._redis.getdel(self.invite_key(invite))
            return None if raw is None else _bytes(raw)

        return self._run("take_invite", "take an invitation", call)

    # -- the moderators' list (BanList): one hash, P bans ---------------------------------------------

    @property
    def bans_key(self) -> str:
        return f"{self.prefix}bans"

    def put_ban(self, key: str, entry: bytes) -> Awaitable[None]:
        async def call() -> None:
            await self._redis.hset(self.bans_key, key, entry)

        return self._run("put_ban", "keep a ban", call)

    def lift_ban(self, key: str) -> Awaitable[bool]:
        async def call() -> bool:
            return bool(await self._redis.hdel(self.bans_key, key))

        return self._run("lift_ban", "lift a ban", call)

    def bans(self) -> Awaitable[dict[str, bytes]]:
        async def call() -> dict[str, bytes]:
            raw: dict[Any, Any] = await self._redis.hgetall(self.bans_key)
            return {_bytes(k).decode(): _bytes(v) for k, v in raw.items()}

        return self._run("bans", "read the bans", call)

    def put_rating(self, player: str, preset: str, rating: int, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)
        value = check_rating(rating)

        async def call() -> None:
            await self._redis.set(self.rating_key(player, preset), value, px=ms)

        return self._run("put_rating", "cache a rating", call)

    def get_rating(self, player: str, preset: str) -> Awaitable[int | None]:
        async def call() -> int | None:
            raw = await self._redis.get(self.rating_key(player, preset))
            return None if raw is None else int(_bytes(raw))

        return self._run("get_rating", "read a rating", call)

    # -- arenas (ArenaStore) -------------------------------------------------------------------------
    # The keys are in the module docstring: P{arena:CODE}:meta, :players, :done, P arenas, P NAME:lease.

    def arena_keys(self, code: str) -> list[str]:
        base = f"{self.prefix}{{arena:{code}}}"
        return [f"{base}:players", f"{base}:done", f"{base}:meta"]

    @property
    def arenas_key(self) -> str:
        return f"{self.prefix}arenas"

    @functools.cached_property
    def _write_arena(self) -> Any:
        return self._redis.register_script(WRITE_ARENA)

    @functools.cached_property
    def _lease(self) -> Any:
        return self._redis.register_script(LEASE)

    def put_arena(self, code: str, meta: bytes, ttl: float) -> Awaitable[bool]:
        ms = ttl_ms(ttl)

        async def call() -> bool:
            if not await self._redis.set(self.arena_keys(code)[2], meta, px=ms, nx=True):
                return False
            await self._redis.sadd(self.arenas_key, code)  # the shared index: its own call (another slot)
            return True

        # Not resent: a resent put that landed would call its own arena taken.
        return self._run("put_arena", "create an arena", call, idempotent=False)

    def arena(self, code: str) -> Awaitable[tuple[bytes | None, dict[str, bytes]]]:
        players, _, meta = self.arena_keys(code)

        async def call() -> tuple[bytes | None, dict[str, bytes]]:
            async with self._redis.pipeline(transaction=False) as pipe:  # one slot
                pipe.get(meta)
                pipe.hgetall(players)
                raw, entries = await pipe.execute()
            kept = {_bytes(f).decode(): _bytes(v) for f, v in entries.items()}
            return (None if raw is None else _bytes(raw)), kept

        return self._run("arena", "read an arena", call)

    def arena_codes(self) -> Awaitable[set[str]]:
        async def call() -> set[str]:
            return {_bytes(c).decode() for c in await self._redis.smembers(self.arenas_key)}

        return self._run("arena_codes", "list the arenas", call)

    def unlist_arena(self, code: str) -> Awaitable[None]:
        async def call() -> None:
            await self._redis.srem(self.arenas_key, code)

        return self._run("unlist_arena", "unlist an arena", call)

    def write_arena(
        self,
        code: str,
        expected: dict[str, bytes | None],
        entries: dict[str, bytes],
        ttl: float,
        once: str | None = None,
    ) -> Awaitable[int]:
        ms = ttl_ms(ttl)
        args: list[bytes | str | int] = [ms, once or "", len(expected)]
        for name, value in expected.items():
            args += [name, b"" if value is None else b"=" + value]
        for name, value in entries.items():
            args += [name, value]

        async def call() -> int:
            return int(await self._write_arena(keys=self.arena_keys(code), args=args))

        # Resent, a write that landed finds its own entries and says 0 (or 2): the caller reads again.
        return self._run("write_arena", "write an arena", call)

    def lease(self, name: str, holder: str, ttl: float) -> Awaitable[bool]:
        ms = ttl_ms(ttl)

        async def call() -> bool:
            return bool(await self._lease(keys=[f"{self.prefix}{name}:lease"], args=[holder, ms]))

        return self._run("lease", f"take the {name} lease", call)

    # -- the quick match's queues (MatchQueues) -------------------------------------------------------
    # P{match:QUEUE} (the module docstring): one hash per queue, so each call is one script on one slot.

    def queue_key(self, queue: str) -> str:
        return f"{self.prefix}{{match:{queue}}}"

    @functools.cached_property
    def _enqueue(self) -> Any:
        return self._redis.register_script(ENQUEUE)

    @functools.cached_property
    def _match_waiters(self) -> Any:
        return self._redis.register_script(MATCH_WAITERS)

    @functools.cached_property
    def _dequeue(self) -> Any:
        return self._redis.register_script(DEQUEUE)

    def enqueue(
        self, queue: str, waiter: Waiter, window: Window, now: int, alive: Collection[str], *, wait: bool
    ) -> Awaitable[Waiter | None]:
        nodes = sorted(alive)
        args = [waiter.player, waiter.entry(), now, *_window_args(window), QUEUE_TTL_MS, int(wait), len(nodes), *nodes]

        async def call() -> Waiter | None:
            found: list[Any] = await self._enqueue(keys=[self.queue_key(queue)], args=args)
            return Waiter.read(_text(found[0]), _text(found[1])) if found else None

        # Not resent: a lost reply may have taken a partner out already.
        return self._run("enqueue", f"enqueue in {queue!r}", call, idempotent=False)

    def match_waiters(
        self, queue: str, node: str, alive: Collection[str], mine: Collection[str], window: Window, now: int
    ) -> Awaitable[Matched]:
        nodes = sorted(alive)
        args = [node, now, *_window_args(window), QUEUE_TTL_MS, len(nodes), *nodes, *mine]

        async def call() -> Matched:
            taken, missing, left = await self._match_waiters(keys=[self.queue_key(queue)], args=args)
            words = [_text(x) for x in taken]
            pairs = [
                (Waiter.read(words[i], words[i + 1]), Waiter.read(words[i + 2], words[i + 3]))
                for i in range(0, len(words), 4)
            ]
            return Matched(pairs, [_text(p) for p in missing], int(left))

        # Not resent: a lost reply may have taken pairs out already.
        return self._run("match_waiters", f"match in {queue!r}", call, idempotent=False)

    def dequeue(self, queue: str, player: str, joined: int) -> Awaitable[bool]:
        async def call() -> bool:
            return bool(await self._dequeue(keys=[self.queue_key(queue)], args=[player, joined]))

        return self._run("dequeue", f"dequeue from {queue!r}", call, idempotent=False)


def _sharded(script: str) -> str:
    """The append script ringing its room's shard channel (``SPUBLISH``, in the slot it writes)."""
    plain = "redis.call('PUBLISH', "
    assert script.count(plain) == 1, "the append script rings its doorbell with one PUBLISH"
    return script.replace(plain, "redis.call('SPUBLISH', ")


def _text(value: bytes | str) -> str:
    return _bytes(value).decode()


def _window_args(window: Window) -> tuple[int, int, int]:
    return (window.base, window.widens, window.anyone_after_ms)
