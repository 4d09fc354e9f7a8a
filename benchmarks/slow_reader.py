"""A racer who stops reading while the rival plays: what it costs the server and the rival.

An in-process server (memory store; a 4 KiB write-buffer limit by default, so that moves alone
fill it: the server's default is 1 MiB) seats Ann and Bob and
starts a race; Bob's client stops reading (its transport paused, small socket buffers at both ends) and Ann plays
a move and its undo back and forth. It prints how many closing tasks the server started for Bob,
how many were still pending at the end, the server's background tasks at most, the process's peak
RSS growth, and Ann's move round trip (median, p99, worst) while Bob was being let go.

    .venv/bin/python -m benchmarks.slow_reader [--rounds 2400] [--buffer 4096]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import socket
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol.messages import CreateRoom, JoinRoom, MoveRequest, Ready, Started, Undo
from seahaven import Board
from seahaven.solver import solve
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests.wsclient import WsClient


async def run(rounds: int, buffer: int) -> None:
    config = Config(port=0, countdown_ms=0, rate=1e9, burst=10**9, spectator_delay_ms=0, max_write_buffer=buffer)
    server = RaceServer(config, MemoryStore())
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        ann, bob = await WsClient.open(url, "Ann"), await WsClient.open(url, "Bob")
        state = await ann.call(CreateRoom(deal_number=1))
        await bob.call(JoinRoom(room=state.room))  # type: ignore[attr-defined]
        for client in (ann, bob):
            await client.call(Ready())
        for client in (ann, bob):
            await client.expect(Started)
        bob.ws.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        bobs = server.players[bob.player].conn
        assert bobs is not None
        bobs.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        bob.ws.transport.pause_reading()
        move = str(solve(Board.deal("seahaven", 1)).moves[0])
        samples, most_tasks = [], 0
        for _ in range(rounds):
            for request in (MoveRequest(move=move), Undo()):
                started = time.perf_counter()
                await ann.call(request)
                samples.append(time.perf_counter() - started)
                most_tasks = max(most_tasks, len(server.tasks.running))
        ordered = sorted(samples)
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"requests by the rival        {len(samples)}")
        print(f"closing tasks started        {server.guard.let_go_count}")
        print(f"closing tasks still pending  {len(server.guard.closing)}")
        print(f"background tasks at most     {most_tasks}")
        print(f"peak RSS growth              {(rss_after - rss_before) / 1024:.1f} MiB")
        print(
            f"rival's round trip           median {statistics.median(ordered) * 1e3:.2f} ms   "
            f"p99 {ordered[int(0.99 * len(ordered))] * 1e3:.2f} ms   worst {ordered[-1] * 1e3:.2f} ms"
        )
    finally:
        await server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2400, help="move and undo pairs the rival plays (max 2499)")
    parser.add_argument("--buffer", type=int, default=4096, help="the server's write-buffer limit, bytes")
    args = parser.parse_args()
    asyncio.run(run(min(args.rounds, 2499), args.buffer))


if __name__ == "__main__":
    main()
