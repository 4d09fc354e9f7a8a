"""The public read API's JSON shapes (plain dicts the HTTP layer serves as they are).

``race_view`` is the one conversion of a race record, used for an archived race (rebuilt from
its rows) and for one still live in the store alike, so both answer in the same shape.
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any

from server.rooms.history import RaceRecord

__all__ = ["DELETED_NAME", "race_view", "shown_name", "summary_view"]

DELETED_NAME = "deleted player"
"""What a deleted account is called in the races it took part in (its races stay on record)."""


def shown_name(name: str, deleted: bool) -> str:
    return DELETED_NAME if deleted else name


def race_view(
    record: RaceRecord, proven: Mapping[str, bool], *, archived: bool, deleted: Container[str] = ()
) -> dict[str, Any]:
    """A race for ``GET /api/v1/races/{race_id}``: ``proven`` by player, ``deleted`` the racers
    whose accounts are gone."""
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
        "hints": settings.hints,
        "undo": settings.undo,
        "time_limit_ms": settings.time_limit_ms,
        "started_at": record.started_at,
        "ended_at": record.ended_at,
        "end_reason": record.end_reason,
        "rated": settings.rated,
        "archived": archived,
        "racers": [
            {
                "player": racer.player,
                "name": shown_name(racer.name, racer.player in deleted),
                "place": racer.place,
                "status": racer.status,
                "progress": racer.progress,
                "time_ms": racer.time_ms,
                "hints": racer.hints,
                "undos": racer.undos,
                "bot": racer.bot,
                "ghost": racer.ghost,
                "proven": proven[racer.player],
                "moves": [[at, move] for at, move in racer.moves],
                "auto": list(racer.auto),
            }
            for racer in record.racers
        ],
    }


def summary_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """One race on a player's page (``row``: the player's racer row joined with its race)."""
    return {
        "race_id": row["race_id"],
        "preset": row["preset"],
        "deal": row["deal"],
        "ended_at": row["ended_at"],
        "place": row["place"],
        "racers": row["racer_count"],
        "status": row["status"],
        "time_ms": row["time_ms"],
    }
