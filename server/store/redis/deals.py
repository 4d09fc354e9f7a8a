"""``DealStore`` on Redis: ``P dealpool:PRESET:GRADE``."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import cast

from server.store.redis.base import RedisBase

__all__ = ["RedisDeals"]


class RedisDeals(RedisBase):
    """``DealStore`` on Redis: ``P dealpool:PRESET:GRADE``."""

    def deals_key(self, preset: str, grade: str) -> str:
        return f"{self.prefix}dealpool:{preset}:{grade}"

    def add_deals(self, preset: str, grade: str, numbers: Sequence[int]) -> Awaitable[None]:
        async def call() -> None:
            if numbers:
                await self._redis.sadd(self.deals_key(preset, grade), *numbers)

        return self._run("add_deals", f"add {preset} {grade} deals", call)

    def pop_deal(self, preset: str, grade: str) -> Awaitable[int | None]:
        async def call() -> int | None:
            value = await self._redis.spop(self.deals_key(preset, grade))
            return None if value is None else int(cast(bytes, value))  # one member: no count asked

        # Not resent: a lost reply may have popped a deal already (the shipped lists then serve).
        return self._run("pop_deal", f"take a {preset} {grade} deal", call, idempotent=False)

    def count_deals(self, preset: str, grade: str) -> Awaitable[int]:
        async def call() -> int:
            return int(await self._redis.scard(self.deals_key(preset, grade)))

        return self._run("count_deals", f"count {preset} {grade} deals", call)
