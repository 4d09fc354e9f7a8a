"""Race records to archive: one raced in a real room (its log through ``races_of``), and records
made to measure (who ran, how fast, on which settings) for the boards and the benchmarks.

Every winning run plays the frozen win of Seahaven Towers #1 (tests/wins.py), so the engine
proves it again on the archive's side; a run that did not finish plays the first few moves.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from protocol.enums import EndReason, Status
from protocol.messages import GHOST_PREFIX
from seahaven.codes import encode
from server.rooms.events import Event
from server.rooms.history import RaceRecord, RacerRecord, races_of
from server.rooms.room import BOT_PREFIX, Room
from server.rooms.settings import Settings
from tests.wins import SEAHAVEN_1_WIN

DEAL = 1
"""The deal every record races (SEAHAVEN_1_WIN wins it under the seahaven presets)."""
T0 = 1_800_000_000_000
"""A server time (ms) the records start from."""
STEP_MS = 250
"""Between two moves of one racer in ``raced_log``."""


def settings_of(**chosen: Any) -> Settings:
    """Settings of a room racing ``DEAL`` under "seahaven", with ``chosen`` changed."""
    return dataclasses.replace(Settings("seahaven", DEAL), **chosen)


def raced_log(code: str = "ROOM01", created_at: int = T0, *, loser_moves: int = 12, **settings: Any) -> list[Event]:
    """A room's whole log: Ann and Bob join and get ready, the race starts, Bob plays
    ``loser_moves`` moves (one undone), Ann plays the win: the race ends, won."""
    room, log = Room.create(code, settings_of(countdown_ms=3000, **settings), created_at)
    log += room.join("ann", "Ann", False, created_at + 10)
    log += room.join("bob", "Bob", False, created_at + 20)
    log += room.set_ready("ann", True, created_at + 30)
    log += room.set_ready("bob", True, created_at + 40)
    start = created_at + 40 + 3000
    log += room.tick(start)
    assert room.phase == "racing"
    now = start
    for text in SEAHAVEN_1_WIN[:loser_moves]:
        now += STEP_MS
        log += room.move("bob", text, now)
    now += STEP_MS
    log += room.undo("bob", now)
    for text in SEAHAVEN_1_WIN:
        now += STEP_MS
        log += room.move("ann", text, now)
    assert room.phase == "finished"
    return log


def raced_record(code: str = "ROOM01", created_at: int = T0, **settings: Any) -> RaceRecord:
    """The one race of ``raced_log``, as the archiver gets it."""
    (record,) = races_of(raced_log(code, created_at, **settings))
    return record


@dataclass(frozen=True)
class Run:
    """One racer of a record made to measure."""

    player: str
    time_ms: int | None = None
    """A finish time (a proven win), or None: the racer resigned after a few moves."""
    hints: int = 0
    name: str | None = None


def made_record(race_id: str, ended_at: int, runs: list[Run], **settings: Any) -> RaceRecord:
    """A race ``race_id`` that ended at ``ended_at``: finishers first by time, then the others."""
    finishers = sorted((r for r in runs if r.time_ms is not None), key=lambda r: r.time_ms or 0)
    others = [r for r in runs if r.time_ms is None]
    racers = []
    for place, run in enumerate([*finishers, *others], start=1):
        if run.time_ms is not None:
            step = run.time_ms // len(SEAHAVEN_1_WIN)
            moves = tuple((step * (i + 1), text) for i, text in enumerate(SEAHAVEN_1_WIN))
            status, progress = Status.FINISHED, 52
        else:
            moves = tuple((1000 * (i + 1), text) for i, text in enumerate(SEAHAVEN_1_WIN[:5]))
            status, progress = Status.RESIGNED, 0
        racers.append(
            RacerRecord(
                player=run.player,
                name=run.name or run.player.title(),
                place=place,
                status=status,
                progress=progress,
                time_ms=run.time_ms if run.time_ms is not None else moves[-1][0],
                moves=moves,
                hints=run.hints,
                bot=run.player.startswith(BOT_PREFIX),
                ghost=run.player.startswith(GHOST_PREFIX),
            )
        )
    chosen = settings_of(**settings)
    longest = max((r.time_ms or 0 for r in racers), default=0)
    return RaceRecord(
        race_id=race_id,
        room=race_id.split("-")[0],
        number=int(race_id.split("-")[1]),
        settings=chosen,
        deal_code=encode(chosen.preset, chosen.deal),
        started_at=ended_at - longest,
        ended_at=ended_at,
        end_reason=EndReason.WON if finishers else EndReason.ALL_DONE,
        racers=tuple(racers),
    )


def copies(record: RaceRecord, count: int) -> list[RaceRecord]:
    """``count`` records like ``record`` with ids and end times of their own (rooms R0..R<count-1>)."""
    return [
        dataclasses.replace(record, race_id=f"R{i}-1-aaaaaaaa", room=f"R{i}", ended_at=record.ended_at + i)
        for i in range(count)
    ]
