"""``Doorbells`` in memory: one process, so every doorbell rings everywhere (``_bells``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Collection

from server.store.base import Ring
from server.store.memory.base import MemoryBase

__all__ = ["MemoryDoorbells"]


class MemoryDoorbells(MemoryBase):
    """``Doorbells`` in memory: one process, so every doorbell rings everywhere (``_bells``)."""

    async def listen(self, bells: Collection[tuple[str, str]]) -> None:
        return  # one process: every doorbell rings everywhere, as soon as it is rung

    def unlisten(self, bells: Collection[tuple[str, str]]) -> None:
        return

    def ring(self, kind: str, key: str, data: str | bytes) -> Awaitable[None]:
        raw = data.encode() if isinstance(data, str) else bytes(data)
        return self._run("ring", lambda: self._ring(kind, key, raw))

    async def doorbells(self, ring: Ring) -> None:
        self._bells.append(ring)
        ring("*", "", b"")  # like a (re)subscription: from here on nothing is missed
        try:
            await asyncio.get_running_loop().create_future()  # until cancelled
        finally:
            self._bells.remove(ring)
