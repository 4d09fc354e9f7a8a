"""``FriendStore`` in memory: presences and invitations, each with its TTL."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence

from server.store.base import check_ttl
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemoryFriends"]


class MemoryFriends(MemoryBase):
    """``FriendStore`` in memory: presences and invitations, each with its TTL."""

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

    def _put_timed(self, table: dict[str, Timed], key: str, value: bytes, ttl: float) -> None:
        table[key] = Timed(value, self._now() + ttl)
