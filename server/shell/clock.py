"""The race's clock: wall time in milliseconds, and wake-ups at such a time.

Rooms, spectator schedules, rate limits and timers all read this clock, so a test can
inject a clock that moves only when told to (tests/fakeclock.py) and never sleep. What paces
the node (a sweep's interval, a drain's limit, a timeout) reads the event loop's monotonic
clock instead (ARCHITECTURE.md, "One clock for the race, one for pacing").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """What the server needs of time."""

    def now(self) -> int:
        """Milliseconds since the epoch."""
        ...

    def call_at(self, when: int, callback: Callable[[], None]) -> Timer:
        """Call ``callback`` (in the running loop) once ``now()`` has reached ``when``."""
        ...


class SystemClock:
    """The real clock: ``time.time_ns`` and the event loop's timers. It never goes back (should
    the system clock be set back, it waits for it), so a room's events are in time order."""

    def __init__(self) -> None:
        self._last = 0

    def now(self) -> int:
        self._last = max(self._last, time.time_ns() // 1_000_000)
        return self._last

    def call_at(self, when: int, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(max(0, when - self.now()) / 1000, callback)
