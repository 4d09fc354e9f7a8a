"""Two histories of one room that part at an index (a lost tail, a foreign append): what is merged
(server/rooms/merge.py), and that the merged log replays with every move judged again."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.rooms.core import RoomCore
from server.rooms.events import Ended, Event, Left, Moved, Presence, Started
from server.rooms.merge import Unmergeable, merge
from server.rooms.room import Room
from server.rooms.settings import Settings
from tests.racing import solution


def racing_room() -> tuple[Room, list[Event]]:
    """A room whose race started at t=1000: racers p1 and p2, spectator s1; and its log."""
    room, log = Room.create("ROOM01", replace(Settings("seahaven", 1, seats=2), countdown_ms=998), 0)
    for player in ("p1", "p2"):
        log += room.join(player, player.upper(), False, 1)
    log += room.join("s1", "Watcher", True, 1)
    for player in ("p1", "p2"):
        log += room.set_ready(player, True, 2)
    log += room.tick(1000)
    assert room.phase == "racing"
    return room, log


def fork(log: list[Event]) -> tuple[Room, Room]:
    """Two rooms at the same log: the holder's (ours) and the node's that never saw our tail."""
    return Room.replay(log), Room.replay(log)


def merged(prefix: list[Event], ours: list[Event], theirs: list[Event]) -> RoomCore:
    """The stored log after the heal: the prefix, theirs, then ours; replayed (moves judged)."""
    return RoomCore.load([*prefix, *theirs, *merge(ours, theirs)], 0)


def test_moves_of_different_racers_merge_and_every_one_is_kept() -> None:
    _, prefix = racing_room()
    mine, other = fork(prefix)
    moves = solution()
    ours = [e for i, m in enumerate(moves[:5]) for e in mine.move("p1", str(m), 1100 + i)]
    theirs = [e for i, m in enumerate(moves[:3]) for e in other.move("p2", str(m), 1102 + i)]
    theirs += other.undo("p2", 1200)
    core = merged(prefix, ours, theirs)
    assert core.room.seats["p1"].moves == 5 and core.room.seats["p2"].moves == 4
    assert len(core.log) == len(prefix) + len(ours) + len(theirs)


def test_an_end_in_our_tail_ranks_by_the_times_in_the_events() -> None:
    """Our racer won (and the race ended) on the tail Redis lost; the other node stored its racer's
    moves meanwhile: merged, the end comes after them, and the standings rank by time and progress."""
    _, prefix = racing_room()
    mine, other = fork(prefix)
    ours = [e for i, m in enumerate(solution()) for e in mine.move("p1", str(m), 2000 + i)]
    assert isinstance(ours[-1], Ended)
    theirs = [e for i, m in enumerate(solution()[:10]) for e in other.move("p2", str(m), 2005 + i)]
    core = merged(prefix, ours, theirs)
    assert core.room.phase == "finished"
    first, second = core.room.standings
    assert (first.player, first.status, first.time_ms) == ("p1", "finished", 2000 + len(solution()) - 1 - 1000)
    assert (second.player, second.progress) == ("p2", Room.replay([*prefix, *theirs]).seats["p2"].board.progress)  # type: ignore[union-attr]


def test_a_drop_recorded_by_another_node_commutes_with_the_racers_moves() -> None:
    """A node stalled through the loss: another node's sweep recorded its racer dropped."""
    _, prefix = racing_room()
    mine, other = fork(prefix)
    ours = [e for i, m in enumerate(solution()[:4]) for e in mine.move("p1", str(m), 1100 + i)]
    theirs = other.disconnect("p1", 1103)
    assert theirs == [Presence(1103, "p1", False)]
    core = merged(prefix, ours, theirs)
    assert core.room.seats["p1"].moves == 4 and not core.room.seats["p1"].connected


def test_moves_of_one_racer_in_both_histories_do_not_merge() -> None:
    _, prefix = racing_room()
    mine, other = fork(prefix)
    ours = mine.move("p1", str(solution()[0]), 1100)
    theirs = other.move("p1", str(solution()[0]), 1101)
    with pytest.raises(Unmergeable, match="both histories hold events of p1"):
        merge(ours, theirs)


def test_two_ends_do_not_merge() -> None:
    """Each node's racer won on its own history: two Endeds (the stored one stands)."""
    _, prefix = racing_room()
    mine, other = fork(prefix)
    ours = [e for i, m in enumerate(solution()) for e in mine.move("p1", str(m), 2000 + i)]
    theirs = [e for i, m in enumerate(solution()) for e in other.move("p2", str(m), 2001 + i)]
    assert isinstance(ours[-1], Ended) and isinstance(theirs[-1], Ended)
    with pytest.raises(Unmergeable, match="the stored history holds Ended"):
        merge(ours, theirs)


def test_a_start_against_a_leave_does_not_merge() -> None:
    settings = replace(Settings("seahaven", 1, seats=3), countdown_ms=100)
    room, prefix = Room.create("ROOM01", settings, 0)
    for player in ("p1", "p2", "p3"):
        prefix += room.join(player, player.upper(), False, 1)
    for player in ("p1", "p2", "p3"):
        prefix += room.set_ready(player, True, 2)
    mine, other = fork(prefix)
    ours = mine.tick(200)  # the countdown ran out here: the race started
    assert [type(e) for e in ours] == [Started]
    theirs = other.leave("p3", 150)  # there, a racer left before the start
    assert [type(e) for e in theirs] == [Left]
    with pytest.raises(Unmergeable, match="our Started against their Left"):
        merge(ours, theirs)
    with pytest.raises(Unmergeable, match="the stored history holds Started"):
        merge(theirs, ours)  # the other way round: their start, our leave


def test_an_end_against_a_foreign_resignation_does_not_merge() -> None:
    _, prefix = racing_room()
    mine, other = fork(prefix)
    ours = [e for i, m in enumerate(solution()) for e in mine.move("p1", str(m), 2000 + i)]
    theirs = other.resign("p2", 2001)
    with pytest.raises(Unmergeable, match="our Ended against their Resigned"):
        merge(ours, [e for e in theirs if not isinstance(e, Ended)])


def test_moves_merge_only_when_the_merged_log_replays() -> None:
    """The rules pass, but an event of ours does not fit after theirs: the replay says so."""
    _, prefix = racing_room()
    mine, _ = fork(prefix)
    ours = mine.move("p1", str(solution()[0]), 1100)
    bogus: list[Event] = [Moved(1100, "p2", "zz")]
    with pytest.raises(ValueError):
        merged(prefix, ours, bogus)
