"""Levers tried on an unchanged seahaven-server from outside its code (benchmarks/load.py --lever).

Python imports ``sitecustomize`` at start-up from the path; the load benchmark puts this folder on
the server's PYTHONPATH and names the levers in SEAHAVEN_BENCH_LEVERS (comma-separated):

- ``gc-log``: time every garbage collection; at exit, write a summary to SEAHAVEN_BENCH_GC_LOG;
- ``gc-threshold``: collect the young generation every 50,000 allocations instead of 700 and the
  oldest only after 100 middle ones (fewer, not shorter, full collections);
- ``gc-freeze``: on SIGUSR1 (sent once every room has started) collect, then ``gc.freeze()``: the
  heap that exists then is never walked again;
- ``gc-off``: no automatic collection at all (an upper bound for GC levers, not a deployment);
- ``uvloop``: run asyncio on uvloop (it must be importable, e.g. from SEAHAVEN_BENCH_EXTRAS);
- ``no-group-commit``: the Redis link writes each command the moment it is issued instead of every
  command of one loop turn in one write (server/store/link.py), to measure what the group commit buys;
- ``ttl-every-move``: every append gives the room's keys their TTL (``REFRESH_AFTER`` 0), as before
  the moves left it, to measure what leaving it buys.

SEAHAVEN_BENCH_EXTRAS: a folder added to the path (packages installed with ``pip --target``), so
the baseline's virtual environment stays without them.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import json
import os
import signal
import sys
import time

_LEVERS = {name for name in os.environ.get("SEAHAVEN_BENCH_LEVERS", "").split(",") if name}
if os.environ.get("SEAHAVEN_BENCH_EXTRAS"):
    sys.path.insert(0, os.environ["SEAHAVEN_BENCH_EXTRAS"])

if "gc-threshold" in _LEVERS:
    gc.set_threshold(50_000, 10, 100)
if "gc-off" in _LEVERS:
    gc.disable()
if "gc-freeze" in _LEVERS:

    def _freeze(signum: int, frame: object) -> None:
        gc.collect()
        gc.freeze()

    signal.signal(signal.SIGUSR1, _freeze)
if "uvloop" in _LEVERS:
    importlib.import_module("uvloop").install()

if "no-group-commit" in _LEVERS:
    # An experiment from outside the code, so it reaches into the link's private connection class:
    # after a call is queued, flush at once (the flush the link schedules for the loop's next turn
    # then finds nothing left to write).
    from server.store import link

    _queue = link._Pipe.call

    def _call_and_write(pipe: link._Pipe, frame: bytes) -> object:
        future = _queue(pipe, frame)
        pipe.flush()
        return future

    link._Pipe.call = _call_and_write  # type: ignore[method-assign,assignment]

if "ttl-every-move" in _LEVERS:
    from server.shell import roompath

    roompath.REFRESH_AFTER = 0.0  # type: ignore[misc]  # Final to the code, a lever from outside

if "gc-log" in _LEVERS:
    _pauses: list[tuple[float, int, float]] = []
    """(when, generation, seconds) of every collection, ``when`` on the Unix clock."""
    _began = [0.0]

    def _time_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            _began[0] = time.perf_counter()
        else:
            _pauses.append((time.time(), info["generation"], time.perf_counter() - _began[0]))

    def _write() -> None:
        path = os.environ.get("SEAHAVEN_BENCH_GC_LOG")
        if path:
            with open(path, "w") as out:
                json.dump(_pauses, out)

    gc.callbacks.append(_time_gc)
    atexit.register(_write)
