"""``DailyStore`` on Redis: ``P daily:PRESET:DAY``."""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from typing import Any

from redis.commands.core import AsyncScript

from server.store.base import check_ttl
from server.store.redis.base import RedisBase, as_bytes
from server.store.scripts import RECORD_DAILY

__all__ = ["RedisDaily"]


class RedisDaily(RedisBase):
    """``DailyStore`` on Redis: ``P daily:PRESET:DAY``."""

    @functools.cached_property
    def _record_daily(self) -> AsyncScript:
        return self._redis.register_script(RECORD_DAILY)

    def daily_key(self, preset: str, day: str) -> str:
        return f"{self.prefix}daily:{preset}:{day}"

    def record_daily(self, preset: str, day: str, player: str, name: str, time_ms: int, ttl: float) -> Awaitable[None]:
        seconds = max(1, int(check_ttl(ttl)))

        async def call() -> None:
            await self._record_daily(keys=[self.daily_key(preset, day)], args=[f"{player}\t{name}", time_ms, seconds])

        return self._run("record_daily", f"record a {preset} daily time", call)

    def daily_best(self, preset: str, day: str, count: int) -> Awaitable[list[tuple[str, str, int]]]:
        async def call() -> list[tuple[str, str, int]]:
            rows: list[Any] = await self._redis.zrange(self.daily_key(preset, day), 0, count - 1, withscores=True)
            best = []
            for member, score in rows:
                player, _, name = as_bytes(member).decode().partition("\t")
                best.append((player, name, int(score)))
            return best

        return self._run("daily_best", f"read the {preset} daily board", call)
