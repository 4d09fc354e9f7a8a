"""``Nodes`` on Redis: ``P nodes``, ``P{room:ID}:where``, ``P{node:NAME}:rooms``, ``P rooms:due``."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from server.store.base import DEAD_NODES_KEPT, check_count, ttl_ms
from server.store.redis.base import RedisBase, as_bytes, deadline_ms, text

__all__ = ["RedisNodes"]


class RedisNodes(RedisBase):
    """``Nodes`` on Redis: ``P nodes``, ``P{room:ID}:where``, ``P{node:NAME}:rooms``, ``P rooms:due``."""

    @property
    def nodes_key(self) -> str:
        return f"{self.prefix}nodes"

    def beat(self, node: str, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self.nodes_key, {node: deadline_ms(ms)})
                pipe.zremrangebyscore(self.nodes_key, "-inf", deadline_ms(-int(DEAD_NODES_KEPT * 1000)))  # long gone
                pipe.pexpire(self.nodes_key, 10 * ms)
                await pipe.execute()

        return self._run("beat", "beat", call)

    def leave(self, node: str) -> Awaitable[None]:
        async def call() -> None:
            await self._redis.zadd(self.nodes_key, {node: deadline_ms(-1)}, xx=True)

        return self._run("leave", "say a node left", call)

    def alive(self) -> Awaitable[set[str]]:
        async def call() -> set[str]:
            nodes: list[Any] = await self._redis.zrangebyscore(self.nodes_key, deadline_ms(0), "+inf")
            return {as_bytes(node).decode() for node in nodes}

        return self._run("alive", "list nodes", call)

    def dead(self) -> Awaitable[set[str]]:
        async def call() -> set[str]:
            nodes: list[Any] = await self._redis.zrangebyscore(self.nodes_key, "-inf", f"({deadline_ms(0)}")
            return {as_bytes(node).decode() for node in nodes}

        return self._run("dead", "list dead nodes", call)

    def placed_key(self, node: str) -> str:
        return f"{self.prefix}{{node:{node}}}:rooms"

    @property
    def due_key(self) -> str:
        return f"{self.prefix}rooms:due"

    def locate(self, room: str, player: str, node: str, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)
        key = self.where_key(room)
        placed = self.placed_key(node)

        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.hset(key, player, node)
                pipe.pexpire(key, ms)
                pipe.sadd(placed, room)  # the node's own slot: a separate command of the pipeline
                pipe.pexpire(placed, ms)
                await pipe.execute()

        return self._run("locate", f"locate in room {room!r}", call)

    def located(self, room: str) -> Awaitable[dict[str, str]]:
        async def call() -> dict[str, str]:
            found = await self._redis.hgetall(self.where_key(room))
            return {as_bytes(k).decode(): as_bytes(v).decode() for k, v in found.items()}

        return self._run("located", f"read room {room!r} locations", call)

    def set_due(self, room: str, at: int | None) -> Awaitable[None]:
        async def call() -> None:
            if at is None:
                await self._redis.zrem(self.due_key, room)
            else:
                await self._redis.zadd(self.due_key, {room: at})

        return self._run("set_due", f"set room {room!r} due", call)

    def claim_due(self, now: int, lease: int, count: int) -> Awaitable[list[str]]:
        check_count(count)

        async def call() -> list[str]:
            found: list[Any] = await self._redis.zrangebyscore(self.due_key, "-inf", now, start=0, num=count)
            rooms = [text(room) for room in found]
            if rooms:  # not atomic with the read: two nodes may claim a room at once, and both load it
                await self._redis.zadd(self.due_key, dict.fromkeys(rooms, now + lease), xx=True)
            return rooms

        return self._run("claim_due", "claim due rooms", call)

    def hand_over(self, node: str, now: int) -> Awaitable[int]:
        placed = self.placed_key(node)

        async def call() -> int:
            rooms = [text(room) for room in await self._redis.smembers(placed)]
            if rooms:
                await self._redis.zadd(self.due_key, dict.fromkeys(rooms, now), lt=True)  # new ones added too
            await self._redis.delete(placed)
            return len(rooms)

        return self._run("hand_over", f"hand node {node!r}'s rooms over", call)
