"""``Doorbells`` on Redis: pub/sub channels ``P{KIND:KEY}:bell`` (room, session, player), ``P bell:arena``."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Collection
from typing import cast

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from server.store.base import Ring
from server.store.bells import ARENA, BROADCAST, EVERY_NODE, Subscriptions
from server.store.redis.base import RedisBase
from server.store.urls import cluster_seeds

__all__ = ["RedisDoorbells"]


class RedisDoorbells(RedisBase):
    """``Doorbells`` on Redis: pub/sub channels ``P{KIND:KEY}:bell`` (room, session, player), ``P bell:arena``."""

    @functools.cached_property
    def _bells(self) -> Subscriptions:
        """The doorbells' subscriptions (server/store/bells.py), made on first use."""
        return Subscriptions(
            self._subscriber,
            self._route,
            self._doorbell,
            self.bell(ARENA, ""),
            self._learn_slots,
            sharded=self.cluster,
            timeout=self._timeout,
        )

    def ring(self, kind: str, key: str, data: str | bytes) -> Awaitable[None]:
        channel = self.bell(kind, key)
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if kind in EVERY_NODE:
            raw = kind.encode() + b" " + key.encode() + b" " + raw
        elif kind == "wiped":
            raw = b"wiped " + raw
        command = "SPUBLISH" if self.cluster and kind not in EVERY_NODE else "PUBLISH"

        async def call() -> None:
            await self._redis.execute_command(command, channel, raw)

        return self._run("ring", f"ring {kind}", call)

    def listen(self, bells: Collection[tuple[str, str]]) -> Awaitable[None]:
        return self._bells.listen([self.bell(kind, key) for kind, key in bells])

    def unlisten(self, bells: Collection[tuple[str, str]]) -> None:
        self._bells.unlisten([self.bell(kind, key) for kind, key in bells])

    def _doorbell(self, channel: str, data: bytes) -> tuple[str, str, bytes] | None:
        """The doorbell (kind, key, data) a message on ``channel`` is; None if none of ours."""
        if channel == self.bell(ARENA, ""):  # "kind key data"
            said, _, rest = data.partition(b" ")
            about, _, rest = rest.partition(b" ")
            return said.decode(errors="replace"), about.decode(errors="replace"), rest
        head, tail = f"{self.prefix}{{", "}:bell"
        if not (channel.startswith(head) and channel.endswith(tail)):
            return None
        kind, _, key = channel[len(head) : -len(tail)].partition(":")
        if kind == "room" and data.startswith(b"wiped "):  # a log length never starts with a letter
            return "wiped", key, data[len(b"wiped ") :]
        return kind, key, data

    def _route(self, channel: str) -> str:
        """The master of a shard channel's slot (one Redis: its one connection)."""
        if isinstance(self._redis, RedisCluster):
            node = self._redis.get_node_from_key(channel)
            if node is not None:
                return str(node.name)
        return BROADCAST

    async def _learn_slots(self) -> None:
        if isinstance(self._redis, RedisCluster):
            await self._redis.initialize()

    def _subscriber(self, route: str) -> aioredis.Redis:
        """A plain connection for pub/sub: on a cluster, to the master ``route`` names (or for the
        arenas' channel, to a seed: PUBLISH reaches every node). No read timeout: a quiet channel is
        not a dead one (TCP keepalive and the health check are)."""
        url = self._url
        if self._sentinel is not None:
            return cast(
                aioredis.Redis,
                self._sentinel.master_for(
                    self._service,
                    socket_keepalive=True,
                    health_check_interval=10,
                    socket_connect_timeout=self._timeout,
                    **self._master_options,
                ),
            )
        if self.cluster:
            seeds, options = cluster_seeds(url)
            host, port = (seeds[0].host, int(seeds[0].port))
            if route != BROADCAST:
                name, _, number = route.rpartition(":")
                host, port = name, int(number)
            return aioredis.Redis(
                host=host,
                port=port,
                socket_keepalive=True,
                health_check_interval=10,
                socket_connect_timeout=self._timeout,
                **{k: v for k, v in options.items() if k in ("username", "password", "ssl")},
            )
        return aioredis.Redis.from_url(
            url, socket_keepalive=True, health_check_interval=10, socket_connect_timeout=self._timeout
        )

    async def doorbells(self, ring: Ring) -> None:
        await self._bells.run(ring)
