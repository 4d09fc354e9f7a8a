"""Auto-move on the server (issue 37, item 1): a racer's move with ``auto`` brings the auto-moves
``Board.auto_move`` gives, played by the server in the same event and the same append; ``ready``
with ``auto`` plays the opening's; an undo takes a move back with its auto-moves; the race is timed
at the racer's own last move; the move count is the racer's own.

The room's rules first (pure), then the same through a real server on loopback, with records on:
the signed record of a race won with auto-moves passes ``seahaven verify``."""

from __future__ import annotations

import copy
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.codec import decode_server
from protocol.enums import Phase, Status
from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    Error,
    JoinRoom,
    Moved,
    MoveRequest,
    Ok,
    Progress,
    Ready,
    Result,
    RoomState,
    Started,
    Undo,
)
from seahaven import Board
from seahaven.verify import passed, verify
from server.rooms.core import RoomCore
from server.rooms.events import AutoMoved, Event, Undone, pack, unpack
from server.rooms.events import Moved as MovedEvent
from server.rooms.room import Room, RoomError
from server.rooms.settings import Settings
from tests.forgery import forge
from tests.helpers import url_of
from tests.httpclient import get
from tests.racing import Line
from tests.recording import recording_server, signed_record
from tests.wsclient import WsClient

DEAL = 5
"""A deal that opens with safe cards."""
T0 = 1_000_000


def started_room(*, auto_ready: bool = True, settings: Settings | None = None) -> tuple[Room, list[Event]]:
    """Ann (auto-move asked with ready) and Bob (not) racing deal 1, started at T0 + 10."""
    room, log = Room.create("AUTO01", settings or Settings("seahaven", DEAL, countdown_ms=10), T0)
    log += room.join("ann", "Ann", False, T0) + room.join("bob", "Bob", False, T0)
    log += room.set_ready("ann", True, T0, auto=auto_ready) + room.set_ready("bob", True, T0)
    log += room.tick(T0 + 10)
    assert room.phase == Phase.RACING
    return room, log


def board_of(room: Room, player: str) -> Board:
    board = room.seats[player].board
    assert board is not None
    return board


# -- the engine's rule -------------------------------------------------------------------------


def test_the_rule_is_the_first_safe_move_and_autoplay_repeats_it() -> None:
    board = Board.deal("seahaven", DEAL)
    first = board.safe_home_moves()
    assert first and board.auto_move() == first[0]
    played = board.copy().autoplay()
    copy = board.copy()
    for move in played:
        assert copy.auto_move() == move
        copy.push(move)
    assert copy.auto_move() is None and copy.progress == board.progress + len(played)


def test_building_by_suit_there_is_nothing_to_finish_once_no_move_is_safe() -> None:
    board = Board.deal("seahaven", DEAL)
    board.autoplay()
    assert board.auto_move() is None
    assert not [m for m in board.legal_moves() if m.dst_area == 2], "every foundation move was safe"


# -- the room ----------------------------------------------------------------------------------


def test_ready_with_auto_plays_the_openings_safe_cards_at_the_start_for_that_racer_only() -> None:
    room, log = started_room()
    opening = Board.deal("seahaven", DEAL).autoplay()
    assert opening, "deal 1 opens with safe cards"
    (auto,) = [e for e in log if isinstance(e, AutoMoved)]
    assert auto == AutoMoved(T0 + 10, "ann", tuple(str(m) for m in opening))
    assert board_of(room, "ann").progress == len(opening) and board_of(room, "bob").progress == 0
    assert room.seats["ann"].moves == 0, "no move of hers"
    with pytest.raises(RoomError) as refused:
        room.undo("ann", T0 + 20)  # the opening's are nobody's to take back
    assert refused.value.code == ErrorCode.NOTHING_TO_UNDO


def test_a_move_with_auto_brings_its_auto_moves_in_the_same_event_and_counts_one() -> None:
    room, _ = started_room()
    board = board_of(room, "ann")
    line = Line(board)
    for step in range(200):
        move = line.next()
        expected = board.copy()
        expected.push(move)
        auto = tuple(str(m) for m in expected.autoplay())
        events = room.move("ann", str(move), T0 + 1000 + step, auto=True)
        assert isinstance(events[0], MovedEvent) and events[0].auto == auto
        if auto:
            break
    else:
        pytest.fail("no move of the line brought an auto-move")
    assert room.seats["ann"].moves == step + 1, "the server's moves are not hers"
    assert len(room.seats["ann"].timeline) == len(board.move_stack), "each is in her timeline"


