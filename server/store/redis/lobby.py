"""``Listings`` on Redis: ``P{room:ID}:listing`` and the index ``P listings``."""

from __future__ import annotations

import functools
from collections.abc import Awaitable
from typing import Any

from redis.commands.core import AsyncScript

from server.store.base import ttl_ms
from server.store.redis.base import RedisBase, as_bytes, deadline_ms
from server.store.scripts import PRUNE_LISTINGS

__all__ = ["RedisListings"]


class RedisListings(RedisBase):
    """``Listings`` on Redis: ``P{room:ID}:listing`` and the index ``P listings``."""

    @functools.cached_property
    def _prune(self) -> AsyncScript:
        return self._redis.register_script(PRUNE_LISTINGS)

    def set_listing(self, room: str, summary: bytes | None, ttl: float) -> Awaitable[None]:
        key = self.listing_key(room)
        # Not transactions: the listing lives in its room's slot, the index in its own. One round trip
        # on one Redis; listings() tolerates either half missing.
        if summary is None:

            async def remove() -> None:
                async with self._redis.pipeline(transaction=False) as pipe:
                    pipe.delete(key)
                    pipe.zrem(self._index, room)
                    await pipe.execute()

            return self._run("set_listing", f"remove listing {room!r}", remove)
        ms = ttl_ms(ttl)

        async def publish() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(key, summary, px=ms)
                pipe.zadd(self._index, {room: deadline_ms(ms)})
                self._keep_index(pipe, ms)
                await pipe.execute()

        return self._run("set_listing", f"set listing {room!r}", publish)

    def listings(self) -> Awaitable[dict[str, bytes]]:
        async def call() -> dict[str, bytes]:
            members: list[Any] = await self._redis.zrange(self._index, 0, -1)  # no scores asked: ids
            ids = sorted(as_bytes(raw).decode() for raw in members)
            if not ids:
                return {}
            # One key per command, so a cluster pipeline can send each to its room's node.
            async with self._redis.pipeline(transaction=False) as pipe:
                for room in ids:
                    pipe.get(self.listing_key(room))
                    pipe.exists(self.log_key(room))
                replies = await pipe.execute()
            # The time after the reads: a listing Redis expired just now is past its deadline by then
            # (taken before them, a listing that expired in between stayed in the index one call more).
            now = deadline_ms(0)
            summaries, logs = replies[0::2], replies[1::2]
            result: dict[str, bytes] = {}
            gone: list[str] = []
            for room, summary, log_live in zip(ids, summaries, logs, strict=True):
                if summary is None:
                    gone.append(room)
                elif log_live:
                    result[room] = bytes(summary)
            if gone:
                await self._prune(keys=[self._index], args=[now, *gone])
            return result

        return self._run("listings", "list public rooms", call)
