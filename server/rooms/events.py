"""The events of a room's history, and their compact msgpack form for the store's log.

Each event is a small frozen value; ``pack`` turns it into ``[kind, at, ...fields]``
so the per-move log entry stays a few dozen bytes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import msgpack

if TYPE_CHECKING:
    from server.rooms.room import Settings


@dataclass(frozen=True, slots=True)
class Created:
    at: int
    code: str
    settings: Settings


@dataclass(frozen=True, slots=True)
class Joined:
    at: int
    player: str
    name: str
    role: str


@dataclass(frozen=True, slots=True)
class Left:
    at: int
    player: str


@dataclass(frozen=True, slots=True)
class ReadySet:
    at: int
    player: str
    ready: bool


@dataclass(frozen=True, slots=True)
class CountdownSet:
    """The countdown began (``starts_at``) or was called off (None)."""

    at: int
    starts_at: int | None


@dataclass(frozen=True, slots=True)
class Started:
    at: int


@dataclass(frozen=True, slots=True)
class Moved:
    at: int
    player: str
    move: str


@dataclass(frozen=True, slots=True)
class Undone:
    at: int
    player: str


@dataclass(frozen=True, slots=True)
class Resigned:
    at: int
    player: str


@dataclass(frozen=True, slots=True)
class Forfeited:
    at: int
    player: str


@dataclass(frozen=True, slots=True)
class Presence:
    """A racer's connection dropped (not ``connected``) or came back (``connected``)."""

    at: int
    player: str
    connected: bool


@dataclass(frozen=True, slots=True)
class Ended:
    at: int
    reason: str


@dataclass(frozen=True, slots=True)
class RematchVoted:
    at: int
    player: str


@dataclass(frozen=True, slots=True)
class NewDeal:
    at: int
    deal: int


@dataclass(frozen=True, slots=True)
class Hinted:
    """A racer was given a hint (the standings say so)."""

    at: int
    player: str


Event = (
    Created
    | Joined
    | Left
    | ReadySet
    | CountdownSet
    | Started
    | Moved
    | Undone
    | Resigned
    | Forfeited
    | Presence
    | Ended
    | RematchVoted
    | NewDeal
    | Hinted
)

_KINDS: Final[tuple[type, ...]] = (
    Created,
    Joined,
    Left,
    ReadySet,
    CountdownSet,
    Started,
    Moved,
    Undone,
    Resigned,
    Forfeited,
    Presence,
    Ended,
    RematchVoted,
    NewDeal,
    Hinted,
)
_INDEX: Final = {kind: i for i, kind in enumerate(_KINDS)}
_NAMES: Final = {kind: tuple(f.name for f in dataclasses.fields(kind)) for kind in _KINDS}
"""Each kind's field names in order, read once (``dataclasses.fields`` per append showed on
the move path's profile)."""


def pack(event: Event) -> bytes:
    """The log entry of ``event``."""
    kind = type(event)
    values: list[object] = [_INDEX[kind]]
    for name in _NAMES[kind]:
        value = getattr(event, name)
        if name == "settings":
            value = dataclasses.asdict(value)  # a map: new settings fields keep old logs readable
        values.append(value)
    data: bytes = msgpack.packb(values)
    return data


def unpack(data: bytes) -> Event:
    """The event of a log entry (ValueError for a corrupt one)."""
    from server.rooms.room import Settings

    try:
        kind, *values = msgpack.unpackb(data, raw=False)
        cls = _KINDS[kind]
        if cls is Created:
            values[2] = Settings(**values[2])
        event: Event = cls(*values)
    except (ValueError, TypeError, IndexError, msgpack.UnpackException) as exc:
        raise ValueError(f"corrupt room log entry: {exc}") from None
    return event
