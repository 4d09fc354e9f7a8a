"""The race room's rules of play, without sockets, store or clock."""

from __future__ import annotations

import functools
from dataclasses import replace

import pytest

from protocol.errors import ErrorCode
from protocol.messages import Countdown, Members, Progress, Result, Started
from seahaven import Board, Move, parse_board
from seahaven.solver import solve
from server.rooms.events import (
    CountdownSet,
    Ended,
    Event,
    Forfeited,
    Left,
    Moved,
    NewDeal,
    Presence,
    Resigned,
    Undone,
    pack,
    unpack,
)
from server.rooms.events import (
    Started as StartedEvent,
)
from server.rooms.room import MAX_MOVES, Room, RoomError
from server.rooms.settings import Settings

DEAL = 1


@functools.cache
def solution(preset: str = "seahaven", deal: int = DEAL) -> tuple[Move, ...]:
    result = solve(Board.deal(preset, deal))
    assert result.status == "solved"
    return result.moves


def racing_room(settings: Settings | None = None, racers: int = 2) -> tuple[Room, list[Event]]:
    """A room whose race started at t=1000, racers p1..pN, spectator s1."""
    settings = replace(settings or Settings("seahaven", DEAL, seats=max(2, racers)), countdown_ms=998)
    room, log = Room.create("ROOM01", settings, 0)
    for i in range(racers):
        log += room.join(f"p{i + 1}", f"Racer {i + 1}", False, 1)
    log += room.join("s1", "Watcher", True, 1)
    for i in range(racers):
        log += room.set_ready(f"p{i + 1}", True, 2)
    assert room.phase == "countdown"
    log += room.tick(1000)
    assert room.phase == "racing" and room.started_at == 1000
    return room, log


def refused(code: ErrorCode, call: object) -> RoomError:
    assert callable(call)
    with pytest.raises(RoomError) as info:
        call()
    assert info.value.code == code
    return info.value


def test_a_room_everyone_left_before_its_race_takes_no_one_again() -> None:
    room, log = Room.create("ROOM01", Settings("seahaven", DEAL, seats=2), 0)
    log += room.join("a", "A", False, 1)
    log += room.join("s", "S", True, 1)
    log += room.leave("a", 2)
    room.join("b", "B", False, 3)  # a spectator was still there: the room lives on
    log += room.leave("s", 4)
    room, log = Room.create("ROOM02", Settings("seahaven", DEAL, seats=2), 0)
    log += room.join("a", "A", False, 1)
    log += room.leave("a", 2)
    error = refused(ErrorCode.ROOM_NOT_FOUND, lambda: room.join("b", "B", False, 3))
    assert "everyone left" in str(error)
    refused(ErrorCode.ROOM_NOT_FOUND, lambda: room.join("c", "C", True, 3))
    assert Room.replay(log).abandoned  # the stored log says so too, on any node


def test_a_finished_room_everyone_left_may_still_be_watched() -> None:
    room, log = racing_room()
    for player in ("p1", "p2"):
        log += room.resign(player, 2000)
    assert room.phase == "finished"
    for player in ("p1", "p2", "s1"):
        log += room.leave(player, 3000)
    assert not room.abandoned
    room.join("s2", "Late", True, 3001)


def test_seats_fill_then_room_full_but_spectators_still_welcome() -> None:
    room, _ = Room.create("ROOM01", Settings("seahaven", DEAL, seats=2), 0)
    room.join("a", "A", False, 1)
    room.join("b", "B", False, 1)
    refused(ErrorCode.ROOM_FULL, lambda: room.join("c", "C", False, 1))
    room.join("c", "C", True, 1)
    assert room.spectators == {"c": "C"}
    refused(ErrorCode.ALREADY_IN_ROOM, lambda: room.join("a", "A", True, 1))


def test_countdown_needs_every_racer_ready_and_at_least_two() -> None:
    room, _ = Room.create("ROOM01", Settings("seahaven", DEAL, seats=3, countdown_ms=3000), 0)
    room.join("a", "A", False, 1)
    assert room.set_ready("a", True, 2) and room.phase == "waiting"
    room.join("b", "B", False, 3)
    events = room.set_ready("b", True, 4)
    assert events[-1] == CountdownSet(4, 3004) and room.phase == "countdown"
    # Someone un-readies: the countdown is called off.
    assert room.set_ready("a", False, 5)[-1] == CountdownSet(5, None)
    assert room.phase == "waiting"


