"""Toggling ``ready`` or coming and going as a spectator cannot grow a room's log without bound."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import Error, JoinRoom, Leave, Ok, Ready, RoomState
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
    # Her own seat came with create_room, so she has the whole budget of ready changes; past it,
    # every real change (to ready) is refused.
    assert refused == len(range(MAX_CHANGES, TOGGLES, 2))
    log = await server.store.load(state.room)
    assert len(log) <= 4 + MAX_CHANGES  # created, Ann's and Bob's joins, Bob's leave, Ann's changes
    # The budget is per player: Bob comes back and readies, though Ann may not change any more
    # (her last accepted change left her not ready).
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    assert isinstance(await bob.call(Ready()), Ok)
    refusal = await ann.call(Ready())
    assert isinstance(refusal, Error) and refusal.code == ErrorCode.RATE_LIMITED


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
