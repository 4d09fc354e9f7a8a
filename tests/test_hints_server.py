"""Hints and lost notices through the server: solved in a worker, counted in the standings."""

from __future__ import annotations

from protocol.errors import ErrorCode
from protocol.messages import (
    Advice,
    CreateRoom,
    HintRequest,
    Lost,
    Members,
    Moved,
    MoveRequest,
    Resign,
    Result,
)
from seahaven import Board
from tests.helpers import MakeServer, url_of
from tests.wsclient import WsClient, race_of_two

UNWINNABLE = 21
"""A seahaven deal the solver proves unwinnable (tests/test_hints.py), with moves left to play."""


async def race(server_url: str, **create: object) -> tuple[WsClient, WsClient]:
    ann, bob = [await WsClient.open(server_url, name) for name in ("Ann", "Bob")]
    await race_of_two(ann, bob, CreateRoom(**create))  # type: ignore[arg-type]
    return ann, bob


async def test_a_hint_is_a_move_of_a_win_and_the_standings_count_it(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await race(url_of(server), deal_number=1, hints=True)
    advice = await ann.call(HintRequest())
    assert isinstance(advice, Advice) and advice.kind == "hint" and advice.move is not None
    moved = await ann.call(MoveRequest(move=advice.move))  # the engine accepts it
    assert isinstance(moved, Moved)
    seen = await bob.expect(Members, where=lambda m: any(r.hints for r in m.racers))
    assert [(r.player, r.hints) for r in seen.racers] == [(ann.player, 1), (bob.player, 0)]
    for client in (ann, bob):
        await client.call(Resign())
    result = await bob.expect(Result)
    assert {s.player: s.hints for s in result.standings} == {ann.player: 1, bob.player: 0}
    for client in (ann, bob):
        await client.close()


async def test_hints_are_off_by_default_and_change_nothing(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await race(url_of(server), deal_number=1)
    refused = await ann.error(HintRequest())
    assert refused.code == ErrorCode.HINTS_OFF
    (code,) = server.rooms
    assert all(seat.hints == 0 for seat in server.rooms[code].room.seats.values())
    for client in (ann, bob):
        await client.close()


async def test_a_lost_position_is_said_lost_in_a_hint_and_in_a_notice(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await race(url_of(server), deal_number=UNWINNABLE, hints=True, lost_notice=True)
    advice = await ann.call(HintRequest())
    assert isinstance(advice, Advice) and advice.kind == "lost" and advice.move is None
    first = Board.deal("seahaven", UNWINNABLE).legal_moves()[0]
    assert isinstance(await ann.call(MoveRequest(move=str(first))), Moved)
    lost = await ann.expect(Lost, wait=30)
    assert lost.moves == 1
    assert not [e for e in await bob.settle() if isinstance(e, Lost)]  # only the racer hears it
    (code,) = server.rooms
    assert all(seat.hints == 0 for seat in server.rooms[code].room.seats.values())  # "lost" is no hint
    for client in (ann, bob):
        await client.close()