def test_race_starts_on_the_servers_clock_not_before() -> None:
    room, _ = Room.create("ROOM01", Settings("seahaven", DEAL, countdown_ms=3000), 0)
    room.join("a", "A", False, 1)
    room.join("b", "B", False, 1)
    room.set_ready("a", True, 10)
    room.set_ready("b", True, 10)
    assert room.next_deadline() == 3010
    assert room.tick(3009) == []
    refused(ErrorCode.NOT_STARTED, lambda: room.move("a", "1a", 3009))
    assert room.tick(3010) == [StartedEvent(3010)]
    boards = [seat.board for seat in room.seats.values()]
    assert all(b is not None and b == Board.deal("seahaven", DEAL) for b in boards)
    assert boards[0] is not boards[1]


def test_a_legal_move_changes_only_the_movers_board_and_progress_reaches_everyone_else() -> None:
    room, _ = racing_room()
    first = solution()[0]
    events = room.move("p1", str(first), 1500)
    assert events == [Moved(1500, "p1", str(first))]
    assert room.seats["p1"].moves == 1 and room.seats["p2"].moves == 0
    assert room.seats["p2"].board == Board.deal("seahaven", DEAL)
    sent = room.messages(events[0])
    assert {p for out in sent for p in out.audience or ()} == {"p2", "s1"}
    assert all(isinstance(out.message, Progress) and out.message.moves == 1 for out in sent)


def test_a_move_sends_nothing_for_spectators_when_the_caller_has_none_to_give_it_to() -> None:
    room, _ = racing_room()
    events = room.move("p1", str(solution()[0]), 1500)
    everyone = room.messages(events[0])
    racers_only = room.messages(events[0], spectators=False)
    assert [out.delay_ms for out in everyone] == [0, room.settings.spectator_delay_ms]
    assert racers_only == everyone[:1]


def test_illegal_move_is_refused_with_a_reason_and_changes_nothing() -> None:
    room, _ = racing_room()
    seat = room.seats["p1"]
    assert seat.board is not None
    before = seat.board.position()
    error = refused(ErrorCode.ILLEGAL_MOVE, lambda: room.move("p1", "1#", 1500))
    assert "foundation" in error.message
    refused(ErrorCode.BAD_FIELD, lambda: room.move("p1", "zz", 1500))
    assert seat.board.position() == before and seat.moves == 0


def test_spectators_and_strangers_cannot_move() -> None:
    room, _ = racing_room()
    move = str(solution()[0])
    refused(ErrorCode.NOT_A_RACER, lambda: room.move("s1", move, 1500))
    refused(ErrorCode.NOT_IN_ROOM, lambda: room.move("nobody", move, 1500))


def test_winning_ends_the_race_with_standings_and_later_moves_are_refused() -> None:
    room, _ = racing_room()
    room.move("p2", str(solution()[0]), 1100)
    events: list[Event] = []
    for i, move in enumerate(solution()):
        events = room.move("p1", str(move), 2000 + i)
    assert isinstance(events[-1], Ended) and events[-1].reason == "won"
    assert room.phase == "finished"
    first, second = room.standings
    assert (first.player, first.place, first.status, first.progress) == ("p1", 1, "finished", 52)
    assert first.time_ms == 2000 + len(solution()) - 1 - 1000
    assert (second.player, second.place, second.status) == ("p2", 2, "racing")
    result = room.messages(events[-1])
    assert {(out.audience, out.delay_ms) for out in result} == {
        (frozenset({"p1", "p2"}), 0),
        (frozenset({"s1"}), room.settings.spectator_delay_ms),
    }
    assert all(isinstance(out.message, Result) for out in result)
    refused(ErrorCode.RACE_OVER, lambda: room.move("p2", str(solution()[1]), 9999))


