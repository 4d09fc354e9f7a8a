"""What a room's creator chose: a room's settings, stored in its first event (``Created``).

Their own module so that the events (which store them) and the room (which plays by them) both
import them without importing each other.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Settings:
    """What the room's creator chose."""

    preset: str
    deal: int
    seats: int = 2
    public: bool = True
    time_limit_ms: int | None = None
    undo: bool = True
    countdown_ms: int = 3000
    grace_ms: int = 30_000
    spectator_delay_ms: int = 10_000
    """Spectators see racers' moves this late, so a racer cannot watch a rival's line live."""
    any_deal: bool = False
    """The server deals any deal, not only proven-winnable ones."""
    deal_grade: str | None = None
    """The grade of the winnable deals the server picks (None: any grade)."""
    chosen: bool = False
    """The creator chose ``deal``: everyone sees it before the start (a server-picked deal is
    secret until then)."""
    hints: bool = False
    """Racers may ask for hints (the standings count them)."""
    lost_notice: bool = False
    """A racer is told when their position is proven lost."""
    daily: str | None = None
    """A daily race: the UTC day (YYYY-MM-DD) whose deal ``deal`` is."""
    rated: bool = False
    """Its races count for the racers' ratings (docs/ratings.md; the records rate them). New in
    the log's format 1: an entry of format 0 has no such field and reads as False."""
    auto: bool = True
    """Racers may ask the server to play their auto-moves (False: every card by hand). New in the
    log's format 3."""
    secret: str | None = None
    """A drawn room (docs/fairness.md): the secret (hex) each race's server seed derives from;
    its deal is drawn at the start, and ``deal`` until then is a stand-in nobody is shown. Never
    leaves the server: the records keep settings without it (``public_settings``). None: the
    deal is ``deal``. New in the log's format 2."""


def public_settings(settings: Settings) -> dict[str, object]:
    """The settings as the records and the API show them: without the room's secret."""
    shown = dataclasses.asdict(settings)
    del shown["secret"]
    return shown
