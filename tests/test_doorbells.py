"""Doorbells between two in-process nodes on one real redis-server: a room's racers on different
nodes, each move stored by one node and applied by the other from the events its doorbell carries."""

from __future__ import annotations

import asyncio

from protocol.messages import JoinRoom, Moved, MoveRequest, Progress
from server.app import RaceServer
from tests.helpers import MakeServer, url_of
from tests.racing import room_with, solution, start_race
from tests.wsclient import WsClient


def held_length(server: RaceServer, code: str) -> int:
    return len(server.rooms[code].core.log)


async def test_a_doorbell_waits_for_the_command_that_holds_the_room(make_redis_server: MakeServer) -> None:
    a, b = await make_redis_server(), await make_redis_server()
    (ann,), state = await room_with(a, "Ann")
    bob = await WsClient.open(url_of(b), "Bob")
    await bob.call(JoinRoom(room=state.room))
    await start_race([ann, bob])
    moves = [str(m) for m in solution()]

    # Bob's node applies Ann's move as soon as its doorbell comes, with no command in the way.
    assert isinstance(await ann.call(MoveRequest(move=moves[0])), Moved)
    await bob.expect(Progress, where=lambda p: p.moves == 1)
    assert held_length(b, state.room) == held_length(a, state.room)

    # While a command holds the room on Bob's node (between its judgement and its store write),
    # Ann's next move is heard but not applied under it: only once the command lets go.
    held = b.rooms[state.room]
    rung = asyncio.Event()
    ring = b.upkeep.ring

    def heard_ring(kind: str, key: str, data: bytes) -> None:  # the real handler, then a signal
        ring(kind, key, data)
        if kind == "room":
            rung.set()

    b.upkeep.ring = heard_ring  # type: ignore[method-assign]
    await held.lock.acquire()
    try:
        before = held_length(b, state.room)
        assert isinstance(await ann.call(MoveRequest(move=moves[1])), Moved)
        await asyncio.wait_for(rung.wait(), 5)
        assert held.ringing and held_length(b, state.room) == before
    finally:
        held.lock.release()
    await bob.expect(Progress, where=lambda p: p.moves == 2)
    assert held_length(b, state.room) == held_length(a, state.room)
    for client in (ann, bob):
        await client.close()
