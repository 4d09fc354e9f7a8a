"""How fast the deal pool fills: an empty in-memory pool refilled by worker processes until every
grade holds ``--target`` deals.

    .venv/bin/python -m benchmarks.dealpool --workers 1 --target 50 seahaven seahaven-medium seahaven-hard
"""

from __future__ import annotations

import argparse
import asyncio
import time

from seahaven.winnable import GRADES
from server.play.dealpool import DealPool, worker_executor
from server.store.memory import MemoryStore


async def fill(preset: str, workers: int, target: int, batch: int) -> None:
    executor = worker_executor(workers)
    try:
        store = MemoryStore()
        pool = DealPool(store, executor, presets=[preset], target=target, low=target, batch=batch)
        await pool.refill_once()  # not timed: starts the worker processes
        for grade in GRADES:
            while await store.pop_deal(preset, grade) is not None:
                pass
        started = time.perf_counter()
        jobs = 0
        while await pool.needs_refill():
            jobs += len(await asyncio.gather(*(pool.refill_once() for _ in range(workers))))
        elapsed = time.perf_counter() - started
        total = sum([await store.count_deals(preset, g) for g in GRADES])
        print(
            f"{preset:<20} {total:>4} deals ({target} per grade) in {elapsed:6.1f} s with {workers} worker(s), "
            f"{jobs} jobs of {batch} deal numbers: {total / elapsed:5.1f} deals/s",
            flush=True,
        )
    finally:
        executor.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("presets", nargs="*", default=["seahaven", "seahaven-medium", "seahaven-hard"])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--target", type=int, default=50)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args(argv)
    for preset in args.presets:
        asyncio.run(fill(preset, args.workers, args.target, args.batch))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
