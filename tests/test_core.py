"""The room core on its own: commands in, an Outcome out, commit or abort; no I/O, no clock."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import fields

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import decode_server
from protocol.errors import ErrorCode
from protocol.messages import Moved, Ok, Progress, Result, RoomState
from seahaven import Board
from seahaven.solver import solve
from server.rooms.core import Outcome, RoomCore
from server.rooms.events import Event, Undone
from server.rooms.events import Moved as MovedEvent
from server.rooms.room import Room, RoomError, Seat
from server.rooms.settings import Settings

T0 = 1_000_000
DELAY = 5000


@functools.cache
def line() -> tuple[str, ...]:
    return tuple(str(m) for m in solve(Board.deal("seahaven", 1)).moves)


def run(core: RoomCore, outcome: Outcome) -> Outcome:
    """As the shell does when the store takes the events."""
    assert core.commit(outcome, len(core.log) + len(outcome.events))
    return outcome


def racing(delay: int = DELAY, time_limit_ms: int | None = None, watched: bool = True) -> RoomCore:
    settings = Settings("seahaven", 1, spectator_delay_ms=delay, time_limit_ms=time_limit_ms)
    core, created = RoomCore.create("ROOM01", settings, T0)
    run(core, created)
    for player in ("ann", "bob"):
        run(core, core.join(player, player.title(), False, T0))
    if watched:
        run(core, core.join("sue", "Sue", True, T0))
    for player in ("ann", "bob"):
        run(core, core.ready(player, True, T0 + 1))
    assert core.next_wake() == T0 + 1 + 3000
    run(core, core.tick(T0 + 3001))
    assert core.room.phase == "racing"
    return core


def frames_to(outcome: Outcome, player: str) -> list[object]:
    return [decode_server(frame)[1] for audience, frame in outcome.frames if player in audience]


def test_a_move_is_a_reply_frames_for_rivals_and_delayed_frames_for_spectators() -> None:
    core = racing()
    first = line()[0]
    outcome = core.move("ann", first, T0 + 4000)
    assert isinstance(outcome.reply, Moved) and outcome.reply.moves == 1
    (rival,) = frames_to(outcome, "bob")
    assert isinstance(rival, Progress) and rival.move is None
    assert frames_to(outcome, "sue") == []
    (later,) = outcome.delayed
    assert later.due == T0 + 4000 + DELAY and decode_server(later.frame)[1] == Progress(
        player="ann", progress=rival.progress, moves=1, status="racing", elapsed_ms=999, move=first
    )
    run(core, outcome)
    assert core.next_wake() == later.due
    assert core.release(later.due - 1) == []
    assert core.release(later.due) == [(frozenset({"sue"}), later.frame)]
    assert [w.history for w in core.state_for("sue", later.due).watching] == [(first,), ()]


def test_a_refused_command_raises_and_changes_nothing() -> None:
    core = racing()
    before = core.state_for("ann", T0 + 4000)
    with pytest.raises(RoomError) as info:
        core.move("ann", "1#", T0 + 4000)
    assert info.value.code == ErrorCode.ILLEGAL_MOVE
    assert core.state_for("ann", T0 + 4000) == before


def test_abort_goes_back_to_the_log() -> None:
    core = racing()
    outcome = core.move("ann", line()[0], T0 + 4000)
    assert core.room.seats["ann"].moves == 1  # applied tentatively
    core.abort()
    assert core.room.seats["ann"].moves == 0 and core.schedule == []
    assert isinstance(core.resign("bob", T0 + 4001).reply, Ok) and outcome.events


def test_commit_says_when_the_stored_log_is_not_this_one() -> None:
    core = racing()
    outcome = core.move("ann", line()[0], T0 + 4000)
    assert not core.commit(outcome, 1)  # the store's log had expired: only these events are there


def test_a_loaded_core_serves_the_same_spectator_views_and_schedule() -> None:
    live = racing()
    for i, move in enumerate(line()[:6]):
        run(live, live.move("ann", move, T0 + 4000 + 1000 * i))
    run(live, live.undo("ann", T0 + 10_000))
    watermark = T0 + 4000 + DELAY + 2500  # frames of the first three moves have fallen due
    released = live.release(watermark)
    assert len(released) == 3
    loaded = RoomCore.load(list(live.log), watermark)
    assert loaded.schedule == live.schedule and len(loaded.schedule) == 4
    assert loaded.state_for("sue", watermark) == live.state_for("sue", watermark)
    ann = loaded.state_for("sue", watermark).watching[0]
    assert (ann.history, ann.actions) == (line()[:3], 3)


def test_nobody_watching_builds_no_spectator_frames_and_a_first_spectator_misses_none() -> None:
    watched, unwatched = racing(), racing(watched=False)
    for i, move in enumerate(line()[:6]):
        run(watched, watched.move("ann", move, T0 + 4000 + 1000 * i))
        outcome = run(unwatched, unwatched.move("ann", move, T0 + 4000 + 1000 * i))
        assert outcome.delayed == [] and unwatched.next_wake() is None
    now = T0 + 4000 + DELAY + 2500  # frames of the first three moves have fallen due
    watched.release(now)
    joined = run(unwatched, unwatched.join("sue", "Sue", True, now))
    assert unwatched.schedule == watched.schedule and len(unwatched.schedule) == 3
    assert joined.wake == watched.schedule[0].due
    assert unwatched.state_for("sue", now).watching == watched.state_for("sue", now).watching
    later = watched.schedule[-1].due
    assert unwatched.release(later) == watched.release(later)


def test_a_rematch_drops_the_older_races_frames() -> None:
    core = racing()
    run(core, core.move("ann", line()[0], T0 + 4000))
    run(core, core.resign("ann", T0 + 4001))
    run(core, core.resign("bob", T0 + 4002))
    assert core.room.phase == "finished" and len(core.schedule) == 4
    run(core, core.rematch("ann", 7, T0 + 4003))
    run(core, core.rematch("bob", 7, T0 + 4004))
    assert core.schedule == [] and core.release(T0 + 100_000) == []


def test_spectator_frames_fall_due_in_event_order_even_after_a_late_timer() -> None:
    core = racing(time_limit_ms=60_000)
    started = core.room.started_at
    assert started is not None
    # A move that beat the timer: the time limit's end is dated before it.
    run(core, core.move("ann", line()[0], started + 60_010))
    ended = run(core, core.tick(started + 60_020))
    assert isinstance(decode_server(ended.delayed[0].frame)[1], Result)
    dues = [d.due for d in core.schedule]
    assert dues == sorted(dues)
    kinds = [type(decode_server(frame)[1]) for _, frame in core.release(started + 60_010 + DELAY)]
    assert kinds == [Progress, Result]


def test_racers_see_every_history_once_the_race_is_over() -> None:
    core = racing()
    run(core, core.move("ann", line()[0], T0 + 4000))
    assert core.state_for("bob", T0 + 4000).watching == ()
    run(core, core.resign("ann", T0 + 4001))
    finished = run(core, core.resign("bob", T0 + 4002))
    (result,) = [m for m in frames_to(finished, "bob") if isinstance(m, Result)]
    assert [(h.player, h.history) for h in result.histories] == [("ann", (line()[0],)), ("bob", ())]
    state = core.state_for("bob", T0 + 4003)
    assert isinstance(state, RoomState) and state.watching == result.histories
    assert [w.history for w in core.state_for("sue", T0 + 4003).watching] == [(), ()]  # not yet due


def test_nobody_watching_wakes_nobody_and_a_first_spectator_misses_nothing() -> None:
    core, created = RoomCore.create("ROOM02", Settings("seahaven", 1, spectator_delay_ms=DELAY), T0)
    run(core, created)
    for player in ("ann", "bob"):
        run(core, core.join(player, player.title(), False, T0))
        run(core, core.ready(player, True, T0))
    run(core, core.tick(T0 + 3000))
    first, second = line()[:2]
    moved = run(core, core.move("ann", first, T0 + 4000))
    assert moved.wake is None and core.next_wake() is None  # no timer for frames nobody would get
    run(core, core.move("ann", second, T0 + 4000 + DELAY))
    joined = run(core, core.join("sue", "Sue", True, T0 + 4000 + DELAY + 1))
    assert isinstance(joined.reply, RoomState)
    assert [w.history for w in joined.reply.watching] == [(first,), ()]  # fell due before she came
    assert joined.wake == T0 + 4000 + 2 * DELAY  # the second move's frame, still to come, is hers
    ((audience, data),) = core.release(T0 + 4000 + 2 * DELAY)
    progress = decode_server(data)[1]
    assert audience == frozenset({"sue"}) and isinstance(progress, Progress) and progress.move == second


# -- abort: a racer's lone move or undo is taken back, anything else replays the log ----------

Command = Callable[[RoomCore, int], Outcome]


def assert_replayed(core: RoomCore, now: int) -> None:
    """The core's room is its log's replay: field by field, seat by seat, and as each sees it."""
    room, replayed = core.room, Room.replay(core.log)
    for f in fields(Room):
        if f.name != "seats":
            assert getattr(room, f.name) == getattr(replayed, f.name), f.name
    assert list(room.seats) == list(replayed.seats)
    for player, seat in room.seats.items():
        twin = replayed.seats[player]
        for f in fields(Seat):
            assert getattr(seat, f.name) == getattr(twin, f.name), (player, f.name)
        assert (seat.board and seat.board.move_stack) == (twin.board and twin.board.move_stack)
    for player in [*room.seats, *room.spectators, "passer-by"]:
        assert room.state_for(player, now, core.watermark) == replayed.state_for(player, now, core.watermark)


def near_the_end(left: int = 5) -> RoomCore:
    """A race where ann has all but ``left`` moves of her winning line behind her."""
    core = racing()
    for i, move in enumerate(line()[:-left]):
        run(core, core.move("ann", move, T0 + 4000 + i))
    return core


def command_for(room: Room, player: str, kind: str, choice: int) -> Command:
    """The command ``kind`` names for ``player`` in ``room``: the next move of the winning line
    while on it, a legal move (``choice`` picks which), an undo or a resignation."""
    board = room.seats[player].board
    assert board is not None
    stack = [str(m) for m in board.move_stack]
    legal = [str(m) for m in board.legal_moves()]
    if kind == "line" and tuple(stack) == line()[: len(stack)] and len(stack) < len(line()):
        move = line()[len(stack)]
    elif kind in ("line", "move") and legal:
        move = legal[choice % len(legal)]
    elif kind == "resign":
        return lambda core, now: core.resign(player, now)
    else:
        return lambda core, now: core.undo(player, now)
    return lambda core, now: core.move(player, move, now)


KINDS = ("line",) * 5 + ("move",) * 4 + ("undo",) * 3 + ("resign",)
steps = st.lists(
    st.tuples(st.sampled_from(("ann", "bob")), st.sampled_from(KINDS), st.integers(0, 2**16), st.booleans()),
    max_size=40,
)
"""(racer, command, which legal move, stored or refused by the store)"""


@settings(
    max_examples=120, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(steps)
def test_after_an_abort_the_room_is_its_log_replayed_and_plays_on_the_same(
    steps: list[tuple[str, str, int, bool]],
) -> None:
    core, stored_only = near_the_end(), near_the_end()  # the twin never sees what the store refused
    now = T0 + 10_000
    for player, kind, choice, stored in steps:
        now += 7
        command = command_for(core.room, player, kind, choice)
        try:
            outcome = command(core, now)
        except RoomError as refused:
            with pytest.raises(RoomError) as again:
                command(stored_only, now)
            assert again.value.code == refused.code
            continue
        if stored:
            assert command(stored_only, now) == outcome
            run(stored_only, outcome)
            run(core, outcome)
        else:
            core.abort()
            assert_replayed(core, now)
    assert core.log == stored_only.log
    assert_replayed(core, now)


def test_the_commands_of_the_property_test_meet_every_kind_of_abort() -> None:
    """Its racers' moves and undos alone, a winning move that ends the race, a resignation."""
    seen = set()
    for kinds in (["line"] * 5, ["move", "undo", "undo"], ["resign"]):
        core = near_the_end()
        for i, kind in enumerate(kinds):
            now = T0 + 10_000 + i
            outcome = command_for(core.room, "ann", kind, i)(core, now)
            seen.add(tuple(type(e).__name__ for e in outcome.events))
            if i < len(kinds) - 1:
                run(core, outcome)
        core.abort()
        assert_replayed(core, now)
    assert seen == {("Moved",), ("Undone",), ("Moved", "Ended"), ("Resigned",)}


