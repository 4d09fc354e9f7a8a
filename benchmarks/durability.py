"""What durability costs per append: ``RedisStore.append`` on redis-servers with no append-only file,
``appendfsync everysec`` and ``appendfsync always`` (each its own process on a free loopback port, data
in a temporary directory on this machine's disk).

Prints median / p99 latency and throughput, one call in flight and several at once, what Redis
reports about its fsyncs, and what one small write + fsync costs on the same disk (what ``always``
waits for on every write). Figures quoted in docs/durability.md.

    .venv/bin/python -m benchmarks.durability [--iterations 3000] [--concurrency 1,16]

Then ``--durability replicated``'s cost: ``RedisStore.append_at`` (the rooms' append, over the pipelined
link) on a master with one replica (``redis-server --replicaof``, both on this machine, no AOF), without
and with the WAIT for the replica, one call in flight.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from redis.asyncio import Redis

from benchmarks.store import add_load_options, concurrencies_of, percentile, report, run, sample_event
from server.store.base import Append, chain
from server.store.stores import RedisStore
from tests.redis_proc import RedisProcess

POLICIES = ("no-aof", "everysec", "always")


class PolicyRedis(RedisProcess):
    """A redis-server with the given fsync policy (``no-aof``: no append-only file at all)."""

    def __init__(self, policy: str) -> None:
        super().__init__(appendonly=policy != "no-aof")
        self.policy = policy

    def _argv(self) -> list[str]:
        argv = super()._argv()
        return argv if self.policy == "no-aof" else [*argv, "--appendfsync", self.policy]


async def fsyncs(url: str) -> str:
    """What Redis says about its AOF fsyncs (INFO persistence), in one line."""
    client = Redis.from_url(url)
    try:
        info = await client.info("persistence")
        keys = ("aof_enabled", "aof_delayed_fsync", "aof_last_write_status")
        return " ".join(f"{key}={info.get(key)}" for key in keys)
    finally:
        await client.aclose()


def disk_fsync(count: int = 200) -> tuple[float, float]:
    """Median and p99 seconds of one 55-byte append + fsync to a file in the temporary directory."""
    timings: list[float] = []
    with tempfile.TemporaryDirectory(prefix="seahaven-fsync-") as where:
        fd = os.open(os.path.join(where, "probe"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            for _ in range(count):
                started = time.perf_counter()
                os.write(fd, b"x" * 55)
                os.fsync(fd)
                timings.append(time.perf_counter() - started)
        finally:
            os.close(fd)
    timings.sort()
    return statistics.median(timings), percentile(timings, 0.99)


async def bench(iterations: int, concurrencies: list[int]) -> None:
    event = sample_event()
    print(f"append of one {len(event)}-byte event, {iterations} calls per row, TTL refreshed on every call")
    print(f"{'policy':<12} {'tasks':>5} {'calls':>8} {'median µs':>11} {'p99 µs':>11} {'appends/s':>12}")
    for policy in POLICIES:
        with PolicyRedis(policy) as proc:
            assert proc.port != 6379
            store = RedisStore(proc.url, prefix="bench:", max_connections=max(concurrencies) + 1)
            try:
                for concurrency in concurrencies:
                    await run(store, min(iterations, 500), concurrency, event, "warm")
                    latencies, wall = await run(store, iterations, concurrency, event, f"{policy}{concurrency}")
                    report(policy, concurrency, latencies, wall)
                print(f"{'':<12} {await fsyncs(proc.url)}")
            finally:
                await store.close()
    median, p99 = disk_fsync()
    print(f"one 55-byte write + fsync on this disk: median {median * 1e6:.1f} µs, p99 {p99 * 1e6:.1f} µs")


async def replicated(iterations: int) -> None:
    """Median and p99 of one room append without and with ``WAIT 1`` (master + one replica)."""
    with RedisProcess() as master, RedisProcess(extra=("--replicaof", "127.0.0.1", str(master.port))):
        probe = Redis.from_url(master.url)
        for _ in range(400):  # the replica's first sync done
            if "online" in str((await probe.info("replication")).get("slave0", {})):
                break
            await asyncio.sleep(0.05)
        await probe.aclose()
        event = sample_event()
        print(f"append_at of one {len(event)}-byte event, master + 1 replica, 1 in flight, {iterations} calls")
        for replicas in (0, 1):
            store = RedisStore(master.url, prefix=f"rep{replicas}:", replicas=replicas)
            try:
                latencies: list[float] = []
                tip = ""
                for n in range(iterations + 200):
                    started = time.perf_counter()
                    await store.append_at("R", [event], Append(60.0, n, None, "node", tip=tip))
                    if n >= 200:  # warmed up
                        latencies.append(time.perf_counter() - started)
                    tip = chain(tip, [event])[-1]
                latencies.sort()
                median, p99 = statistics.median(latencies), percentile(latencies, 0.99)
                label = "WAIT 1" if replicas else "no WAIT"
                print(f"  {label:<8} median {median * 1e6:8.1f} µs  p99 {p99 * 1e6:8.1f} µs")
            finally:
                await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_load_options(parser, iterations=3000)
    args = parser.parse_args(argv)
    concurrencies = concurrencies_of(parser, args)
    if shutil.which("redis-server") is None:
        print("redis-server is not on the PATH", file=sys.stderr)
        return 1
    asyncio.run(bench(args.iterations, concurrencies))
    asyncio.run(replicated(args.iterations))
    return 0


if __name__ == "__main__":
    sys.exit(main())
