"""``ArenaStore`` in memory: each arena's keys (``_Arena``) and the leases."""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from dataclasses import dataclass, field

from server.store.base import check_ttl
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemoryArenas"]


class MemoryArenas(MemoryBase):
    """``ArenaStore`` in memory: each arena's keys (``_Arena``) and the leases."""

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
        leases: dict[str, Timed] = self._leases
        held = self._live(leases, name, now)
        if held is not None and held.value != holder:
            return False
        leases[name] = Timed(holder, now + ttl)
        return True

    @functools.cached_property
    def _leases(self) -> dict[str, Timed]:
        return {}


@dataclass(slots=True)
class _Arena:
    """An arena's keys in a MemoryStore: its definition, its players' entries, what it did once."""

    meta: bytes | None
    deadline: float
    entries: dict[str, bytes] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)
    listed: bool = True
