"""``RatingCache`` in memory: (player, preset) -> shown rating (``_RatingTable``)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from dataclasses import dataclass, field

from server.store.base import check_rating, check_ttl
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemoryRatings"]


class MemoryRatings(MemoryBase):
    """``RatingCache`` in memory: (player, preset) -> shown rating (``_RatingTable``)."""

    @functools.cached_property
    def _ratings(self) -> _RatingTable:
        return _RatingTable()

    def put_rating(self, player: str, preset: str, rating: int, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        rating = check_rating(rating)
        return self._run("put_rating", lambda: self._put_rating(player, preset, rating, ttl))

    def _put_rating(self, player: str, preset: str, rating: int, ttl: float) -> None:
        table, now = self._rating_table()
        table.entries[(player, preset)] = Timed(rating, now + ttl)

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


@dataclass(slots=True)
class _RatingTable:
    """The ``RatingCache`` part of a MemoryStore (made on first use): (player, preset) -> rating."""

    entries: dict[tuple[str, str], Timed] = field(default_factory=dict)
    next_sweep: float = 0.0
