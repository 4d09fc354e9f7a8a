"""``Listings`` in memory: one entry per listed room, shown while its log lives."""

from __future__ import annotations

from collections.abc import Awaitable

from server.store.base import check_ttl
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemoryListings"]


class MemoryListings(MemoryBase):
    """``Listings`` in memory: one entry per listed room, shown while its log lives."""

    def set_listing(self, room: str, summary: bytes | None, ttl: float) -> Awaitable[None]:
        if summary is not None:
            ttl = check_ttl(ttl)
        return self._run("set_listing", lambda: self._set_listing(room, summary, ttl))

    def _set_listing(self, room: str, summary: bytes | None, ttl: float) -> None:
        if summary is None:
            self._listings.pop(room, None)
        else:
            self._listings[room] = Timed(bytes(summary), self._now() + ttl)

    def listings(self) -> Awaitable[dict[str, bytes]]:
        return self._run("listings", self._live_listings)

    def _live_listings(self) -> dict[str, bytes]:
        self.sweep()
        return {room: entry.value for room, entry in self._listings.items() if room in self._logs}
