"""Where live rooms, the public lobby listing and sessions live.

Rooms are event-sourced: the room's pure state machine emits events (msgpack bytes), the store keeps
each room's append-only event log, and the server rebuilds a room by replaying its log. A room is
*live* exactly while its log is live: every store key a room owns has a time to live, so finished or
idle rooms vanish on their own and nothing is left behind.

Two implementations share one contract (``tests/test_store.py`` runs on both):

- :class:`MemoryStore`: process memory, for ``seahaven-server`` with no Redis and for tests.
- :class:`RedisStore`: redis-py asyncio; every key under a configurable prefix; one Redis server
  (``redis://``) or a Redis Cluster (``redis+cluster://``).

Redis key layout (``P`` is the prefix, ``seahaven:`` by default)::

    P{room:ID}:log       list    the room's event log, one msgpack event per element; PEXPIRE = room TTL
    P{room:ID}:replies   hash    each player's last stored request: player -> seq, player:r -> reply frame
    P{room:ID}:holders   set     the nodes that read or wrote the room's log: whom its doorbell rings for
    P{room:ID}:where     hash    player -> the node their connection to the room was last on
    P{room:ID}:listing   string  the room's public lobby entry (opaque summary bytes); own TTL
    P listings           zset    ids that may have a listing, scored by the listing's deadline (unix ms);
                                 listings() removes members whose listing key is gone and whose deadline
                                 passed; the set's TTL is kept >= every listing's TTL
    P{session:TOKEN}     string  session data; own TTL

The braces are Redis Cluster hash tags: every key of one room hashes to one slot, so each atomic
update of a room (a Lua script: the append, ``expire``) runs on one node; sessions are spread by their
own tags. The lobby index is the one key shared by all rooms: it is updated in its own call after the
room's keys, never inside a room's script.

Every failure to talk to Redis surfaces as :class:`StoreError`.
"""

from __future__ import annotations

import abc
import asyncio
import functools
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

import msgpack
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import SSLConnection, parse_url
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisClusterException, RedisError
from redis.maint_notifications import MaintNotificationsConfig

from server.store.link import Link, link_url

__all__ = ["Appended", "MemoryStore", "RedisStore", "Request", "Ring", "Store", "StoreError", "check_url", "open_store"]

T = TypeVar("T")


class StoreError(Exception):
    """The store cannot be reached or refused an operation (the server answers "store-unavailable")."""


@dataclass(frozen=True, slots=True)
class Request:
    """The request a room append answers: the player, their seq, and the reply frame to keep."""

    player: str
    seq: int
    reply: bytes


@dataclass(frozen=True, slots=True)
class Appended:
    """What ``append_at`` did.

    ``stored``: the events are in the log, now ``length`` long. Otherwise, ``duplicate``: the request
    was stored before (``memo`` is its reply, None when a later request replaced it); else the log was
    not ``expected`` long but ``length``, and ``gap`` holds its events from ``expected`` on (empty when
    the log is shorter than expected: it lost its tail or expired).
    """

    stored: bool
    length: int
    gap: list[bytes] = field(default_factory=list)
    duplicate: bool = False
    memo: bytes | None = None


Ring = Callable[[str, str, bytes], None]
"""A doorbell: ``(kind, id, data)``; kind ``room`` (data: the log's new length), or one rung by
``Store.ring``; kind ``*`` means doorbells may have been missed (resync every room held)."""


DEAD_NODES_KEPT = 60.0
"""Seconds a node that stopped beating is still listed by ``dead`` (then it is forgotten)."""

BELL_EVENTS = 8
"""A room's doorbell carries the events of an append of at most this many (most are one move), so
the other nodes holding the room apply them without reading the log."""


def room_bell_data(length: int, events: Sequence[bytes]) -> bytes:
    """A room doorbell's data: the log's new length, then (if few) the events that made it so."""
    if not 1 <= len(events) <= BELL_EVENTS:
        return str(length).encode()
    packed: bytes = msgpack.packb([bytes(e) for e in events])
    return str(length).encode() + b" " + packed


def room_bell(data: bytes) -> tuple[int, list[bytes] | None]:
    """The log length a room's doorbell announces, and the events that made it so (None: read them)."""
    head, _, tail = data.partition(b" ")
    length = int(head or 0)
    if not tail:
        return length, None
    events = msgpack.unpackb(tail, raw=True)
    if not isinstance(events, list) or not all(isinstance(e, bytes) for e in events):
        return length, None
    return length, events


def _check_ttl(ttl: float) -> float:
    if not (isinstance(ttl, int | float) and math.isfinite(ttl) and ttl > 0):
        raise ValueError(f"ttl must be a finite number of seconds > 0, not {ttl!r}")
    return float(ttl)


def _ttl_ms(ttl: float) -> int:
    """Seconds to whole milliseconds, rounded up so a short TTL never becomes 0 (which deletes)."""
    return max(1, math.ceil(_check_ttl(ttl) * 1000))


