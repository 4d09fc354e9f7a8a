"""The move path end to end: a racer's move over a real WebSocket until its ``moved`` reply.

For each store (memory, and Redis on a private redis-server on a free port) it starts an
in-process server, seats two racers, starts a race and has one racer play a legal move
and its inverse back and forth. It prints, in the same run:

- baseline: ``ping`` round trip through the same connection and server (decode, reply);
- move: ``move`` round trip (decode, judge with the engine, store, reply, fan-out to the rival);
- pipelined moves per second (a window of moves in flight);
- Redis commands per move from INFO commandstats (sent as one MULTI/EXEC pipeline: one round trip);
- the pure room's share: ``Room.move`` alone (judge + apply, no I/O).

The room has a rival and a live spectator (delay 0), so every move fans out two frames.

    .venv/bin/python -m benchmarks.server [--moves 2000] [--window 16]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis.asyncio as aioredis

from protocol.codec import encode_request
from protocol.messages import CreateRoom, JoinRoom, Moved, MoveRequest, Ping, Ready, Started
from seahaven import CELL, COLUMN, Board, Move
from server.app import RaceServer
from server.config import Config
from server.rooms.room import Room
from server.rooms.settings import Settings
from server.store.stores import MemoryStore, RedisStore, Store
from tests.redis_proc import RedisProcess
from tests.wsclient import WsClient

MAX_MOVES = 100_000


def back_and_forth(preset: str) -> tuple[int, str, str]:
    """A deal with a cell-to-column move, that move and its inverse: legal forever, alternately."""
    for deal in range(1, 1000):
        for move in Board.deal(preset, deal).legal_moves():
            if move.src_area == CELL and move.dst_area == COLUMN:
                return deal, str(move), str(Move(COLUMN, move.dst, CELL, move.src))
    raise RuntimeError("no deal with a cell-to-column opening move")


def figures(label: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return f"  {label:<28} median {statistics.median(ordered) * 1e6:8.1f} us   p99 {p99 * 1e6:8.1f} us"


async def bench_store(name: str, store: Store, moves: int, window: int, redis_url: str | None) -> None:
    config = Config(port=0, countdown_ms=10, rate=1e9, burst=10**9, spectator_delay_ms=0)
    server = RaceServer(config, store)
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"
    try:
        ann = await WsClient.open(url, "Ann")
        bob = await WsClient.open(url, "Bob")
        deal, there, back = back_and_forth("seahaven")
        state = await ann.call(CreateRoom(deal_number=deal))
        await bob.call(JoinRoom(room=getattr(state, "room", "")))
        eve = await WsClient.open(url, "Eve")  # a spectator: each move also sends her a frame with it
        await eve.call(JoinRoom(room=getattr(state, "room", ""), spectate=True))
        for client in (ann, bob):
            await client.call(Ready())
        await ann.expect(Started)

        pings = []
        for _ in range(moves):
            t = time.perf_counter()
            await ann.call(Ping())
            pings.append(time.perf_counter() - t)

        before = await redis_commands(redis_url)
        rtts = []
        for i in range(moves):
            t = time.perf_counter()
            reply = await ann.call(MoveRequest(move=there if i % 2 == 0 else back))
            rtts.append(time.perf_counter() - t)
            assert isinstance(reply, Moved), reply
        after = await redis_commands(redis_url)

        # Pipelined: keep `window` moves in flight, count replies.
        t = time.perf_counter()
        sent = done = 0
        count = moves - moves % 2
        while done < count:
            while sent < count and sent - done < window:
                ann.seq += 1
                await ann.ws.send(encode_request(MoveRequest(move=there if sent % 2 == 0 else back), ann.seq))
                sent += 1
            await ann.ws.recv()
            done += 1
        rate = count / (time.perf_counter() - t)
        await bob.drain(0.2)
        await eve.drain(0.2)

        print(f"{name} store:")
        print(figures("baseline ping round trip", pings))
        print(figures("move round trip", rtts))
        print(f"  {'pipelined moves':<28} {rate:10.0f} moves/s (window {window})")
        if before is not None and after is not None:
            print(f"  {'redis commands per move':<28} {(after - before) / moves:8.2f} (one MULTI/EXEC pipeline)")
    finally:
        await server.stop()


async def redis_commands(url: str | None) -> int | None:
    if url is None:
        return None
    client = aioredis.from_url(url)
    try:
        stats = await client.info("commandstats")
        return sum(int(v["calls"]) for k, v in stats.items() if k != "cmdstat_info")
    finally:
        await client.aclose()


def bench_room(moves: int) -> None:
    deal, there, back = back_and_forth("seahaven")
    room, _ = Room.create("BENCH1", Settings("seahaven", deal, countdown_ms=0), 0)
    room.join("a", "A", False, 0)
    room.join("b", "B", False, 0)
    room.set_ready("a", True, 0)
    room.set_ready("b", True, 0)
    room.tick(0)
    samples = []
    for i in range(moves):
        t = time.perf_counter()
        room.move("a", there if i % 2 == 0 else back, i)
        samples.append(time.perf_counter() - t)
    print("pure room:")
    print(figures("Room.move (judge + apply)", samples))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--window", type=int, default=16)
    args = parser.parse_args()
    moves = max(2, min(args.moves, MAX_MOVES))
    bench_room(moves)
    await bench_store("memory", MemoryStore(), moves, args.window, None)
    redis_proc = RedisProcess(appendonly=False)
    redis_proc.start()
    try:
        store = RedisStore(redis_proc.url, prefix=f"bench-{uuid.uuid4().hex[:6]}:")
        await bench_store("redis", store, moves, args.window, redis_proc.url)
    finally:
        redis_proc.close()


if __name__ == "__main__":
    asyncio.run(main())
