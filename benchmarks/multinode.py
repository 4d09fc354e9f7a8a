"""What a move costs with two nodes on one Redis: the mover's acknowledgement, a rival on the same
node, a rival on the other node (doorbell + one read of the log's gap), each from the mover's send.

Starts a private redis-server and two ``python -m server`` nodes on free loopback ports; Ann and Bob
connect to node A, Cid to node B, all race in one room; Ann plays a move then undoes it, again and
again, one request in flight. Prints median and p99 per path, the extra the cross-node rival pays
over the same-node one, and the Redis commands per move (``INFO commandstats``: the mover's append
script, and what the other node runs to catch up).

    .venv/bin/python -m benchmarks.multinode [--moves 400]
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

import redis

from protocol.messages import CreateRoom, JoinRoom, Moved, MoveRequest, Ok, Progress, Ready, RoomState, Started, Undo
from seahaven import Board
from seahaven.solver import solve
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def heard(client: WsClient, player: str, moves: int) -> float:
    await client.expect(Progress, where=lambda p: p.player == player and p.moves == moves)
    return time.perf_counter()


async def acked(client: WsClient, seq: int) -> float:
    reply = await client.reply(seq)
    assert isinstance(reply, Moved), reply
    return time.perf_counter()


def command_calls(url: str) -> dict[str, int]:
    """Calls per command since the redis-server started."""
    with redis.Redis.from_url(url) as client:
        stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(value["calls"]) for name, value in stats.items()}


async def measure(redis_url: str, rounds: int) -> dict[str, list[float]]:
    a, b = (ServerProcess("--redis", redis_url, "--spectator-delay", "0") for _ in range(2))
    try:
        ann, bob = await WsClient.open(a.url, "Ann"), await WsClient.open(a.url, "Bob")
        cid = await WsClient.open(b.url, "Cid")
        state = await ann.call(CreateRoom(deal_number=1, seats=3))
        assert isinstance(state, RoomState)
        for client in (bob, cid):
            assert isinstance(await client.call(JoinRoom(room=state.room)), RoomState)
        for client in (ann, bob, cid):
            assert isinstance(await client.call(Ready()), Ok)
        for client in (ann, bob, cid):
            await client.expect(Started)
        move = str(solve(Board.deal("seahaven", 1)).moves[0])
        times: dict[str, list[float]] = {"ack": [], "same node": [], "other node": []}
        before = command_calls(redis_url)
        for i in range(rounds):
            start = time.perf_counter()
            seq = await ann.send(MoveRequest(move=move) if i % 2 == 0 else Undo())
            ack, same, other = await asyncio.gather(
                acked(ann, seq), heard(bob, ann.player, i + 1), heard(cid, ann.player, i + 1)
            )
            times["ack"].append((ack - start) * 1e6)
            times["same node"].append((same - start) * 1e6)
            times["other node"].append((other - start) * 1e6)
        after = command_calls(redis_url)
        per_move = {name: (calls - before.get(name, 0)) / rounds for name, calls in after.items()}
        print("Redis commands per move:", ", ".join(f"{n} {c:.2f}" for n, c in sorted(per_move.items()) if c))
        for client in (ann, bob, cid):
            await client.close()
        return times
    finally:
        a.close()
        b.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=400, help="moves and undos to time")
    args = parser.parse_args()
    with RedisProcess() as redis:
        times = asyncio.run(measure(redis.start().url, args.moves))
    for path, values in times.items():
        print(f"{path:>11}: median {statistics.median(values):7.0f} µs   p99 {percentile(values, 0.99):7.0f} µs")
    extra = [o - s for o, s in zip(times["other node"], times["same node"], strict=True)]
    print(f"cross-node extra over a same-node rival: median {statistics.median(extra):.0f} µs")


if __name__ == "__main__":
    main()
