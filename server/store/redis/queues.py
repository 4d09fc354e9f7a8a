"""``MatchQueues`` on Redis: ``P{match:QUEUE}``, one hash per queue, so each call is one script on one slot."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Collection
from typing import Any

from server.store.matching import QUEUE_TTL_MS, Matched, Waiter, Window
from server.store.redis.base import RedisBase, text
from server.store.scripts import DEQUEUE, ENQUEUE, MATCH_WAITERS

__all__ = ["RedisQueues"]


class RedisQueues(RedisBase):
    """``MatchQueues`` on Redis: ``P{match:QUEUE}``, one hash per queue, so each call is one script on one slot."""

    def queue_key(self, queue: str) -> str:
        return f"{self.prefix}{{match:{queue}}}"

    @functools.cached_property
    def _enqueue(self) -> Any:
        return self._redis.register_script(ENQUEUE)

    @functools.cached_property
    def _match_waiters(self) -> Any:
        return self._redis.register_script(MATCH_WAITERS)

    @functools.cached_property
    def _dequeue(self) -> Any:
        return self._redis.register_script(DEQUEUE)

    def enqueue(
        self, queue: str, waiter: Waiter, window: Window, now: int, alive: Collection[str], *, wait: bool
    ) -> Awaitable[Waiter | None]:
        nodes = sorted(alive)
        args = [waiter.player, waiter.entry(), now, *_window_args(window), QUEUE_TTL_MS, int(wait), len(nodes), *nodes]

        async def call() -> Waiter | None:
            found: list[Any] = await self._enqueue(keys=[self.queue_key(queue)], args=args)
            return Waiter.read(text(found[0]), text(found[1])) if found else None

        # Not resent: a lost reply may have taken a partner out already.
        return self._run("enqueue", f"enqueue in {queue!r}", call, idempotent=False)

    def match_waiters(
        self, queue: str, node: str, alive: Collection[str], mine: Collection[str], window: Window, now: int
    ) -> Awaitable[Matched]:
        nodes = sorted(alive)
        args = [node, now, *_window_args(window), QUEUE_TTL_MS, len(nodes), *nodes, *mine]

        async def call() -> Matched:
            taken, missing, left = await self._match_waiters(keys=[self.queue_key(queue)], args=args)
            words = [text(x) for x in taken]
            pairs = [
                (Waiter.read(words[i], words[i + 1]), Waiter.read(words[i + 2], words[i + 3]))
                for i in range(0, len(words), 4)
            ]
            return Matched(pairs, [text(p) for p in missing], int(left))

        # Not resent: a lost reply may have taken pairs out already.
        return self._run("match_waiters", f"match in {queue!r}", call, idempotent=False)

    def dequeue(self, queue: str, player: str, joined: int) -> Awaitable[bool]:
        async def call() -> bool:
            return bool(await self._dequeue(keys=[self.queue_key(queue)], args=[player, joined]))

        return self._run("dequeue", f"dequeue from {queue!r}", call, idempotent=False)


def _window_args(window: Window) -> tuple[int, int, int]:
    return (window.base, window.widens, window.anyone_after_ms)
