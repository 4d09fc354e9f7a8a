"""``RatingCache`` on Redis: ``P{player:ID}:rating:PRESET``, in the player's own slot beside their entry."""

from __future__ import annotations

from collections.abc import Awaitable

from server.store.base import check_rating, ttl_ms
from server.store.redis.base import RedisBase, as_bytes

__all__ = ["RedisRatings"]


class RedisRatings(RedisBase):
    """``RatingCache`` on Redis: ``P{player:ID}:rating:PRESET``, in the player's own slot beside their entry."""

    def rating_key(self, player: str, preset: str) -> str:
        return f"{self.prefix}{{player:{player}}}:rating:{preset}"

    def put_rating(self, player: str, preset: str, rating: int, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)
        value = check_rating(rating)

        async def call() -> None:
            await self._redis.set(self.rating_key(player, preset), value, px=ms)

        return self._run("put_rating", "cache a rating", call)

    def get_rating(self, player: str, preset: str) -> Awaitable[int | None]:
        async def call() -> int | None:
            raw = await self._redis.get(self.rating_key(player, preset))
            return None if raw is None else int(as_bytes(raw))

        return self._run("get_rating", "read a rating", call)
