"""The store in process memory: for ``seahaven-server`` with no Redis, and for tests."""

from __future__ import annotations

import asyncio
import functools
import itertools
import math
import random
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from server.store.base import (
    DEAD_NODES_KEPT,
    Appended,
    Behind,
    Duplicate,
    Forked,
    Request,
    Ring,
    Stored,
    check_count,
    check_races,
    check_rating,
    check_ttl,
    room_bell_data,
)
from server.store.base import chain as chain_of
from server.store.guarded import Breaker, Guard, Observer
from server.store.matching import QUEUE_TTL_MS, Matched, Waiter, Window, best_partner, pair_up

__all__ = ["MemoryStore"]

T = TypeVar("T")


@dataclass(slots=True)
class _Timed:
    value: Any
    deadline: float


@dataclass(slots=True)
class _Log:
    events: list[bytes] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)
    """The chain tip after each event (``base.chain``)."""
    deadline: float = 0.0
    holders: set[str] = field(default_factory=set)


def _tip(log: _Log, length: int) -> str:
    """The log's chain tip after its first ``length`` events ("" for none)."""
    return log.chain[length - 1] if length > 0 else ""


def _extend(log: _Log, events: Sequence[bytes]) -> None:
    """Append ``events`` to the log and its chain."""
    added = [bytes(event) for event in events]
    log.chain.extend(chain_of(_tip(log, len(log.events)), added))
    log.events.extend(added)


async def _answers() -> bool:
    return True


