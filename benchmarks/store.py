"""Latency and throughput of ``Store.append`` (one ~60-byte event per call), MemoryStore vs RedisStore.

Starts its own redis-server on a free loopback port (never a shared one), runs a bounded number of
appends and prints median / p99 latency and throughput, one call in flight and several at once.

    .venv/bin/python -m benchmarks.store [--iterations 5000] [--concurrency 1,16] [--appendonly yes|no]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgpack

from server.store.stores import MemoryStore, RedisStore, Store
from tests.redis_proc import RedisProcess

MAX_ITERATIONS = 200_000
TTL = 3600.0


def sample_event() -> bytes:
    """A move event of about 60 bytes, shaped like the server's."""
    return bytes(
        msgpack.packb(
            {"t": "moved", "seat": 3, "move": {"k": "tableau", "from": 7, "to": 2, "n": 1}, "ms": 123_456, "f": 17}
        )
    )


def percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return sorted_values[index]


async def run(store: Store, iterations: int, concurrency: int, event: bytes, tag: str) -> tuple[list[float], float]:
    """``iterations`` appends spread over ``concurrency`` tasks, each on its own room; latencies (s), wall (s)."""
    per_task = max(1, iterations // concurrency)
    latencies: list[float] = []

    async def worker(n: int) -> None:
        room = f"bench-{tag}-{n}"
        clock = time.perf_counter
        for _ in range(per_task):
            started = clock()
            await store.append(room, [event], TTL)
            latencies.append(clock() - started)

    started = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(concurrency)))
    wall = time.perf_counter() - started
    for n in range(concurrency):
        await store.delete(f"bench-{tag}-{n}")
    return latencies, wall


def report(name: str, concurrency: int, latencies: list[float], wall: float) -> None:
    ordered = sorted(latencies)
    print(
        f"{name:<12} {concurrency:>5} {len(ordered):>8} "
        f"{statistics.median(ordered) * 1e6:>11.1f} {percentile(ordered, 0.99) * 1e6:>11.1f} "
        f"{len(ordered) / wall:>12,.0f}"
    )


def add_load_options(parser: argparse.ArgumentParser, iterations: int) -> None:
    """The store benchmarks' --iterations (default ``iterations``) and --concurrency."""
    parser.add_argument("--iterations", type=int, default=iterations, help=f"appends per row (1..{MAX_ITERATIONS})")
    parser.add_argument("--concurrency", default="1,16", help="comma-separated numbers of concurrent tasks")


def concurrencies_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[int]:
    """Checks --iterations and --concurrency (a usage error if out of range); the concurrencies."""
    if not 1 <= args.iterations <= MAX_ITERATIONS:
        parser.error(f"--iterations must be between 1 and {MAX_ITERATIONS}")
    try:
        concurrencies = [int(part) for part in args.concurrency.split(",")]
    except ValueError:
        parser.error("--concurrency takes numbers like 1,16")
    if not all(1 <= c <= 256 for c in concurrencies):
        parser.error("--concurrency values must be between 1 and 256")
    return concurrencies


async def bench(iterations: int, concurrencies: list[int], appendonly: bool) -> None:
    event = sample_event()
    print(f"append of one {len(event)}-byte event, {iterations} calls per row, TTL refreshed on every call")
    print(f"{'store':<12} {'tasks':>5} {'calls':>8} {'median µs':>11} {'p99 µs':>11} {'appends/s':>12}")

    memory = MemoryStore()
    for concurrency in concurrencies:
        await run(memory, min(iterations, 1000), concurrency, event, "warm")
        report("memory", concurrency, *await run(memory, iterations, concurrency, event, f"m{concurrency}"))

    with RedisProcess(appendonly=appendonly) as proc:
        assert proc.port != 6379
        store = RedisStore(proc.url, prefix="bench:", max_connections=max(concurrencies) + 1)
        try:
            for concurrency in concurrencies:
                await run(store, min(iterations, 1000), concurrency, event, "warm")
                latencies, wall = await run(store, iterations, concurrency, event, f"r{concurrency}")
                report("redis", concurrency, latencies, wall)
        finally:
            await store.close()
        print(f"redis-server on 127.0.0.1:{proc.port}, appendonly {'yes (everysec)' if appendonly else 'no'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_load_options(parser, iterations=5000)
    parser.add_argument("--appendonly", choices=["yes", "no"], default="yes", help="redis-server AOF (default yes)")
    args = parser.parse_args(argv)
    concurrencies = concurrencies_of(parser, args)
    if shutil.which("redis-server") is None:
        print("redis-server is not on the PATH", file=sys.stderr)
        return 1
    asyncio.run(bench(args.iterations, concurrencies, args.appendonly == "yes"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
