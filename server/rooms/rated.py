"""What a rated race rates (docs/ratings.md), and what it changed: pure, like the race records.

The records' archive asks ``rated_racers`` of each race it writes, and hands what the rating
update made (``RatingChange``) to whoever tells the players (the shell's notices); both sides meet
here, below them both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from protocol.messages import REGISTERED_PREFIX
from server.rooms.history import RaceRecord, RacerRecord

__all__ = ["RatingChange", "Told", "rated_racers"]


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One player's rating on one preset after one race (the shown numbers: docs/ratings.md)."""

    player: str
    preset: str
    race_id: str
    rating: int
    """The shown rating after the race."""
    change: int
    """The shown rating after, less the shown rating before."""
    provisional: bool
    races: int
    """Rated races on the preset so far, this one counted."""


Told = Callable[[Sequence[RatingChange]], Awaitable[None]]
"""Told what a race on record changed (after its transaction committed; never raises)."""


def rated_racers(record: RaceRecord) -> list[RacerRecord]:
    """The racers ``record`` rates, in the final standings' order (best first); ``[]`` when it
    rates nobody.

    A race rates only when its room was rated, hints were off and the server picked the deal in
    secret (nobody knew it beforehand). It rates its registered human racers: never a bot or a
    ghost, and never an anonymous racer, whose id lasts a day (a rating nobody can come back to is
    noise). They are ranked among themselves, the others left out as if they had not raced; fewer
    than two such racers and nobody is rated.
    """
    settings = record.settings
    if not settings.rated or settings.hints or settings.chosen or settings.daily is not None:
        return []
    rated = [r for r in record.racers if not r.bot and not r.ghost and r.player.startswith(REGISTERED_PREFIX)]
    return rated if len(rated) >= 2 else []
