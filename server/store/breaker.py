"""A store that fails fast while its backend is stalled.

A Redis that stops answering (paused, swapping, a network partition) does not refuse connections: each
call waits the full store timeout before it fails, and a request that makes several calls waits for
each. ``StallBreaker`` notices a call that failed slowly, then fails every call at once (without
sending it) until a probe ping gets an answer, so a stall costs one timeout, and then answers as
fast as a Redis that is down. Calls failed here were never sent: nothing of theirs can land later.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Sequence
from typing import TypeVar

from server.store.stores import Appended, Request, Ring, Store, StoreError

T = TypeVar("T")


class StallBreaker(Store):
    """``inner``, with calls refused at once (``StoreError``) from a failure that took ``slow`` seconds
    or more until a ping (every ``probe_every`` s, each bounded by ``slow``) answers again."""

    def __init__(self, inner: Store, *, slow: float = 0.5, probe_every: float = 0.25) -> None:
        self.inner = inner
        self.slow = slow
        self.probe_every = probe_every
        self.probe: asyncio.Task[None] | None = None
        """Running while the breaker is open (the store is taken as stalled)."""
        self.refused = 0
        """Calls refused without being sent."""
        self.trips = 0

    @property
    def stalled(self) -> bool:
        return self.probe is not None

    async def _call(self, call: Awaitable[T]) -> T:
        if self.probe is not None:
            if asyncio.iscoroutine(call):
                call.close()  # never sent
            self.refused += 1
            raise StoreError("the store is not answering (stalled): try again shortly")
        started = time.monotonic()
        try:
            return await call
        except StoreError:
            if time.monotonic() - started >= self.slow:
                self._trip()
            raise

    def _trip(self) -> None:
        if self.probe is None:
            self.trips += 1
            self.probe = asyncio.get_running_loop().create_task(self._wait_for_answer())

    async def _wait_for_answer(self) -> None:
        try:
            while True:
                if await self._ping():
                    return
                await asyncio.sleep(self.probe_every)
        finally:
            self.probe = None

    async def _ping(self) -> bool:
        try:
            async with asyncio.timeout(self.slow):
                return await self.inner.ping()
        except TimeoutError:
            return False

    async def append(self, room: str, events: Sequence[bytes], ttl: float) -> int:
        return await self._call(self.inner.append(room, events, ttl))

    async def append_at(
        self,
        room: str,
        events: Sequence[bytes],
        ttl: float,
        expected: int,
        request: Request | None = None,
        holder: str | None = None,
    ) -> Appended:
        return await self._call(self.inner.append_at(room, events, ttl, expected, request, holder))

    async def read_from(self, room: str, start: int, holder: str | None = None) -> tuple[int, list[bytes]]:
        return await self._call(self.inner.read_from(room, start, holder))

    async def memo(self, room: str, player: str) -> tuple[int, bytes] | None:
        return await self._call(self.inner.memo(room, player))

    async def ring(self, kind: str, key: str, data: str) -> None:
        await self._call(self.inner.ring(kind, key, data))

    async def doorbells(self, ring: Ring) -> None:
        await self.inner.doorbells(ring)  # runs for the process's life, reconnecting by itself

    async def beat(self, node: str, ttl: float) -> None:
        await self._call(self.inner.beat(node, ttl))

    async def alive(self) -> set[str]:
        return await self._call(self.inner.alive())

    async def dead(self) -> set[str]:
        return await self._call(self.inner.dead())

    async def locate(self, room: str, player: str, node: str, ttl: float) -> None:
        await self._call(self.inner.locate(room, player, node, ttl))

    async def located(self, room: str) -> dict[str, str]:
        return await self._call(self.inner.located(room))

    async def load(self, room: str, holder: str | None = None) -> list[bytes]:
        return await self._call(self.inner.load(room, holder))

    async def expire(self, room: str, ttl: float) -> None:
        await self._call(self.inner.expire(room, ttl))

    async def delete(self, room: str) -> None:
        await self._call(self.inner.delete(room))

    async def room_ids(self) -> list[str]:
        return await self._call(self.inner.room_ids())

    async def set_listing(self, room: str, summary: bytes | None, ttl: float) -> None:
        await self._call(self.inner.set_listing(room, summary, ttl))

    async def listings(self) -> dict[str, bytes]:
        return await self._call(self.inner.listings())

    async def put_session(self, token: str, data: bytes, ttl: float) -> None:
        await self._call(self.inner.put_session(token, data, ttl))

    async def get_session(self, token: str) -> bytes | None:
        return await self._call(self.inner.get_session(token))

    async def delete_session(self, token: str) -> None:
        await self._call(self.inner.delete_session(token))

    async def ping(self) -> bool:
        """False at once while stalled; otherwise a ping bounded by ``slow`` (a slow one trips)."""
        if self.probe is not None:
            self.refused += 1
            return False
        if await self._ping():
            return True
        self._trip()
        return False

    async def close(self) -> None:
        if self.probe is not None:
            self.probe.cancel()
            await asyncio.gather(self.probe, return_exceptions=True)
        await self.inner.close()