def test_time_limit_ranks_by_progress_then_who_got_there_first() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, seats=3, time_limit_ms=60_000), racers=3)
    moves = solution()
    home_at = next(i for i in range(len(moves)) if _progress_after(moves[: i + 1]) == 1)
    for i, move in enumerate(moves[: home_at + 1]):
        room.move("p2", str(move), 1100 + i)  # p2 reaches 1 card first
    for i, move in enumerate(moves[: home_at + 1]):
        room.move("p1", str(move), 5000 + i)
    assert room.next_deadline() == 61_000
    assert room.tick(60_999) == []
    events = room.tick(61_000)
    assert events == [Ended(61_000, "time-limit")]
    assert [s.player for s in room.standings] == ["p2", "p1", "p3"]
    assert [s.progress for s in room.standings] == [1, 1, 0]


def _progress_after(moves: tuple[Move, ...]) -> int:
    board = Board.deal("seahaven", DEAL)
    for move in moves:
        board.push(move)
    return board.progress


def test_everyone_resigned_ends_the_race_and_quitters_rank_last() -> None:
    room, _ = racing_room()
    room.move("p1", str(solution()[0]), 1100)
    assert room.resign("p1", 1200)
    refused(ErrorCode.NOT_RACING, lambda: room.move("p1", str(solution()[1]), 1300))
    events = room.resign("p2", 1300)
    assert isinstance(events[-1], Ended) and events[-1].reason == "all-done"
    assert all(s.status == "resigned" for s in room.standings)


def test_dropped_racer_keeps_the_seat_within_grace_and_forfeits_after() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, grace_ms=5000))
    assert room.disconnect("p1", 2000) == [Presence(2000, "p1", False)]
    assert room.next_deadline() == 7000
    assert room.reconnect("p1", 6999) == [Presence(6999, "p1", True)]
    assert room.tick(8000) == [] and room.seats["p1"].status == "racing"
    room.disconnect("p2", 9000)
    events = room.tick(14_000)
    assert events[0] == Forfeited(14_000, "p2")
    assert room.seats["p2"].status == "forfeit"
    assert room.phase == "racing"  # p1 still racing


def test_a_spectator_who_drops_simply_leaves() -> None:
    room, _ = racing_room()
    room.disconnect("s1", 1500)
    assert "s1" not in room.members


def test_undo_follows_the_room_setting() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, undo=False))
    room.move("p1", str(solution()[0]), 1100)
    refused(ErrorCode.UNDO_DISABLED, lambda: room.undo("p1", 1200))
    room, _ = racing_room(Settings("seahaven", DEAL, undo=True))
    refused(ErrorCode.NOTHING_TO_UNDO, lambda: room.undo("p1", 1050))
    room.move("p1", str(solution()[0]), 1100)
    room.undo("p1", 1200)
    seat = room.seats["p1"]
    assert seat.board == Board.deal("seahaven", DEAL) and seat.moves == 2


def test_the_standings_count_each_racers_own_undos() -> None:
    """``moves`` counts an undo and the move it took back: the standings say the undos apart, so a
    client can show the moves left on the board (issue 38, bug 9)."""
    room, _ = racing_room()
    moves = solution()
    room.move("p2", str(moves[0]), 1050)
    room.move("p1", str(moves[0]), 1100)
    room.undo("p1", 1150)
    for i, move in enumerate(moves):
        room.move("p1", str(move), 1200 + i)
    first, second = room.standings
    assert (first.player, first.moves, first.undos) == ("p1", len(moves) + 2, 1)
    assert (second.player, second.moves, second.undos) == ("p2", 1, 0)
    assert first.to_body()["undos"] == 1 and "undos" not in second.to_body()  # absent when none


def test_rematch_when_every_connected_racer_agrees_deals_anew() -> None:
    room, _ = racing_room()
    refused(ErrorCode.NOT_FINISHED, lambda: room.vote_rematch("p1", 7, 1100))
    room.resign("p1", 1100)
    room.resign("p2", 1100)
    assert room.vote_rematch("p1", 7, 1200)
    assert room.phase == "finished"
    events = room.vote_rematch("p2", 9, 1300)
    assert events[-2:] == [NewDeal(1300, 9), CountdownSet(1300, 1300 + room.settings.countdown_ms)]
    assert room.settings.deal == 9 and room.phase == "countdown" and room.standings == ()
    state = room.state_for("p1", 1300)
    assert state.phase == "countdown" and state.deal is None and [r.status for r in state.racers] == ["ready"] * 2


