"""docs/protocol.md and the server agree: each place an outside reader found them apart, settled
one way or the other, checked on the wire (a bare client against a real server on loopback)."""

from __future__ import annotations

import re

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol.codec import SUBPROTOCOL, decode_server
from protocol.enums import Phase, Status
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import (
    CreateRoom,
    Error,
    HintRequest,
    JoinRoom,
    ListRooms,
    Members,
    Moved,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    QuickMatch,
    Ready,
    Rooms,
    RoomState,
    Welcome,
)
from protocol.schema import Message
from server.play.bot import PACES
from server.rooms.events import NewDeal
from server.rooms.room import MAX_CHANGES, Room, RoomError, Seat
from server.rooms.settings import Settings
from tests.helpers import MakeServer, server_factory, url_of
from tests.protocol_doc import DOC, section
from tests.racing import DEAL
from tests.wsclient import WsClient, race_of_two


async def seq_is_free(client: WsClient, seq: int) -> None:
    """A request with ``seq`` is executed (a ping answered now), not answered from memory: the
    error that ``seq`` got before did not use it up."""
    assert isinstance(await client.call(Ping(), seq), Pong)


async def refused(client: WsClient, message: Message, code: ErrorCode, text: str | None = None) -> int:
    seq = await client.send(message)
    answer = await client.reply(seq)
    assert isinstance(answer, Error) and answer.code == code, answer
    if text is not None:
        assert answer.message == text
    return seq


async def reply_bytes(client: WsClient, seq: int) -> bytes:
    """The frame that answers ``seq``, as it came (events before it are passed over)."""
    while True:
        data = await client.ws.recv()
        assert isinstance(data, bytes)
        if decode_server(data)[0] == seq:
            return data


# -- validation errors do not use up the seq (section 4) -----------------------------------------


