"""The one guarded call: the stall breaker and the per-operation observer, applied once per store call.

Each backend has one chokepoint every public method goes through (as redis-py's ``execute_command``
is for its commands): ``MemoryStore._run`` and ``RedisStore._run``. The chokepoint asks its
:class:`CallGuard` to ``admit`` the call before anything is sent and to ``settle`` it after, so the
breaker and the metrics cost no layer, no wrapper and no coroutine frame of their own.

Why a breaker: a Redis that stops answering (paused, swapping, a network partition) does not refuse
connections: each call waits the full store timeout before it fails, and a request that makes
several calls waits for each. The :class:`Breaker` notices a call that failed slowly, then every
call is refused at once (without being sent) until a probe ping gets an answer, so a stall costs one
timeout, and then answers as fast as a Redis that is down. Calls refused here were never sent:
nothing of theirs can land later.

The store knows nothing of Prometheus: it reports to an :class:`Observer` (``server.shell.metrics``
implements it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from server.store.base import StoreError

__all__ = ["Breaker", "CallGuard", "Observer"]

Ping = Callable[[], Awaitable[bool]]
"""A backend's own ping, not guarded (the breaker's probe must reach a store it refuses calls to);
never raises (False: no answer)."""


class Observer(Protocol):
    """Told of every guarded store call (a refused one too: failed, in no time)."""

    def observe(self, operation: str, seconds: float, failed: bool) -> None: ...


class Breaker:
    """Open (``stalled``) from a failure that took ``slow`` seconds or more until a ping, every
    ``probe_every`` s and each bounded by ``slow``, answers again. While open, calls are refused."""

    def __init__(self, *, slow: float = 0.5, probe_every: float = 0.25) -> None:
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

    def trip(self, ping: Ping) -> None:
        """Open, probing with ``ping`` until it answers (no-op when open already)."""
        if self.probe is None:
            self.trips += 1
            self.probe = asyncio.get_running_loop().create_task(self._wait_for_answer(ping))

    async def _wait_for_answer(self, ping: Ping) -> None:
        try:
            while True:
                if await self.bounded(ping):
                    return
                await asyncio.sleep(self.probe_every)  # the probe's period: nothing to wait on
        finally:
            self.probe = None

    async def bounded(self, ping: Ping) -> bool:
        """``ping``'s answer, False when it takes ``slow`` seconds or more."""
        try:
            async with asyncio.timeout(self.slow):
                return await ping()
        except TimeoutError:
            return False

    async def close(self) -> None:
        if self.probe is not None:
            self.probe.cancel()
            await asyncio.gather(self.probe, return_exceptions=True)


class CallGuard:
    """A backend's breaker and observer (either may be None: a bare store is neither)."""

    __slots__ = ("breaker", "observer", "raw_ping")

    def __init__(self, raw_ping: Ping, breaker: Breaker | None = None, observer: Observer | None = None) -> None:
        self.raw_ping = raw_ping
        self.breaker = breaker
        self.observer = observer

    def admit(self, operation: str) -> float:
        """The call's start time; ``StoreError`` at once (nothing sent) while the breaker is open."""
        breaker = self.breaker
        if breaker is not None and breaker.probe is not None:
            breaker.refused += 1
            if self.observer is not None:
                self.observer.observe(operation, 0.0, True)
            raise StoreError("the store is not answering (stalled): try again shortly")
        return time.perf_counter()

    def settle(self, operation: str, started: float, failed: bool) -> None:
        """The call admitted at ``started`` ended (``failed``: with a StoreError); a slow failure trips."""
        seconds = time.perf_counter() - started
        if self.observer is not None:
            self.observer.observe(operation, seconds, failed)
        if failed and self.breaker is not None and seconds >= self.breaker.slow:
            self.breaker.trip(self.raw_ping)

    async def ping(self) -> bool:
        """The backend's ping, guarded: False at once while open; bounded by ``slow``, and a failed
        one trips the breaker. Never raises."""
        started = self.admit_ping()
        if started is None:
            return False
        ok = await (self.raw_ping() if self.breaker is None else self.breaker.bounded(self.raw_ping))
        if self.observer is not None:
            self.observer.observe("ping", time.perf_counter() - started, not ok)
        if not ok and self.breaker is not None:
            self.breaker.trip(self.raw_ping)
        return ok

    def admit_ping(self) -> float | None:
        try:
            return self.admit("ping")
        except StoreError:
            return None

    async def close(self) -> None:
        if self.breaker is not None:
            await self.breaker.close()
