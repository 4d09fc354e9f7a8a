"""``DealStore`` in memory: the deal pool's sets by (preset, grade)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence

from server.store.memory.base import MemoryBase

__all__ = ["MemoryDeals"]


class MemoryDeals(MemoryBase):
    """``DealStore`` in memory: the deal pool's sets by (preset, grade)."""

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
