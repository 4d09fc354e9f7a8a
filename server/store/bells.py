"""The Redis store's doorbell subscriptions: a node hears only the channels it listens to.

Each room, session and player has a channel of its own, in its own hash slot
(``P{room:ID}:bell``, ``P{session:TOKEN}:bell``, ``P{player:ID}:bell``); a node listens to a room's
while it holds the room and to a session's and a player's while that connection is here. On one
Redis these are plain channels (``SUBSCRIBE``/``PUBLISH``); on a Redis Cluster they are shard
channels (``SSUBSCRIBE``/``SPUBLISH``, Redis 7): a shard channel lives on the master of its slot
only, so a move's doorbell costs that one shard, not a broadcast over the cluster bus, and the
append script publishes it in the slot it writes. The arenas' doorbells (a few per race, never per
move) stay on one plain channel every node hears, ``P bell:arena``.

One pub/sub connection per master (on one Redis, one connection); :meth:`Subscriptions.run` holds
them, subscribing again after any failure, then says doorbells may have been missed (the ``*``
doorbell: every room held is read again). :meth:`Subscriptions.listen` returns once Redis confirmed
the subscription, so a log read after it misses no doorbell; while the connections are down it
returns at once (the resubscription's ``*`` covers what comes meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Collection
from typing import Any, Final

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.store.base import Ring

__all__ = ["ARENA", "BROADCAST", "EVERY_NODE", "Subscriptions"]

ARENA: Final = "arena"
"""The arenas' doorbell kind: on the channel every node hears (a few rings a race, never a move)."""
EVERY_NODE: Final = frozenset({ARENA, "admin"})
"""The kinds on the channel every node hears, their kind and key in the data: the arenas' and the
moderators' (a ban, a notice, a kick: every node must act on it, whatever it holds)."""
BROADCAST: Final = ""
"""The route of the channel every node hears (a plain channel, on the first seed of a cluster)."""

CLOSE_TIMEOUT: Final = 1.0
"""Seconds a pub/sub connection's close may take (a dead peer's is abandoned)."""
Connect = Callable[[str], aioredis.Redis]
"""A pub/sub client for a route: ``BROADCAST``, or a cluster master's name (``host:port``)."""
Route = Callable[[str], str]
"""The route of a shard channel: the name of the master of its slot (``BROADCAST`` on one Redis)."""


class _Shard:
    """One pub/sub connection: its channels, and the subscriptions Redis has not confirmed yet."""

    def __init__(self, client: aioredis.Redis, sharded: bool) -> None:
        self.client = client
        self.pubsub = client.pubsub()
        self.sharded = sharded
        self.channels: set[str] = set()
        self.waiting: dict[str, asyncio.Future[None]] = {}
        self.lock = asyncio.Lock()

    async def subscribe(self, channels: Collection[str]) -> list[asyncio.Future[None]]:
        """Send the subscription of ``channels`` (not yet confirmed: await the futures)."""
        new = [c for c in channels if c not in self.channels]
        if not new:
            return [self.waiting[c] for c in channels if c in self.waiting]
        loop = asyncio.get_running_loop()
        for channel in new:
            self.channels.add(channel)
            self.waiting.setdefault(channel, loop.create_future())
        async with self.lock:
            if self.sharded:  # one command per channel: a shard channel's command names one slot
                for channel in new:
                    await self.pubsub.ssubscribe(channel)
            else:
                await self.pubsub.subscribe(*new)
        return [self.waiting[c] for c in new if c in self.waiting]

    async def unsubscribe(self, channels: Collection[str]) -> None:
        gone = [c for c in channels if c in self.channels]
        if not gone:
            return
        self.channels.difference_update(gone)
        async with self.lock:
            if self.sharded:
                for channel in gone:
                    await self.pubsub.sunsubscribe(channel)
            else:
                await self.pubsub.unsubscribe(*gone)

    def confirmed(self, channel: str) -> None:
        waiting = self.waiting.pop(channel, None)
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    async def close(self) -> None:
        for waiting in self.waiting.values():
            if not waiting.done():
                waiting.set_result(None)  # the resubscription's "*" covers it
        self.waiting.clear()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await self.pubsub.aclose()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await self.client.aclose()


