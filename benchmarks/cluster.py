"""``RedisStore.append`` on one redis-server vs a local 3-master Redis Cluster (``redis+cluster://``):
what the cluster client costs on the acknowledgement path (still one round trip, to the room's master).

Each backend runs on its own processes on free loopback ports (never a shared Redis), no AOF.

    .venv/bin/python -m benchmarks.cluster [--iterations 3000] [--concurrency 1,16]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.store import add_load_options, concurrencies_of, report, run, sample_event
from server.store.stores import RedisStore
from tests.redis_cluster import LocalCluster
from tests.redis_proc import RedisProcess


async def measure(name: str, url: str, iterations: int, concurrencies: list[int]) -> None:
    event = sample_event()
    store = RedisStore(url, prefix="bench:", max_connections=max(concurrencies) + 1)
    try:
        for concurrency in concurrencies:
            await run(store, min(iterations, 500), concurrency, event, "warm")
            latencies, wall = await run(store, iterations, concurrency, event, f"{name}{concurrency}")
            report(name, concurrency, latencies, wall)
    finally:
        await store.close()


async def bench(iterations: int, concurrencies: list[int]) -> None:
    print(f"append of one {len(sample_event())}-byte event, {iterations} calls per row, TTL refreshed on every call")
    print(f"{'store':<12} {'tasks':>5} {'calls':>8} {'median µs':>11} {'p99 µs':>11} {'appends/s':>12}")
    with RedisProcess(appendonly=False) as single:
        await measure("single", single.url, iterations, concurrencies)
    with LocalCluster() as cluster:
        await measure("cluster", cluster.url, iterations, concurrencies)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_load_options(parser, iterations=3000)
    args = parser.parse_args(argv)
    concurrencies = concurrencies_of(parser, args)
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        print("redis-server and redis-cli must be on the PATH", file=sys.stderr)
        return 1
    asyncio.run(bench(args.iterations, concurrencies))
    return 0


if __name__ == "__main__":
    sys.exit(main())
