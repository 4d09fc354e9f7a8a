"""``PlayerCache`` in memory: players' entries, their sessions and counted attempts (``_PlayerTables``)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from dataclasses import dataclass, field

from server.store.base import check_ttl
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemoryPlayers"]


class MemoryPlayers(MemoryBase):
    """``PlayerCache`` in memory: players' entries, their sessions and counted attempts (``_PlayerTables``)."""

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
        tables.entries[player] = Timed(bytes(entry), now + ttl)
        return True

    def _put_player(self, player: str, entry: bytes, ttl: float, *, only_new: bool) -> bool:
        tables, now = self._player_tables()
        if only_new and self._live(tables.entries, player, now) is not None:
            return False
        tables.entries[player] = Timed(bytes(entry), now + ttl)
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
            tables.sessions[player] = Timed(token, now + ttl)
        return token

    def count_attempt(self, what: str, window: float) -> Awaitable[int]:
        window = check_ttl(window)
        return self._run("count_attempt", lambda: self._count_attempt(what, window))

    def _count_attempt(self, what: str, window: float) -> int:
        tables, now = self._player_tables()
        entry = self._live(tables.attempts, what, now)
        if entry is None:
            entry = tables.attempts[what] = Timed(0, now + window)
        entry.value += 1
        return int(entry.value)


@dataclass(slots=True)
class _PlayerTables:
    """The ``PlayerCache`` part of a MemoryStore (made on first use)."""

    entries: dict[str, Timed] = field(default_factory=dict)
    sessions: dict[str, Timed] = field(default_factory=dict)
    attempts: dict[str, Timed] = field(default_factory=dict)
    next_sweep: float = 0.0
