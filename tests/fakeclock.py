"""The tests' one fake clock: time moves only when the test says so.

``FakeClock`` is the server's ``Clock`` (``server.shell.clock``: milliseconds, wake-ups at a time);
its ``seconds`` view is the ``Callable[[], float]`` a ``MemoryStore`` takes for its TTLs, on the
same time, so a test that needs both moves one clock.
"""

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
        self.seconds = Seconds(self)
        """This clock in seconds, for what reads time as a float (a MemoryStore's TTLs)."""

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
        while self._due and self._due[0][0] <= self.time:  # the loop is only needed for a wake-up
            _, _, timer, callback = heapq.heappop(self._due)
            asyncio.get_running_loop().call_soon(self._run, timer, callback)

    @staticmethod
    def _run(timer: FakeTimer, callback: Callable[[], None]) -> None:
        if not timer.cancelled:
            callback()


class Seconds:
    """A ``FakeClock`` read in seconds: call it for the time, ``advance`` it by seconds."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock

    def __call__(self) -> float:
        return self.clock.time / 1000

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass (to the millisecond)."""
        self.clock.advance(round(seconds * 1000))
