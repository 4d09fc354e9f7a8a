"""The race server end to end: real sockets on loopback, on both stores."""

from __future__ import annotations

import asyncio
import logging
import urllib.request
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol.codec import SUBPROTOCOL, decode_server
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import (
    Countdown,
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    Leave,
    ListRooms,
    Members,
    Moved,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    Progress,
    QuickMatch,
    Ready,
    Rematch,
    Resign,
    Result,
    Rooms,
    RoomState,
    Started,
    Undo,
    Welcome,
)
from seahaven import Board, parse_board
from seahaven import encode as encode_deal
from server.app import RaceServer
from server.rooms.events import Left, pack, unpack
from server.rooms.events import Moved as MovedEvent
from server.rooms.room import Room
from server.shell.clock import SystemClock
from server.store.stores import RedisStore
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.racing import DEAL, room_with, solution, start_race
from tests.redis_proc import RedisProcess
from tests.wsclient import WsClient


async def test_a_whole_race_two_racers_and_a_spectator(make_server: MakeServer) -> None:
    server = await make_server()
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    assert state.phase == "waiting" and state.deal == encode_deal("seahaven", DEAL)  # chosen: shown
    eve = await WsClient.open(url_of(server), "Eve")
    watching = await eve.call(JoinRoom(room=state.room, spectate=True))
    assert isinstance(watching, RoomState) and watching.role == "spectator"

    started = await start_race([ann, bob])
    assert (await eve.expect(Started)).board == started.board
    assert parse_board(started.board, "seahaven") == Board.deal("seahaven", DEAL)

    # Bob makes one move; Ann then plays a whole solution.
    bob_move = await bob.call(MoveRequest(move=str(solution()[0])))
    assert isinstance(bob_move, Moved) and bob_move.moves == 1
    for watcher in (ann, eve):
        seen = await watcher.expect(Progress)
        assert (seen.player, seen.moves) == (bob.player, 1)

    progress = 0
    for n, move in enumerate(solution(), start=1):
        reply = await ann.call(MoveRequest(move=str(move)))
        assert isinstance(reply, Moved), reply
        assert reply.moves == n and reply.progress >= progress
        progress = reply.progress
        for watcher in (bob, eve):  # every accepted move reaches the rival and the spectator
            seen = await watcher.expect(Progress)
            assert (seen.player, seen.moves, seen.progress) == (ann.player, n, reply.progress)
            assert seen.move == (str(move) if watcher is eve else None)  # only spectators see moves
    assert isinstance(reply, Moved) and reply.status == "finished" and reply.progress == 52

    for client in (ann, bob, eve):
        result = await client.expect(Result)
        assert result.reason == "won"
        assert [(s.place, s.player) for s in result.standings] == [(1, ann.player), (2, bob.player)]
        assert result.standings[0].time_ms is not None and result.standings[1].progress == bob_move.progress

    late = await bob.error(MoveRequest(move=str(solution()[1])))
    assert late.code == ErrorCode.RACE_OVER


async def test_early_illegal_and_foreign_moves_are_refused_and_change_nothing(make_server: MakeServer) -> None:
    server = await make_server()
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    early = await ann.error(MoveRequest(move=str(solution()[0])))
    assert early.code == ErrorCode.NOT_STARTED
    await start_race([ann, bob])

    illegal = await ann.error(MoveRequest(move="1#"))
    assert illegal.code == ErrorCode.ILLEGAL_MOVE and "foundation" in illegal.message
    nonsense = await ann.error(MoveRequest(move="x9"))
    assert nonsense.code == ErrorCode.BAD_FIELD

    stranger = await WsClient.open(url_of(server), "Mallory")
    foreign = await stranger.error(MoveRequest(move=str(solution()[0])))
    assert foreign.code == ErrorCode.NOT_IN_ROOM
    spectator = await WsClient.open(url_of(server), "Sam")
    await spectator.call(JoinRoom(room=state.room, spectate=True))
    assert (await spectator.error(MoveRequest(move=str(solution()[0])))).code == ErrorCode.NOT_A_RACER

    # Nothing changed: the first move of the solution is still Ann's first accepted move.
    first = await ann.call(MoveRequest(move=str(solution()[0])))
    assert isinstance(first, Moved) and first.moves == 1


async def test_undo_then_resend_of_a_seq_is_answered_again_not_replayed(make_server: MakeServer) -> None:
    server = await make_server()
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    seq = await ann.send(MoveRequest(move=str(solution()[0])))
    first = await ann.reply(seq)
    again = await ann.call(MoveRequest(move=str(solution()[0])), seq=seq)
    assert first == again and isinstance(again, Moved) and again.moves == 1
    older = await ann.call(Ping(), seq=1)
    assert isinstance(older, Error) and older.code == ErrorCode.BAD_SEQ
    undone = await ann.call(Undo())
    assert isinstance(undone, Moved) and undone.undo and undone.moves == 2 and undone.progress == 0


