"""CPU and wall time of one room append (``RedisStore.append_at``, the store's real script) through
redis-py's client (``pipelined=False``) and through the pipelined link (``pipelined=True``,
server/store/link.py).

Starts its own redis-server on a free loopback port (never a shared one). For each shape (one call at
a time, 20 and 200 concurrent callers, each on its own room) and each event loop (asyncio's, and
uvloop's when it is installed) it runs ``--calls`` appends through each client, alternating which
goes first, ``--repeats`` times (the machine may be shared), and prints the median over the repeats
of this process's CPU time per call (``time.process_time``) and of the wall time per call (with
several callers: the run's wall time over its calls, the inverse of the throughput).

    .venv/bin/python -m benchmarks.redislink [--calls 2000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.store import MAX_ITERATIONS, TTL, sample_event
from server.runtime import uvloop_factory
from server.store.base import Append
from server.store.stores import RedisStore, Request, Stored
from tests.redis_proc import RedisProcess

SHAPES = (("sequential", 1), ("20 callers", 20), ("200 callers", 200))
CLIENTS = ("redis-py", "link")
Loop = tuple[str, Callable[[], asyncio.AbstractEventLoop] | None]


@dataclass(frozen=True, slots=True)
class Sample:
    """One run's seconds per call: this process's CPU time and the wall time."""

    cpu: float
    wall: float


async def run(store: RedisStore, calls: int, callers: int, tag: str) -> Sample:
    """``calls`` appends (at least one per caller) spread over ``callers`` tasks, each on its own room."""
    per_caller = max(1, calls // callers)
    event = sample_event()
    reply = b"\x92\x01\xa2ok" * 4  # a small reply frame, kept with the room like a move's

    async def caller(n: int) -> None:
        room = f"{tag}-{n}"
        length = 0
        for seq in range(per_caller):
            appended = await store.append_at(
                room, [event], Append(TTL, length, Request("player", seq, reply), "node-a")
            )
            assert isinstance(appended, Stored), f"append to {room} at {length} not stored: {appended}"
            length = appended.length

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(caller(n) for n in range(callers)))
    total = per_caller * callers
    return Sample((time.process_time() - cpu) / total, (time.perf_counter() - wall) / total)


async def on_loop(url: str, loop: str, calls: int, repeats: int) -> dict[tuple[str, str], list[Sample]]:
    """Every shape's samples of both clients on the running loop, keyed by (shape, client)."""
    stores = {name: RedisStore(url, prefix="bench:", pipelined=name == "link") for name in CLIENTS}
    samples: dict[tuple[str, str], list[Sample]] = {}
    try:
        for shape, callers in SHAPES:
            for name, store in stores.items():  # loads the script, opens redis-py's pooled connections
                await run(store, 2 * callers, callers, f"{loop}-{name}-{callers}-warm")
            for repeat in range(repeats):
                for name in CLIENTS if repeat % 2 == 0 else CLIENTS[::-1]:
                    sample = await run(stores[name], calls, callers, f"{loop}-{name}-{callers}-{repeat}")
                    samples.setdefault((shape, name), []).append(sample)
    finally:
        for store in stores.values():
            await store.close()
    return samples


def loops() -> list[Loop]:
    """asyncio's own event loop, and uvloop's when it is installed."""
    found: list[Loop] = [("asyncio", None)]
    factory = uvloop_factory()
    if factory is not None:
        found.append(("uvloop", factory))
    return found


def median(samples: list[Sample], part: str) -> float:
    """The median of the samples' ``part`` (cpu or wall), in microseconds."""
    seconds: float = statistics.median(getattr(sample, part) for sample in samples)
    return seconds * 1e6


def bench(calls: int, repeats: int) -> None:
    print(f"RedisStore.append_at of one {len(sample_event())}-byte event: {calls} calls per run, median of {repeats}")
    print(f"{'':<24} {'CPU µs/call':^30} {'wall µs/call':^30}")
    header = f"{'redis-py':>10} {'link':>10} {'ratio':>8}"
    print(f"{'shape':<12} {'loop':<11} {header} {header}")
    with RedisProcess() as proc:
        assert proc.port != 6379
        for loop, factory in loops():
            with asyncio.Runner(loop_factory=factory) as runner:
                samples = runner.run(on_loop(proc.url, loop, calls, repeats))
            for shape, _ in SHAPES:
                cells = []
                for part in ("cpu", "wall"):
                    pooled, link = (median(samples[shape, name], part) for name in CLIENTS)
                    cells.append(f"{pooled:>10.1f} {link:>10.1f} {pooled / link:>7.1f}x")
                print(f"{shape:<12} {loop:<11} {' '.join(cells)}")
        print(f"redis-server on 127.0.0.1:{proc.port}, no append-only file")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000, help=f"appends per client and run (1..{MAX_ITERATIONS})")
    parser.add_argument("--repeats", type=int, default=5, help="runs of each client per shape and loop (1..100)")
    args = parser.parse_args(argv)
    if not 1 <= args.calls <= MAX_ITERATIONS:
        parser.error(f"--calls must be between 1 and {MAX_ITERATIONS}")
    if not 1 <= args.repeats <= 100:
        parser.error("--repeats must be between 1 and 100")
    if shutil.which("redis-server") is None:
        print("redis-server is not on the PATH", file=sys.stderr)
        return 1
    bench(args.calls, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
