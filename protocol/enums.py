"""The named values of protocol version 1: room phases, racer statuses, end reasons and roles.

Each is a ``StrEnum``, so a member compares equal to (and encodes as) its wire string.
docs/protocol.md section 8 says what each means.
"""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """Where a room is in its life."""

    WAITING = "waiting"
    COUNTDOWN = "countdown"
    RACING = "racing"
    FINISHED = "finished"


class Status(StrEnum):
    """Where one racer is in a race."""

    WAITING = "waiting"
    READY = "ready"
    RACING = "racing"
    FINISHED = "finished"
    STUCK = "stuck"
    RESIGNED = "resigned"
    FORFEIT = "forfeit"


class EndReason(StrEnum):
    """Why a race ended (``result.reason``)."""

    WON = "won"
    ALL_DONE = "all-done"
    TIME_LIMIT = "time-limit"
    ABANDONED = "abandoned"


class Role(StrEnum):
    """What a member of a room does there."""

    RACER = "racer"
    SPECTATOR = "spectator"