async def test_reconnect_within_grace_keeps_seat_and_state(make_server: MakeServer) -> None:
    server = await make_server(grace_ms=5_000)
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    started = await start_race([ann, bob])
    for move in solution()[:10]:
        assert isinstance(await bob.call(MoveRequest(move=str(move))), Moved)
    await ann.settle()
    await bob.close()
    gone = await ann.expect(Members)
    assert [r.connected for r in gone.racers if r.player == bob.player] == [False]

    back = await WsClient.open(url_of(server), "Bob", token=bob.token)
    assert back.player == bob.player and back.welcome is not None and back.welcome.room is not None
    state = await back.expect(RoomState)
    assert state.phase == "racing" and list(state.history) == [str(m) for m in solution()[:10]]
    assert state.started_at == started.started_at  # the race clock kept running
    board = Board.deal("seahaven", DEAL)
    for move in solution()[:10]:
        board.push(move)
    assert state.board is not None and parse_board(state.board, "seahaven") == board
    assert [r.connected for r in (await ann.expect(Members)).racers] == [True, True]
    nxt = await back.call(MoveRequest(move=str(solution()[10])))
    assert isinstance(nxt, Moved) and nxt.moves == 11


async def test_after_grace_the_seat_is_forfeit(make_server: MakeServer) -> None:
    server = await make_server(grace_ms=300)
    (ann, bob), _ = await room_with(server, "Ann", "Bob", undo=True)
    await start_race([ann, bob])
    await bob.close()
    await ann.expect(Members, where=lambda m: not all(r.connected for r in m.racers))  # the drop is recorded
    fake(server).advance(300)
    forfeit = await ann.expect(Progress)
    assert (forfeit.player, forfeit.status) == (bob.player, "forfeit")
    back = await WsClient.open(url_of(server), "Bob", token=bob.token)
    state = await back.expect(RoomState)
    assert [r.status for r in state.racers if r.player == bob.player] == ["forfeit"]
    assert (await back.error(MoveRequest(move=str(solution()[0])))).code == ErrorCode.NOT_RACING


async def test_stale_or_forged_tokens_are_refused(make_server: MakeServer) -> None:
    server = await make_server()
    client = await WsClient.open(url_of(server))
    forged = await client.call(Hello(name="Ann", token="A" * 32))
    assert isinstance(forged, Error) and forged.code == ErrorCode.BAD_TOKEN
    ok = await client.call(Hello(name="Ann"))
    assert isinstance(ok, Welcome)


async def test_a_second_connection_with_the_token_replaces_the_first(make_server: MakeServer) -> None:
    server = await make_server()
    first = await WsClient.open(url_of(server), "Ann")
    second = await WsClient.open(url_of(server), "Ann", token=first.token)
    assert second.player == first.player
    with pytest.raises(ConnectionClosed) as info:
        await first.call(Ping())
    assert info.value.rcvd is not None and info.value.rcvd.code == CloseCode.REPLACED
    assert isinstance(await second.call(Ping()), Pong)


async def test_lobby_lists_public_rooms_with_live_counts(make_server: MakeServer) -> None:
    server = await make_server()
    (ann,), public = await room_with(server, "Ann")
    carol = await WsClient.open(url_of(server), "Carol")
    private = await carol.call(CreateRoom(public=False, preset="freecell"))
    assert isinstance(private, RoomState)
    viewer = await WsClient.open(url_of(server), "Viewer")
    rooms = await viewer.call(ListRooms())
    assert isinstance(rooms, Rooms)
    assert [(r.room, r.racers, r.seats, r.phase) for r in rooms.rooms] == [(public.room, 1, 2, "waiting")]
    bob = await WsClient.open(url_of(server), "Bob")
    await bob.call(JoinRoom(room=public.room))
    await viewer.call(JoinRoom(room=public.room, spectate=True))
    listed = await WsClient.open(url_of(server), "Other")
    rooms = await listed.call(ListRooms(preset="seahaven"))
    assert isinstance(rooms, Rooms) and [(r.racers, r.spectators) for r in rooms.rooms] == [(2, 1)]
    assert isinstance(await bob.call(Leave()), Ok)
    rooms = await listed.call(ListRooms(preset="freecell"))
    assert isinstance(rooms, Rooms) and rooms.rooms == ()
    # When the last racer leaves a waiting room, it leaves the lobby too.
    assert isinstance(await viewer.call(Leave()), Ok)
    assert isinstance(await ann.call(Leave()), Ok)
    rooms = await listed.call(ListRooms())
    assert isinstance(rooms, Rooms) and public.room not in [r.room for r in rooms.rooms]


