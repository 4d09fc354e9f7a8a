"""Finished races as records: what a room's stored log says about each race it held.

Pure, like the rest of ``server/rooms``: the archiver reads a room's log, ``races_of`` replays
it (judging every move again) and returns one ``RaceRecord`` per race that ended. The same log
gives the same records, the same ids included, on every node and after any restart: a race's id
derives from the room's first event and the race's number in the room, never from a clock or a
counter held elsewhere, so two archivers writing the same race write the same row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from protocol.enums import Status
from protocol.messages import GHOST_PREFIX
from seahaven import Board
from seahaven.moves import read_move
from server.rooms.draw import Draw
from server.rooms.events import Created, Ended, Event, Started
from server.rooms.raceid import race_id
from server.rooms.room import BOT_PREFIX, Room
from server.rooms.settings import Settings

__all__ = ["GHOST_PREFIX", "ChallengeRun", "RaceRecord", "RacerRecord", "ended_races", "proven", "races_of"]


@dataclass(frozen=True, slots=True)
class RacerRecord:
    """One racer's race: their place, how it ended for them and every move with its server time."""

    player: str
    name: str
    place: int
    status: str
    progress: int
    time_ms: int | None
    """Finish time from the start (finishers), else when their progress last changed; None if no start."""
    moves: tuple[tuple[int, str], ...]
    """(ms from the start, move in the notation or ``"undo"``), in the order the server applied them."""
    hints: int
    bot: bool
    ghost: bool
    auto: tuple[int, ...] = ()
    """The indices in ``moves`` of what the server played for the racer (auto-moves, and the undos
    that took them back); the others are the racer's own."""

    @property
    def undos(self) -> int:
        """The racer's own undos (an undo that took back auto-moves counts once, as it was asked)."""
        served = set(self.auto)
        return sum(1 for i, (_, move) in enumerate(self.moves) if move == "undo" and i not in served)

    @property
    def own_moves(self) -> int:
        """The racer's own moves and undos: the results' count."""
        return len(self.moves) - len(self.auto)

    @property
    def finished(self) -> bool:
        return self.status == Status.FINISHED


@dataclass(frozen=True, slots=True)
class RaceRecord:
    """One finished race of a room, as its log tells it."""

    race_id: str
    room: str
    number: int
    settings: Settings
    """The room's settings for this race (``deal`` is this race's deal)."""
    deal_code: str
    started_at: int
    ended_at: int
    end_reason: str
    racers: tuple[RacerRecord, ...]
    """In the final standings' order (place 1 first)."""
    draw: Draw | None = None
    """How the deal was drawn (a drawn room's race; server/rooms/draw.py); None for any other.
    Kept in the signed record only (a record read back from its rows has none)."""
    log: tuple[int, str] | None = None
    """The stored log at the race's end: its length (entries up to and including the end) and its
    chain tip there (``server.store.base.chain``), which the signed record carries; None when the
    record was read back from the database rather than from a log."""


def races_of(events: list[Event], tips: Sequence[str] | None = None) -> list[RaceRecord]:
    """Every race the log holds that ended, in order (replays and judges every move: ValueError
    for a log that does not replay legally). ``tips``: the log's chain tips, one per event, to
    record where each race ended in it (``RaceRecord.log``)."""
    records: list[RaceRecord] = []
    length = 1  # Created, which replay reads before it calls ``seen``

    def seen(room: Room, event: Event) -> None:
        nonlocal length
        length += 1
        if isinstance(event, Ended) and room.started_at is not None:
            records.append(_record(room, event, (length, tips[length - 1]) if tips is not None else None))

    Room.replay(events, seen)
    return records


def _record(room: Room, ended: Ended, log: tuple[int, str] | None) -> RaceRecord:
    started = room.started_at
    assert started is not None
    racers = []
    for standing in room.standings:
        seat = room.seats[standing.player]
        racers.append(
            RacerRecord(
                player=standing.player,
                name=standing.name,
                place=standing.place,
                status=standing.status,
                progress=standing.progress,
                time_ms=standing.time_ms,
                moves=tuple((at - started, move) for at, move in seat.timeline),
                hints=seat.hints,
                bot=standing.player.startswith(BOT_PREFIX),
                ghost=standing.player.startswith(GHOST_PREFIX),
                auto=tuple(seat.served),
            )
        )
    return RaceRecord(
        race_id=room.race_id(),
        room=room.code,
        number=room.races,
        settings=room.settings,
        deal_code=room.deal_code(),
        started_at=started,
        ended_at=ended.at,
        end_reason=ended.reason,
        racers=tuple(racers),
        draw=room.draw,
        log=log,
    )


def proven(record: RaceRecord, racer: RacerRecord) -> bool:
    """True when ``racer``'s moves, played again by the engine on the race's deal, win it: what a
    leaderboard entry must show before it counts (a record is not trusted because it was stored)."""
    board = Board.deal(record.settings.preset, record.settings.deal)
    try:
        for _, text in racer.moves:
            if text == "undo":
                board.pop()
            else:
                board.push(read_move(text))  # judged: push raises IllegalMoveError (a ValueError)
    except (ValueError, IndexError):
        return False
    return board.is_won()


def ended_races(log: Sequence[Event], start: int = 0) -> list[str]:
    """The ids of the races that ``log[start:]`` ends (``log`` whole, from ``Created``): what an
    append of those events must mark for the archive."""
    first = log[0]
    assert isinstance(first, Created)
    number = 0
    racing = False
    ended: list[str] = []
    for index, event in enumerate(log):
        if isinstance(event, Started):
            number += 1
            racing = True
        elif isinstance(event, Ended) and racing:
            racing = False
            if index >= start:
                ended.append(race_id(first.code, first.at, number))
    return ended


@dataclass(frozen=True, slots=True)
class ChallengeRun:
    """A ghost challenge on record: a finished race, and whose run in it the ghost plays
    (``server/play/ghosts.py``; its player id is ``GHOST_PREFIX`` and ``challenge``)."""

    challenge: str
    race: RaceRecord
    player: str
    created_by: str
    created_at: int

    def __post_init__(self) -> None:
        if not any(racer.player == self.player for racer in self.race.racers):
            raise ValueError(f"challenge {self.challenge}: {self.player!r} did not race in {self.race.race_id}")

    @property
    def run(self) -> RacerRecord:
        return next(racer for racer in self.race.racers if racer.player == self.player)