class Subscriptions:
    """The channels this node listens to, over one connection per route.

    ``prepare`` runs before each (re)subscription (a cluster client learns its slots);
    ``decode`` turns a channel and its data into a doorbell (kind, key, data), or None for a
    channel that is not a doorbell's. ``sharded``: shard channels (a cluster), else plain ones.
    """

    def __init__(
        self,
        connect: Connect,
        route: Route,
        decode: Callable[[str, bytes], tuple[str, str, bytes] | None],
        broadcast: str,
        prepare: Callable[[], Awaitable[object]],
        *,
        sharded: bool,
        timeout: float,
    ) -> None:
        self._connect = connect
        self._route = route
        self._decode = decode
        self._broadcast = broadcast
        self._prepare = prepare
        self._sharded = sharded
        self._timeout = timeout
        self.wanted: set[str] = set()
        """The channels listened to (kept across reconnections)."""
        self._shards: dict[str, _Shard] = {}
        self._live = False
        self._broken = asyncio.Event()
        self._ring: Ring | None = None
        self._readers: set[asyncio.Task[None]] = set()
        self._pending: set[asyncio.Task[None]] = set()

    async def listen(self, channels: Collection[str]) -> None:
        """Hear ``channels`` from now on: returns once Redis confirmed each (or at once while
        the connections are down: the resubscription rings ``*``)."""
        self.wanted.update(channels)
        if not self._live:
            return
        try:
            futures: list[asyncio.Future[None]] = []
            for route, group in self._by_route(channels).items():
                futures += await (await self._shard(route)).subscribe(group)
            if futures:
                async with asyncio.timeout(self._timeout):
                    await asyncio.gather(*futures)
        except (RedisError, OSError, TimeoutError):
            self._broken.set()  # subscribe again from scratch; its "*" covers what this missed

    def unlisten(self, channels: Collection[str]) -> None:
        """Stop hearing ``channels`` (sent in the background; a later ``listen`` wins)."""
        self.wanted.difference_update(channels)
        if not self._live:
            return
        task = asyncio.get_running_loop().create_task(self._unsubscribe(list(channels)))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _unsubscribe(self, channels: list[str]) -> None:
        try:
            for route, group in self._by_route(channels).items():
                shard = self._shards.get(route)
                if shard is not None:
                    await shard.unsubscribe([c for c in group if c not in self.wanted])
        except (RedisError, OSError):
            self._broken.set()

    def _by_route(self, channels: Collection[str]) -> dict[str, list[str]]:
        routes: dict[str, list[str]] = {}
        for channel in channels:
            route = BROADCAST if channel == self._broadcast else self._route(channel)
            routes.setdefault(route, []).append(channel)
        return routes

    async def _shard(self, route: str) -> _Shard:
        shard = self._shards.get(route)
        if shard is None:
            shard = self._shards[route] = _Shard(self._connect(route), self._sharded and route != BROADCAST)
            reader = asyncio.get_running_loop().create_task(self._read(shard))
            self._readers.add(reader)
            reader.add_done_callback(self._readers.discard)
        return shard

    async def _read(self, shard: _Shard) -> None:
        """Hand on every doorbell of one connection until it fails (then all subscribe again)."""
        try:
            while True:
                if shard.pubsub.connection is None or not (shard.channels or shard.waiting):
                    await asyncio.sleep(0.05)  # nothing subscribed here (yet, or any more)
                    continue
                message: dict[str, Any] | None = await shard.pubsub.get_message(timeout=None)
                if message is None:
                    continue
                kind = message["type"]
                channel = _text(message["channel"]) if message.get("channel") is not None else ""
                if kind in ("subscribe", "ssubscribe"):
                    shard.confirmed(channel)
                elif kind == "sunsubscribe" and channel in self.wanted and channel in shard.channels:
                    self._broken.set()  # the slot moved away (resharding, failover): find its new master
                    return
                elif kind in ("message", "smessage") and self._ring is not None:
                    bell = self._decode(channel, _raw(message["data"]))
                    if bell is not None:
                        self._ring(*bell)
        except (RedisError, OSError):
            self._broken.set()

    async def run(self, ring: Ring) -> None:
        """Hear the doorbells, forever (cancel to stop), subscribing again after any failure."""
        self._ring = ring
        current = asyncio.current_task()
        while True:
            self._broken.clear()
            try:
                await self._prepare()
                self._live = True
                wanted = sorted(self.wanted | {self._broadcast})
                self.wanted.add(self._broadcast)
                futures: list[asyncio.Future[None]] = []
                for route, group in self._by_route(wanted).items():
                    futures += await (await self._shard(route)).subscribe(group)
                async with asyncio.timeout(self._timeout):
                    await asyncio.gather(*futures)
                if current is not None and current.cancelling():
                    raise asyncio.CancelledError  # a stop that a call above answered all the same
                # Subscribed now (Redis confirmed it): anything rung before is read from the logs.
                ring("*", "", b"")
                await self._broken.wait()
            except (RedisError, OSError, TimeoutError):
                pass
            finally:
                self._live = False
                shards, self._shards = list(self._shards.values()), {}
                readers = list(self._readers) + list(self._pending)
                for task in readers:
                    task.cancel()
                await asyncio.gather(*readers, return_exceptions=True)
                for shard in shards:
                    await shard.close()
            # redis-py may turn a cancellation inside a call into a connection error: a stop
            # that reached us is honoured all the same.
            if current is not None and current.cancelling():
                raise asyncio.CancelledError
            await asyncio.sleep(0.5)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _raw(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)