async def test_quick_match_pairs_two_waiting_players(make_server: MakeServer) -> None:
    server = await make_server()
    ann = await WsClient.open(url_of(server), "Ann")
    bob = await WsClient.open(url_of(server), "Bob")
    first = await ann.call(QuickMatch(preset="seahaven"))
    second = await bob.call(QuickMatch(preset="seahaven"))
    assert isinstance(first, RoomState) and isinstance(second, RoomState)
    assert first.room == second.room and len(second.racers) == 2
    carol = await WsClient.open(url_of(server), "Carol")
    third = await carol.call(QuickMatch(preset="seahaven"))
    assert isinstance(third, RoomState) and third.room != first.room


async def test_join_errors(make_server: MakeServer) -> None:
    server = await make_server()
    (ann, _), state = await room_with(server, "Ann", "Bob")
    carol = await WsClient.open(url_of(server), "Carol")
    assert (await carol.error(JoinRoom(room="ZZZZZZ"))).code == ErrorCode.ROOM_NOT_FOUND
    assert (await carol.error(JoinRoom(room=state.room))).code == ErrorCode.ROOM_FULL
    assert (await ann.error(CreateRoom())).code == ErrorCode.ALREADY_IN_ROOM
    assert (await carol.error(CreateRoom(deal_code="SH1-ST-0001H"))).code == ErrorCode.BAD_DEAL
    by_code = await carol.call(CreateRoom(deal_code="sh1-fc-0bpeh"))
    assert isinstance(by_code, RoomState) and by_code.preset == "freecell"


async def test_rematch_deals_a_new_race(make_server: MakeServer) -> None:
    server = await make_server()
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    first = await start_race([ann, bob])
    for client in (ann, bob):
        await client.call(MoveRequest(move=str(solution()[0])))
    await ann.call(Resign())
    await bob.call(Resign())
    await ann.expect(Result)
    assert isinstance(await ann.call(Rematch()), Ok)
    assert isinstance(await bob.call(Rematch()), Ok)
    for client in (ann, bob):
        state = await client.expect(RoomState)
        assert state.phase == "countdown"
    again = [await c.expect(Started) for c in (ann, bob)]
    assert again[0].deal == again[1].deal != first.deal


@pytest.mark.parametrize("goes", ["leaves", "drops"])
async def test_a_rematch_starts_when_the_last_racer_who_had_not_voted_goes(make_server: MakeServer, goes: str) -> None:
    """Three racers, two vote; the third leaves (or their connection drops): every racer still
    connected has voted, so the rematch starts without another vote."""
    server = await make_server()
    (ann, bob, carol), _ = await room_with(server, "Ann", "Bob", "Carol")
    first = await start_race([ann, bob, carol])
    for client in (ann, bob, carol):
        await client.call(Resign())
    await ann.expect(Result)
    assert isinstance(await ann.call(Rematch()), Ok)
    assert isinstance(await bob.call(Rematch()), Ok)
    await asyncio.sleep(0.2)
    assert all(not isinstance(e, Started) for e in ann.events), "no rematch before Carol goes"
    if goes == "leaves":
        assert isinstance(await carol.call(Leave()), Ok)
    else:
        await carol.close()
    state = await ann.expect(RoomState, where=lambda s: s.phase == "countdown")
    assert sorted(r.name for r in state.racers) == ["Ann", "Bob"]
    again = [await c.expect(Started) for c in (ann, bob)]
    assert again[0].deal == again[1].deal != first.deal


