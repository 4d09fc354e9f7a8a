"""``SessionStore`` on Redis: ``P{session:TOKEN}``."""

from __future__ import annotations

from collections.abc import Awaitable

from server.store.base import ttl_ms
from server.store.redis.base import RedisBase, as_bytes

__all__ = ["RedisSessions"]


class RedisSessions(RedisBase):
    """``SessionStore`` on Redis: ``P{session:TOKEN}``."""

    def session_key(self, token: str) -> str:
        return f"{self.prefix}{{session:{token}}}"

    def put_session(self, token: str, data: bytes, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.session_key(token), data, px=ms)

        return self._run("put_session", "store session", call)

    def get_session(self, token: str) -> Awaitable[bytes | None]:
        async def call() -> bytes | None:
            raw = await self._redis.get(self.session_key(token))
            return None if raw is None else as_bytes(raw)

        return self._run("get_session", "read session", call)

    def delete_session(self, token: str) -> Awaitable[None]:
        async def call() -> None:
            await self._redis.delete(self.session_key(token))

        return self._run("delete_session", "delete session", call)
