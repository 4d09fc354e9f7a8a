"""Process-wide settings for a server process: the garbage collector and the event loop.

The collector: under load a room's objects live until its racers' next moves, long enough
to be promoted, and every full collection then walks the heap of every live room (100+ ms
pauses at 500 rooms: the whole move -> rival p99). Young collections run less often, so
that short-lived objects die young, and what exists once the server has started (modules,
recovered rooms) is frozen out of every later collection.

The event loop: uvloop when it is installed (``pip install 'seahaven-race[fast]'``) and not
turned off; asyncio's own loop otherwise.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import importlib.util
from collections.abc import Callable, Coroutine
from typing import Any, Final, TypeVar

T = TypeVar("T")

GC_THRESHOLDS: Final = (10_000, 50, 100)
"""Net allocations before a young collection (CPython's default: 700), young collections
before a middle one, middle ones before the oldest is considered (CPython also waits for the
oldest to have grown by a quarter). 50,000 made each young collection walk so much that one
took 71 ms at 500 rooms; 10,000 keeps them near 15 ms (docs/performance.md)."""


def tune_gc() -> None:
    """Collect less often than CPython's default (call once, at start-up)."""
    gc.set_threshold(*GC_THRESHOLDS)


def freeze_heap() -> None:
    """Collect once, then keep every object that exists now out of all later collections:
    call when start-up and recovery are done (their objects live as long as the process,
    or until their room is let go, and are then freed by reference counting)."""
    gc.collect()
    gc.freeze()


def uvloop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop constructor, or None when uvloop is not installed."""
    if importlib.util.find_spec("uvloop") is None:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = importlib.import_module("uvloop").new_event_loop
    return factory


def run(main: Coroutine[Any, Any, T], uvloop: bool = True) -> T:
    """``asyncio.run(main)``, on uvloop if ``uvloop`` and it is installed."""
    factory = uvloop_factory() if uvloop else None
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