async def test_bad_input_gets_an_error_and_everyone_else_is_still_served(make_server: MakeServer) -> None:
    server = await make_server()
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    raw = ann.ws
    cases: list[tuple[bytes | str, ErrorCode]] = [
        (b"\xc1\x00garbage", ErrorCode.BAD_FRAME),
        ("hello as text", ErrorCode.BAD_FRAME),
        (msgpack.packb([1, 2, 3]), ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": "ping", "seq": 100}) + b"\x00", ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": "dance", "seq": 101, "body": {}}), ErrorCode.UNKNOWN_TYPE),
        (msgpack.packb({"type": "move", "seq": 102, "body": {"move": 42}}), ErrorCode.BAD_FIELD),
        (msgpack.packb({"type": "move", "seq": 103, "body": {"move": "1a", "x": 1}}), ErrorCode.BAD_FIELD),
        (msgpack.packb({"type": "move", "seq": 104, "body": {}}), ErrorCode.BAD_FIELD),
        (msgpack.packb({"type": "ping", "seq": "7", "body": {}}), ErrorCode.BAD_SEQ),
        (msgpack.packb({"type": "ready", "seq": 105, "body": {"ready": 1}}), ErrorCode.BAD_FIELD),
    ]
    for frame, code in cases:
        await raw.send(frame)
        while True:
            _, message = decode_server(await asyncio.wait_for(raw.recv(), 5))
            if isinstance(message, Error):
                break
        assert message.code == code, (frame, message)
    ann.seq = 200
    assert isinstance(await ann.call(Ping()), Pong)
    assert isinstance(await bob.call(MoveRequest(move=str(solution()[0]))), Moved)

    # An oversized frame closes that connection (1009); the others carry on.
    await raw.send(b"\x00" * 10_000)
    with pytest.raises(ConnectionClosed) as info:
        while True:
            await asyncio.wait_for(raw.recv(), 5)
    assert info.value.rcvd is not None and info.value.rcvd.code == CloseCode.TOO_BIG
    assert isinstance(await bob.call(MoveRequest(move=str(solution()[1]))), Moved)


async def test_hello_comes_first(make_server: MakeServer) -> None:
    server = await make_server()
    client = await WsClient.open(url_of(server))
    assert (await client.error(ListRooms())).code == ErrorCode.HELLO_FIRST


async def test_before_hello_frame_errors_win_and_deep_nesting_costs_nothing(make_server: MakeServer) -> None:
    server = await make_server()
    client = await WsClient.open(url_of(server))
    frames = [
        (b"\x81\xa1a" * 339 + b"\xc0", None, ErrorCode.BAD_FRAME),  # 1018 bytes of nested maps
        (msgpack.packb({"type": "ping", "seq": 3, "body": {"x": b"ab"}}), 3, ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": "ping", "body": {}}), None, ErrorCode.BAD_SEQ),
        (msgpack.packb({"type": "dance", "seq": 4, "body": {}}), 4, ErrorCode.UNKNOWN_TYPE),
        (msgpack.packb({"type": "ping", "seq": 5, "body": {}}), 5, ErrorCode.HELLO_FIRST),
    ]
    for frame, re, code in frames:
        await client.ws.send(frame)
        answer_re, answer = decode_server(await asyncio.wait_for(client.ws.recv(), 5))
        assert isinstance(answer, Error) and (answer_re, answer.code) == (re, code)
    assert isinstance(await client.call(Hello(name="Ann"), seq=6), Welcome)  # still connected


async def test_floods_are_limited_then_closed(make_server: MakeServer) -> None:
    server = await make_server(rate=1.0, burst=3, strikes=5)
    client = await WsClient.open(url_of(server), "Flood")
    other = await WsClient.open(url_of(server), "Calm")
    codes = []
    with pytest.raises(ConnectionClosed) as info:
        for _ in range(20):
            answer = await client.call(Ping())
            codes.append(answer.code if isinstance(answer, Error) else "pong")
    assert codes[:2] == ["pong", "pong"] and ErrorCode.RATE_LIMITED in codes
    assert info.value.rcvd is not None and info.value.rcvd.code == CloseCode.POLICY
    assert isinstance(await other.call(Ping()), Pong)


@pytest.mark.parametrize("offered", [None, ["seahaven.v0"]])
async def test_a_protocol_version_mismatch_is_closed_with_a_reason(make_server: MakeServer, offered: Any) -> None:
    server = await make_server()
    async with connect(url_of(server), subprotocols=offered) as ws:
        with pytest.raises(ConnectionClosed) as info:
            await asyncio.wait_for(ws.recv(), 5)
    assert info.value.rcvd is not None and info.value.rcvd.code == CloseCode.VERSION_MISMATCH
    assert SUBPROTOCOL in info.value.rcvd.reason


async def test_healthz(make_server: MakeServer) -> None:
    server = await make_server()

    def fetch() -> tuple[int, bytes]:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5) as response:
            return response.status, response.read()

    assert await asyncio.to_thread(fetch) == (200, b"ok\nstore: ok\ndatabase: off\narchive backlog: 0\n")


async def race_then_resign(server: RaceServer) -> tuple[WsClient, WsClient, RoomState]:
    """A race between Ann and Bob that both resign: a finished room."""
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    await ann.call(Resign())
    await bob.call(Resign())
    await ann.expect(Result)
    assert await server.store.load(state.room)
    return ann, bob, state