def test_the_race_ends_at_the_move_that_left_only_foundation_moves() -> None:
    room, log = started_room()
    board = board_of(room, "ann")
    line = Line(board)
    at = T0 + 1000
    while room.phase == Phase.RACING:
        at += 100
        assert at < T0 + 1000 + 100 * 300, "won within 300 moves"
        log += room.move("ann", str(line.next()), at, auto=True)
    seat = room.seats["ann"]
    assert seat.status == Status.FINISHED and board.is_won()
    assert seat.finished_at == at, "timed at her own last move"
    assert room.standings[0].time_ms == at - (T0 + 10)
    assert seat.moves < len(board.move_stack), "her count is her own moves"
    assert isinstance(log[-2], MovedEvent) and log[-2].auto, "her last move's auto-moves finished it"
    replayed = Room.replay([unpack(pack(e)) for e in log])
    assert replayed.standings == room.standings and replayed.state_for("ann", at) == room.state_for("ann", at)


def test_an_undo_takes_the_move_back_with_its_auto_moves() -> None:
    room, log = started_room()
    board = board_of(room, "ann")
    line = Line(board)
    at = T0 + 1000
    while True:
        at += 1
        before = board.copy()
        (moved, *_) = room.move("ann", str(line.next()), at, auto=True)
        log.append(moved)
        assert isinstance(moved, MovedEvent)
        if moved.auto:
            break
    state = room.state_for("ann", at)
    stack = len(board.move_stack)
    assert state.auto_played[-len(moved.auto) :] == tuple(range(stack - len(moved.auto), stack))
    undone = room.undo("ann", at + 1)
    assert undone == [Undone(at + 1, "ann", len(moved.auto))]
    assert board.move_stack == before.move_stack and board.progress == before.progress
    assert room.seats["ann"].undos == 1
    replayed = Room.replay([*log, *undone])
    assert board_of(replayed, "ann").move_stack == board.move_stack


def test_a_room_without_auto_plays_none_and_says_so() -> None:
    room, log = started_room(settings=Settings("seahaven", DEAL, countdown_ms=10, auto=False))
    assert not [e for e in log if isinstance(e, AutoMoved)]
    assert room.state_for("ann", T0 + 20).auto is False
    board = board_of(room, "ann")
    move = board.safe_home_moves()[0]
    (moved, *_) = room.move("ann", str(move), T0 + 20, auto=True)
    assert isinstance(moved, MovedEvent) and moved.auto == ()


def test_the_reply_and_the_spectators_frame_carry_the_auto_moves() -> None:
    room, log = started_room()
    log += room.join("sue", "Sue", True, T0 + 11)
    core = RoomCore.load(log, T0 + 11)
    board = board_of(core.room, "ann")
    line = Line(board)
    at = T0 + 1000
    while True:
        at += 1
        outcome = core.move("ann", str(line.next()), at, auto=True)
        core.commit(outcome, None)
        assert isinstance(outcome.reply, Moved)
        if outcome.reply.auto:
            break
    reply = outcome.reply
    assert reply.progress == board.progress and reply.moves == core.room.seats["ann"].moves
    (frame,) = [decode_server(d.frame)[1] for d in outcome.delayed]
    assert isinstance(frame, Progress) and frame.auto == reply.auto and frame.move == reply.move
    assert frame.actions == len(core.room.seats["ann"].timeline)
    rivals = [decode_server(f)[1] for who, f in outcome.frames if "bob" in who]
    assert all(isinstance(r, Progress) and not r.auto and r.move is None for r in rivals), "rivals see no moves"
    # A store that refused the append: the move and its auto-moves go, the seat is as it was.
    taken = core.move("ann", str(line.next()), at + 1, auto=True)
    core.abort()
    assert board.progress == reply.progress and core.room.seats["ann"].moves == reply.moves
    assert isinstance(taken.reply, Moved)


# -- through a real server ---------------------------------------------------------------------


