"""``FriendStore`` on Redis: ``P{player:ID}:presence``, ``P{invite:ID}``."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Sequence
from typing import Any

from server.store.base import ttl_ms
from server.store.redis.base import RedisBase, as_bytes
from server.store.scripts import DROP_IF

__all__ = ["RedisFriends"]


class RedisFriends(RedisBase):
    """``FriendStore`` on Redis: ``P{player:ID}:presence``, ``P{invite:ID}``."""

    def presence_key(self, player: str) -> str:
        return f"{self.prefix}{{player:{player}}}:presence"

    def invite_key(self, invite: str) -> str:
        return f"{self.prefix}{{invite:{invite}}}"

    def put_presence(self, player: str, value: bytes, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.presence_key(player), value, px=ms)

        return self._run("put_presence", "keep a presence", call)

    def presences(self, players: Sequence[str]) -> Awaitable[list[bytes | None]]:
        async def call() -> list[bytes | None]:
            if not players:
                return []
            pipe = self._redis.pipeline(transaction=False)
            for player in players:
                pipe.get(self.presence_key(player))
            return [None if raw is None else as_bytes(raw) for raw in await pipe.execute()]

        return self._run("presences", "read presences", call)

    @functools.cached_property
    def _drop_if(self) -> Any:
        return self._redis.register_script(DROP_IF)

    def drop_presence(self, player: str, value: bytes) -> Awaitable[bool]:
        async def call() -> bool:
            return bool(await self._drop_if(keys=[self.presence_key(player)], args=[value]))

        return self._run("drop_presence", "drop a presence", call)

    def put_invite(self, invite: str, value: bytes, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.invite_key(invite), value, px=ms)

        return self._run("put_invite", "keep an invitation", call)

    def take_invite(self, invite: str) -> Awaitable[bytes | None]:
        async def call() -> bytes | None:
            raw = await self._redis.getdel(self.invite_key(invite))
            return None if raw is None else as_bytes(raw)

        return self._run("take_invite", "take an invitation", call)