async def log_expires(server: RaceServer, room: str) -> None:
    async def expired() -> bool:
        return await server.store.load(room) == []  # a store drops an expired log when read

    await wait_until(expired, what=f"room {room}'s log expired")


async def test_finished_rooms_expire_from_the_store(make_server: MakeServer, backend: str) -> None:
    server = await make_server(finished_ttl=0.3)
    _, _, state = await race_then_resign(server)
    await log_expires(server, state.room)
    assert state.room not in await server.store.listings()


async def test_store_outage_refuses_the_move_and_loses_nothing(
    make_redis_server: MakeServer, redis_proc: RedisProcess
) -> None:
    server = await make_redis_server()
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    assert isinstance(await ann.call(MoveRequest(move=str(solution()[0]))), Moved)
    carol = await WsClient.open(url_of(server), "Carol")
    redis_proc.stop()
    down = await ann.error(MoveRequest(move=str(solution()[1])))
    assert down.code == ErrorCode.STORE_UNAVAILABLE
    newcomer = await WsClient.open(url_of(server))
    assert (await newcomer.error(Hello(name="Late"))).code == ErrorCode.STORE_UNAVAILABLE
    rooms_before = set(server.rooms)
    assert (await carol.error(CreateRoom())).code == ErrorCode.STORE_UNAVAILABLE
    assert set(server.rooms) == rooms_before  # a room whose creation failed is not kept
    assert (await newcomer.error(Ping())).code == ErrorCode.HELLO_FIRST  # still connected, still served
    redis_proc.start()
    again = await ann.call(MoveRequest(move=str(solution()[1])))
    assert isinstance(again, Moved) and again.moves == 2


async def test_a_racer_who_leaves_mid_race_hears_no_more_of_it(make_server: MakeServer) -> None:
    server = await make_server()
    (ann, bob, cid), state = await room_with(server, "Ann", "Bob", "Cid")
    await start_race([ann, bob, cid])
    assert isinstance(await cid.call(Leave()), Ok)
    await cid.settle()
    await ann.call(MoveRequest(move=str(solution()[0])))
    assert await bob.expect(Progress)
    assert [m for m in await cid.settle() if isinstance(m, Progress)] == []
    elsewhere = await cid.call(CreateRoom())
    assert isinstance(elsewhere, RoomState) and elsewhere.room != state.room


async def test_quick_match_skips_rooms_whose_only_racer_dropped(make_server: MakeServer) -> None:
    server = await make_server(grace_ms=10_000)
    ann = await WsClient.open(url_of(server), "Ann")
    first = await ann.call(QuickMatch(preset="seahaven"))
    assert isinstance(first, RoomState)
    eve = await WsClient.open(url_of(server), "Eve")
    await eve.call(JoinRoom(room=first.room, spectate=True))
    await ann.close()
    await eve.expect(Members, where=lambda m: [r.connected for r in m.racers] == [False])  # the drop is recorded
    bob = await WsClient.open(url_of(server), "Bob")
    second = await bob.call(QuickMatch(preset="seahaven"))
    assert isinstance(second, RoomState) and second.room != first.room


async def test_a_room_whose_stored_log_expired_under_it_writes_it_again(make_server: MakeServer) -> None:
    server = await make_server(finished_ttl=0.2)
    ann, bob, state = await race_then_resign(server)
    await log_expires(server, state.room)  # players linger on the results longer than the finished TTL
    assert isinstance(await ann.call(Rematch()), Ok)
    assert isinstance(await bob.call(Rematch()), Ok)
    await ann.expect(Started)
    stored = [unpack(d) for d in await server.store.load(state.room)]
    assert Room.replay(stored).phase == "racing"  # the whole history is back, Created first


async def test_concurrent_joins_of_a_room_loaded_from_the_store_respect_its_seats(
    make_redis_server: MakeServer,
) -> None:
    first = await make_redis_server()
    _, state = await room_with(first, "Ann")
    server = await make_redis_server()  # a second node on the same Redis: it loads the room from the store
    assert await server.store.load(state.room)
    clients = [await WsClient.open(url_of(server), f"P{i}") for i in range(4)]
    answers = await asyncio.gather(*(c.call(JoinRoom(room=state.room)) for c in clients))
    assert sorted(type(a).__name__ for a in answers) == ["Error", "Error", "Error", "RoomState"]
    assert {a.code for a in answers if isinstance(a, Error)} == {ErrorCode.ROOM_FULL}
    stored = Room.replay([unpack(d) for d in await server.store.load(state.room)])
    assert len(stored.seats) == 2


