"""A node hears only the rooms it holds: four real nodes on one real redis-server, rooms whose
racers are on nodes 1 and 2 only. Nodes 3 and 4 hear none of their doorbells (their /metrics say
so), and no node subscribes by pattern (``PUBSUB NUMPAT`` is 0)."""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Callable, Iterator

import pytest
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families

from protocol.messages import CreateRoom, Moved, MoveRequest, Progress
from seahaven import Board
from seahaven.solver import solve
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

MOVES = [str(move) for move in solve(Board.deal("seahaven", 1)).moves]
ROOMS = 3
MOVES_EACH = 4


@pytest.fixture
def four(redis_proc: RedisProcess) -> Iterator[list[ServerProcess]]:
    started = [ServerProcess("--redis", redis_proc.url) for _ in range(4)]
    try:
        yield started
    finally:
        for node in started:
            node.close()


def moved(racer: WsClient, moves: int) -> Callable[[Progress], bool]:
    return lambda p: p.player == racer.player and p.moves == moves


def doorbells(node: ServerProcess) -> dict[str, float]:
    """The node's doorbells heard, by kind, read from its /metrics."""
    with urllib.request.urlopen(f"{node.http}/metrics", timeout=10) as response:
        body = response.read().decode()
    heard: dict[str, float] = {}
    for family in text_string_to_metric_families(body):
        for sample in family.samples:
            if sample.name == "seahaven_doorbells_received_total":
                heard[sample.labels["kind"]] = sample.value
    return heard


async def test_nodes_that_hold_no_room_hear_none_of_its_doorbells(
    four: list[ServerProcess], redis_proc: RedisProcess
) -> None:
    one, two, three, four_ = four
    # Nodes 3 and 4 have connections too (in the lobby), but none in these rooms.
    idle = [await WsClient.open(node.url, f"Idle{i}") for i, node in enumerate((three, four_))]
    clients: list[WsClient] = list(idle)
    for n in range(ROOMS):
        ann = await WsClient.open(one.url, f"Ann{n}")
        bob = await WsClient.open(two.url, f"Bob{n}")
        clients += [ann, bob]
        await race_of_two(ann, bob, CreateRoom(deal_number=1))
        for i in range(MOVES_EACH):
            assert isinstance(await ann.call(MoveRequest(move=MOVES[i])), Moved)
            await bob.expect(Progress, where=moved(ann, i + 1))
            assert isinstance(await bob.call(MoveRequest(move=MOVES[i])), Moved)
            await ann.expect(Progress, where=moved(bob, i + 1))

    heard = await asyncio.to_thread(lambda: [doorbells(node) for node in four])
    # Each move of a racer on one node rang the other's: the room's doorbells reached nodes 1 and 2...
    assert heard[0].get("room", 0) >= ROOMS * MOVES_EACH
    assert heard[1].get("room", 0) >= ROOMS * MOVES_EACH
    # ...and nothing at all reached nodes 3 and 4.
    assert sum(heard[2].values()) == 0, heard[2]
    assert sum(heard[3].values()) == 0, heard[3]

    redis = aioredis.Redis.from_url(redis_proc.url)
    try:
        assert (
            await redis.execute_command(  # type: ignore[no-untyped-call]
                "PUBSUB", "NUMPAT"
            )
            == 0
        )
        # Every node listens to the arenas' one channel; a room's channel only nodes 1 and 2 hear.
        channels = [
            c.decode()
            for c in await redis.execute_command(  # type: ignore[no-untyped-call]
                "PUBSUB", "CHANNELS", "*"
            )
        ]
        rooms = [c for c in channels if "{room:" in c]
        assert len(rooms) == ROOMS
        counts = await redis.execute_command(  # type: ignore[no-untyped-call]
            "PUBSUB", "NUMSUB", *rooms
        )
        assert counts[1::2] == [2] * ROOMS
    finally:
        await redis.aclose()
        for client in clients:
            await client.close()
