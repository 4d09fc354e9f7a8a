"""``SessionStore`` in memory: sessions by token."""

from __future__ import annotations

from collections.abc import Awaitable

from server.store.base import check_ttl
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemorySessions"]


class MemorySessions(MemoryBase):
    """``SessionStore`` in memory: sessions by token."""

    def put_session(self, token: str, data: bytes, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("put_session", lambda: self._put_session(token, data, ttl))

    def _put_session(self, token: str, data: bytes, ttl: float) -> None:
        self._sessions[token] = Timed(bytes(data), self._now() + ttl)

    def get_session(self, token: str) -> Awaitable[bytes | None]:
        return self._run("get_session", lambda: self._get_session(token))

    def _get_session(self, token: str) -> bytes | None:
        entry = self._live(self._sessions, token, self._now())
        return None if entry is None else bytes(entry.value)

    def delete_session(self, token: str) -> Awaitable[None]:
        return self._run("delete_session", lambda: self._delete_session(token))

    def _delete_session(self, token: str) -> None:
        self._sessions.pop(token, None)
