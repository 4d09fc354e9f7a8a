"""``MatchQueues`` in memory: the quick match's queues, by the rule of ``server.store.matching``."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Collection

from server.store.matching import QUEUE_TTL_MS, Matched, Waiter, Window, best_partner, pair_up
from server.store.memory.base import MemoryBase, Timed

__all__ = ["MemoryQueues"]


class MemoryQueues(MemoryBase):
    """``MatchQueues`` in memory: the quick match's queues, by the rule of ``server.store.matching``."""

    @functools.cached_property
    def _queues(self) -> dict[str, Timed]:
        """Queue -> its waiters by player (``Timed.value``); each queue expires QUEUE_TTL_MS after
        its last call, as in Redis."""
        return {}

    def enqueue(
        self, queue: str, waiter: Waiter, window: Window, now: int, alive: Collection[str], *, wait: bool
    ) -> Awaitable[Waiter | None]:
        return self._run("enqueue", lambda: self._enqueue(queue, waiter, window, now, frozenset(alive), wait))

    def _enqueue(
        self, queue: str, waiter: Waiter, window: Window, now: int, alive: frozenset[str], wait: bool
    ) -> Waiter | None:
        waiters = self._queue(queue, alive)
        waiters.pop(waiter.player, None)
        partner = best_partner(waiter, waiters.values(), window, now)
        if partner is not None:
            del waiters[partner.player]
        elif wait:
            waiters[waiter.player] = waiter
        return partner

    def match_waiters(
        self, queue: str, node: str, alive: Collection[str], mine: Collection[str], window: Window, now: int
    ) -> Awaitable[Matched]:
        return self._run(
            "match_waiters", lambda: self._match_waiters(queue, node, frozenset(alive), list(mine), window, now)
        )

    def _match_waiters(
        self, queue: str, node: str, alive: frozenset[str], mine: list[str], window: Window, now: int
    ) -> Matched:
        waiters = self._queue(queue, alive)
        missing = [player for player in mine if player not in waiters]
        pairs = []
        for older, newer in pair_up(waiters.values(), window, now):
            if newer.node == node or older.node == node:
                del waiters[older.player], waiters[newer.player]
                pairs.append((newer, older) if newer.node == node else (older, newer))
        return Matched(pairs, missing, len(waiters))

    def dequeue(self, queue: str, player: str, joined: int) -> Awaitable[bool]:
        return self._run("dequeue", lambda: self._dequeue(queue, player, joined))

    def _dequeue(self, queue: str, player: str, joined: int) -> bool:
        waiters = self._queue(queue, None)
        found = waiters.get(player)
        if found is None or found.joined != joined:
            return False
        del waiters[player]
        return True

    def _queue(self, queue: str, alive: frozenset[str] | None) -> dict[str, Waiter]:
        """The queue's waiters (but those of nodes not ``alive``), its life renewed; expired queues
        are dropped first (there are few: one per kind of race)."""
        now = self._clock()
        for name in [name for name, entry in self._queues.items() if now >= entry.deadline]:
            del self._queues[name]
        entry = self._queues.setdefault(queue, Timed({}, 0.0))
        entry.deadline = now + QUEUE_TTL_MS / 1000
        waiters: dict[str, Waiter] = entry.value
        if alive is not None:
            for player in [p for p, w in waiters.items() if w.node not in alive]:
                del waiters[player]
        return waiters