async def test_a_race_won_with_auto_moves_is_timed_at_the_winners_own_move_and_verifies(tmp_path: Path) -> None:
    async with recording_server(tmp_path) as server:
        ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
        created = await ann.call(CreateRoom(deal_number=DEAL))
        assert isinstance(created, RoomState) and created.auto is True
        assert isinstance(await bob.call(JoinRoom(room=created.room)), RoomState)
        assert isinstance(await ann.call(Ready(auto=True)), Ok)
        assert isinstance(await bob.call(Ready()), Ok)
        started = await ann.expect(Started)
        opening = await ann.expect(Progress, where=lambda p: p.player == ann.player)
        board = Board.deal("seahaven", DEAL)
        assert opening.auto == tuple(str(m) for m in board.autoplay())
        rival = await bob.expect(Progress, where=lambda p: p.player == ann.player)
        assert rival.auto == () and rival.progress == board.progress

        requests = 0
        last: Moved | None = None
        line = Line(board)
        while not board.is_won():
            move = line.next()
            reply = await ann.call(MoveRequest(move=str(move), auto=True))
            requests += 1
            assert isinstance(reply, Moved), reply
            board.push(move)
            assert reply.auto == tuple(str(m) for m in board.autoplay()), "the rule the client plays"
            assert reply.progress == board.progress
            last = reply
        assert last is not None and last.status == Status.FINISHED and last.moves == requests
        result = await bob.expect(Result)
        winner = result.standings[0]
        assert winner.player == ann.player and winner.moves == requests
        assert winner.time_ms == last.elapsed_ms, "the race time is her last own move's"
        assert requests < len(board.move_stack), "fewer requests than moves: the server played the rest"

        assert result.race_id is not None
        record = await signed_record(server, result.race_id)
        checks = verify(record)
        assert passed(checks), [c for c in checks if not c.ok]
        # The record marks what the server played: the rest is her own, as the results counted.
        (hers,) = [r for r in record["record"]["racers"] if r["moves"] and r["auto"]]
        assert len(hers["moves"]) - len(hers["auto"]) == requests
        assert [hers["moves"][i][1] for i in hers["auto"]][: len(opening.auto)] == list(opening.auto)
        view = (await get(server.port, f"/api/v1/races/{result.race_id}")).json()
        (shown,) = [r for r in view["racers"] if r["auto"]]
        assert shown["auto"] == hers["auto"] and shown["undos"] == 0
        # A mark that does not follow the rule, or an own move passed off as the server's, fails.
        forged = copy.deepcopy(record)
        racer = next(r for r in forged["record"]["racers"] if r["auto"])
        own = next(i for i in range(len(racer["moves"])) if i not in racer["auto"])
        racer["auto"] = sorted([*racer["auto"], own])
        failed = [c for c in verify(forge(forged, Ed25519PrivateKey.generate())) if c.ok is False]
        assert [c.name for c in failed] == [f"racer {racer['player']}"]
        assert "is no auto-move: the rule gives" in failed[0].detail
        assert started.started_at > 0
        for client in (ann, bob):
            await client.close()


async def test_undo_over_the_wire_takes_the_auto_moves_back_and_bad_flags_are_refused(tmp_path: Path) -> None:
    async with recording_server(tmp_path) as server:
        ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
        created = await ann.call(CreateRoom(deal_number=DEAL))
        assert isinstance(created, RoomState)
        assert isinstance(await bob.call(JoinRoom(room=created.room)), RoomState)
        await ann.settle()
        for kind, flag in (("ready", "yes"), ("ready", 1), ("move", None)):
            error = await raw_call(ann, kind, {"move": "1a", "auto": flag} if kind == "move" else {"auto": flag})
            assert isinstance(error, Error) and error.code == ErrorCode.BAD_FIELD, error
            assert "auto" in error.message
        assert (await ann.settle()) == [], "nothing changed: nobody heard of it"
        assert isinstance(await ann.call(Ready()), Ok)
        assert isinstance(await bob.call(Ready()), Ok)
        await ann.expect(Started)
        board = Board.deal("seahaven", DEAL)
        nothing = await ann.error(Undo())
        assert nothing.code == ErrorCode.NOTHING_TO_UNDO
        opening = board.auto_move()  # not asked for with ready: her own move, with auto after it
        assert opening is not None
        line = Line(board)
        while True:
            move = line.next() if board.auto_move() is None else board.auto_move()
            assert move is not None
            before = board.copy()
            reply = await ann.call(MoveRequest(move=str(move), auto=True))
            assert isinstance(reply, Moved)
            board.push(move)
            board.autoplay()
            if reply.auto:
                break
        undone = await ann.call(Undo())
        assert isinstance(undone, Moved) and undone.undo and undone.undone == 1 + len(reply.auto)
        assert undone.progress == before.progress
        state = await ann.call(JoinRoom(room=created.room))
        assert isinstance(state, Error) and state.code == ErrorCode.ALREADY_IN_ROOM
        for client in (ann, bob):
            await client.close()


async def raw_call(client: WsClient, kind: str, body: dict[str, object]) -> object:
    """Send a request of ``kind`` whose body is ``body`` as is (the codec would not encode a
    wrong type), and return the answer."""
    client.seq += 1
    await client.ws.send(msgpack.packb({"type": kind, "seq": client.seq, "body": body}))
    return await client.reply(client.seq)