async def test_a_room_its_only_racer_left_before_the_race_takes_no_newcomer(make_server: MakeServer) -> None:
    server = await make_server()
    (gil,), state = await room_with(server, "Gil")
    await gil.call(Leave())
    jo = await WsClient.open(url_of(server), "Jo")
    refused = await jo.error(JoinRoom(room=state.room))
    assert refused.code == ErrorCode.ROOM_NOT_FOUND and "everyone left" in refused.message
    listed = await jo.call(ListRooms())
    assert isinstance(listed, Rooms) and not any(r.room == state.room for r in listed.rooms)


async def test_a_bad_room_log_does_not_stop_the_server_starting(make_redis_server: MakeServer) -> None:
    first = await make_redis_server()
    _, good = await room_with(first, "Ann", "Bob")
    await first.store.append("BADLOG", [pack(Left(1, "ghost"))], 60)  # no Created first
    await first.stop()
    second = await make_redis_server()
    eve = await WsClient.open(url_of(second), "Eve")
    assert (await eve.error(JoinRoom(room="BADLOG"))).code == ErrorCode.ROOM_NOT_FOUND
    assert isinstance(await eve.call(JoinRoom(room=good.room, spectate=True)), RoomState)


async def test_a_graceful_restart_keeps_the_race_even_past_the_grace(make_redis_server: MakeServer) -> None:
    first = await make_redis_server(grace_ms=300)
    (ann, bob), state = await room_with(first, "Ann", "Bob")
    eve = await WsClient.open(url_of(first), "Eve")
    await eve.call(JoinRoom(room=state.room, spectate=True))
    await start_race([ann, bob])
    await first.stop()
    fake(first).advance(500)  # longer than the grace period
    second = await make_redis_server(grace_ms=5_000)
    back = await WsClient.open(url_of(second), "Ann", token=ann.token)
    room = await back.expect(RoomState)
    assert room.phase == "racing" and [r.status for r in room.racers] == ["racing", "racing"]
    assert room.spectators == 0  # nobody is connected after a restart


