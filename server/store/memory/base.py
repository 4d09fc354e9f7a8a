"""What every part of the memory store shares: its tables, the one guarded call (``_run``) and the
housekeeping of their TTLs."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from server.store.base import Ring
from server.store.guarded import Breaker, CallGuard, Observer

__all__ = ["Log", "MemoryBase", "Timed"]

T = TypeVar("T")


@dataclass(slots=True)
class Timed:
    """A value and when it expires (``clock`` seconds)."""

    value: Any
    deadline: float


@dataclass(slots=True)
class Log:
    """A room's log in memory: its events, their chain, its deadline and holders."""

    events: list[bytes] = field(default_factory=list)
    chain: list[str] = field(default_factory=list)
    """The chain tip after each event (``base.chain``)."""
    deadline: float = 0.0
    holders: set[str] = field(default_factory=set)


async def _answers() -> bool:
    return True


class MemoryBase:
    """The memory store's state and its one guarded call, which every part (a mixin per protocol,
    composed into :class:`~server.store.memory.MemoryStore`) goes through; the tables several parts
    share are made here, the others by their part on first use."""

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
        self._logs: dict[str, Log] = {}
        self._listings: dict[str, Timed] = {}
        self._sessions: dict[str, Timed] = {}
        self._memos: dict[str, dict[str, tuple[int, bytes]]] = {}
        self._bells: list[Ring] = []
        self._bans: dict[str, bytes] = {}
        self._beats: dict[str, float] = {}
        self._where: dict[str, Timed] = {}
        self._rooms_due: dict[str, int] = {}
        """Room -> when it next needs a node (``set_due``)."""
        self._placed: dict[str, set[str]] = {}
        """Node -> the rooms it located members in (until ``hand_over``)."""
        self._deals: dict[tuple[str, str], set[int]] = {}
        self._boards: dict[tuple[str, str], Timed] = {}
        """(preset, day) -> {(player, name): best ms}."""
        self._marks: dict[str, set[str]] = {}
        """Room -> its races due for archiving (never empty, no TTL); while marked, its log keeps none."""
        self._due: dict[str, int] = {}
        """The archivers' index: room -> stamp."""
        self._stamps = itertools.count(1)
        self._presence: dict[str, Timed] = {}
        self._invites: dict[str, Timed] = {}
        self._guard = CallGuard(_answers)

    def guard(self, breaker: Breaker | None, observer: Observer | None) -> None:
        self._guard = CallGuard(_answers, breaker, observer)

    async def _run(self, operation: str, call: Callable[[], T]) -> T:
        """``call()`` admitted by the guard and reported to it (memory never fails)."""
        started = self._guard.admit(operation)
        try:
            return call()
        finally:
            self._guard.settle(operation, started, False)

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

    def _live_log(self, room: str, now: float) -> Log | None:
        log = self._logs.get(room)
        if log is not None and now >= log.deadline:
            del self._logs[room]
            return None
        return log

    @staticmethod
    def _live(table: dict[Any, Timed], key: Any, now: float) -> Timed | None:
        entry = table.get(key)
        if entry is not None and now >= entry.deadline:
            del table[key]
            return None
        return entry

    def _ring(self, kind: str, key: str, data: bytes) -> None:
        loop = asyncio.get_running_loop()
        for ring in self._bells:
            loop.call_soon(ring, kind, key, data)

    def ping(self) -> Awaitable[bool]:
        return self._guard.ping()

    async def close(self) -> None:
        await self._guard.close()
