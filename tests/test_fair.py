"""Fair deals through the server: winnable by default, a grade, any deal, a chosen deal shown to all.

Real servers on loopback over real WebSockets, on the memory store with its in-process pool and on
a private redis-server with the pool in the same Redis (as ``seahaven-server --redis`` runs it).
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ProcessPoolExecutor

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    JoinRoom,
    ListRooms,
    QuickMatch,
    Ready,
    Rematch,
    Resign,
    Result,
    Rooms,
    RoomState,
)
from protocol.messages import Started as StartedMessage
from seahaven import Board, encode
from seahaven.solver import solve
from seahaven.winnable import deal_list
from server.app import RaceServer
from tests.helpers import MakeServer, url_of
from tests.wsclient import WsClient


def deal_of(server: RaceServer, code: str) -> int:
    """The deal the server holds for a room (the test reads it; no client can before the start)."""
    return server.rooms[code].room.settings.deal


def replays_to_a_win(preset: str, number: int) -> bool:
    """Solve the deal and replay the solution on the engine (runs in a worker process)."""
    board = Board.deal(preset, number)
    solution = solve(board, max_states=2_000_000)
    for move in solution.moves:
        board.push(move)
    return solution.solved and board.is_won()


async def all_winnable(preset: str, numbers: list[int]) -> list[bool]:
    """Each deal checked by the solver in worker processes, off the test's event loop."""
    loop = asyncio.get_running_loop()
    with ProcessPoolExecutor(max_workers=1) as pool:
        return list(await asyncio.gather(*(loop.run_in_executor(pool, replays_to_a_win, preset, n) for n in numbers)))


async def test_rooms_created_with_defaults_all_get_winnable_deals(make_server: MakeServer) -> None:
    server = await make_server()
    clients = [await WsClient.open(url_of(server), f"P{i}") for i in range(24)]
    codes = []
    for i, client in enumerate(clients):
        # create_room, quick_match (alone, so it opens a room) and a 3-cell preset, all with defaults
        request = CreateRoom() if i % 3 == 0 else QuickMatch() if i % 3 == 1 else CreateRoom(preset="seahaven-3cells")
        state = await client.call(request)
        assert isinstance(state, RoomState), state
        assert state.deal is None  # the server picked it: nobody learns it before the start
        codes.append((state.preset, state.room))
        if i % 3 == 1:
            await client.close()  # an empty quick-match room: the next one opens its own
    deals = {(preset, deal_of(server, code)) for preset, code in codes if code in server.rooms}
    assert len(deals) >= 16  # the quick-match rooms whose creator left may be gone
    by_preset: dict[str, list[int]] = {}
    for preset, number in deals:
        by_preset.setdefault(preset, []).append(number)
    for preset, numbers in by_preset.items():
        assert all(await all_winnable(preset, numbers)), (preset, numbers)
    for client in clients:
        await client.close()


async def test_a_deal_grade_deals_that_grade_and_rooms_show_it(make_server: MakeServer) -> None:
    server = await make_server()
    ann = await WsClient.open(url_of(server), "Ann")
    state = await ann.call(CreateRoom(deal_grade="fiendish"))
    assert isinstance(state, RoomState) and state.deal_grade == "fiendish" and not state.any_deal
    assert deal_of(server, state.room) in deal_list("seahaven").by_grade("fiendish")
    bob = await WsClient.open(url_of(server), "Bob")
    rooms = await bob.call(ListRooms())
    assert isinstance(rooms, Rooms)
    (listed,) = [r for r in rooms.rooms if r.room == state.room]
    assert listed.deal_grade == "fiendish" and listed.deal is None
    # quick match pairs only racers asking for the same grade
    dan = await WsClient.open(url_of(server), "Dan")
    waiting = await dan.call(QuickMatch(deal_grade="fiendish"))
    assert isinstance(waiting, RoomState) and waiting.deal_grade == "fiendish" and waiting.room != state.room
    cid = await WsClient.open(url_of(server), "Cid")
    other = await cid.call(QuickMatch(deal_grade="gentle"))
    assert isinstance(other, RoomState) and other.room != waiting.room and other.deal_grade == "gentle"
    assert deal_of(server, other.room) in deal_list("seahaven").by_grade("gentle")
    joined = await bob.call(QuickMatch(deal_grade="fiendish"))
    assert isinstance(joined, RoomState) and joined.room == waiting.room
    for client in (ann, bob, cid, dan):
        await client.close()


async def test_a_rematch_deals_a_winnable_deal_and_keeps_it_secret(
    make_server: MakeServer,
) -> None:
    server = await make_server()
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    state = await ann.call(CreateRoom(deal_number=5))  # a chosen deal first
    assert isinstance(state, RoomState) and state.deal == encode("seahaven", 5)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    for client in (ann, bob):
        await client.call(Ready())
    await ann.expect(StartedMessage)
    for client in (ann, bob):
        await client.call(Resign())
    await ann.expect(Result)
    for client in (ann, bob):
        await client.call(Rematch())
    again = await bob.expect(RoomState, where=lambda s: s.phase != "finished")
    assert again.deal is None  # the server picked it: secret until the start
    number = deal_of(server, state.room)
    assert number != 5 and (await all_winnable("seahaven", [number])) == [True]
    for client in (ann, bob):
        await client.close()


async def test_a_chosen_deal_is_shown_to_everyone_before_they_ready(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob, eve = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob", "Eve")]
    state = await ann.call(CreateRoom(deal_code="SH1-ST-0001G"))
    assert isinstance(state, RoomState) and state.phase == "waiting" and state.deal == "SH1-ST-0001G"
    rooms = await eve.call(ListRooms())
    assert isinstance(rooms, Rooms)
    assert [r.deal for r in rooms.rooms if r.room == state.room] == ["SH1-ST-0001G"]
    joined = await bob.call(JoinRoom(room=state.room))
    assert isinstance(joined, RoomState) and joined.deal == "SH1-ST-0001G" and joined.phase == "waiting"
    watching = await eve.call(JoinRoom(room=state.room, spectate=True))
    assert isinstance(watching, RoomState) and watching.deal == "SH1-ST-0001G"
    for client in (ann, bob, eve):
        await client.close()


async def test_any_deal_is_an_option_and_bad_combinations_are_refused(make_server: MakeServer) -> None:
    server = await make_server()
    ann = await WsClient.open(url_of(server), "Ann")
    refused = await ann.error(CreateRoom(deal_number=7, deal_grade="gentle"))
    assert refused.code == ErrorCode.BAD_FIELD
    refused = await ann.error(CreateRoom(deal_number=7, any_deal=True))
    assert refused.code == ErrorCode.BAD_FIELD
    assert not server.rooms  # nothing was created
    state = await ann.call(CreateRoom(any_deal=True))
    assert isinstance(state, RoomState) and state.any_deal and state.deal is None and state.deal_grade is None
    await ann.close()
