"""Moves per second with 1 and with 2 worker processes (``seahaven-server --workers N``) on one Redis.

Starts a private redis-server, then for each setting in turn (alternating, repeated) one
``python -m server --workers N`` on it; ``--rooms`` rooms of two racers each race by playing a legal
move and undoing it, again and again, one request in flight per racer (closed loop), for
``--seconds``. Prints acknowledged moves/s per run and the median per setting, and how many
requests were resent after ``store-unavailable`` (two racers of one room on different workers,
moving flat out, can exhaust a request's retries: ARCHITECTURE.md, "Several nodes"). The generator is
this process, on the same 2-core machine: the figure is what the host serves with the generator
beside it, not a server-only ceiling.

    .venv/bin/python -m benchmarks.workers [--rooms 50] [--seconds 8] [--repeat 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol.errors import ErrorCode
from protocol.messages import CreateRoom, Error, Moved, MoveRequest, Undo
from seahaven import Board
from seahaven.solver import solve
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two


async def run(redis_url: str, workers: int, rooms: int, seconds: float) -> float:
    """Acknowledged moves (and undos) per second over all racers."""
    server = ServerProcess("--redis", redis_url, "--workers", str(workers), "--spectator-delay", "0")
    clients: list[WsClient] = []
    try:
        first = str(solve(Board.deal("seahaven", 1)).moves[0])
        for _ in range(rooms):
            ann = await WsClient.open(server.url, "Ann")
            bob = await WsClient.open(server.url, "Bob")
            clients += [ann, bob]
            await race_of_two(ann, bob, CreateRoom(deal_number=1))
        done = resent = 0
        end = time.perf_counter() + seconds

        async def racer(client: WsClient) -> None:
            nonlocal done, resent
            while time.perf_counter() < end:
                for request in (MoveRequest(move=first), Undo()):
                    seq = await client.send(request)
                    reply = await client.reply(seq)
                    while isinstance(reply, Error) and reply.code == ErrorCode.STORE_UNAVAILABLE:
                        resent += 1  # as docs/protocol.md says: the same request, the same seq
                        reply = await client.call(request, seq=seq)
                    assert isinstance(reply, Moved), reply
                    client.events.clear()  # the rival's progress frames: not measured here
                    done += 1

        started = time.perf_counter()
        await asyncio.gather(*(racer(client) for client in clients))
        rate = done / (time.perf_counter() - started)
        print(
            f"workers={workers} rooms={rooms}: {rate:,.0f} moves/s, {resent} resent after store-unavailable", flush=True
        )
        return rate
    finally:
        for client in clients:
            await client.close()
        server.terminate()
        server.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    rates: dict[int, list[float]] = {1: [], 2: []}
    with RedisProcess(appendonly=False) as redis_proc:
        for _ in range(args.repeat):
            for workers in (1, 2):
                rate = await run(redis_proc.url, workers, args.rooms, args.seconds)
                rates[workers].append(rate)
    for workers, found in rates.items():
        print(f"median, {workers} worker(s): {statistics.median(found):,.0f} moves/s")


if __name__ == "__main__":
    asyncio.run(main())
