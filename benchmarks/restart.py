"""Restart time with many live rooms: how long a node that starts takes to listen, and how long until
every member of the node that died before it has a drop recorded (their grace periods running).

Seeds a private redis-server with N racing rooms (two racers each, ten moves played, both racers
located on a node that then stopped), then starts one real server process on it and times:

- ``listening``: from the process's spawn to its "listening on" line (what a load balancer waits for);
- ``drops recorded``: from the spawn until every room's log has grown by the dead node's drops
  (the new node found the old one dead, made its rooms due and loaded them, in batches).

``--eager PATH`` also runs the server of another checkout (e.g. ``/work/main``, before lazy start:
it loads and restarts every live room before it listens) on a fresh copy of the same rooms.

    .venv/bin/python -m benchmarks.restart [--rooms 10000] [--eager /work/main]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis.asyncio as aioredis

from seahaven import Board
from seahaven.solver import solve
from server.rooms.core import RoomCore
from server.rooms.events import pack
from server.rooms.settings import Settings
from server.store.base import Append
from server.store.redisstore import RedisStore
from tests.redis_proc import RedisProcess

PLAYERS = ("ann", "bob")
OLD_NODE = "old-node"
ROOM_TTL = 3600.0
MOVES = 10


def room_log(code: str, now: int, moves: list[str]) -> list[bytes]:
    """A racing room's log: created, two racers joined and ready, started, ``MOVES`` moves by ann."""
    settings = Settings("seahaven", 1, countdown_ms=0)
    core, created = RoomCore.create(code, settings, now)
    core.commit(created, None)
    for player in PLAYERS:
        core.commit(core.join(player, player, False, now), None)
    for player in PLAYERS:
        core.commit(core.ready(player, True, now), None)
    core.commit(core.tick(now + 1), None)
    for i, move in enumerate(moves[:MOVES]):
        core.commit(core.move("ann", move, now + 2 + i), None)
    return [pack(e) for e in core.log]


async def seed(url: str, rooms: int) -> tuple[list[str], int]:
    """``rooms`` racing rooms in the store, their racers on a node that has just stopped."""
    store = RedisStore(url)
    now = time.time_ns() // 1_000_000
    moves = [str(m) for m in solve(Board.deal("seahaven", 1)).moves]
    codes = [f"R{n:05d}" for n in range(rooms)]
    length = 0
    try:
        for start in range(0, rooms, 500):
            batch = codes[start : start + 500]
            logs = [room_log(code, now, moves) for code in batch]  # the room's code is in its log
            length = len(logs[0])
            await asyncio.gather(
                *(
                    store.append_at(c, log, Append(ROOM_TTL, 0, None, OLD_NODE))
                    for c, log in zip(batch, logs, strict=True)
                )
            )
            await asyncio.gather(*(store.locate(c, p, OLD_NODE, ROOM_TTL) for c in batch for p in PLAYERS))
        await store.beat(OLD_NODE, 6)
        await store.leave(OLD_NODE)  # stopped: counted dead from now on
    finally:
        await store.close()
    return codes, length


async def all_dropped(url: str, codes: list[str], length: int) -> bool:
    redis = aioredis.Redis.from_url(url)
    try:
        async with redis.pipeline(transaction=False) as pipe:
            for code in codes:
                pipe.llen(f"seahaven:{{room:{code}}}:log")
            lengths = await pipe.execute()
        return all(n >= length + len(PLAYERS) for n in lengths)
    finally:
        await redis.aclose()


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def used_memory(url: str) -> int:
    redis = aioredis.Redis.from_url(url)
    try:
        return int((await redis.info("memory"))["used_memory"])
    finally:
        await redis.aclose()


def run(url: str, codes: list[str], length: int, pythonpath: str) -> tuple[float, float, float, float]:
    """Start a server on the seeded store: seconds to listening and to every drop recorded, and the
    server's RSS (MiB) at each."""
    env = {**os.environ, "PYTHONPATH": pythonpath, "SEAHAVEN_LOG_LEVEL": "WARNING"}
    args = [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--redis", url, "--no-records"]
    started = time.perf_counter()
    proc = subprocess.Popen(args, cwd=pythonpath, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if not line.startswith("listening on"):
            raise SystemExit(f"server did not start: {line!r}")
        listening = time.perf_counter() - started
        rss = rss_mib(proc.pid)
        while not asyncio.run(all_dropped(url, codes, length)):
            time.sleep(0.25)
        return listening, time.perf_counter() - started, rss, rss_mib(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=10_000)
    parser.add_argument("--eager", help="another checkout's server to compare (loads every room at start)")
    options = parser.parse_args(argv)
    here = str(Path(__file__).resolve().parents[1])
    builds = [("lazy (this build)", here)] + (
        [("eager (" + options.eager + ")", options.eager)] if options.eager else []
    )
    print(f"{options.rooms} live racing rooms, 2 racers each on a node that stopped, {MOVES} moves played")
    for name, path in builds:
        with RedisProcess() as redis:
            redis.start()
            seeded = time.perf_counter()
            empty = asyncio.run(used_memory(redis.url))
            codes, length = asyncio.run(seed(redis.url, options.rooms))
            per_room = (asyncio.run(used_memory(redis.url)) - empty) / options.rooms
            print(
                f"  seeded in {time.perf_counter() - seeded:.1f} s ({length} events, {per_room:.0f} B of Redis a room)"
            )
            listening, dropped, rss, rss_end = run(redis.url, codes, length, path)
            print(
                f"  {name}: listening after {listening:.2f} s (RSS {rss:.0f} MiB), "
                f"every drop recorded after {dropped:.1f} s (RSS {rss_end:.0f} MiB)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