def test_replaying_the_log_rebuilds_the_same_room() -> None:
    room, log = racing_room()
    for i, move in enumerate(solution()[:20]):
        log += room.move("p1", str(move), 1100 + i)
    log += room.undo("p1", 1200)
    log += room.disconnect("p2", 1300)
    copy = Room.replay([unpack(pack(e)) for e in log])
    assert copy.state_for("p1", 5000) == room.state_for("p1", 5000)
    assert copy.state_for("s1", 5000) == room.state_for("s1", 5000)


def test_deal_is_hidden_until_the_start() -> None:
    room, _ = Room.create("ROOM01", Settings("seahaven", DEAL), 0)
    room.join("a", "A", False, 1)
    assert room.state_for("a", 2).deal is None and room.state_for("a", 2).board is None
    room, _ = racing_room()
    assert room.state_for("p1", 2000).deal == "SH1-ST-0001G"


def test_messages_for_lifecycle_events() -> None:
    room, log = racing_room()
    kinds = [type(out.message).__name__ for e in log for out in room.messages(e)]
    assert "Members" in kinds and "Countdown" in kinds and "Started" in kinds
    started = next(out.message for e in log for out in room.messages(e) if isinstance(out.message, Started))
    assert started.deal == room.deal_code() and started.board.startswith("Foundations:")
    assert isinstance(room.messages(log[1])[0].message, Members)
    countdown = room.messages(CountdownSet(1, 5))[0].message
    assert isinstance(countdown, Countdown) and countdown.server_time == 1  # the event's time, not a clock's


def test_leaving_mid_race_counts_as_resigning() -> None:
    room, _ = racing_room(racers=3)
    events = room.leave("p3", 1500)
    assert room.seats["p3"].status == "resigned"
    assert [type(e) for e in events] == [Resigned, Left]
    assert room.phase == "racing"


def test_a_racer_who_walks_out_keeps_a_standing_but_hears_nothing_more() -> None:
    room, _ = racing_room(racers=3)
    room.leave("p3", 1500)
    assert "p3" not in room.members and "p3" in room.seats
    events = room.move("p1", str(solution()[0]), 1600)
    assert all(out.audience is None or "p3" not in out.audience for out in room.messages(events[0]))
    room.resign("p1", 1700)
    room.resign("p2", 1700)
    assert [s.player for s in room.standings][-1] == "p3"
    refused(ErrorCode.RACE_OVER, lambda: room.set_ready("p1", True, 1800))


def test_a_drop_during_the_countdown_calls_it_off() -> None:
    room, _ = Room.create("ROOM01", Settings("seahaven", DEAL), 0)
    room.join("a", "A", False, 1)
    room.join("b", "B", False, 1)
    room.set_ready("a", True, 2)
    room.set_ready("b", True, 2)
    assert room.phase == "countdown"
    assert room.disconnect("b", 3)[-1] == CountdownSet(3, None)
    assert room.phase == "waiting"
    assert room.reconnect("b", 4)[-1] == CountdownSet(4, 4 + room.settings.countdown_ms)


def test_grace_periods_that_cannot_cost_anything_set_no_timer() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, grace_ms=5000))
    room.disconnect("p2", 2000)
    room.tick(7000)  # p2 forfeits
    assert room.seats["p2"].status == "forfeit" and room.next_deadline() is None
    room.resign("p1", 8000)
    assert room.phase == "finished"
    room.disconnect("p1", 9000)
    assert room.next_deadline() is None  # nothing left to time: no timer spinning on a past deadline


def test_a_walked_out_racer_may_watch_but_not_play_or_vote() -> None:
    room, _ = racing_room(racers=3)
    room.leave("p3", 1500)
    room.join("p3", "Racer 3", True, 1600)
    assert room.state_for("p3", 1700).role == "spectator"
    refused(ErrorCode.NOT_A_RACER, lambda: room.move("p3", str(solution()[0]), 1700))
    room.resign("p1", 1800)
    room.resign("p2", 1800)
    refused(ErrorCode.NOT_A_RACER, lambda: room.vote_rematch("p3", 5, 1900))


