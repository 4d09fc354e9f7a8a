"""``BanList`` in memory: the moderators' entries by key."""

from __future__ import annotations

from collections.abc import Awaitable

from server.store.memory.base import MemoryBase

__all__ = ["MemoryBans"]


class MemoryBans(MemoryBase):
    """``BanList`` in memory: the moderators' entries by key."""

    def put_ban(self, key: str, entry: bytes) -> Awaitable[None]:
        return self._run("put_ban", lambda: self._bans.__setitem__(key, bytes(entry)))

    def lift_ban(self, key: str) -> Awaitable[bool]:
        return self._run("lift_ban", lambda: self._bans.pop(key, None) is not None)

    def bans(self) -> Awaitable[dict[str, bytes]]:
        return self._run("bans", lambda: dict(self._bans))
