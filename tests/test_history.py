"""Race ids and race records: what a room's log says about each race it held (pure)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol.enums import EndReason, Status
from protocol.messages import Result
from server.rooms.events import Event, Moved
from server.rooms.history import ended_races, proven, races_of
from server.rooms.raceid import race_id, room_of
from server.rooms.room import Room
from server.rooms.settings import Settings
from tests.wins import SEAHAVEN_1_WIN


def race(room: Room, log: list[Event], start: int) -> list[Event]:
    """Ready both racers and start a race at ``start``; the events it took."""
    events: list[Event] = []
    for player in room.seats:
        events += room.set_ready(player, True, start - 10)
    events += room.tick(start)
    assert room.phase == "racing"
    log += events
    return events


def two_racers() -> tuple[Room, list[Event]]:
    room, log = Room.create("ROOM01", replace(Settings("seahaven", 1), countdown_ms=10), 0)
    log += room.join("pann", "Ann", False, 1)
    log += room.join("pbob", "Bob", False, 2)
    return room, log


def test_race_ids_are_derived_from_the_room_and_tell_rooms_that_reused_a_code_apart() -> None:
    first = race_id("ABCD12", 1000, 1)
    assert first == race_id("ABCD12", 1000, 1)
    assert first != race_id("ABCD12", 1001, 1)  # the code again, a later room
    assert first != race_id("ABCD12", 1000, 2)
    assert room_of(first) == "ABCD12"
    assert first.startswith("ABCD12-1-")
    for bad in ("", "ABCD12", "ABCD12-x-abcdefgh", "ABCD12-1-short", "a-b-c-d"):
        with pytest.raises(ValueError):
            room_of(bad)


def test_a_won_race_becomes_one_record_with_every_move_at_its_server_time() -> None:
    room, log = two_racers()
    race(room, log, 1000)
    log += room.move("pbob", SEAHAVEN_1_WIN[0], 1050)
    at = 1000
    for move in SEAHAVEN_1_WIN:
        at += 100
        log += room.move("pann", move, at)
    assert room.phase == "finished"
    [record] = races_of(log)
    assert record.race_id == race_id("ROOM01", 0, 1) == room.race_id()
    assert record.end_reason == EndReason.WON
    assert record.started_at == 1000 and record.ended_at == at
    ann, bob = record.racers
    assert (ann.player, ann.place, ann.status) == ("pann", 1, Status.FINISHED)
    assert ann.time_ms == at - 1000
    assert ann.moves == tuple((100 * (i + 1), m) for i, m in enumerate(SEAHAVEN_1_WIN))
    assert proven(record, ann)
    assert bob.place == 2 and bob.moves == ((50, SEAHAVEN_1_WIN[0]),) and not proven(record, bob)
    assert not ann.bot and not ann.ghost


@pytest.fixture
def finished_room() -> tuple[Room, list[Event]]:
    room, log = two_racers()
    race(room, log, 1000)
    log += room.move("pann", SEAHAVEN_1_WIN[0], 1100)
    log += room.undo("pann", 1200)
    log += room.resign("pbob", 1300)
    log += room.resign("pann", 1400)
    assert room.phase == "finished"
    return room, log


def test_undos_are_recorded_and_a_rematch_is_a_second_race_with_its_own_id(
    finished_room: tuple[Room, list[Event]],
) -> None:
    room, log = finished_room
    first_end = len(log)
    log += room.vote_rematch("pann", 7, 1500)
    log += room.vote_rematch("pbob", 7, 1600)
    log += room.tick(1700)
    assert room.phase == "racing"
    log += room.resign("pann", 1800)
    log += room.resign("pbob", 1900)
    first, second = races_of(log)
    assert [first.number, second.number] == [1, 2]
    assert first.race_id != second.race_id == room.race_id()
    assert second.settings.deal == 7 and first.settings.deal == 1
    ann = next(r for r in first.racers if r.player == "pann")
    assert ann.moves == ((100, SEAHAVEN_1_WIN[0]), (200, "undo")) and ann.undos == 1
    assert ended_races(log) == [first.race_id, second.race_id]
    assert ended_races(log, first_end) == [second.race_id]  # a tail after the first end
    assert ended_races(log, len(log)) == []


def test_the_result_names_the_race_on_record(finished_room: tuple[Room, list[Event]]) -> None:
    room, log = finished_room
    results = [o.message for o in room.messages(log[-1]) if isinstance(o.message, Result)]
    assert results and all(r.race_id == room.race_id() for r in results)


def test_a_log_with_an_illegal_move_proves_nothing(finished_room: tuple[Room, list[Event]]) -> None:
    _, log = finished_room
    index = next(i for i, e in enumerate(log) if isinstance(e, Moved))
    forged = [*log[:index], Moved(1100, "pann", "9#"), *log[index + 1 :]]
    with pytest.raises(ValueError):
        races_of(forged)
    [record] = races_of(log)
    ann = next(r for r in record.racers if r.player == "pann")
    forged_run = replace(ann, status=Status.FINISHED, moves=((1, "9#"),))
    assert not proven(record, forged_run)