def test_spectators_follow_every_move_a_delay_later_and_rivals_only_progress() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, spectator_delay_ms=5000))
    first = str(solution()[0])
    events = room.move("p1", first, 1100)
    sent = {out.audience: out for out in room.messages(events[0])}
    rivals, watchers = sent[frozenset({"p2"})], sent[frozenset({"s1"})]
    assert isinstance(rivals.message, Progress) and rivals.message.move is None and rivals.delay_ms == 0
    assert isinstance(watchers.message, Progress) and watchers.message.move == first and watchers.delay_ms == 5000
    undo = room.undo("p1", 1200)
    moves = [out.message.move for out in room.messages(undo[0]) if isinstance(out.message, Progress)]
    assert moves == [None, "undo"]
    room.move("p2", first, 1300)
    # A spectator's watching holds the moves whose delayed frames fell due by the time given.
    assert [(w.history, w.actions) for w in room.state_for("s1", 1400).watching] == [((), 0), ((), 0)]
    watched = room.state_for("s1", 1400, 6100).watching
    assert [(w.player, w.history, w.actions) for w in watched] == [("p1", (first,), 1), ("p2", (), 0)]
    watched = room.state_for("s1", 1400, 6300).watching
    assert [(w.player, w.history, w.actions) for w in watched] == [("p1", (), 2), ("p2", (first,), 1)]
    assert room.state_for("p1", 1400, 6300).watching == ()  # racers never see rivals' moves mid-race


STUCK_AFTER = ("7d", "9c", "d0", "5d")
"""Four moves that leave deal 1 with full cells and no legal move."""


def test_a_stuck_racer_in_an_undo_room_who_drops_is_forfeit_after_the_grace() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, grace_ms=5000, undo=True))
    for i, move in enumerate(STUCK_AFTER):
        room.move("p1", move, 1100 + i)
    assert room.seats["p1"].status == "stuck" and room.phase == "racing"  # undo could still save them
    room.undo("p1", 1200)
    assert room.seats["p1"].status == "racing"
    room.move("p1", STUCK_AFTER[-1], 1300)
    room.disconnect("p1", 2000)
    assert room.next_deadline() == 7000
    assert room.tick(7000)[0] == Forfeited(7000, "p1")


def test_without_undo_a_stuck_racer_is_done() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, undo=False))
    room.resign("p2", 1050)
    events: list[Event] = []
    for i, move in enumerate(STUCK_AFTER):
        events = room.move("p1", move, 1100 + i)
    assert isinstance(events[-1], Ended) and events[-1].reason == "all-done"


def test_a_race_has_a_move_limit() -> None:
    room, _ = racing_room()
    room.seats["p1"].timeline += [(1000, "undo")] * MAX_MOVES  # auto-moves and their undos count too
    refused(ErrorCode.MOVE_LIMIT, lambda: room.move("p1", str(solution()[0]), 1100))


def test_a_log_that_does_not_fit_is_a_value_error() -> None:
    _, log = racing_room()
    with pytest.raises(ValueError, match="does not fit"):
        Room.replay([*log, Presence(2000, "nobody", False)])
    with pytest.raises(ValueError, match="does not fit"):
        Room.replay([*log, Moved(2000, "p1", "1#")])
    with pytest.raises(ValueError, match="does not fit"):  # nothing to take back
        Room.replay([*log, Undone(2000, "p1")])


def test_a_stuck_racer_may_resign_or_leave() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, undo=True))
    for i, move in enumerate(STUCK_AFTER):
        room.move("p1", move, 1100 + i)
    assert room.seats["p1"].status == "stuck"
    room.resign("p1", 1200)
    assert room.seats["p1"].status == "resigned"


def test_a_spectator_gets_the_opening_board_the_watched_moves_apply_to() -> None:
    room, _ = racing_room()
    state = room.state_for("s1", 1500)
    assert state.board is not None and parse_board(state.board, "seahaven") == Board.deal("seahaven", DEAL)


def test_without_undo_being_stuck_is_final_and_resigning_changes_nothing() -> None:
    room, _ = racing_room(Settings("seahaven", DEAL, undo=False))
    for i, move in enumerate(STUCK_AFTER):
        room.move("p1", move, 1100 + i)
    refused(ErrorCode.NOT_RACING, lambda: room.resign("p1", 1200))
    room.leave("p1", 1300)
    assert room.seats["p1"].status == "stuck"
