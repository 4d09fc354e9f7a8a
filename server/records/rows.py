"""A race record as table rows, and back: what the archive writes and the reader rebuilds.

``proofs`` is the one place that decides which runs are proven: a finisher whose moves the
engine plays again on the race's deal and wins (``server.rooms.history.proven``); nobody else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from server.rooms.history import RaceRecord, RacerRecord, proven
from server.rooms.settings import Settings, public_settings

__all__ = ["proofs", "race_row", "racer_rows", "record_of"]

SETTINGS_FIELDS = frozenset(f.name for f in dataclasses.fields(Settings))


def proofs(record: RaceRecord) -> dict[str, bool]:
    """Player -> whether their run is proven (finishers only: the engine replays their moves)."""
    return {racer.player: racer.finished and proven(record, racer) for racer in record.racers}


def race_row(record: RaceRecord, archived_at: int) -> dict[str, Any]:
    settings = record.settings
    return {
        "race_id": record.race_id,
        "room": record.room,
        "number": record.number,
        "preset": settings.preset,
        "deal": settings.deal,
        "deal_code": record.deal_code,
        "deal_grade": settings.deal_grade,
        "chosen": settings.chosen,
        "daily": settings.daily,
        "hints_allowed": settings.hints,
        "undo_allowed": settings.undo,
        "time_limit_ms": settings.time_limit_ms,
        "settings": public_settings(settings),
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "end_reason": record.end_reason,
        "racer_count": len(record.racers),
        "archived_at": archived_at,
    }


def racer_rows(record: RaceRecord, proven_runs: Mapping[str, bool]) -> list[dict[str, Any]]:
    return [
        {
            "race_id": record.race_id,
            "player": racer.player,
            "name": racer.name,
            "place": racer.place,
            "status": racer.status,
            "progress": racer.progress,
            "time_ms": racer.time_ms,
            "hints": racer.hints,
            "undos": racer.undos,
            "bot": racer.bot,
            "ghost": racer.ghost,
            "proven": proven_runs[racer.player],
            "moves": _entries(racer),
            "ended_at": record.ended_at,
        }
        for racer in record.racers
    ]


def record_of(race: Mapping[Any, Any], racers: Sequence[Mapping[Any, Any]]) -> RaceRecord:
    """The record the rows were written from (``racers`` in the order to keep: by place)."""
    # Keys a later build dropped from Settings are left out; keys it added take their defaults.
    settings = Settings(**{k: v for k, v in race["settings"].items() if k in SETTINGS_FIELDS})
    return RaceRecord(
        race_id=race["race_id"],
        room=race["room"],
        number=race["number"],
        settings=settings,
        deal_code=race["deal_code"],
        started_at=race["started_at"],
        ended_at=race["ended_at"],
        end_reason=race["end_reason"],
        racers=tuple(
            RacerRecord(
                player=row["player"],
                name=row["name"],
                place=row["place"],
                status=row["status"],
                progress=row["progress"],
                time_ms=row["time_ms"],
                moves=tuple((entry[0], entry[1]) for entry in row["moves"]),
                hints=row["hints"],
                bot=row["bot"],
                ghost=row["ghost"],
                auto=tuple(i for i, entry in enumerate(row["moves"]) if len(entry) > 2 and entry[2]),
            )
            for row in racers
        ),
    )


def _entries(racer: RacerRecord) -> list[list[Any]]:
    """A racer's moves as the row keeps them: ``[ms, move]``, and ``[ms, move, 1]`` for what the
    server played for them (``RacerRecord.auto``)."""
    served = set(racer.auto)
    return [[at, move, 1] if i in served else [at, move] for i, (at, move) in enumerate(racer.moves)]
