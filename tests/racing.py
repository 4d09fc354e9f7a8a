"""Racing through a real server: racers in a room, a started race, a known solution to play."""

from __future__ import annotations

import functools
from typing import Any

from protocol.messages import (
    Arena,
    CreateArena,
    CreateRoom,
    JoinArena,
    JoinRoom,
    Ok,
    Ready,
    Resign,
    Result,
    RoomState,
    Started,
)
from seahaven import Board, Move
from seahaven.moves import FOUNDATION
from seahaven.solver import solve
from server.app import RaceServer
from tests.helpers import url_of
from tests.wsclient import WsClient

DEAL = 1
"""The seahaven deal the racing tests play (``solution`` wins it)."""


@functools.cache
def solution(deal: int = DEAL) -> tuple[Move, ...]:
    result = solve(Board.deal("seahaven", deal))
    assert result.status == "solved"
    return result.moves


async def room_with(server: RaceServer, *names: str, **create: Any) -> tuple[list[WsClient], RoomState]:
    """Connected racers: the first creates a room, the others join it by code."""
    clients = [await WsClient.open(url_of(server), name) for name in names]
    state = await clients[0].call(CreateRoom(deal_number=DEAL, seats=max(2, len(names)), **create))
    assert isinstance(state, RoomState)
    for client in clients[1:]:
        joined = await client.call(JoinRoom(room=state.room))
        assert isinstance(joined, RoomState), joined
    return clients, state


async def start_race(clients: list[WsClient]) -> Started:
    for client in clients:
        assert isinstance(await client.call(Ready()), Ok)
    started = [await c.expect(Started) for c in clients]
    assert len({s.board for s in started}) == 1
    return started[0]


async def arena_race_resigned(ann: WsClient, bob: WsClient, minutes: int = 5) -> str:
    """Ann opens a Seahaven arena of ``minutes``, Bob joins it, the arena seats both in a race and
    both resign it (one of them wins it); the arena's code."""
    created = await ann.call(CreateArena(preset="seahaven", minutes=minutes))
    assert isinstance(created, Arena)
    assert isinstance(await bob.call(JoinArena(arena=created.arena)), Arena)
    for client in (ann, bob):
        await client.expect(RoomState, wait=10)
    for client in (ann, bob):
        await client.send(Resign())
    for client in (ann, bob):
        await client.expect(Result, wait=10)
    return created.arena


class Line:
    """A winning line from a position, played with auto-move: its moves to the foundations are
    the server's to play (building by suit every one is safe), the others the racer's. Where the
    auto-moves took a card the line still moves (their order is not the solver's), it is solved
    again from the board as it is."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.moves: list[Move] = []

    def next(self) -> Move:
        assert self.board.auto_move() is None, "no auto-move is left to the racer"
        while self.moves:
            move = self.moves.pop(0)
            if move.dst_area != FOUNDATION and self.board.why_illegal(move) is None:
                return move
            if move.dst_area != FOUNDATION:
                break
        result = solve(self.board)
        assert result.status == "solved", result.status
        self.moves = [m for m in result.moves if m.dst_area != FOUNDATION]
        return self.moves.pop(0)