def replays_spied(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of each log ``Room.replay`` rebuilds from now on (it still rebuilds them)."""
    lengths: list[int] = []
    replay = Room.replay.__func__  # type: ignore[attr-defined]

    def spy(cls: type[Room], events: list[Event], then: Callable[[Room, Event], None] | None = None) -> Room:
        lengths.append(len(events))
        return replay(cls, events, then)  # type: ignore[no-any-return]

    monkeypatch.setattr(Room, "replay", classmethod(spy))
    return lengths


def test_aborting_a_move_or_an_undo_in_a_long_log_replays_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    core = racing()
    first = line()[0]
    now = T0 + 4000
    for _ in range(1500):
        run(core, core.move("ann", first, now))
        run(core, core.undo("ann", now))
    run(core, core.move("ann", first, now))
    run(core, core.move("bob", first, now))
    assert len(core.log) > 3000
    replays = replays_spied(monkeypatch)
    assert isinstance(core.undo("bob", now + 1).events[0], Undone)
    core.abort()
    core.move("ann", line()[1], now + 1)
    core.abort()
    assert replays == []
    assert_replayed(core, now + 1)
    core.resign("ann", now + 2)
    core.abort()  # not a move or undo: the log is replayed
    assert replays[-1] == len(core.log)


def test_an_aborted_move_is_taken_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    core = racing()
    core.move("ann", line()[0], T0 + 4000)
    core.abort()
    with pytest.raises(RoomError):
        core.undo("ann", T0 + 4001)  # nothing to undo
    replays = replays_spied(monkeypatch)
    core.tick(T0 + 4002)  # nothing due: no events, committed as such
    core.abort()
    assert replays == [len(core.log)]
    assert_replayed(core, T0 + 4002)


def test_an_event_that_does_not_fit_leaves_the_room_its_log_replayed() -> None:
    core = racing()
    run(core, core.move("ann", line()[0], T0 + 4000))
    good, bad = MovedEvent(T0 + 4001, "bob", line()[0]), MovedEvent(T0 + 4002, "bob", "1#")
    with pytest.raises(ValueError, match="does not fit its log"):
        core.apply([good, bad], T0 + 4003)
    assert core.log[-1] == good
    assert_replayed(core, T0 + 4003)


def test_another_node_applying_the_events_later_sends_the_same_bytes() -> None:
    """Issue 18, found from outside: a node that hears of an event later (another node stored
    it) rendered its frames from its own clock, so a rival there saw ``elapsed_ms`` a millisecond
    off the mover's ``moved``. Frames derive from the log alone: the same bytes on every node."""
    settings = Settings("seahaven", 1, spectator_delay_ms=DELAY, undo=True)
    here, created = RoomCore.create("ROOM01", settings, T0)
    run(here, created)
    there = RoomCore.load(list(here.log), T0)
    late = 7  # ms: how much later the other node's clock reads when it applies each event

    def both(outcome: Outcome, now: int) -> Outcome:
        run(here, outcome)
        heard = there.apply(outcome.events, now + late)
        assert heard.frames == outcome.frames
        return outcome

    both(here.join("ann", "Ann", False, T0), T0)
    both(here.join("bob", "Bob", False, T0), T0)
    both(here.ready("ann", True, T0 + 1), T0 + 1)
    countdown = both(here.ready("bob", True, T0 + 2), T0 + 2)
    assert countdown.frames
    both(here.tick(T0 + 3050), T0 + 3050)  # the start's timer fired 48 ms late
    assert here.room.started_at == T0 + 3002
    moves = [(player, move) for move in line()[:3] for player in ("ann", "bob")]
    for i, (player, move) in enumerate(moves):
        now = T0 + 4000 + 13 * i
        outcome = both(here.move(player, move, now), now)
        assert isinstance(outcome.reply, Moved)
        (rival,) = frames_to(outcome, "bob" if player == "ann" else "ann")
        assert isinstance(rival, Progress) and rival.elapsed_ms == outcome.reply.elapsed_ms == now - (T0 + 3002)
    both(here.undo("ann", T0 + 5000), T0 + 5000)
    both(here.resign("bob", T0 + 5001), T0 + 5001)
    ended = both(here.resign("ann", T0 + 5002), T0 + 5002)
    assert any(isinstance(decode_server(frame)[1], Result) for _, frame in ended.frames)
    assert there.log == here.log