async def test_a_store_outage_during_the_countdown_delays_the_start_but_does_not_lose_it(
    make_redis_server: MakeServer, redis_proc: RedisProcess, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seahaven")
    server = await make_redis_server(countdown_ms=300, clock=SystemClock())  # the store's outage is real time
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    await ann.call(Ready())
    await bob.call(Ready())
    redis_proc.stop()

    def start_failed() -> bool:  # the countdown ran out while the store was down
        return any("event=store.error" in r.getMessage() and state.room in r.getMessage() for r in caplog.records)

    await wait_until(start_failed, what="the start's store error")
    redis_proc.start()
    assert isinstance(await ann.expect(Started, wait=10), Started)


async def test_sessions_of_players_who_lost_their_seat_are_released(make_server: MakeServer) -> None:
    server = await make_server(grace_ms=200, clock=SystemClock())  # drops are noticed in the background
    for i in range(5):
        client = await WsClient.open(url_of(server), f"P{i}")
        await client.call(CreateRoom())
        await client.close()
    await wait_until(lambda: not server.sessions and not server.rooms, what="the sessions and rooms released")
    assert server.sessions == {} and server.players == {} and server.rooms == {}


async def test_guessing_room_codes_is_cut_short(make_server: MakeServer) -> None:
    server = await make_server()
    guesser = await WsClient.open(url_of(server), "Guess")
    codes = [(await guesser.error(JoinRoom(room=f"ZZZZ{i:02d}"))).code for i in range(21)]
    assert codes[:20] == [ErrorCode.ROOM_NOT_FOUND] * 20 and codes[20] == ErrorCode.RATE_LIMITED


async def test_taking_over_a_session_does_not_wait_for_the_old_connection(make_server: MakeServer) -> None:
    server = await make_server(grace_ms=5_000)
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    # A half-dead old connection: its transport stops reading, so a close handshake would hang.
    old = server.players[ann.player].conn
    assert old is not None
    old.transport.pause_reading()
    ann.ws.transport.pause_reading()
    started = asyncio.get_running_loop().time()
    back = await WsClient.open(url_of(server), "Ann", token=ann.token)
    assert asyncio.get_running_loop().time() - started < 2.0
    assert [r.connected for r in (await back.expect(RoomState)).racers] == [True, True]
    moved = await back.call(MoveRequest(move=str(solution()[0])))
    assert isinstance(moved, Moved)
    old.transport.resume_reading()  # let the old connection finish closing (4001)
    ann.ws.transport.resume_reading()
    with pytest.raises(ConnectionClosed) as info:
        while True:
            await ann.ws.recv()
    assert info.value.rcvd is not None and info.value.rcvd.code == CloseCode.REPLACED


async def test_spectators_see_moves_a_delay_late_and_a_late_spectator_misses_none(make_server: MakeServer) -> None:
    server = await make_server(spectator_delay_ms=600)
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    eve = await WsClient.open(url_of(server), "Eve")
    await eve.call(JoinRoom(room=state.room, spectate=True))
    await start_race([ann, bob])
    clock = fake(server)
    first = str(solution()[0])
    await ann.call(MoveRequest(move=first))
    assert (await bob.expect(Progress)).move is None  # the rival hears at once, without the move
    clock.advance(599)
    assert [m for m in await eve.settle() if isinstance(m, Progress)] == []
    clock.advance(1)
    assert (await eve.expect(Progress)).move == first  # the spectator, a delay later
    # A spectator who joins between a move and its delayed frame gets it with the frame, not twice.
    second = str(solution()[1])
    await ann.call(MoveRequest(move=second))
    sue = await WsClient.open(url_of(server), "Sue")
    joined = await sue.call(JoinRoom(room=state.room, spectate=True))
    assert isinstance(joined, RoomState)
    assert [w.history for w in joined.watching if w.player == ann.player] == [(first,)]
    clock.advance(600)
    assert (await sue.expect(Progress)).move == second


async def test_a_spectator_who_joins_within_the_delay_of_an_unwatched_move_still_gets_it(
    make_server: MakeServer,
) -> None:
    server = await make_server(spectator_delay_ms=500)
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    first = str(solution()[0])
    await ann.call(MoveRequest(move=first))  # nobody watches yet
    sue = await WsClient.open(url_of(server), "Sue")
    joined = await sue.call(JoinRoom(room=state.room, spectate=True))
    assert isinstance(joined, RoomState)
    assert [w.history for w in joined.watching if w.player == ann.player] == [()]
    fake(server).advance(500)
    assert (await sue.expect(Progress)).move == first
    fake(server).advance(1000)
    assert [m for m in await sue.settle() if isinstance(m, Progress)] == []  # and only once


async def test_two_hellos_with_one_token_share_one_session(make_server: MakeServer) -> None:
    server = await make_server()
    first = await WsClient.open(url_of(server), "Ann")
    token = first.token
    await first.close()  # in no room: the process forgets the session, the store keeps it
    await wait_until(lambda: token not in server.sessions, what="the session forgotten")
    opened = await asyncio.gather(
        WsClient.open(url_of(server), "Ann", token=token),
        WsClient.open(url_of(server), "Ann", token=token),
        return_exceptions=True,
    )
    alive = 0
    for client in opened:  # the older may lose already during its hello
        try:
            if isinstance(client, BaseException):
                raise client
            assert client.player == first.player
            alive += isinstance(await client.call(Ping()), Pong)
        except ConnectionClosed as exc:
            assert exc.rcvd is not None and exc.rcvd.code == CloseCode.REPLACED
    assert alive == 1 and len([s for s in server.sessions.values() if s.token == token]) == 1


async def test_spectators_get_a_burst_of_moves_in_order(make_server: MakeServer) -> None:
    server = await make_server(spectator_delay_ms=200)
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    eve = await WsClient.open(url_of(server), "Eve")
    await eve.call(JoinRoom(room=state.room, spectate=True))
    await start_race([ann, bob])
    burst = [str(m) for m in solution()[:8]]
    seqs = [await ann.send(MoveRequest(move=move)) for move in burst]  # pipelined, as the client plays
    for seq in seqs:
        assert isinstance(await ann.reply(seq), Moved)
    fake(server).advance(200)
    seen = [(await eve.expect(Progress)).move for _ in burst]
    assert seen == burst


async def test_a_finished_room_reloaded_after_a_restart_shows_every_racers_moves(
    make_redis_server: MakeServer,
) -> None:
    first = await make_redis_server(spectator_delay_ms=1000)
    clock = fake(first)
    (ann, bob), state = await room_with(first, "Ann", "Bob")
    await start_race([ann, bob])
    line = [str(m) for m in solution()[:3]]
    for move in line:
        await ann.call(MoveRequest(move=move))
    await bob.call(MoveRequest(move=line[0]))
    await bob.call(Undo())
    await ann.call(Resign())
    await bob.call(Resign())
    result = await ann.expect(Result)  # racers get the result at once, with every racer's moves
    assert [(h.player, h.history, h.actions) for h in result.histories] == [
        (ann.player, tuple(line), 3),
        (bob.player, (), 2),
    ]
    await first.stop()

    second = await make_redis_server(spectator_delay_ms=1000)  # the same clock: no time has passed
    sue = await WsClient.open(url_of(second), "Sue")
    early = await sue.call(JoinRoom(room=state.room, spectate=True))
    assert isinstance(early, RoomState) and early.phase == "finished"
    assert [w.history for w in early.watching] == [(), ()]  # nothing has fallen due yet
    clock.advance(1000)
    assert (await sue.expect(Result)).histories == result.histories
    seen = [p.move for p in await sue.settle() if isinstance(p, Progress) and p.player == ann.player]
    assert seen[:3] == line  # then ann's resignation, without a move
    late = await WsClient.open(url_of(second), "Lee")
    joined = await late.call(JoinRoom(room=state.room, spectate=True))
    assert isinstance(joined, RoomState) and joined.watching == result.histories
    back = await WsClient.open(url_of(second), "Ann", token=ann.token)
    racer = await back.expect(RoomState)
    assert racer.role == "racer" and racer.watching == result.histories  # racers see it all once it is over


async def test_twin_names_in_a_room_are_told_apart(make_server: MakeServer) -> None:
    server = await make_server()
    (_, _, third), state = await room_with(server, "Ann", "Ann", "Ann")
    names = [r.name for r in (await third.expect(Members)).racers]
    assert names == ["Ann", "Ann (2)", "Ann (3)"]
    long = "X" * 24
    (_, twin), _ = await room_with(server, long, long)
    members = await twin.expect(Members)
    assert [r.name for r in members.racers] == [long, "X" * 20 + " (2)"]
    assert state.racers[0].name == "Ann"


async def test_the_countdown_and_the_time_limit_run_on_the_servers_clock(make_server: MakeServer) -> None:
    server = await make_server(countdown_ms=3000)
    clock = fake(server)
    (ann, bob), _ = await room_with(server, "Ann", "Bob", time_limit=30)
    for client in (ann, bob):
        assert isinstance(await client.call(Ready()), Ok)
    countdown = await ann.expect(Countdown, where=lambda c: c.starts_at is not None)
    assert countdown.starts_at == clock.now() + 3000
    clock.advance(2999)
    assert [m for m in await ann.settle() if isinstance(m, Started)] == []
    clock.advance(1)
    started = await ann.expect(Started)
    assert started.started_at == countdown.starts_at and started.ends_at == started.started_at + 30_000
    await ann.call(MoveRequest(move=str(solution()[0])))
    clock.advance(29_999)
    assert [m for m in await bob.settle() if isinstance(m, Result)] == []
    clock.advance(1)
    result = await bob.expect(Result)
    assert result.reason == "time-limit" and [s.player for s in result.standings] == [ann.player, bob.player]


async def test_a_clash_whose_catch_up_does_not_fit_loses_the_room_cleanly(
    make_redis_server: MakeServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Another writer stored an event that does not fit what this node holds (a mixed history):
    the move that meets it hears room-not-found, not internal, and nothing is logged as a crash."""
    server = await make_redis_server()
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    # Stored behind the node's back, with no doorbell: a move by nobody seated.
    assert isinstance(server.store, RedisStore)
    await server.store.append(state.room, [pack(MovedEvent(1, "pnobody", "3c"))], 60)
    refused = await ann.error(MoveRequest(move=str(solution()[0])))
    assert refused.code == ErrorCode.ROOM_NOT_FOUND
    assert state.room not in server.rooms
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


async def test_a_racer_who_left_and_rejoins_with_a_new_count_is_seated_again(make_server: MakeServer) -> None:
    """A session that left a room and dropped is forgotten (``last_seq`` -1), so its next page
    counts from 1 again: the room must not answer that count from the earlier stay's memory."""
    server = await make_server()
    ann = await WsClient.open(url_of(server), "Ann")
    created = await ann.call(CreateRoom())
    assert isinstance(created, RoomState)
    jo = await WsClient.open(url_of(server), "Jo")
    joined = await jo.call(JoinRoom(room=created.room), seq=2)
    assert isinstance(joined, RoomState)
    assert isinstance(await jo.call(Leave(), seq=3), Ok)
    await ann.expect(Members, where=lambda m: len(m.racers) == 1)
    await jo.close()

    back = await WsClient.open(url_of(server), "Jo", token=jo.token)
    assert back.welcome is not None and back.welcome.last_seq == -1 and back.welcome.room is None
    again = await back.call(JoinRoom(room=created.room), seq=2)  # the same count as the first join
    assert isinstance(again, RoomState), again
    assert [r.name for r in again.racers] == ["Ann", "Jo"]
    seated = await ann.expect(Members, where=lambda m: len(m.racers) == 2)
    assert [r.player for r in seated.racers] == [ann.player, back.player]
    assert isinstance(await back.call(Ready(ready=True), seq=3), Ok)  # Jo is in the room: ready works
