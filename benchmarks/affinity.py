"""What keeping a room's racers on one node saves, on two nodes and one Redis: rooms kept together,
moved together, or split (docs/scaling.md, "Keeping a room together").

Starts a private redis-server and two ``python -m server`` nodes on free loopback ports, then for
each placement in turn ``--rooms`` rooms of two racers:

- ``together``: both racers of a room connect to the same node (rooms alternate between the nodes);
- ``moved``: the creator connects to node A and the joiner to node B, then both resume their session
  on the node the room is given (``/r/CODE`` through the balancer, done here by hand), as the clients
  do once seated: the nodes they joined through let go of the room but stay in its holders;
- ``split``: the creator on node A, the joiner on node B, for the whole race;
- ``workers-1``, ``workers-2``: one ``--workers N`` server instead of the two nodes, both racers on
  its one port: with 2 workers the kernel (SO_REUSEPORT) picks a worker per connection, by its
  addresses and ports, so about half the rooms are split between the workers. Doorbells heard are
  not scraped there (a /metrics request reaches one worker at random): PUBLISH per move says it.

In every room one racer plays a legal move and undoes it, again and again, one request in flight,
all rooms at once; the other racer hears each. Prints per move: the room doorbells the nodes heard
(``seahaven_doorbells_received``), Redis's ``PUBLISH`` calls, the CPU of both nodes and of Redis
(``/proc``, ``INFO cpu``), and the move-to-rival latency (median, p99) from the mover's send.
The load generator runs on the same machine.

    .venv/bin/python -m benchmarks.affinity [--rooms 20] [--moves 100]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import math
import os
import statistics
import sys
import time
import urllib.request
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis
from prometheus_client.parser import text_string_to_metric_families

from protocol.messages import CreateRoom, JoinRoom, Moved, MoveRequest, Ok, Progress, Ready, RoomState, Started, Undo
from seahaven import Board
from seahaven.solver import solve
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

PLACEMENTS = ("together", "moved", "split", "workers-1", "workers-2")
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process so far (``/proc/PID/stat``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def tree_cpu_seconds(pid: int) -> float:
    """CPU of a process and its children (a ``--workers`` supervisor and its workers)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return cpu_seconds(pid) + sum(tree_cpu_seconds(int(child)) for child in children)


def redis_figures(url: str) -> tuple[float, int]:
    """Redis's CPU seconds so far, and its PUBLISH calls (also those from scripts)."""
    with redis.Redis.from_url(url) as client:
        cpu = client.info("cpu")
        stats = client.info("commandstats")
    publish = int(stats.get("cmdstat_publish", {}).get("calls", 0))
    return float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]), publish


def room_doorbells(node: ServerProcess) -> float:
    with urllib.request.urlopen(f"{node.http}/metrics", timeout=10) as response:
        text = response.read().decode()
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "seahaven_doorbells_received_total" and sample.labels.get("kind") == "room"
    )


async def doorbells(nodes: list[ServerProcess], workers: str | None) -> float:
    """Room doorbells the nodes heard so far (NaN for a --workers server: see above)."""
    if workers is not None:
        return math.nan
    return sum(await asyncio.gather(*(asyncio.to_thread(room_doorbells, n) for n in nodes)))


async def seat(nodes: list[ServerProcess], placement: str, i: int) -> tuple[WsClient, WsClient]:
    """Room ``i``'s two racers, seated and started as ``placement`` says."""
    home = nodes[i % len(nodes)]
    first, second = (nodes[0], nodes[-1]) if placement in ("moved", "split") else (home, home)
    ann, bob = await WsClient.open(first.url, "Ann"), await WsClient.open(second.url, "Bob")
    state = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    if placement == "moved":  # both resume on the room's node; the old connections are closed (4001)
        moved = []
        for racer, name in ((ann, "Ann"), (bob, "Bob")):
            again = await WsClient.open(home.url, name, token=racer.token)
            await again.expect(RoomState)
            await racer.close()
            moved.append(again)
        ann, bob = moved
    for racer in (ann, bob):
        assert isinstance(await racer.call(Ready()), Ok)
    for racer in (ann, bob):
        await racer.expect(Started)
    return ann, bob


def heard(player: str, moves: int, progress: Progress) -> bool:
    return progress.player == player and progress.moves == moves


async def play(ann: WsClient, bob: WsClient, move: str, moves: int, done: int = 0) -> list[float]:
    """Move and undo ``moves`` times (``done`` played before); each from Ann's send until Bob heard it (µs)."""
    waits = []
    for i in range(done, done + moves):
        start = time.perf_counter()
        seq = await ann.send(MoveRequest(move=move) if i % 2 == 0 else Undo())
        await bob.expect(Progress, where=functools.partial(heard, ann.player, i + 1))
        waits.append((time.perf_counter() - start) * 1e6)
        assert isinstance(await ann.reply(seq), Moved)
    return waits


async def measure(redis_url: str, placement: str, rooms: int, moves: int) -> dict[str, float]:
    workers = placement.removeprefix("workers-") if placement.startswith("workers-") else None
    if workers is None:
        nodes = [ServerProcess("--redis", redis_url, "--spectator-delay", "0") for _ in range(2)]
    else:
        nodes = [ServerProcess("--redis", redis_url, "--spectator-delay", "0", "--workers", workers)]
        await asyncio.sleep(3)  # every worker listening before the racers connect
    try:
        pairs = [await seat(nodes, placement, i) for i in range(rooms)]
        move = str(solve(Board.deal("seahaven", 1)).moves[0])
        # One round first: the nodes the racers joined through let go of the room at its first ring.
        await asyncio.gather(*(play(ann, bob, move, 2) for ann, bob in pairs))
        bells = await doorbells(nodes, workers)
        cpu = sum(tree_cpu_seconds(n.proc.pid) for n in nodes)
        redis_cpu, publish = redis_figures(redis_url)
        waits = await asyncio.gather(*(play(ann, bob, move, moves, 2) for ann, bob in pairs))
        total = rooms * moves
        after_bells = await doorbells(nodes, workers)
        after_cpu = sum(tree_cpu_seconds(n.proc.pid) for n in nodes)
        after_redis_cpu, after_publish = redis_figures(redis_url)
        for ann, bob in pairs:
            await ann.close()
            await bob.close()
        every = sorted(w for room in waits for w in room)
        return {
            "doorbells heard": (after_bells - bells) / total,
            "PUBLISH": (after_publish - publish) / total,
            "nodes' CPU µs": (after_cpu - cpu) / total * 1e6,
            "Redis CPU µs": (after_redis_cpu - redis_cpu) / total * 1e6,
            "rival median µs": statistics.median(every),
            "rival p99 µs": every[min(len(every) - 1, int(0.99 * len(every)))],
        }
    finally:
        for node in nodes:
            node.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=20, help="rooms racing at once")
    parser.add_argument("--moves", type=int, default=100, help="moves and undos per room")
    parser.add_argument("--placements", nargs="+", choices=PLACEMENTS, default=list(PLACEMENTS))
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with RedisProcess() as server:
        url = server.start().url
        for placement in args.placements:
            results[placement] = asyncio.run(measure(url, placement, args.rooms, args.moves))
    names = list(next(iter(results.values())))
    print(f"per move, {args.rooms} rooms x {args.moves} moves:".ljust(24) + "".join(f"{p:>12}" for p in results))
    for name in names:
        print(f"{name:<24}" + "".join(f"{results[p][name]:12.2f}" for p in results))


if __name__ == "__main__":
    main()
