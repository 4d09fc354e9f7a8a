"""What the log's hash chain costs per room append: Redis's own time per ``EVALSHA`` of the append
script (``INFO commandstats``: usec_per_call) and this process's CPU per call, for ``--calls`` appends
of one event to one room with the chain tip named and checked (``tip=``), as the room path does, and
with it not checked (``tip=None``: the chain is still written). A private redis-server on a free port.

Compare with a build before the chain by running this file's version of commit 9c31be2 there (it
appends without a tip where the build takes none; this one passes the append's options as one
``Append`` value, which older builds do not know): ``git worktree add /tmp/before <commit> && git
show 9c31be2:benchmarks/chain.py > /tmp/before/benchmarks/chain.py && cd /tmp/before && python -m
benchmarks.chain``.

    .venv/bin/python -m benchmarks.chain [--calls 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis.asyncio as aioredis

from benchmarks.store import sample_event
from server.store import base
from server.store.base import Append
from server.store.redisstore import RedisStore
from tests.redis_proc import RedisProcess


async def bench(calls: int) -> None:
    with RedisProcess() as proc:
        store = RedisStore(proc.url, prefix="chain:")
        raw = aioredis.Redis.from_url(proc.url)
        try:
            event = sample_event()
            await store.append_at("warm", [event], Append(60, 0, None, "node"))
            for checked in (True, False):
                room = f"R{checked}"
                await raw.config_resetstat()
                tip = ""
                cpu = time.process_time()
                for n in range(calls):
                    if checked:
                        await store.append_at(room, [event], Append(60, n, None, "node", tip=tip))
                        tip = base.chain(tip, [event])[-1]  # what the room path computes per move
                    else:
                        await store.append_at(room, [event], Append(60, n, None, "node"))
                cpu = time.process_time() - cpu
                redis_us = (await raw.info("commandstats"))["cmdstat_evalsha"]["usec_per_call"]
                label = "tip checked" if checked else "tip not checked"
                print(
                    f"{label:<24} Redis {redis_us:6.2f} µs/append   this process {cpu / calls * 1e6:6.1f} µs CPU/append"
                )
        finally:
            await raw.aclose()
            await store.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=5000, help="appends per row")
    args = parser.parse_args(argv)
    asyncio.run(bench(max(1, args.calls)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
