"""``ArenaStore`` on Redis: ``P{arena:CODE}:meta``, ``:players``, ``:done``, ``P arenas``, ``P NAME:lease``."""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from typing import Any

from server.store.base import ttl_ms
from server.store.redis.base import RedisBase, as_bytes
from server.store.scripts import LEASE, WRITE_ARENA

__all__ = ["RedisArenas"]


class RedisArenas(RedisBase):
    """``ArenaStore`` on Redis: ``P{arena:CODE}:meta``, ``:players``, ``:done``, ``P arenas``, ``P NAME:lease``."""

    def arena_keys(self, code: str) -> list[str]:
        base = f"{self.prefix}{{arena:{code}}}"
        return [f"{base}:players", f"{base}:done", f"{base}:meta"]

    @property
    def arenas_key(self) -> str:
        return f"{self.prefix}arenas"

    @functools.cached_property
    def _write_arena(self) -> Any:
        return self._redis.register_script(WRITE_ARENA)

    @functools.cached_property
    def _lease(self) -> Any:
        return self._redis.register_script(LEASE)

    def put_arena(self, code: str, meta: bytes, ttl: float) -> Awaitable[bool]:
        ms = ttl_ms(ttl)

        async def call() -> bool:
            if not await self._redis.set(self.arena_keys(code)[2], meta, px=ms, nx=True):
                return False
            await self._redis.sadd(self.arenas_key, code)  # the shared index: its own call (another slot)
            return True

        # Not resent: a resent put that landed would call its own arena taken.
        return self._run("put_arena", "create an arena", call, idempotent=False)

    def arena(self, code: str) -> Awaitable[tuple[bytes | None, dict[str, bytes]]]:
        players, _, meta = self.arena_keys(code)

        async def call() -> tuple[bytes | None, dict[str, bytes]]:
            async with self._redis.pipeline(transaction=False) as pipe:  # one slot
                pipe.get(meta)
                pipe.hgetall(players)
                raw, entries = await pipe.execute()
            kept = {as_bytes(f).decode(): as_bytes(v) for f, v in entries.items()}
            return (None if raw is None else as_bytes(raw)), kept

        return self._run("arena", "read an arena", call)

    def arena_codes(self) -> Awaitable[set[str]]:
        async def call() -> set[str]:
            return {as_bytes(c).decode() for c in await self._redis.smembers(self.arenas_key)}

        return self._run("arena_codes", "list the arenas", call)

    def unlist_arena(self, code: str) -> Awaitable[None]:
        async def call() -> None:
            await self._redis.srem(self.arenas_key, code)

        return self._run("unlist_arena", "unlist an arena", call)

    def write_arena(
        self,
        code: str,
        expected: dict[str, bytes | None],
        entries: dict[str, bytes],
        ttl: float,
        once: str | None = None,
    ) -> Awaitable[int]:
        ms = ttl_ms(ttl)
        args: list[bytes | str | int] = [ms, once or "", len(expected)]
        for name, value in expected.items():
            args += [name, b"" if value is None else b"=" + value]
        for name, value in entries.items():
            args += [name, value]

        async def call() -> int:
            return int(await self._write_arena(keys=self.arena_keys(code), args=args))

        # Resent, a write that landed finds its own entries and says 0 (or 2): the caller reads again.
        return self._run("write_arena", "write an arena", call)

    def lease(self, name: str, holder: str, ttl: float) -> Awaitable[bool]:
        ms = ttl_ms(ttl)

        async def call() -> bool:
            return bool(await self._lease(keys=[f"{self.prefix}{name}:lease"], args=[holder, ms]))

        return self._run("lease", f"take the {name} lease", call)
