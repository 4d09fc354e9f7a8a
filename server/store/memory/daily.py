"""``DailyStore`` in memory: each (preset, day) board's best times."""

from __future__ import annotations

from collections.abc import Awaitable

from server.store.base import check_ttl
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemoryDaily"]


class MemoryDaily(MemoryBase):
    """``DailyStore`` in memory: each (preset, day) board's best times."""

    def record_daily(self, preset: str, day: str, player: str, name: str, time_ms: int, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("record_daily", lambda: self._record_daily(preset, day, (player, name), time_ms, ttl))

    def _record_daily(self, preset: str, day: str, who: tuple[str, str], time_ms: int, ttl: float) -> None:
        now = self._now()
        entry = self._live(self._boards, (preset, day), now)
        if entry is None:  # the board's TTL starts with its first entry, as in Redis
            entry = self._boards[(preset, day)] = Timed({}, now + ttl)
        board: dict[tuple[str, str], int] = entry.value
        board[who] = min(board.get(who, time_ms), time_ms)

    def daily_best(self, preset: str, day: str, count: int) -> Awaitable[list[tuple[str, str, int]]]:
        return self._run("daily_best", lambda: self._daily_best(preset, day, count))

    def _daily_best(self, preset: str, day: str, count: int) -> list[tuple[str, str, int]]:
        entry = self._live(self._boards, (preset, day), self._now())
        board: dict[tuple[str, str], int] = {} if entry is None else entry.value
        ranked = sorted(board.items(), key=lambda item: (item[1], item[0]))
        return [(player, name, time_ms) for (player, name), time_ms in ranked[:count]]
