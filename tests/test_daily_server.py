"""The daily race through the server: one deal per preset per UTC day on every node, and a board of
the best finishing times across rooms (Redis, or memory without it)."""

from __future__ import annotations

import asyncio
import datetime
from concurrent.futures import ProcessPoolExecutor

import pytest
import redis.asyncio

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    DailyBoard,
    DailyBoardRequest,
    ListRooms,
    Moved,
    MoveRequest,
    Ok,
    QuickMatch,
    Ready,
    Result,
    Rooms,
    RoomState,
    Started,
)
from seahaven import Board, encode
from seahaven.daily import daily_deal
from seahaven.solver import solve
from server.play.daily import BOARD_TTL, DailyTime, DailyTimes, utc_date
from server.store.interfaces import Store
from server.store.memory import MemoryStore
from server.store.redisstore import RedisStore
from tests.fakeclock import FakeClock
from tests.helpers import MakeServer, url_of
from tests.wsclient import WsClient


def daily_and_solution(preset: str, now_ms: int) -> tuple[int, list[str]]:
    """The day's deal and a win on it (runs in a worker process)."""
    number = daily_deal(preset, utc_date(now_ms))
    return number, [str(m) for m in solve(Board.deal(preset, number)).moves]


async def off_the_loop(preset: str, now_ms: int) -> tuple[int, list[str]]:
    with ProcessPoolExecutor(max_workers=1) as pool:
        return await asyncio.get_running_loop().run_in_executor(pool, daily_and_solution, preset, now_ms)


async def test_the_daily_deal_is_the_same_on_two_servers(make_server: MakeServer) -> None:
    one, two = await make_server(), await make_server()
    ann, bob = await WsClient.open(url_of(one), "Ann"), await WsClient.open(url_of(two), "Bob")
    first = await ann.call(CreateRoom(daily=True))
    second = await bob.call(CreateRoom(daily=True, seats=3))
    assert isinstance(first, RoomState) and isinstance(second, RoomState)
    assert isinstance(one.clock, FakeClock)
    number, _ = await off_the_loop("seahaven", one.clock.now())
    assert first.daily == second.daily == utc_date(one.clock.now()).isoformat()
    assert first.deal == second.deal == encode("seahaven", number)  # public: it is everyone's deal today
    rooms = await ann.call(ListRooms())
    assert isinstance(rooms, Rooms)
    assert [r.daily for r in rooms.rooms if r.room == first.room] == [first.daily]
    cid = await WsClient.open(url_of(one), "Cid")
    refused = await cid.error(CreateRoom(daily=True, deal_number=3))
    assert refused.code == ErrorCode.BAD_FIELD
    for client in (ann, bob, cid):
        await client.close()


async def test_a_daily_race_puts_its_finishers_on_the_daily_board(make_server: MakeServer) -> None:
    one, two = await make_server(), await make_server()
    ann, bob = [await WsClient.open(url_of(one), name) for name in ("Ann", "Bob")]
    state = await ann.call(QuickMatch(daily=True))
    assert isinstance(state, RoomState) and state.daily is not None
    joined = await bob.call(QuickMatch(daily=True))
    assert isinstance(joined, RoomState) and joined.room == state.room  # daily quick match pairs them
    clock = one.clock
    assert isinstance(clock, FakeClock)
    number, moves = await off_the_loop("seahaven", clock.now())
    for client in (ann, bob):
        assert isinstance(await client.call(Ready()), Ok)
    await ann.expect(Started)
    clock.advance(61_500)
    for move in moves:
        assert isinstance(await ann.call(MoveRequest(move=move)), Moved)
    result = await bob.expect(Result)
    assert result.standings[0].player == ann.player and result.standings[0].time_ms == 61_500
    # Whoever hears the result finds the finish on the board at once (it is written before).
    at_once = await bob.call(DailyBoardRequest())
    assert isinstance(at_once, DailyBoard) and [e.player for e in at_once.entries] == [ann.player]
    # Another node sees the board (memory servers in this test share one, as Redis nodes do).
    cid = await WsClient.open(url_of(two), "Cid")
    board = await cid.call(DailyBoardRequest())
    assert isinstance(board, DailyBoard)
    assert (board.preset, board.date, board.deal) == ("seahaven", state.daily, encode("seahaven", number))
    assert [(e.place, e.player, e.name, e.time_ms) for e in board.entries] == [(1, ann.player, "Ann", 61_500)]
    empty = await cid.call(DailyBoardRequest(preset="freecell"))
    assert isinstance(empty, DailyBoard) and empty.entries == ()
    for client in (ann, bob, cid):
        await client.close()


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_a_daily_board_keeps_each_racers_best_time_for_a_week(kind: str, request: pytest.FixtureRequest) -> None:
    store: Store = MemoryStore() if kind == "memory" else RedisStore(request.getfixturevalue("redis_url"), prefix="t:")
    times = DailyTimes(store)
    day = datetime.date(2026, 11, 30)
    try:
        await times.record("seahaven", day, DailyTime("pA", "Ann", 5000))
        await times.record("seahaven", day, DailyTime("pA", "Ann", 7000))  # slower: not kept
        await times.record("seahaven", day, DailyTime("pB", "Bob", 3000))
        await times.record("freecell", day, DailyTime("pC", "Cid", 1000))  # another preset's board
        await times.record("seahaven", day + datetime.timedelta(days=1), DailyTime("pD", "Dan", 10))  # another day's
        best = await times.best("seahaven", day)
        assert best == [DailyTime("pB", "Bob", 3000), DailyTime("pA", "Ann", 5000)]
        assert await times.best("seahaven", day, count=1) == [DailyTime("pB", "Bob", 3000)]
        if isinstance(store, RedisStore):
            client = redis.asyncio.Redis.from_url(request.getfixturevalue("redis_url"))
            ttl = await client.ttl("t:daily:seahaven:2026-11-30")  # the key of the boards before the store held them
            await client.aclose()
            assert 0 < ttl <= BOARD_TTL
    finally:
        await store.close()