class Store(abc.ABC):
    """Where live rooms, the public lobby listing and sessions live.

    All TTLs are in seconds and must be > 0 (``ValueError`` otherwise). A room is live while its log
    is live; ``load`` of an unknown or expired room is ``[]``.
    """

    @abc.abstractmethod
    async def append(self, room: str, events: Sequence[bytes], ttl: float) -> int:
        """Append events to the room's log and set the log's time to live, atomically, in one round trip.

        Returns the log length after the append. An empty ``events`` only refreshes the TTL of an
        existing log (an unknown room stays unknown) and returns its length. The TTL applies to the
        log; the room's lobby listing keeps its own TTL (``set_listing``/``expire``).
        """

    @abc.abstractmethod
    async def append_at(
        self,
        room: str,
        events: Sequence[bytes],
        ttl: float,
        expected: int,
        request: Request | None = None,
        holder: str | None = None,
    ) -> Appended:
        """Append ``events`` only if the log is ``expected`` long and ``request`` (if any) was not
        stored before, in one atomic call; then keep the request's reply with the room, count the
        node ``holder`` among the room's holders and ring the room's doorbell (the new length) for
        the other holders. No other holder, no doorbell: a node alone with its rooms hears nothing."""

    @abc.abstractmethod
    async def read_from(self, room: str, start: int, holder: str | None = None) -> tuple[int, list[bytes]]:
        """The log's length and its events from index ``start`` on, at one instant; a live room
        counts ``holder`` among its holders in the same instant (nothing appended later goes unrung)."""

    @abc.abstractmethod
    async def memo(self, room: str, player: str) -> tuple[int, bytes] | None:
        """The last stored request of ``player`` in ``room``: its seq and reply frame."""

    @abc.abstractmethod
    async def ring(self, kind: str, key: str, data: str) -> None:
        """Ring a doorbell on every node: ``session`` (data: the node that took the session over;
        older connections close with 4001) or ``wiped`` (a room's log was written back whole)."""

    @abc.abstractmethod
    async def doorbells(self, ring: Ring) -> None:
        """Call ``ring`` for every doorbell, forever (cancel to stop); survives store outages,
        calling ``ring("*", "", b"")`` after each reconnection (doorbells may have been missed)."""

    @abc.abstractmethod
    async def beat(self, node: str, ttl: float) -> None:
        """Say ``node`` is alive for ``ttl`` seconds."""

    @abc.abstractmethod
    async def alive(self) -> set[str]:
        """The nodes whose last ``beat`` has not run out."""

    @abc.abstractmethod
    async def dead(self) -> set[str]:
        """The nodes whose last ``beat`` ran out within the last minute (then they are forgotten)."""

    @abc.abstractmethod
    async def locate(self, room: str, player: str, node: str, ttl: float) -> None:
        """Record that ``player``'s connection to ``room`` is on ``node`` (kept ``ttl`` seconds)."""

    @abc.abstractmethod
    async def located(self, room: str) -> dict[str, str]:
        """Player -> the node their connection to ``room`` was last on."""

    @abc.abstractmethod
    async def load(self, room: str, holder: str | None = None) -> list[bytes]:
        """The room's whole log in append order; ``[]`` when unknown or expired. A live room counts
        ``holder`` among its holders in the same instant, as ``read_from`` does."""

    @abc.abstractmethod
    async def expire(self, room: str, ttl: float) -> None:
        """Set the TTL of everything the room owns (log and listing) to ``ttl`` from now."""

    @abc.abstractmethod
    async def delete(self, room: str) -> None:
        """Remove the room's log and listing now."""

    @abc.abstractmethod
    async def room_ids(self) -> list[str]:
        """Ids of rooms with a live log, sorted (for recovery after a restart)."""

    @abc.abstractmethod
    async def set_listing(self, room: str, summary: bytes | None, ttl: float) -> None:
        """Publish (or replace) the room's public lobby entry for ``ttl`` seconds; ``None`` removes it."""

    @abc.abstractmethod
    async def listings(self) -> dict[str, bytes]:
        """Live public entries only: room id -> summary.

        An entry appears only while both its listing and its room's log are live, so an expired
        (or deleted) room's entry never appears.
        """

    @abc.abstractmethod
    async def put_session(self, token: str, data: bytes, ttl: float) -> None:
        """Store (or replace) a session for ``ttl`` seconds."""

    @abc.abstractmethod
    async def get_session(self, token: str) -> bytes | None:
        """The session's data; ``None`` when unknown or expired."""

    @abc.abstractmethod
    async def delete_session(self, token: str) -> None:
        """Forget a session (no error when unknown)."""

    @abc.abstractmethod
    async def ping(self) -> bool:
        """True when the store answers (for ``/healthz``); never raises."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections. The store must not be used afterwards."""


# --------------------------------------------------------------------------------------------------
# In memory


@dataclass(slots=True)
class _Timed:
    value: Any
    deadline: float


@dataclass(slots=True)
class _Log:
    events: list[bytes] = field(default_factory=list)
    deadline: float = 0.0
    holders: set[str] = field(default_factory=set)


