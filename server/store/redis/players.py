"""``PlayerCache`` on Redis: ``P{player:ID}``, ``P{player:ID}:session``, ``P{attempts:WHAT}``."""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from typing import Any

from server.store.base import ttl_ms
from server.store.redis.base import RedisBase, as_bytes
from server.store.scripts import SWAP_PLAYER_ENTRY, SWAP_PLAYER_SESSION

__all__ = ["RedisPlayers"]


class RedisPlayers(RedisBase):
    """``PlayerCache`` on Redis: ``P{player:ID}``, ``P{player:ID}:session``, ``P{attempts:WHAT}``."""

    def player_key(self, player: str) -> str:
        return f"{self.prefix}{{player:{player}}}"

    def player_session_key(self, player: str) -> str:
        return f"{self.prefix}{{player:{player}}}:session"

    def attempts_key(self, what: str) -> str:
        return f"{self.prefix}{{attempts:{what}}}"

    @functools.cached_property
    def _swap_player_session(self) -> Any:
        return self._redis.register_script(SWAP_PLAYER_SESSION)

    def player_entry(self, player: str) -> Awaitable[bytes | None]:
        async def call() -> bytes | None:
            raw = await self._redis.get(self.player_key(player))
            return None if raw is None else as_bytes(raw)

        return self._run("player_entry", "read a player", call)

    def fill_player(self, player: str, entry: bytes, ttl: float) -> Awaitable[bool]:
        ms = ttl_ms(ttl)

        async def call() -> bool:
            return bool(await self._redis.set(self.player_key(player), entry, px=ms, nx=True))

        return self._run("fill_player", "cache a player", call)

    def mark_player(self, player: str, entry: bytes, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            await self._redis.set(self.player_key(player), entry, px=ms)

        return self._run("mark_player", "mark a player", call)

    @functools.cached_property
    def _swap_player_entry(self) -> Any:
        return self._redis.register_script(SWAP_PLAYER_ENTRY)

    def swap_player_entry(self, player: str, expected: bytes, entry: bytes, ttl: float) -> Awaitable[bool]:
        ms = ttl_ms(ttl)

        async def call() -> bool:
            keys = [self.player_key(player)]
            return bool(await self._swap_player_entry(keys=keys, args=[expected, entry, ms]))

        # Resent, a swap that landed finds its own entry and says False: the caller marks the
        # player (the safe side) instead.
        return self._run("swap_player_entry", "swap a player's entry", call)

    def player_session(self, player: str) -> Awaitable[str | None]:
        async def call() -> str | None:
            raw = await self._redis.get(self.player_session_key(player))
            return None if raw is None else as_bytes(raw).decode()

        return self._run("player_session", "read a player's session", call)

    def swap_player_session(
        self, player: str, expected: str | None, token: str | None, ttl: float
    ) -> Awaitable[str | None]:
        ms = ttl_ms(ttl)

        async def call() -> str | None:
            keys = [self.player_session_key(player)]
            kept = await self._swap_player_session(keys=keys, args=[expected or "", token or "", ms])
            return as_bytes(kept).decode() or None

        # Safe to resend: a swap that landed finds its own token and changes nothing more.
        return self._run("swap_player_session", "swap a player's session", call)

    def count_attempt(self, what: str, window: float) -> Awaitable[int]:
        ms = ttl_ms(window)
        key = self.attempts_key(what)

        async def call() -> int:
            async with self._redis.pipeline(transaction=True) as pipe:  # one key: one slot
                pipe.incr(key)
                pipe.pexpire(key, ms, nx=True)
                count, _ = await pipe.execute()
            return int(count)

        # Not resent: a lost reply may have counted the attempt already.
        return self._run("count_attempt", "count an attempt", call, idempotent=False)