class MemoryStore:
    """The store in process memory, same semantics as :class:`~server.store.redisstore.RedisStore`.

    TTLs use ``clock`` (``time.monotonic`` by default; inject one to move time in tests). An entry is
    expired once ``clock() >= deadline``; expired entries are dropped when touched and by a sweep of
    everything that runs at most once per ``sweep_interval`` seconds (piggybacked on calls), so memory
    stays bounded by the live data. ``rng`` picks the deal ``pop_deal`` hands out.

    Every public method (but ``doorbells`` and ``close``) goes through :meth:`_run`, the guarded call.
    TTLs are checked when a method is called (bad input never reaches the guard).
    """

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.monotonic,
        sweep_interval: float = 30.0,
        rng: random.Random | None = None,
    ) -> None:
        self._clock = clock
        self._sweep_interval = sweep_interval
        self._next_sweep = clock() + sweep_interval
        self._rng = rng or random.Random()
        self._logs: dict[str, _Log] = {}
        self._listings: dict[str, _Timed] = {}
        self._sessions: dict[str, _Timed] = {}
        self._memos: dict[str, dict[str, tuple[int, bytes]]] = {}
        self._bells: list[Ring] = []
        self._bans: dict[str, bytes] = {}
        self._beats: dict[str, float] = {}
        self._where: dict[str, _Timed] = {}
        self._rooms_due: dict[str, int] = {}
        """Room -> when it next needs a node (``set_due``)."""
        self._placed: dict[str, set[str]] = {}
        """Node -> the rooms it located members in (until ``hand_over``)."""
        self._deals: dict[tuple[str, str], set[int]] = {}
        self._boards: dict[tuple[str, str], _Timed] = {}
        """(preset, day) -> {(player, name): best ms}."""
        self._marks: dict[str, set[str]] = {}
        """Room -> its races due for archiving (never empty, no TTL); while marked, its log keeps none."""
        self._due: dict[str, int] = {}
        """The archivers' index: room -> stamp."""
        self._stamps = itertools.count(1)
        self._presence: dict[str, _Timed] = {}
        self._invites: dict[str, _Timed] = {}
        self._guard = Guard(_answers)

    # -- the guarded call ----------------------------------------------------------------------------

    def guard(self, breaker: Breaker | None, observer: Observer | None) -> None:
        self._guard = Guard(_answers, breaker, observer)

    async def _run(self, operation: str, call: Callable[[], T]) -> T:
        """``call()`` admitted by the guard and reported to it (memory never fails)."""
        started = self._guard.admit(operation)
        try:
            return call()
        finally:
            self._guard.settle(operation, started, False)

    # -- housekeeping --------------------------------------------------------------------------------

    def _now(self) -> float:
        now = self._clock()
        if now >= self._next_sweep:
            self._sweep(now)
        return now

    def _sweep(self, now: float) -> None:
        self._next_sweep = now + self._sweep_interval
        tables: tuple[dict[Any, Any], ...] = (
            self._logs,
            self._listings,
            self._sessions,
            self._where,
            self._boards,
            self._presence,
            self._invites,
        )
        for table in tables:
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
    def _live(table: dict[Any, _Timed], key: Any, now: float) -> _Timed | None:
        entry = table.get(key)
        if entry is not None and now >= entry.deadline:
            del table[key]
            return None
        return entry

    # -- rooms ---------------------------------------------------------------------------------------

    def append(self, room: str, events: Sequence[bytes], ttl: float) -> Awaitable[int]:
        ttl = check_ttl(ttl)
        return self._run("append", lambda: self._append(room, events, ttl))

    def _append(self, room: str, events: Sequence[bytes], ttl: float) -> int:
        now = self._now()
        log = self._live_log(room, now)
        if log is None:
            if not events:
                return 0
            log = self._logs[room] = _Log()
        _extend(log, events)
        log.deadline = now + ttl
        return len(log.events)

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
        del refresh  # giving the TTL every time costs nothing here (an expiry time per room)
        del tips  # the chain is kept beside the log here, computed from the events (no script to spare)
        ttl = check_ttl(ttl)
        races = check_races(archive) if archive else ()
        return self._run("append", lambda: self._append_at(room, events, ttl, expected, request, holder, races, tip))

    def _append_at(
        self,
        room: str,
        events: Sequence[bytes],
        ttl: float,
        expected: int,
        request: Request | None,
        holder: str | None,
        archive: Sequence[str],
        tip: str | None,
    ) -> Appended:
        now = self._now()
        log = self._live_log(room, now)
        length = 0 if log is None else len(log.events)
        memos = self._memos.get(room, {}) if log is not None else {}
        memo = memos.get(request.player) if request is not None and not request.ends_stay else None
        if request is not None and memo is not None and memo[0] >= request.seq:
            seq, reply = memo
            return Duplicate(length, reply if seq == request.seq else None)
        if log is not None and tip is not None and expected <= length and _tip(log, expected) != tip:
            return Forked(length, list(log.events))
        if length != expected:
            if log is None:
                return Behind(length, [])
            return Behind(length, list(log.events[expected:]), _tip(log, length))
        before = "" if log is None else _tip(log, length)
        if log is None:
            log = self._logs[room] = _Log()
            self._memos.pop(room, None)
        if archive:
            self._marks.setdefault(room, set()).update(archive)
        _extend(log, events)
        log.deadline = self._deadline(room, now, ttl)
        if request is not None and request.ends_stay:
            self._memos.get(room, {}).pop(request.player, None)
        elif request is not None:
            self._memos.setdefault(room, {})[request.player] = (request.seq, bytes(request.reply))
        if holder is not None:
            log.holders.add(holder)
        if len(log.holders) > (holder in log.holders):
            self._ring("room", room, room_bell_data(len(log.events), events, before))
        return Stored(len(log.events))

    def _deadline(self, room: str, now: float, ttl: float) -> float:
        """A room log's deadline ``ttl`` from ``now``: none while the room has archive marks."""
        return math.inf if room in self._marks else now + ttl

    def _held(self, room: str, holder: str | None) -> _Log | None:
        log = self._live_log(room, self._now())
        if log is not None and holder is not None:
            log.holders.add(holder)
        return log

    def read_from(self, room: str, start: int, holder: str | None = None) -> Awaitable[tuple[int, list[bytes], str]]:
        return self._run("read_from", lambda: self._read_from(room, start, holder))

    def _read_from(self, room: str, start: int, holder: str | None) -> tuple[int, list[bytes], str]:
        log = self._held(room, holder)
        if log is None:
            return 0, [], ""
        return len(log.events), list(log.events[start:]), _tip(log, min(start, len(log.events)))

    def memo(self, room: str, player: str) -> Awaitable[tuple[int, bytes] | None]:
        return self._run("memo", lambda: self._memo(room, player))

    def _memo(self, room: str, player: str) -> tuple[int, bytes] | None:
        if self._live_log(room, self._now()) is None:
            return None
        return self._memos.get(room, {}).get(player)

    def load(self, room: str, holder: str | None = None) -> Awaitable[list[bytes]]:
        return self._run("load", lambda: self._load(room, holder))

    def _load(self, room: str, holder: str | None) -> list[bytes]:
        log = self._held(room, holder)
        return [] if log is None else list(log.events)

    def expire(self, room: str, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("expire", lambda: self._expire(room, ttl))

    def _expire(self, room: str, ttl: float) -> None:
        now = self._now()
        log = self._live_log(room, now)
        if log is not None:
            log.deadline = self._deadline(room, now, ttl)
        listing = self._live(self._listings, room, now)
        if listing is not None:
            listing.deadline = now + ttl

    def delete(self, room: str) -> Awaitable[None]:
        return self._run("delete", lambda: self._delete(room))

    def _delete(self, room: str) -> None:
        self._logs.pop(room, None)
        self._listings.pop(room, None)
        self._memos.pop(room, None)
        self._where.pop(room, None)
        self._marks.pop(room, None)

    def room_ids(self) -> Awaitable[list[str]]:
        return self._run("room_ids", self._room_ids)

    def _room_ids(self) -> list[str]:
        self.sweep()
        return sorted(self._logs)

    # -- doorbells -----------------------------------------------------------------------------------

    async def listen(self, bells: Collection[tuple[str, str]]) -> None:
        return  # one process: every doorbell rings everywhere, as soon as it is rung

    def unlisten(self, bells: Collection[tuple[str, str]]) -> None:
        return

    def ring(self, kind: str, key: str, data: str | bytes) -> Awaitable[None]:
        raw = data.encode() if isinstance(data, str) else bytes(data)
        return self._run("ring", lambda: self._ring(kind, key, raw))

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

    # -- nodes ---------------------------------------------------------------------------------------

    def beat(self, node: str, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("beat", lambda: self._beat(node, ttl))

    def _beat(self, node: str, ttl: float) -> None:
        self._beats[node] = self._now() + ttl

    def leave(self, node: str) -> Awaitable[None]:
        return self._run("leave", lambda: self._leave(node))

    def _leave(self, node: str) -> None:
        if node in self._beats:
            self._beats[node] = self._now()

    def alive(self) -> Awaitable[set[str]]:
        return self._run("alive", lambda: self._nodes(alive=True))

    def dead(self) -> Awaitable[set[str]]:
        return self._run("dead", lambda: self._nodes(alive=False))

    def _nodes(self, *, alive: bool) -> set[str]:
        now = self._now()
        self._beats = {node: deadline for node, deadline in self._beats.items() if deadline > now - DEAD_NODES_KEPT}
        return {node for node, deadline in self._beats.items() if (deadline > now) == alive}

    def locate(self, room: str, player: str, node: str, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("locate", lambda: self._locate(room, player, node, ttl))

    def _locate(self, room: str, player: str, node: str, ttl: float) -> None:
        now = self._now()
        entry = self._live(self._where, room, now)
        where: dict[str, str] = {} if entry is None else entry.value
        where[player] = node
        self._where[room] = _Timed(where, now + ttl)
        self._placed.setdefault(node, set()).add(room)

    def set_due(self, room: str, at: int | None) -> Awaitable[None]:
        return self._run("set_due", lambda: self._set_due(room, at))

    def _set_due(self, room: str, at: int | None) -> None:
        if at is None:
            self._rooms_due.pop(room, None)
        else:
            self._rooms_due[room] = at

    def claim_due(self, now: int, lease: int, count: int) -> Awaitable[list[str]]:
        check_count(count)
        return self._run("claim_due", lambda: self._claim_due(now, lease, count))

    def _claim_due(self, now: int, lease: int, count: int) -> list[str]:
        due = sorted((at, room) for room, at in self._rooms_due.items() if at <= now)[:count]
        for _, room in due:
            self._rooms_due[room] = now + lease
        return [room for _, room in due]

    def hand_over(self, node: str, now: int) -> Awaitable[int]:
        return self._run("hand_over", lambda: self._hand_over(node, now))

    def _hand_over(self, node: str, now: int) -> int:
        rooms = self._placed.pop(node, set())
        for room in rooms:
            self._rooms_due[room] = min(self._rooms_due.get(room, now), now)
        return len(rooms)

    def located(self, room: str) -> Awaitable[dict[str, str]]:
        return self._run("located", lambda: self._located(room))

    def _located(self, room: str) -> dict[str, str]:
        entry = self._live(self._where, room, self._now())
        return {} if entry is None else dict(entry.value)

    # -- lobby ---------------------------------------------------------------------------------------

    def set_listing(self, room: str, summary: bytes | None, ttl: float) -> Awaitable[None]:
        if summary is not None:
            ttl = check_ttl(ttl)
        return self._run("set_listing", lambda: self._set_listing(room, summary, ttl))

    def _set_listing(self, room: str, summary: bytes | None, ttl: float) -> None:
        if summary is None:
            self._listings.pop(room, None)
        else:
            self._listings[room] = _Timed(bytes(summary), self._now() + ttl)

    def listings(self) -> Awaitable[dict[str, bytes]]:
        return self._run("listings", self._live_listings)

    def _live_listings(self) -> dict[str, bytes]:
        self.sweep()
        return {room: entry.value for room, entry in self._listings.items() if room in self._logs}

    # -- sessions ------------------------------------------------------------------------------------

    def put_session(self, token: str, data: bytes, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("put_session", lambda: self._put_session(token, data, ttl))

    def _put_session(self, token: str, data: bytes, ttl: float) -> None:
        self._sessions[token] = _Timed(bytes(data), self._now() + ttl)

    def get_session(self, token: str) -> Awaitable[bytes | None]:
        return self._run("get_session", lambda: self._get_session(token))

    def _get_session(self, token: str) -> bytes | None:
        entry = self._live(self._sessions, token, self._now())
        return None if entry is None else bytes(entry.value)

    def delete_session(self, token: str) -> Awaitable[None]:
        return self._run("delete_session", lambda: self._delete_session(token))

    def _delete_session(self, token: str) -> None:
        self._sessions.pop(token, None)

    # -- deal pool -----------------------------------------------------------------------------------

    def add_deals(self, preset: str, grade: str, numbers: Sequence[int]) -> Awaitable[None]:
        return self._run("add_deals", lambda: self._deals.setdefault((preset, grade), set()).update(numbers))

    def pop_deal(self, preset: str, grade: str) -> Awaitable[int | None]:
        return self._run("pop_deal", lambda: self._pop_deal(preset, grade))

    def _pop_deal(self, preset: str, grade: str) -> int | None:
        pool = self._deals.get((preset, grade))
        if not pool:
            return None
        number = self._rng.choice(sorted(pool))
        pool.remove(number)
        return number

    def count_deals(self, preset: str, grade: str) -> Awaitable[int]:
        return self._run("count_deals", lambda: len(self._deals.get((preset, grade), ())))

    # -- daily boards --------------------------------------------------------------------------------

    def record_daily(self, preset: str, day: str, player: str, name: str, time_ms: int, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("record_daily", lambda: self._record_daily(preset, day, (player, name), time_ms, ttl))

    def _record_daily(self, preset: str, day: str, who: tuple[str, str], time_ms: int, ttl: float) -> None:
        now = self._now()
        entry = self._live(self._boards, (preset, day), now)
        if entry is None:  # the board's TTL starts with its first entry, as in Redis
            entry = self._boards[(preset, day)] = _Timed({}, now + ttl)
        board: dict[tuple[str, str], int] = entry.value
        board[who] = min(board.get(who, time_ms), time_ms)

    def daily_best(self, preset: str, day: str, count: int) -> Awaitable[list[tuple[str, str, int]]]:
        return self._run("daily_best", lambda: self._daily_best(preset, day, count))

    def _daily_best(self, preset: str, day: str, count: int) -> list[tuple[str, str, int]]:
        entry = self._live(self._boards, (preset, day), self._now())
        board: dict[tuple[str, str], int] = {} if entry is None else entry.value
        ranked = sorted(board.items(), key=lambda item: (item[1], item[0]))
        return [(player, name, time_ms) for (player, name), time_ms in ranked[:count]]

    # -- archives ------------------------------------------------------------------------------------

    def index_archive(self, room: str) -> Awaitable[None]:
        return self._run("index_archive", lambda: self._index_archive(room))

    def _index_archive(self, room: str) -> None:
        self._due[room] = next(self._stamps)  # increasing: a room indexed again gets a new stamp

    def archive_due(self, count: int) -> Awaitable[list[tuple[str, int]]]:
        check_count(count)
        return self._run("archive_due", lambda: sorted(self._due.items(), key=lambda item: item[1])[:count])

    def archive_backlog(self) -> Awaitable[int]:
        return self._run("archive_backlog", lambda: len(self._due))

    def archive_marks(self, room: str) -> Awaitable[list[str]]:
        return self._run("archive_marks", lambda: sorted(self._marks.get(room, ())))

    def clear_archive(self, room: str, races: Sequence[str], ttl: float) -> Awaitable[int]:
        ttl = check_ttl(ttl)
        names = check_races(races)
        return self._run("clear_archive", lambda: self._clear_archive(room, names, ttl))

    def _clear_archive(self, room: str, races: Sequence[str], ttl: float) -> int:
        marks = self._marks.get(room)
        if marks is None:
            return 0
        marks.difference_update(races)
        if marks:
            return len(marks)
        del self._marks[room]
        log = self._logs.get(room)
        if log is not None and log.deadline == math.inf:  # kept for its marks: its TTL starts now
            log.deadline = self._now() + ttl
        return 0

    def unindex_archive(self, room: str, stamp: int) -> Awaitable[bool]:
        return self._run("unindex_archive", lambda: self._unindex_archive(room, stamp))

    def _unindex_archive(self, room: str, stamp: int) -> bool:
        if room in self._marks or self._due.get(room) != stamp:
            return False
        del self._due[room]
        return True

    def marked_rooms(self) -> Awaitable[list[str]]:
        return self._run("marked_rooms", lambda: sorted(self._marks))

    # -- lifecycle -----------------------------------------------------------------------------------

    def ping(self) -> Awaitable[bool]:
        return self._guard.ping()

    async def close(self) -> None:
        await self._guard.close()

    # -- players (PlayerCache) -----------------------------------------------------------------------

    @functools.cached_property
    def _players(self) -> _PlayerTables:
        return _PlayerTables()

    def _player_tables(self) -> tuple[_PlayerTables, float]:
        """The players' tables with their expired entries dropped (at most once per sweep interval,
        as the other tables are), and the time now."""
        now, tables = self._clock(), self._players
        if now >= tables.next_sweep:
            tables.next_sweep = now + self._sweep_interval
            for table in (tables.entries, tables.sessions, tables.attempts):
                for key in [key for key, entry in table.items() if now >= entry.deadline]:
                    del table[key]
        return tables, now

    def player_entry(self, player: str) -> Awaitable[bytes | None]:
        return self._run("player_entry", lambda: self._player_entry(player))

    def _player_entry(self, player: str) -> bytes | None:
        tables, now = self._player_tables()
        entry = self._live(tables.entries, player, now)
        return None if entry is None else bytes(entry.value)

    def fill_player(self, player: str, entry: bytes, ttl: float) -> Awaitable[bool]:
        ttl = check_ttl(ttl)
        return self._run("fill_player", lambda: self._put_player(player, entry, ttl, only_new=True))

    def mark_player(self, player: str, entry: bytes, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)

        def call() -> None:
            self._put_player(player, entry, ttl, only_new=False)

        return self._run("mark_player", call)

    def swap_player_entry(self, player: str, expected: bytes, entry: bytes, ttl: float) -> Awaitable[bool]:
        ttl = check_ttl(ttl)
        return self._run("swap_player_entry", lambda: self._swap_player_entry(player, expected, entry, ttl))

    def _swap_player_entry(self, player: str, expected: bytes, entry: bytes, ttl: float) -> bool:
        tables, now = self._player_tables()
        found = self._live(tables.entries, player, now)
        if found is None or found.value != expected:
            return False
        tables.entries[player] = _Timed(bytes(entry), now + ttl)
        return True

    def _put_player(self, player: str, entry: bytes, ttl: float, *, only_new: bool) -> bool:
        tables, now = self._player_tables()
        if only_new and self._live(tables.entries, player, now) is not None:
            return False
        tables.entries[player] = _Timed(bytes(entry), now + ttl)
        return True

    def player_session(self, player: str) -> Awaitable[str | None]:
        return self._run("player_session", lambda: self._player_session(player))

    def _player_session(self, player: str) -> str | None:
        tables, now = self._player_tables()
        entry = self._live(tables.sessions, player, now)
        return None if entry is None else str(entry.value)

    def swap_player_session(
        self, player: str, expected: str | None, token: str | None, ttl: float
    ) -> Awaitable[str | None]:
        ttl = check_ttl(ttl)
        return self._run("swap_player_session", lambda: self._swap_player_session(player, expected, token, ttl))

    def _swap_player_session(self, player: str, expected: str | None, token: str | None, ttl: float) -> str | None:
        tables, now = self._player_tables()
        entry = self._live(tables.sessions, player, now)
        current = None if entry is None else str(entry.value)
        if current != expected:
            return current
        if token is None:
            tables.sessions.pop(player, None)
        else:
            tables.sessions[player] = _Timed(token, now + ttl)
        return token

    def count_attempt(self, what: str, window: float) -> Awaitable[int]:
        window = check_ttl(window)
        return self._run("count_attempt", lambda: self._count_attempt(what, window))

    def _count_attempt(self, what: str, window: float) -> int:
        tables, now = self._player_tables()
        entry = self._live(tables.attempts, what, now)
        if entry is None:
            entry = tables.attempts[what] = _Timed(0, now + window)
        entry.value += 1
        return int(entry.value)

    # -- ratings (RatingCache) -----------------------------------------------------------------------

    @functools.cached_property
    def _ratings(self) -> _RatingTable:
        return _RatingTable()

    # -- the moderators' list (BanList) ------------------------------------------------------------

    def put_ban(self, key: str, entry: bytes) -> Awaitable[None]:
        return self._run("put_ban", lambda: self._bans.__setitem__(key, bytes(entry)))

    def lift_ban(self, key: str) -> Awaitable[bool]:
        return self._run("lift_ban", lambda: self._bans.pop(key, None) is not None)

    def bans(self) -> Awaitable[dict[str, bytes]]:
        return self._run("bans", lambda: dict(self._bans))

    def put_rating(self, player: str, preset: str, rating: int, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        rating = check_rating(rating)
        return self._run("put_rating", lambda: self._put_rating(player, preset, rating, ttl))

    def _put_rating(self, player: str, preset: str, rating: int, ttl: float) -> None:
        table, now = self._rating_table()
        table.entries[(player, preset)] = _Timed(rating, now + ttl)

    def get_rating(self, player: str, preset: str) -> Awaitable[int | None]:
        return self._run("get_rating", lambda: self._get_rating(player, preset))

    def _get_rating(self, player: str, preset: str) -> int | None:
        table, now = self._rating_table()
        entry = self._live(table.entries, (player, preset), now)
        return None if entry is None else int(entry.value)

    def _rating_table(self) -> tuple[_RatingTable, float]:
        """The ratings with their expired entries dropped (at most once per sweep interval), and now."""
        now, table = self._clock(), self._ratings
        if now >= table.next_sweep:
            table.next_sweep = now + self._sweep_interval
            for key in [key for key, entry in table.entries.items() if now >= entry.deadline]:
                del table.entries[key]
        return table, now

    # -- friends (FriendStore) -----------------------------------------------------------------------

    def put_presence(self, player: str, value: bytes, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("put_presence", lambda: self._put_timed(self._presence, player, bytes(value), ttl))

    def presences(self, players: Sequence[str]) -> Awaitable[list[bytes | None]]:
        def read() -> list[bytes | None]:
            now = self._now()
            return [None if (e := self._live(self._presence, p, now)) is None else e.value for p in players]

        return self._run("presences", read)

    def drop_presence(self, player: str, value: bytes) -> Awaitable[bool]:
        def drop() -> bool:
            entry = self._live(self._presence, player, self._now())
            if entry is None or entry.value != value:
                return False
            del self._presence[player]
            return True

        return self._run("drop_presence", drop)

    def put_invite(self, invite: str, value: bytes, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("put_invite", lambda: self._put_timed(self._invites, invite, bytes(value), ttl))

    def take_invite(self, invite: str) -> Awaitable[bytes | None]:
        def take() -> bytes | None:
            entry = self._live(self._invites, invite, self._now())
            if entry is None:
                return None
            del self._invites[invite]
            return bytes(entry.value)

        return self._run("take_invite", take)

    def _put_timed(self, table: dict[str, _Timed], key: str, value: bytes, ttl: float) -> None:
        table[key] = _Timed(value, self._now() + ttl)

    # -- arenas (ArenaStore) -------------------------------------------------------------------------

    @functools.cached_property
    def _arenas(self) -> dict[str, _Arena]:
        return {}

    def _live_arena(self, code: str) -> _Arena | None:
        arena = self._arenas.get(code)
        if arena is not None and self._clock() >= arena.deadline:
            del self._arenas[code]
            return None
        return arena

    def put_arena(self, code: str, meta: bytes, ttl: float) -> Awaitable[bool]:
        ttl = check_ttl(ttl)
        return self._run("put_arena", lambda: self._put_arena(code, meta, ttl))

    def _put_arena(self, code: str, meta: bytes, ttl: float) -> bool:
        if self._live_arena(code) is not None:
            return False
        self._arenas[code] = _Arena(meta, self._clock() + ttl)
        return True

    def arena(self, code: str) -> Awaitable[tuple[bytes | None, dict[str, bytes]]]:
        return self._run("arena", lambda: self._arena(code))

    def _arena(self, code: str) -> tuple[bytes | None, dict[str, bytes]]:
        arena = self._live_arena(code)
        return (None, {}) if arena is None else (arena.meta, dict(arena.entries))

    def arena_codes(self) -> Awaitable[set[str]]:
        return self._run("arena_codes", lambda: {c for c, a in self._arenas.items() if a.listed})

    def unlist_arena(self, code: str) -> Awaitable[None]:
        return self._run("unlist_arena", lambda: self._unlist_arena(code))

    def _unlist_arena(self, code: str) -> None:
        arena = self._arenas.get(code)
        if arena is not None:
            arena.listed = False

    def write_arena(
        self,
        code: str,
        expected: dict[str, bytes | None],
        entries: dict[str, bytes],
        ttl: float,
        once: str | None = None,
    ) -> Awaitable[int]:
        ttl = check_ttl(ttl)
        return self._run("write_arena", lambda: self._write_arena(code, expected, entries, ttl, once))

    def _write_arena(
        self, code: str, expected: dict[str, bytes | None], entries: dict[str, bytes], ttl: float, once: str | None
    ) -> int:
        arena = self._live_arena(code)
        if arena is None:
            arena = self._arenas[code] = _Arena(None, self._clock() + ttl, listed=False)
        if once is not None and once in arena.done:
            return 2
        if any(arena.entries.get(field) != value for field, value in expected.items()):
            return 0
        arena.entries.update(entries)
        if once is not None:
            arena.done.add(once)
        arena.deadline = max(arena.deadline, self._clock() + ttl)
        return 1

    def lease(self, name: str, holder: str, ttl: float) -> Awaitable[bool]:
        ttl = check_ttl(ttl)
        return self._run("lease", lambda: self._lease(name, holder, ttl))

    def _lease(self, name: str, holder: str, ttl: float) -> bool:
        now = self._clock()
        leases: dict[str, _Timed] = self._leases
        held = self._live(leases, name, now)
        if held is not None and held.value != holder:
            return False
        leases[name] = _Timed(holder, now + ttl)
        return True

    @functools.cached_property
    def _leases(self) -> dict[str, _Timed]:
        return {}

    # -- the quick match's queues (MatchQueues) -------------------------------------------------------

    @functools.cached_property
    def _queues(self) -> dict[str, _Timed]:
        """Queue -> its waiters by player (``_Timed.value``); each queue expires QUEUE_TTL_MS after
        its last call, as in Redis."""
        return {}

    def enqueue(
        self, queue: str, waiter: Waiter, window: Window, now: int, alive: Collection[str], *, wait: bool
    ) -> Awaitable[Waiter | None]:
        return self._run("enqueue", lambda: self._enqueue(queue, waiter, window, now, frozenset(alive), wait))

    def _enqueue(
        self, queue: str, waiter: Waiter, window: Window, now: int, alive: frozenset[str], wait: bool
    ) -> Waiter | None:
        waiters = self._queue(queue, alive)
        waiters.pop(waiter.player, None)
        partner = best_partner(waiter, waiters.values(), window, now)
        if partner is not None:
            del waiters[partner.player]
        elif wait:
            waiters[waiter.player] = waiter
        return partner

    def match_waiters(
        self, queue: str, node: str, alive: Collection[str], mine: Collection[str], window: Window, now: int
    ) -> Awaitable[Matched]:
        return self._run(
            "match_waiters", lambda: self._match_waiters(queue, node, frozenset(alive), list(mine), window, now)
        )

    def _match_waiters(
        self, queue: str, node: str, alive: frozenset[str], mine: list[str], window: Window, now: int
    ) -> Matched:
        waiters = self._queue(queue, alive)
        missing = [player for player in mine if player not in waiters]
        pairs = []
        for older, newer in pair_up(waiters.values(), window, now):
            if newer.node == node or older.node == node:
                del waiters[older.player], waiters[newer.player]
                pairs.append((newer, older) if newer.node == node else (older, newer))
        return Matched(pairs, missing, len(waiters))

    def dequeue(self, queue: str, player: str, joined: int) -> Awaitable[bool]:
        return self._run("dequeue", lambda: self._dequeue(queue, player, joined))

    def _dequeue(self, queue: str, player: str, joined: int) -> bool:
        waiters = self._queue(queue, None)
        found = waiters.get(player)
        if found is None or found.joined != joined:
            return False
        del waiters[player]
        return True

    def _queue(self, queue: str, alive: frozenset[str] | None) -> dict[str, Waiter]:
        """The queue's waiters (but those of nodes not ``alive``), its life renewed; expired queues
        are dropped first (there are few: one per kind of race)."""
        now = self._clock()
        for name in [name for name, entry in self._queues.items() if now >= entry.deadline]:
            del self._queues[name]
        entry = self._queues.setdefault(queue, _Timed({}, 0.0))
        entry.deadline = now + QUEUE_TTL_MS / 1000
        waiters: dict[str, Waiter] = entry.value
        if alive is not None:
            for player in [p for p, w in waiters.items() if w.node not in alive]:
                del waiters[player]
        return waiters


@dataclass(slots=True)
class _Arena:
    """An arena's keys in a MemoryStore: its definition, its players' entries, what it did once."""

    meta: bytes | None
    deadline: float
    entries: dict[str, bytes] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)
    listed: bool = True


@dataclass(slots=True)
class _PlayerTables:
    """The ``PlayerCache`` part of a MemoryStore (made on first use)."""

    entries: dict[str, _Timed] = field(default_factory=dict)
    sessions: dict[str, _Timed] = field(default_factory=dict)
    attempts: dict[str, _Timed] = field(default_factory=dict)
    next_sweep: float = 0.0


@dataclass(slots=True)
class _RatingTable:
    """The ``RatingCache`` part of a MemoryStore (made on first use): (player, preset) -> rating."""

    entries: dict[tuple[str, str], _Timed] = field(default_factory=dict)
    next_sweep: float = 0.0