class MemoryStore(Store):
    """The store in process memory, same semantics as :class:`RedisStore`.

    TTLs use ``clock`` (``time.monotonic`` by default; inject one to move time in tests). An entry is
    expired once ``clock() >= deadline``; expired entries are dropped when touched and by a sweep of
    everything that runs at most once per ``sweep_interval`` seconds (piggybacked on calls), so memory
    stays bounded by the live data.
    """

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, sweep_interval: float = 30.0) -> None:
        self._clock = clock
        self._sweep_interval = sweep_interval
        self._next_sweep = clock() + sweep_interval
        self._logs: dict[str, _Log] = {}
        self._listings: dict[str, _Timed] = {}
        self._sessions: dict[str, _Timed] = {}
        self._memos: dict[str, dict[str, tuple[int, bytes]]] = {}
        self._bells: list[Ring] = []
        self._beats: dict[str, float] = {}
        self._where: dict[str, _Timed] = {}

    # -- housekeeping --------------------------------------------------------------------------------

    def _now(self) -> float:
        now = self._clock()
        if now >= self._next_sweep:
            self._sweep(now)
        return now

    def _sweep(self, now: float) -> None:
        self._next_sweep = now + self._sweep_interval
        for table in (self._logs, self._listings, self._sessions, self._where):
            dead = [key for key, entry in table.items() if now >= entry.deadline]
            for key in dead:
                del table[key]

    def sweep(self) -> None:
        """Drop every expired entry now."""
        self._sweep(self._clock())

    def _live_log(self, room: str, now: float) -> _Log | None:
        log = self._logs.get(room)
        if log is not None and now >= log.deadline:
            del self._logs[room]
            return None
        return log

    @staticmethod
    def _live(table: dict[str, _Timed], key: str, now: float) -> _Timed | None:
        entry = table.get(key)
        if entry is not None and now >= entry.deadline:
            del table[key]
            return None
        return entry

    # -- rooms ---------------------------------------------------------------------------------------

    async def append(self, room: str, events: Sequence[bytes], ttl: float) -> int:
        ttl = _check_ttl(ttl)
        now = self._now()
        log = self._live_log(room, now)
        if log is None:
            if not events:
                return 0
            log = self._logs[room] = _Log()
        log.events.extend(bytes(event) for event in events)
        log.deadline = now + ttl
        return len(log.events)

    async def append_at(
        self,
        room: str,
        events: Sequence[bytes],
        ttl: float,
        expected: int,
        request: Request | None = None,
        holder: str | None = None,
    ) -> Appended:
        ttl = _check_ttl(ttl)
        now = self._now()
        log = self._live_log(room, now)
        length = 0 if log is None else len(log.events)
        memos = self._memos.get(room, {}) if log is not None else {}
        if request is not None and request.player in memos and memos[request.player][0] >= request.seq:
            seq, reply = memos[request.player]
            return Appended(False, length, duplicate=True, memo=reply if seq == request.seq else None)
        if length != expected:
            gap = [] if log is None else list(log.events[expected:])
            return Appended(False, length, gap)
        if log is None:
            log = self._logs[room] = _Log()
            self._memos.pop(room, None)
        log.events.extend(bytes(event) for event in events)
        log.deadline = now + ttl
        if request is not None:
            self._memos.setdefault(room, {})[request.player] = (request.seq, bytes(request.reply))
        if holder is not None:
            log.holders.add(holder)
        if len(log.holders) > (holder in log.holders):
            self._ring("room", room, room_bell_data(len(log.events), events))
        return Appended(True, len(log.events))

    def _held(self, room: str, holder: str | None) -> _Log | None:
        log = self._live_log(room, self._now())
        if log is not None and holder is not None:
            log.holders.add(holder)
        return log

    async def read_from(self, room: str, start: int, holder: str | None = None) -> tuple[int, list[bytes]]:
        log = self._held(room, holder)
        return (0, []) if log is None else (len(log.events), list(log.events[start:]))

    async def memo(self, room: str, player: str) -> tuple[int, bytes] | None:
        if self._live_log(room, self._now()) is None:
            return None
        return self._memos.get(room, {}).get(player)

    async def ring(self, kind: str, key: str, data: str) -> None:
        self._ring(kind, key, data.encode())

    def _ring(self, kind: str, key: str, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        for ring in self._bells:
            loop.call_soon(ring, kind, key, data)

    async def doorbells(self, ring: Ring) -> None:
        self._bells.append(ring)
        ring("*", "", b"")  # like a (re)subscription: from here on nothing is missed
        try:
            await asyncio.get_running_loop().create_future()  # until cancelled
        finally:
            self._bells.remove(ring)

    async def beat(self, node: str, ttl: float) -> None:
        self._beats[node] = self._now() + _check_ttl(ttl)

    async def alive(self) -> set[str]:
        now = self._now()
        self._forget_nodes(now)
        return {node for node, deadline in self._beats.items() if deadline > now}

    async def dead(self) -> set[str]:
        now = self._now()
        self._forget_nodes(now)
        return {node for node, deadline in self._beats.items() if deadline <= now}

    def _forget_nodes(self, now: float) -> None:
        self._beats = {node: deadline for node, deadline in self._beats.items() if deadline > now - DEAD_NODES_KEPT}

    async def locate(self, room: str, player: str, node: str, ttl: float) -> None:
        now = self._now()
        entry = self._live(self._where, room, now)
        where: dict[str, str] = {} if entry is None else entry.value
        where[player] = node
        self._where[room] = _Timed(where, now + _check_ttl(ttl))

    async def located(self, room: str) -> dict[str, str]:
        entry = self._live(self._where, room, self._now())
        return {} if entry is None else dict(entry.value)

    async def load(self, room: str, holder: str | None = None) -> list[bytes]:
        log = self._held(room, holder)
        return [] if log is None else list(log.events)

    async def expire(self, room: str, ttl: float) -> None:
        ttl = _check_ttl(ttl)
        now = self._now()
        log = self._live_log(room, now)
        if log is not None:
            log.deadline = now + ttl
        listing = self._live(self._listings, room, now)
        if listing is not None:
            listing.deadline = now + ttl

    async def delete(self, room: str) -> None:
        self._logs.pop(room, None)
        self._listings.pop(room, None)
        self._memos.pop(room, None)
        self._where.pop(room, None)

    async def room_ids(self) -> list[str]:
        self.sweep()
        return sorted(self._logs)

    # -- lobby ---------------------------------------------------------------------------------------

    async def set_listing(self, room: str, summary: bytes | None, ttl: float) -> None:
        if summary is None:
            self._listings.pop(room, None)
            return
        ttl = _check_ttl(ttl)
        self._listings[room] = _Timed(bytes(summary), self._now() + ttl)

    async def listings(self) -> dict[str, bytes]:
        self.sweep()
        return {room: entry.value for room, entry in self._listings.items() if room in self._logs}

    # -- sessions ------------------------------------------------------------------------------------

    async def put_session(self, token: str, data: bytes, ttl: float) -> None:
        ttl = _check_ttl(ttl)
        self._sessions[token] = _Timed(bytes(data), self._now() + ttl)

    async def get_session(self, token: str) -> bytes | None:
        entry = self._live(self._sessions, token, self._now())
        return None if entry is None else bytes(entry.value)

    async def delete_session(self, token: str) -> None:
        self._sessions.pop(token, None)

    # -- lifecycle -----------------------------------------------------------------------------------

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        pass


# --------------------------------------------------------------------------------------------------
# Redis

# The room's transactions are Lua scripts, not MULTI/EXEC: atomic and one round trip alike, but
# redis-py's asyncio cluster client runs a MULTI pipeline on a thread with its own event loop, one
# thread per queued command, blocking the server's loop (~0.7 ms per append); a script is one command
# routed by its key. Every key a script touches is one room's (one hash slot).

# Appends ARGV[2..] to the log and sets its TTL; with no events, only refreshes an existing log's TTL.
# RPUSH in slices: Lua's unpack() has a limit (~8000 values) and a healed log can be longer.
# KEYS[1] = the room's log; ARGV[1] = TTL in ms. Returns the log's length.
_APPEND = """
local length = redis.call('LLEN', KEYS[1])
for i = 2, #ARGV, 1000 do
    length = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return length
"""

# Optimistic concurrency: appends ARGV[8..] only if the log is ARGV[2] long and the request
# (player ARGV[3], seq ARGV[4]; '' for none) is newer than the player's last stored one; then keeps
# the request's reply (ARGV[5]) in the room's replies hash, adds the node ARGV[7] ('' for none) to
# the room's holders and rings the doorbell (PUBLISH ARGV[6] the new length, and up to BELL_EVENTS events
# that made it so: see room_bell) if any other node holds the room: a node alone with its rooms pays no
# PUBLISH and hears none of its own.
# Replies: {length} stored; {-1, length, gap} the log is not as expected (gap: its events
# from the expected length on); {-2, length, reply or nil} the request was stored before.
# KEYS[1] = the room's log, KEYS[2] = its replies (player -> seq, player..':r' -> reply), KEYS[3] =
# its holders; ARGV[1] = TTL ms.
_APPEND_AT = """
local length = redis.call('LLEN', KEYS[1])
local player = ARGV[3]
if player ~= '' and length > 0 then
    local seen = tonumber(redis.call('HGET', KEYS[2], player) or '-1')
    if seen >= tonumber(ARGV[4]) then
        local reply = false
        if seen == tonumber(ARGV[4]) then reply = redis.call('HGET', KEYS[2], player .. ':r') end
        return {-2, length, reply}
    end
end
local expected = tonumber(ARGV[2])
if length ~= expected then
    local gap = {}
    if length > expected then gap = redis.call('LRANGE', KEYS[1], expected, -1) end
    return {-1, length, gap}
end
if length == 0 then redis.call('DEL', KEYS[2]) end
for i = 8, #ARGV, 1000 do
    length = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if player ~= '' then
    redis.call('HSET', KEYS[2], player, ARGV[4], player .. ':r', ARGV[5])
    redis.call('PEXPIRE', KEYS[2], ARGV[1])
end
local others = redis.call('SCARD', KEYS[3])
if ARGV[7] ~= '' then others = others - 1 + redis.call('SADD', KEYS[3], ARGV[7]) end
redis.call('PEXPIRE', KEYS[3], ARGV[1])
if others > 0 then
    local bell = length
    if #ARGV >= 8 and #ARGV - 7 <= BELL_EVENTS then bell = length .. ' ' .. cmsgpack.pack({unpack(ARGV, 8)}) end
    redis.call('PUBLISH', ARGV[6], bell)
end
return {length}
""".replace("BELL_EVENTS", str(BELL_EVENTS))

# KEYS[1] = the room's log, KEYS[2] = its holders; ARGV[1] = the first index to read, ARGV[2] = the
# reading node ('' for none), added to a live room's holders (same TTL as the log) at the instant of
# the read. Returns {length, events from there}.
_READ_FROM = """
local length = redis.call('LLEN', KEYS[1])
if length > 0 and ARGV[2] ~= '' then
    redis.call('SADD', KEYS[2], ARGV[2])
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) else redis.call('PERSIST', KEYS[2]) end
end
return {length, redis.call('LRANGE', KEYS[1], ARGV[1], -1)}
"""

# KEYS = the room's log, listing, replies, where and holders; ARGV[1] = TTL in ms.
_EXPIRE_ROOM = """
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
"""

# Removes ids whose listing key the caller found gone from the listings index, unless the id's
# deadline is still ahead: then the listing was published again since the caller looked (publishing
# sets the listing key and the id's new deadline, in either order), and it stays. Touches the index key only, so it
# runs on a cluster too (the listing keys live in their rooms' slots).
# KEYS[1] = index; ARGV[1] = now (unix ms), ARGV[2..] = the ids found gone.
_PRUNE_LISTINGS = """
local now = tonumber(ARGV[1])
local removed = 0
for i = 2, #ARGV do
    local deadline = redis.call('ZSCORE', KEYS[1], ARGV[i])
    if deadline and tonumber(deadline) <= now then
        removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
    end
end
return removed
"""

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
"""URL schemes naming a Redis Cluster (seed nodes), and the plain scheme each one's nodes speak."""

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


def _describe(url: str) -> str:
    """The URL without credentials, for error messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.scheme in CLUSTER_SCHEMES:
            return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"
        host = parts.hostname or parts.path or "?"
        return f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")
    except ValueError:
        return "<unparseable url>"


def _cluster_seeds(url: str) -> tuple[list[ClusterNode], dict[str, Any]]:
    """The seed nodes and client options of ``redis+cluster://[user:pass@]host:port[,host:port...][?opts]``.

    Raises ``ValueError`` naming what is wrong (no credentials in the message).
    """
    parts = urlsplit(url)
    credentials, _, hosts = parts.netloc.rpartition("@")
    seeds: list[ClusterNode] = []
    for seed in hosts.split(","):
        host, _, port = seed.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{_describe(url)}: every cluster seed must be host:port, not {seed!r}")
        seeds.append(ClusterNode(host, int(port)))
    if parts.path not in ("", "/", "/0"):
        raise ValueError(f"{_describe(url)}: a Redis Cluster has database 0 only, not {parts.path!r}")
    # The first seed's URL in the nodes' own scheme carries credentials, TLS and ?options.
    first = f"{CLUSTER_SCHEMES[parts.scheme]}://{credentials + '@' if credentials else ''}{hosts.split(',')[0]}"
    options: dict[str, Any] = dict(parse_url(first + (f"?{parts.query}" if parts.query else "")))
    for key in ("host", "port", "db", "path"):
        options.pop(key, None)
    if options.pop("connection_class", None) is SSLConnection:
        options["ssl"] = True
    return seeds, options


def check_url(url: str) -> str:
    """``url`` when it is a Redis URL the store can open (``redis://``, ``rediss://``, ``unix://``, or a
    cluster's ``redis+cluster://host:port[,host:port...]``); ``ValueError`` saying why otherwise."""
    scheme = urlsplit(url).scheme
    if scheme in CLUSTER_SCHEMES:
        _cluster_seeds(url)
    elif scheme not in ("redis", "rediss", "unix"):
        raise ValueError(
            f"{_describe(url)}: the Redis URL must start with redis://, rediss://, unix:// or redis+cluster://"
        )
    return url


class RedisStore(Store):
    """The store in Redis (>= 7.0), every key under ``prefix`` (see the module docstring for the layout).

    ``url`` is one Redis server (``redis://``, ``rediss://``, ``unix://``) or a Redis Cluster given by
    one or more seed nodes (``redis+cluster://host:port[,host:port...]``, ``rediss+cluster://`` for TLS);
    on a cluster it uses redis-py's ``RedisCluster``, which follows slot moves by itself.

    ``timeout`` bounds connecting and every reply (seconds); at most ``max_connections`` calls run at
    once, more wait their turn. On one server over TCP (``redis://``) the rooms' appends and
    reads go, unless ``pipelined`` is False, over one pipelined connection instead
    (:class:`~server.redislink.Link`: commands issued in one event-loop turn share a write).
    The client never retries by itself: an append is not idempotent and a blind resend after a lost
    reply would store a move twice. Idempotent operations are retried once, immediately, on a connection
    error (a connection dropped while idle in the pool). Failures raise :class:`StoreError`; once Redis
    is back the next call reconnects.
    ``redis_options`` go to ``redis.asyncio.ConnectionPool.from_url`` (e.g. ``connection_class``), or
    to ``RedisCluster`` on a cluster.
    """

    def __init__(
        self,
        url: str,
        *,
        prefix: str = "seahaven:",
        timeout: float = 2.0,
        max_connections: int = 32,
        pipelined: bool = True,
        **redis_options: Any,
    ) -> None:
        self.prefix = prefix
        self._where = _describe(url)
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
        self._redis: aioredis.Redis | RedisCluster
        if self.cluster:
            seeds, url_options = _cluster_seeds(url)
            self._redis = RedisCluster(startup_nodes=seeds, **{**options, **url_options})
        else:
            self._redis = aioredis.Redis.from_pool(aioredis.ConnectionPool.from_url(url, **options))
        # At most ``max_connections`` calls at once; a burst waits its turn here instead of failing
        # with "too many connections" (redis-py's BlockingConnectionPool would wait too, but halves
        # the throughput under concurrency).
        self._slots = asyncio.Semaphore(max_connections)
        # redis-py's asyncio RedisCluster (8.1) drops connections in use when many calls race its first
        # use ("'NoneType' object has no attribute 'writelines'", "Connection closed by server"): the
        # first call on a cluster goes alone, the others wait for it.
        self._warm = not self.cluster
        self._warming = asyncio.Lock()
        self._index = f"{prefix}listings"
        self._append = self._redis.register_script(_APPEND)
        self._expire_room = self._redis.register_script(_EXPIRE_ROOM)
        self._append_at = self._redis.register_script(_APPEND_AT)
        self._read_from = self._redis.register_script(_READ_FROM)
        self._url = url
        self._timeout = timeout
        self._prune = self._redis.register_script(_PRUNE_LISTINGS)
        # The rooms' appends and reads go over one pipelined connection (server/store/link.py) where
        # it can speak to the server; redis-py's client costs more CPU per call than the move.
        self._link = Link(url, timeout=timeout) if pipelined and link_url(url) else None

    # -- keys ----------------------------------------------------------------------------------------

    # The {...} part is the Redis Cluster hash tag: all of a room's keys share one slot.

    def log_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:log"

    def listing_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:listing"

    def replies_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:replies"

    def where_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:where"

    def holders_key(self, room: str) -> str:
        return f"{self.prefix}{{room:{room}}}:holders"

    def room_keys(self, room: str) -> list[str]:
        """Every key the room owns (one slot)."""
        return [
            self.log_key(room),
            self.listing_key(room),
            self.replies_key(room),
            self.where_key(room),
            self.holders_key(room),
        ]

    @property
    def nodes_key(self) -> str:
        return f"{self.prefix}nodes"

    def bell(self, kind: str, key: str) -> str:
        """A doorbell's pub/sub channel (not a key: PUBLISH reaches every node of a cluster)."""
        return f"{self.prefix}bell:{kind}:{key}"

    def session_key(self, token: str) -> str:
        return f"{self.prefix}{{session:{token}}}"

    @property
    def index_key(self) -> str:
        return self._index

    # -- plumbing ------------------------------------------------------------------------------------

    def _run(
        self, what: str, call: Callable[[], Awaitable[T]], *, idempotent: bool = True, pooled: bool = True
    ) -> Awaitable[T]:
        """``call`` with its failures as StoreError; resent once after a lost connection when
        ``idempotent``. A ``pooled`` call (redis-py's) waits for one of the pool's slots first.
        (Not a coroutine itself: the link's calls, every move's append among them, skip a layer.)"""
        if not pooled:
            return self._attempts(what, call, idempotent)
        return self._in_slot(what, call, idempotent)

    async def _in_slot(self, what: str, call: Callable[[], Awaitable[T]], idempotent: bool) -> T:
        async with self._slots:
            return await self._attempts(what, call, idempotent)

    async def _attempts(self, what: str, call: Callable[[], Awaitable[T]], idempotent: bool) -> T:
        attempts = 2 if idempotent else 1
        for attempt in range(1, attempts + 1):
            try:
                if not self._warm:
                    await self._warm_up()
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

    async def _warm_up(self) -> None:
        async with self._warming:
            if not self._warm and isinstance(self._redis, RedisCluster):
                await self._redis.ping(target_nodes=RedisCluster.PRIMARIES)
            self._warm = True

    # -- rooms ---------------------------------------------------------------------------------------

    async def append(self, room: str, events: Sequence[bytes], ttl: float) -> int:
        ms = _ttl_ms(ttl)
        key = self.log_key(room)

        async def call() -> int:
            return int(await self._append(keys=[key], args=[ms, *events]))

        return await self._run(f"append to room {room!r}", call, idempotent=not events)

    async def append_at(
        self,
        room: str,
        events: Sequence[bytes],
        ttl: float,
        expected: int,
        request: Request | None = None,
        holder: str | None = None,
    ) -> Appended:
        ms = _ttl_ms(ttl)
        keys, bell = self._append_keys(room)
        who: tuple[str, int, bytes] = ("", 0, b"") if request is None else (request.player, request.seq, request.reply)
        args: list[bytes | str | int] = [ms, expected, *who, bell, holder or "", *events]
        link = self._link

        async def call() -> Appended:
            if link is not None:
                reply = await link.script(self._append_at.sha, _APPEND_AT, keys, args)
            else:
                reply = await self._append_at(keys=keys, args=args)
            if reply[0] == -2:
                return Appended(
                    False, int(reply[1]), duplicate=True, memo=None if reply[2] is None else _bytes(reply[2])
                )
            if reply[0] == -1:
                return Appended(False, int(reply[1]), [_bytes(e) for e in reply[2]])
            return Appended(True, int(reply[0]))

        # Safe to resend: the expected length (and the request) make a second run a no-op.
        return await self._run(f"append to room {room!r}", call, pooled=link is None)

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - the store lives as long as the process
    def _append_keys(self, room: str) -> tuple[list[str], str]:
        """The keys and doorbell channel of a room's appends, built once per live room."""
        return [self.log_key(room), self.replies_key(room), self.holders_key(room)], self.bell("room", room)

    async def read_from(self, room: str, start: int, holder: str | None = None) -> tuple[int, list[bytes]]:
        async def call() -> tuple[int, list[bytes]]:
            keys = [self.log_key(room), self.holders_key(room)]
            args: list[bytes | str | int] = [start, holder or ""]
            if self._link is not None:
                length, events = await self._link.script(self._read_from.sha, _READ_FROM, keys, args)
            else:
                length, events = await self._read_from(keys=keys, args=args)
            return int(length), [_bytes(e) for e in events]

        return await self._run(f"read room {room!r}", call, pooled=self._link is None)

    async def memo(self, room: str, player: str) -> tuple[int, bytes] | None:
        async def call() -> tuple[int, bytes] | None:
            seq, reply = await self._redis.hmget(self.replies_key(room), [player, f"{player}:r"])
            return None if seq is None or reply is None else (int(seq), _bytes(reply))

        return await self._run(f"read replies of room {room!r}", call)

    async def ring(self, kind: str, key: str, data: str) -> None:
        async def call() -> None:
            await self._redis.publish(self.bell(kind, key), data)

        await self._run(f"ring {kind}", call)

    def _subscriber(self) -> aioredis.Redis:
        """A plain connection for pub/sub (on a cluster, to a seed: PUBLISH reaches every node).
        No read timeout: a quiet channel is not a dead one (TCP keepalive and the health check are)."""
        url = self._url
        if self.cluster:
            seeds, options = _cluster_seeds(url)
            return aioredis.Redis(
                host=seeds[0].host,
                port=int(seeds[0].port),
                socket_keepalive=True,
                health_check_interval=10,
                socket_connect_timeout=self._timeout,
                **{k: v for k, v in options.items() if k in ("username", "password", "ssl")},
            )
        return aioredis.Redis.from_url(
            url, socket_keepalive=True, health_check_interval=10, socket_connect_timeout=self._timeout
        )

    async def doorbells(self, ring: Ring) -> None:
        pattern = _glob_escape(f"{self.prefix}bell:") + "*"
        head = len(f"{self.prefix}bell:")
        while True:
            client = self._subscriber()
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(pattern)
                    async for message in pubsub.listen():
                        if message["type"] == "psubscribe":
                            # Subscribed now (Redis confirmed it): anything rung before is read from
                            # the logs. Not before the confirmation: reads go over other connections.
                            ring("*", "", b"")
                        if message["type"] != "pmessage":
                            continue
                        kind, _, key = _bytes(message["channel"]).decode()[head:].partition(":")
                        ring(kind, key, _bytes(message["data"]))
            except (RedisError, OSError):
                await asyncio.sleep(0.5)
            finally:
                await client.aclose()

    async def beat(self, node: str, ttl: float) -> None:
        ms = _ttl_ms(ttl)

        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self.nodes_key, {node: _deadline_ms(ms)})
                pipe.zremrangebyscore(self.nodes_key, "-inf", _deadline_ms(-int(DEAD_NODES_KEPT * 1000)))  # long gone
                pipe.pexpire(self.nodes_key, 10 * ms)
                await pipe.execute()

        await self._run("beat", call)

    async def alive(self) -> set[str]:
        async def call() -> set[str]:
            nodes: list[Any] = await self._redis.zrangebyscore(self.nodes_key, _deadline_ms(0), "+inf")
            return {_bytes(node).decode() for node in nodes}

        return await self._run("list nodes", call)

    async def dead(self) -> set[str]:
        async def call() -> set[str]:
            nodes: list[Any] = await self._redis.zrangebyscore(self.nodes_key, "-inf", f"({_deadline_ms(0)}")
            return {_bytes(node).decode() for node in nodes}

        return await self._run("list dead nodes", call)

    async def locate(self, room: str, player: str, node: str, ttl: float) -> None:
        ms = _ttl_ms(ttl)
        key = self.where_key(room)

        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hset(key, player, node)
                pipe.pexpire(key, ms)
                await pipe.execute()

        await self._run(f"locate in room {room!r}", call)

    async def located(self, room: str) -> dict[str, str]:
        async def call() -> dict[str, str]:
            found = await self._redis.hgetall(self.where_key(room))
            return {_bytes(k).decode(): _bytes(v).decode() for k, v in found.items()}

        return await self._run(f"read room {room!r} locations", call)

    async def load(self, room: str, holder: str | None = None) -> list[bytes]:
        if holder is None:

            async def call() -> list[bytes]:
                return [_bytes(event) for event in await self._redis.lrange(self.log_key(room), 0, -1)]

            return await self._run(f"load room {room!r}", call)
        return (await self.read_from(room, 0, holder))[1]

    async def expire(self, room: str, ttl: float) -> None:
        ms = _ttl_ms(ttl)

        async def call() -> None:
            # The room's keys at once (one slot), then the shared index.
            await self._expire_room(keys=self.room_keys(room), args=[ms])
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self._index, {room: _deadline_ms(ms)}, xx=True)
                self._keep_index(pipe, ms)
                await pipe.execute()

        await self._run(f"expire room {room!r}", call)

    async def delete(self, room: str) -> None:
        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(*self.room_keys(room))  # one slot: one command
                pipe.zrem(self._index, room)
                await pipe.execute()

        await self._run(f"delete room {room!r}", call)

    async def room_ids(self) -> list[str]:
        head = f"{self.prefix}{{room:"
        tail = "}:log"
        pattern = f"{_glob_escape(head)}*{tail}"

        async def call() -> list[str]:
            found: set[str] = set()
            async for raw in self._redis.scan_iter(match=pattern, count=1000, _type="list"):
                try:
                    key = _bytes(raw).decode()
                except UnicodeDecodeError:
                    continue
                found.add(key[len(head) : -len(tail)])
            return sorted(found)

        return await self._run("list rooms", call)

    # -- lobby ---------------------------------------------------------------------------------------

    def _keep_index(self, pipe: Any, ms: int) -> None:
        """Queue commands keeping the index's TTL >= ``ms`` (a set without a TTL gets one)."""
        pipe.pexpire(self._index, ms, nx=True)
        pipe.pexpire(self._index, ms, gt=True)

    async def set_listing(self, room: str, summary: bytes | None, ttl: float) -> None:
        key = self.listing_key(room)
        # Not transactions: the listing lives in its room's slot, the index in its own. One round trip
        # on one Redis; listings() tolerates either half missing.
        if summary is None:

            async def remove() -> None:
                async with self._redis.pipeline(transaction=False) as pipe:
                    pipe.delete(key)
                    pipe.zrem(self._index, room)
                    await pipe.execute()

            await self._run(f"remove listing {room!r}", remove)
            return
        ms = _ttl_ms(ttl)

        async def publish() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(key, summary, px=ms)
                pipe.zadd(self._index, {room: _deadline_ms(ms)})
                self._keep_index(pipe, ms)
                await pipe.execute()

        await self._run(f"set listing {room!r}", publish)

    async def listings(self) -> dict[str, bytes]:
        async def call() -> dict[str, bytes]:
            members: list[Any] = await self._redis.zrange(self._index, 0, -1)  # no scores asked: ids
            ids = sorted(_bytes(raw).decode() for raw in members)
            if not ids:
                return {}
            now = _deadline_ms(0)
            # One key per command, so a cluster pipeline can send each to its room's node.
            async with self._redis.pipeline(transaction=False) as pipe:
                for room in ids:
                    pipe.get(self.listing_key(room))
                    pipe.exists(self.log_key(room))
                replies = await pipe.execute()
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

        return await self._run("list public rooms", call)

    # -- sessions ------------------------------------------------------------------------------------

    async def put_session(self, token: str, data: bytes, ttl: float) -> None:
        ms = _ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.session_key(token), data, px=ms)

        await self._run("store session", call)

    async def get_session(self, token: str) -> bytes | None:
        async def call() -> bytes | None:
            raw = await self._redis.get(self.session_key(token))
            return None if raw is None else _bytes(raw)

        return await self._run("read session", call)

    async def delete_session(self, token: str) -> None:
        async def call() -> None:
            await self._redis.delete(self.session_key(token))

        await self._run("delete session", call)

    # -- lifecycle -----------------------------------------------------------------------------------

    async def ping(self) -> bool:
        async def call() -> bool:
            if isinstance(self._redis, RedisCluster):  # every master, not just one
                return bool(await self._redis.ping(target_nodes=RedisCluster.PRIMARIES))
            return bool(await self._redis.ping())

        try:
            return await self._run("ping", call)
        except StoreError:
            return False

    async def close(self) -> None:
        if self._link is not None:
            await self._link.close()
        await self._redis.aclose()


def open_store(url: str | None, prefix: str = "seahaven:") -> Store:
    """A :class:`MemoryStore` when ``url`` is None, else a :class:`RedisStore` on ``url`` (a server or a cluster)."""
    if url is None:
        return MemoryStore()
    return RedisStore(url, prefix=prefix)