async def test_a_move_that_does_not_read_is_a_validation_error(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    ann, bob = await WsClient.open(url_of(server), "Ann"), await WsClient.open(url_of(server), "Bob")
    await race_of_two(ann, bob, CreateRoom(deal_number=DEAL))
    text = "body.move: 'zz': 'z' is not a source; use 1-9 and 0 for columns, a-h for cells, # for foundations"
    seq = await refused(ann, MoveRequest(move="zz"), ErrorCode.BAD_FIELD, text)
    moved = await ann.call(MoveRequest(move="3c"), seq)  # the same seq: played, not the error again
    assert isinstance(moved, Moved) and moved.move == "3c"


async def test_a_move_that_does_not_read_is_bad_field_even_outside_a_room(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    eve = await WsClient.open(url_of(server), "Eve")
    await refused(eve, MoveRequest(move="3x"), ErrorCode.BAD_FIELD)  # the body first, then the room
    assert (await eve.error(MoveRequest(move="3c"))).code == ErrorCode.NOT_IN_ROOM


async def test_a_cursor_the_server_never_gave_is_a_validation_error(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    eve = await WsClient.open(url_of(server), "Eve")
    for cursor in ("zz", "2.ABCDEF", "0.", "0.AB-CD"):
        seq = await refused(
            eve, ListRooms(cursor=cursor), ErrorCode.BAD_FIELD, "body.cursor: not a cursor this server gave"
        )
        await seq_is_free(eve, seq)
    # A well-formed cursor names a place in the lobby order, whether or not a room is there now.
    page = await eve.call(ListRooms(cursor="0.ZZZZZZ"))
    assert not isinstance(page, Error)


SECRET_DEAL = "a rated race takes a deal the server picks in secret: no deal, deal_code or daily"


@pytest.mark.parametrize(
    ("message", "text"),
    [
        (
            CreateRoom(any_deal=True, deal_grade="tricky"),
            "any_deal takes no deal_grade: graded deals are winnable ones",
        ),
        (CreateRoom(deal_number=1, deal_code="SH1-ST-0001G"), "give deal_number or deal_code, not both"),
        (CreateRoom(deal_number=1, deal_grade="gentle"), "a chosen deal takes neither any_deal nor deal_grade"),
        (CreateRoom(daily=True, any_deal=True), "a daily race takes no deal, any_deal or deal_grade"),
        (QuickMatch(daily=True, deal_grade="fiendish"), "a daily race takes no deal_grade"),
        (CreateRoom(rated=True, hints=True), "a rated race takes no hints"),
        *((CreateRoom(rated=True, **chosen), SECRET_DEAL) for chosen in ({"deal_number": 7}, {"daily": True})),
        (CreateRoom(rated=True, deal_code="SH1-ST-0001G"), SECRET_DEAL),
    ],
)
async def test_fields_that_do_not_go_together_are_refused_everywhere(
    make_memory_server: MakeServer, message: Message, text: str
) -> None:
    server = await make_memory_server()
    eve = await WsClient.open(url_of(server), "Eve")
    seq = await refused(eve, message, ErrorCode.BAD_FIELD, text)
    await seq_is_free(eve, seq)
    assert not server.rooms  # nothing was created


async def test_a_nil_body_reads_as_an_empty_one(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    async with connect(url_of(server), subprotocols=[SUBPROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(msgpack.packb({"type": "hello", "seq": 1, "body": {"name": "Ann"}}))
        assert isinstance(decode_server(await ws.recv())[1], Welcome)
        await ws.send(msgpack.packb({"type": "ping", "seq": 2, "body": None}))
        assert decode_server(await ws.recv()) == (2, Pong(server_time=server.clock.now()))
        await ws.send(msgpack.packb({"type": "ping", "seq": 3, "body": []}))
        re, error = decode_server(await ws.recv())
        assert re == 3 and error == Error(code="bad-field", message="body: expected a map, got an array of 0")


async def test_nil_is_refused_where_the_type_has_no_nil(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    async with connect(url_of(server), subprotocols=[SUBPROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(msgpack.packb({"type": "hello", "seq": 1, "body": {"name": "Ann"}}))
        await ws.recv()
        await ws.send(msgpack.packb({"type": "list_rooms", "seq": 2, "body": {"limit": None}}))
        _, error = decode_server(await ws.recv())
        assert error == Error(code="bad-field", message="body.limit: expected an integer, got None")


# -- the seq memory after a restart (sections 4 and 20) --------------------------------------------


async def test_a_restart_on_redis_keeps_last_seq_with_the_room(request: pytest.FixtureRequest) -> None:
    async with server_factory("redis", request) as make:
        first = await make()
        ann = await WsClient.open(url_of(first), "Ann")
        eve = await WsClient.open(url_of(first), "Eve")
        assert isinstance(await ann.call(CreateRoom()), RoomState)
        ready = await ann.send(Ready())
        answer = await reply_bytes(ann, ready)
        assert decode_server(answer) == (ready, Ok())
        await ann.call(Ping())  # changes no room: not kept past the restart
        await first.stop()
        second = await make()
        back = await WsClient.open(url_of(second), "Ann", token=ann.token)
        assert back.welcome is not None and back.welcome.last_seq == ready
        await back.expect(RoomState)
        await back.send(Ready(ready=False), ready)  # a resend: the original reply, not played again
        assert await reply_bytes(back, ready) == answer
        outside = await WsClient.open(url_of(second), "Eve", token=eve.token)
        assert outside.welcome is not None and outside.welcome.last_seq == -1  # in no room
    assert "a session still in a room gets that request's `seq` as `last_seq`" in DOC[DOC.index("\n## 20. ") :]


# -- closes ---------------------------------------------------------------------------------------


async def test_the_1009_close_reasons_are_the_documented_ones(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    reasons = []
    for message in (b"x" * 5000, [b"x" * 3000, b"y" * 3000]):
        async with connect(url_of(server), subprotocols=[SUBPROTOCOL]) as ws:  # type: ignore[list-item]
            await ws.send(message)
            with pytest.raises(ConnectionClosed):
                await ws.recv()
            assert ws.close_code == CloseCode.TOO_BIG
            reasons.append(ws.close_reason)
    assert reasons == [
        "frame with 5000 bytes exceeds limit of 4096 bytes",
        "frame with 3000 bytes after reading 3000 bytes exceeds limit of 4096 bytes",
    ]
    for reason in ("frame with N bytes exceeds limit of 4096 bytes", "after reading M bytes exceeds limit of 4096"):
        assert reason in section(12)


# -- limits ---------------------------------------------------------------------------------------


async def test_the_creator_has_all_50_ready_changes(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    ann = await WsClient.open(url_of(server), "Ann")
    assert isinstance(await ann.call(CreateRoom()), RoomState)
    for n in range(MAX_CHANGES):
        assert isinstance(await ann.call(Ready(ready=n % 2 == 0)), Ok), n
    refusal = await ann.error(Ready(ready=True))
    assert refusal.code == ErrorCode.RATE_LIMITED
    assert refusal.message == "50 joins and ready changes in one room: wait for the next race"
    assert MAX_CHANGES == 50 and "| joins and ready changes | 50 per player" in section(13)


async def test_a_joiner_counts_their_join(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    ann, bob = await WsClient.open(url_of(server), "Ann"), await WsClient.open(url_of(server), "Bob")
    state = await ann.call(CreateRoom(seats=3))
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    for n in range(MAX_CHANGES - 1):
        assert isinstance(await bob.call(Ready(ready=n % 2 == 0)), Ok), n
    assert (await bob.error(Ready(ready=False))).code == ErrorCode.RATE_LIMITED


# -- deals shown before the start -----------------------------------------------------------------


async def test_a_daily_room_shows_its_deal_before_the_start(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    ann = await WsClient.open(url_of(server), "Ann")
    state = await ann.call(CreateRoom(daily=True))
    assert isinstance(state, RoomState) and state.phase == Phase.WAITING and state.deal is not None
    rooms = await ann.call(ListRooms())
    assert isinstance(rooms, Rooms) and [r.deal for r in rooms.rooms] == [state.deal]


def test_a_daily_rematch_shows_its_deal_and_another_rematch_does_not() -> None:
    for daily, shown in (("2026-11-30", True), (None, False)):
        room = Room("AZ4K0S", Settings(preset="seahaven", deal=5, chosen=True, daily=daily), 0)
        room.apply(NewDeal(1, 7))
        assert (room.summary().deal is not None) is shown
        assert (room.state_for("pX", 1).deal is not None) is shown


# -- bots -----------------------------------------------------------------------------------------


async def test_a_bot_is_seated_waiting_then_ready_with_a_bot_id(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    ann = await WsClient.open(url_of(server), "Ann")
    state = await ann.call(CreateRoom(bot="brisk", deal_number=DEAL))
    assert isinstance(state, RoomState) and [r.player for r in state.racers] == [ann.player]
    seen: list[Members] = []
    while len(seen) < 3:
        seen.append(await ann.expect(Members))
    assert [[(r.name, r.status, r.bot) for r in m.racers] for m in seen] == [
        [("Ann", "waiting", False)],
        [("Ann", "waiting", False), ("Computer (brisk)", "waiting", True)],
        [("Ann", "waiting", False), ("Computer (brisk)", "ready", True)],
    ]
    assert re.fullmatch(r"bot-[0-9a-f]{8}", seen[-1].racers[1].player)
    assert "`bot-` followed by 8 lower-case hex digits" in section(1)


def test_the_documented_bot_paces_are_the_bots() -> None:
    rows = re.findall(r"^\s*\| `(\w+)` \| ([\d.]+) s \| ([\d.]+) s \| ([\d.]+) s \|", section(6), re.M)
    assert {name for name, *_ in rows} == set(PACES)
    for name, first, think, home in rows:
        pace = PACES[name]
        assert (float(first), float(think), float(home)) == (
            pace.first_look_ms / 1000,
            pace.think_ms / 1000,
            pace.home_ms / 1000,
        )


# -- error orders and lists -----------------------------------------------------------------------


async def test_hint_errors_come_in_the_documented_order(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    ann, sue = await WsClient.open(url_of(server), "Ann"), await WsClient.open(url_of(server), "Sue")
    assert (await sue.error(HintRequest())).code == ErrorCode.NOT_IN_ROOM
    state = await ann.call(CreateRoom())
    assert isinstance(state, RoomState)
    assert isinstance(await sue.call(JoinRoom(room=state.room, spectate=True)), RoomState)
    assert (await sue.error(HintRequest())).code == ErrorCode.NOT_A_RACER  # before hints-off
    assert (await ann.error(HintRequest())).code == ErrorCode.HINTS_OFF
    assert "`not-in-room`, `not-a-racer`, `hints-off`" in section(6)


def test_a_stuck_racer_without_undo_cannot_resign() -> None:
    for undo, allowed in ((True, True), (False, False)):
        room = Room("AZ4K0S", Settings(preset="seahaven", deal=1, undo=undo), 0)
        room.phase = Phase.RACING
        _seat(room, "pA", Status.STUCK)
        _seat(room, "pB", Status.RACING)
        if allowed:
            assert room.resign("pA", 1)
        else:
            with pytest.raises(RoomError) as refusal:
                room.resign("pA", 1)
            assert refusal.value.code == ErrorCode.NOT_RACING
    assert "or `stuck` in a room with undo" in section(6)
    assert "`stuck` (with undo on or off)" not in DOC


def _seat(room: Room, player: str, status: Status) -> None:
    room.seats[player] = Seat(player, status=status)
