"""``BanList`` on Redis: one hash, ``P bans``."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from server.store.redis.base import RedisBase, as_bytes

__all__ = ["RedisBans"]


class RedisBans(RedisBase):
    """``BanList`` on Redis: one hash, ``P bans``."""

    @property
    def bans_key(self) -> str:
        return f"{self.prefix}bans"

    def put_ban(self, key: str, entry: bytes) -> Awaitable[None]:
        async def call() -> None:
            await self._redis.hset(self.bans_key, key, entry)

        return self._run("put_ban", "keep a ban", call)

    def lift_ban(self, key: str) -> Awaitable[bool]:
        async def call() -> bool:
            return bool(await self._redis.hdel(self.bans_key, key))

        return self._run("lift_ban", "lift a ban", call)

    def bans(self) -> Awaitable[dict[str, bytes]]:
        async def call() -> dict[str, bytes]:
            raw: dict[Any, Any] = await self._redis.hgetall(self.bans_key)
            return {as_bytes(k).decode(): as_bytes(v) for k, v in raw.items()}

        return self._run("bans", "read the bans", call)
