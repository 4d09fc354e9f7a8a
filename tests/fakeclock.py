"""A server clock for tests: time moves only when the test says so."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable


class FakeTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """Implements ``server.shell.clock.Clock``: ``advance`` moves the time and runs (in the loop)
    every callback that has fallen due, in time order."""

    def __init__(self, start: int = 1_700_000_000_000) -> None:
        self.time = start
        self._due: list[tuple[int, int, FakeTimer, Callable[[], None]]] = []
        self._order = itertools.count()

    def now(self) -> int:
        return self.time

    def call_at(self, when: int, callback: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer()
        if when <= self.time:
            asyncio.get_running_loop().call_soon(self._run, timer, callback)
        else:
            heapq.heappush(self._due, (when, next(self._order), timer, callback))
        return timer

    def advance(self, ms: int) -> None:
        """Let ``ms`` milliseconds pass."""
        assert ms >= 0, "time never goes back"
        self.time += ms
        loop = asyncio.get_running_loop()
        while self._due and self._due[0][0] <= self.time:
            _, _, timer, callback = heapq.heappop(self._due)
            loop.call_soon(self._run, timer, callback)

    @staticmethod
    def _run(timer: FakeTimer, callback: Callable[[], None]) -> None:
        if not timer.cancelled:
            callback()
