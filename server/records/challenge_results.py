"""What a ghost challenge led to: the races run against its ghost, as the read API shows them.

The races against a challenge's ghost are those with a racer ``ghost-`` and the challenge's id
(``server.rooms.room.GHOST_PREFIX``), found by that racer's row (the ``(player, ended_at,
race_id)`` index); each result is the other racer's run in it. Used by the reader's
``challenge`` (``GET /api/v1/challenges/{challenge}``) and by ``ChallengeRecords.of_player``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from sqlalchemy import and_, select
from sqlalchemy.sql.expression import Select

from protocol.messages import GHOST_PREFIX
from server.records.schema import race_racers
from server.records.views import shown_name

__all__ = ["RESULTS", "challenge_of", "result_view", "results_query"]

RESULTS: Final = 50
"""The most results one answer lists (the latest)."""


def results_query(ids: list[str]) -> Select[Any]:
    """The runs raced against the ghosts of the challenges ``ids``, latest first (with ``ghost``,
    the ghost's player id, to tell the challenges apart)."""
    ghost = race_racers.alias("ghost")
    them = race_racers.alias("them")
    return (
        select(
            ghost.c.player.label("ghost"),
            them.c.player,
            them.c.name,
            them.c.race_id,
            them.c.place,
            them.c.status,
            them.c.time_ms,
        )
        .join(them, and_(them.c.race_id == ghost.c.race_id, them.c.player != ghost.c.player))
        .where(ghost.c.player.in_([GHOST_PREFIX + i for i in ids]), them.c.ghost.is_(False))
        .order_by(them.c.ended_at.desc(), them.c.race_id.desc())
    )


def challenge_of(row: Mapping[str, Any]) -> str:
    """The challenge a ``results_query`` row is a result of."""
    return str(row["ghost"])[len(GHOST_PREFIX) :]


def finishing_time(row: Mapping[Any, Any]) -> int | None:
    """A run's finishing time; None for a run that did not finish, whose stored time is only when
    its progress last changed (the standings' tie-break): "0:00.0 to beat" for a resigned run."""
    return int(row["time_ms"]) if row["status"] == "finished" and row["time_ms"] is not None else None


def result_view(row: Mapping[str, Any], deleted: set[str]) -> dict[str, Any]:
    """One result (the API's ``ChallengeResult``): who raced the ghost, their place (1: they beat
    it) and finishing time (None: they did not finish)."""
    return {
        "player": row["player"],
        "name": shown_name(row["name"], row["player"] in deleted),
        "race_id": row["race_id"],
        "place": row["place"],
        "time_ms": finishing_time(row),
    }
