"""Toggling ``ready`` or coming and going as a spectator cannot grow a room's log without bound."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import Error, JoinRoom, Leave, Ok, Ready, RoomState, Started
from server.rooms.room import MAX_CHANGES
from tests.helpers import MakeServer, url_of
from tests.racing import room_with, start_race
from tests.wsclient import WsClient

TOGGLES = 1000


async def test_a_thousand_ready_toggles_leave_a_short_log(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    assert isinstance(await bob.call(Leave()), Ok)  # Ann alone: her readiness never starts a race
    refused = 0
    for n in range(TOGGLES):
        answer = await ann.call(Ready(ready=n % 2 == 0))
        if isinstance(answer, Error):
            assert answer.code == ErrorCode.RATE_LIMITED
            refused += 1
    # Her join was her first change; past the budget, every real change (to not ready) is refused.
    assert refused == len(range(MAX_CHANGES - 1, TOGGLES, 2))
    log = await server.store.load(state.room)
    assert len(log) <= 3 + MAX_CHANGES  # created, Bob's join and leave, Ann's changes
    # The budget is per player: Bob comes back and readies, Ann's last accepted change left her
    # ready, so the race starts.
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    assert isinstance(await bob.call(Ready()), Ok)
    for client in (ann, bob):
        await client.expect(Started)


async def test_a_thousand_spectator_visits_leave_a_short_log(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    eve = await WsClient.open(url_of(server), "Eve")
    refused = 0
    for _ in range(TOGGLES // 2):
        answer = await eve.call(JoinRoom(room=state.room, spectate=True))
        if isinstance(answer, Error):
            assert answer.code == ErrorCode.RATE_LIMITED
            refused += 1
        else:
            assert isinstance(await eve.call(Leave()), Ok)
    assert refused == TOGGLES // 2 - MAX_CHANGES
    log = await server.store.load(state.room)
    assert len(log) <= 10 + 2 * MAX_CHANGES
