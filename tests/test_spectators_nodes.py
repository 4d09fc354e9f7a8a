"""A restart or a stall of any node costs no spectator their view of the race (real processes).

Racers on one node, a spectator on another, one real redis-server. Before: a node that restarted
recorded every spectator of every room as gone (its recovery ran as if it were alone), and a node
that other nodes counted dead through a stall lost its spectators to their sweep and, once awake,
recorded back its racers only; either way the spectator stayed connected and heard nothing again.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest

from protocol.messages import (
    CreateRoom,
    JoinRoom,
    ListRooms,
    Members,
    MoveRequest,
    Ok,
    Progress,
    Ready,
    Resign,
    Result,
    Rooms,
    RoomState,
    Started,
)
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

MOVES = ("3c", "08", "3d", "3#", "3#", "a#")
"""The first moves of a win of Seahaven Towers #1 (tests/wins.py)."""


@pytest.fixture
def nodes(redis_proc: RedisProcess) -> Iterator[list[ServerProcess]]:
    started = [ServerProcess("--redis", redis_proc.url, "--spectator-delay", "0") for _ in range(2)]
    try:
        yield started
    finally:
        for node in started:
            node.close()


async def watched_race(racing: ServerProcess, watching: ServerProcess) -> tuple[WsClient, WsClient, WsClient]:
    """Ann and Bob race on ``racing``; Eve watches from ``watching``."""
    ann = await WsClient.open(racing.url, "Ann")
    bob = await WsClient.open(racing.url, "Bob")
    eve = await WsClient.open(watching.url, "Eve")
    state = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    assert isinstance(await eve.call(JoinRoom(room=state.room, spectate=True)), RoomState)
    for racer in (ann, bob):
        assert isinstance(await racer.call(Ready()), Ok)
    for client in (ann, bob, eve):
        await client.expect(Started)
    return ann, bob, eve


async def counted_gone(racer: WsClient) -> None:
    """Until the racing node's sweep has recorded the stalled node's spectator gone (its racers hear
    that the room has no spectator): past the stalled node's beats' life (6 s) and the sweep's next
    beat, which a loaded machine delays (a fixed 9 s stall was too short for it, 2 runs in 6)."""
    await racer.expect(Members, wait=60, where=lambda members: members.spectators == 0)


async def finish(ann: WsClient, bob: WsClient, eve: WsClient) -> None:
    """Ann plays on, both resign: Eve sees Ann's moves and the result."""
    for move in MOVES:
        await ann.call(MoveRequest(move=move))
    seen = await eve.expect(Progress, wait=10, where=lambda p: p.player == ann.player and p.move == MOVES[-1])
    assert seen.move == MOVES[-1]
    await ann.call(Resign())
    await bob.call(Resign())
    result = await eve.expect(Result, wait=10)
    assert {s.player for s in result.standings} == {ann.player, bob.player}


@pytest.mark.parametrize("stop", ["kill", "terminate"])
async def test_a_node_that_restarts_keeps_the_other_nodes_spectators(
    nodes: list[ServerProcess], redis_proc: RedisProcess, stop: str
) -> None:
    racing, watching = nodes
    ann, bob, eve = await watched_race(racing, watching)
    racing.kill() if stop == "kill" else racing.terminate()
    again = ServerProcess("--redis", redis_proc.url, "--spectator-delay", "0")  # compose restarts it
    nodes.append(again)
    ann = await WsClient.open(again.url, "Ann", token=ann.token)
    bob = await WsClient.open(again.url, "Bob", token=bob.token)
    for racer in (ann, bob):
        state = await racer.expect(RoomState)
        assert state.spectators == 1  # Eve is still watching, from the other node
    await finish(ann, bob, eve)


async def test_a_stalled_node_gets_its_spectators_back_when_it_wakes(nodes: list[ServerProcess]) -> None:
    racing, watching = nodes
    ann, bob, eve = await watched_race(racing, watching)
    await ann.settle()  # what she heard before the stall (a room with no spectator yet among it)
    os.kill(watching.proc.pid, signal.SIGSTOP)
    try:
        await counted_gone(ann)
    finally:
        os.kill(watching.proc.pid, signal.SIGCONT)
    state = await eve.expect(RoomState, wait=10)  # joined again, with the room as it is now
    assert state.role == "spectator" and state.phase == "racing"
    await finish(ann, bob, eve)


async def test_a_stalled_node_whose_store_stalls_as_it_wakes_gets_its_spectators_back(
    nodes: list[ServerProcess], redis_proc: RedisProcess
) -> None:
    """The doorbell of Eve's departure is read on waking, but the store does not answer then: the
    first try at seating her again fails (before: never tried again, and she heard nothing more)."""
    racing, watching = nodes
    ann, bob, eve = await watched_race(racing, watching)
    await ann.settle()  # what she heard before the stall (a room with no spectator yet among it)
    os.kill(watching.proc.pid, signal.SIGSTOP)
    try:
        await counted_gone(ann)  # Eve's departure's doorbell waits unread
        os.kill(redis_proc.pid, signal.SIGSTOP)
        try:
            os.kill(watching.proc.pid, signal.SIGCONT)
            await asyncio.sleep(3)  # past the store's 2 s timeout: the first try has failed
        finally:
            os.kill(redis_proc.pid, signal.SIGCONT)
    finally:
        os.kill(watching.proc.pid, signal.SIGCONT)
    state = await eve.expect(RoomState, wait=10)
    assert state.role == "spectator" and state.phase == "racing"

    async def answering() -> bool:  # the racing node saw the stall too: its moves wait for its store
        return isinstance(await ann.call(ListRooms()), Rooms)

    await wait_until(answering, interval=0.2)
    await finish(ann, bob, eve)
