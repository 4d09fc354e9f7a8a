"""The events of a room's history, and their compact msgpack form for the store's log.

Each event is a small frozen value; ``pack`` turns it into ``[head, at, ...fields]`` so the
per-move log entry stays a few dozen bytes.

Every entry carries its format version, in its head: ``head = version * SPAN + kind``. A build
reads every version up to its own ``FORMAT`` and refuses a newer one (``NewerFormat``) without
guessing at it, so a change to what is stored rolls out node by node: the nodes of the newer build
serve the rooms it wrote, the older ones leave them alone. Entries written before versions existed
were ``[kind, ...]`` with ``kind < SPAN``: that is version 0, today's, read as it always was (and
version 0's bytes are unchanged: the version costs nothing while it is 0; versions 1 to 3 still fit
the head's one byte).

Raise ``FORMAT`` for any change an older build could not read right: a new event kind, a new or
changed field of an event or of ``Settings`` (an older build would refuse or misread it), a field's
new meaning. The new build then reads both: the older versions as they were, its own as it writes.

Versions: 0, the first (entries written before versions existed); 1, ``Settings.rated`` (a rated
room: an older build would refuse the unknown setting). Every other event of version 1 is that of
version 0 with the new head; a version-0 ``Created`` reads as an unrated room. 2, the draw
(docs/fairness.md): ``Settings.secret``, and a racer's ``seed`` on ``ReadySet`` and
``RematchVoted`` (older entries have none: they read as None). 3, auto-move on the server
(docs/protocol.md, "Auto-move"): ``Settings.auto``, a racer's ``auto`` on ``ReadySet`` and
``RematchVoted``, ``auto`` on ``Moved`` and ``Undone`` (the moves the server played after the
racer's, and how many of them an undo took back), and the kind ``AutoMoved``; older entries read
as a room that allows it and racers who neither asked nor had moves played for them.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import msgpack

from server.rooms.settings import Settings

FORMAT: Final = 3
"""The newest format version this build reads, and the one it writes."""
SPAN: Final = 32
"""Kinds one format version may have: the head of an entry is ``version * SPAN + kind``."""


class NewerFormat(ValueError):
    """A log entry in a format version newer than this build's: the room is a newer build's to
    serve. A ValueError like a corrupt entry's, so that nothing reads on past it; but nothing may
    treat the room as corrupt either (rewrite it, drop it or say it is gone)."""

    def __init__(self, version: int) -> None:
        super().__init__(f"room log entry in format version {version}: this build reads up to {FORMAT}")
        self.version = version


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
    seed: str | None = None
    """The racer's share of the next race's draw (a drawn room's; format 2)."""
    auto: bool = False
    """The racer asked the server to play their auto-moves, from the start on (format 3)."""


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
    auto: tuple[str, ...] = ()
    """The moves the server played for the racer right after ``move`` (auto-move, asked for with
    the move): one event, so that every reader sees the racer's move and its auto-moves at once."""


@dataclass(frozen=True, slots=True)
class Undone:
    at: int
    player: str
    auto: int = 0
    """The auto-moves taken back with the racer's move: an undo takes back the racer's last own
    move and the moves the server played after it, those first."""


@dataclass(frozen=True, slots=True)
class AutoMoved:
    """The server played auto-moves for a racer who asked at the start, before any move of theirs."""

    at: int
    player: str
    moves: tuple[str, ...]


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
    seed: str | None = None
    """The racer's share of the rematch's draw (format 2)."""
    auto: bool = False
    """As ``ReadySet.auto``, for the rematch (format 3)."""


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
    | AutoMoved
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
    AutoMoved,
)
_INDEX: Final = {kind: i for i, kind in enumerate(_KINDS)}


def _values_of(kind: type) -> Callable[[object], tuple[object, ...]]:
    """Reads an event's fields into a tuple in one C call (``attrgetter``), in field order (read once:
    ``dataclasses.fields`` per append showed on the move path's profile)."""
    names = tuple(f.name for f in dataclasses.fields(kind))
    getter = operator.attrgetter(*names)
    if len(names) == 1:  # attrgetter of one name gives the value, not a tuple of it
        return lambda event: (getter(event),)
    return getter


_VALUES: Final = {kind: _values_of(kind) for kind in _KINDS}

_pack = msgpack.Packer().pack
"""``msgpack.packb`` without its wrapper's new Packer per entry (the same bytes: the same options)."""


def pack(event: Event) -> bytes:
    """The log entry of ``event``."""
    kind = type(event)
    values = [_INDEX[kind] + FORMAT * SPAN, *_VALUES[kind](event)]
    if isinstance(event, Created):
        # Its settings are a map: a build with new settings fields reads older logs.
        values[3] = dataclasses.asdict(event.settings)
    data: bytes = _pack(values)
    return data


def unpack(data: bytes) -> Event:
    """The event of a log entry: NewerFormat for one of a newer build, ValueError for a corrupt one."""
    try:
        head, *values = msgpack.unpackb(data, raw=False)
        version, kind = divmod(head, SPAN)
        if version > FORMAT:
            raise NewerFormat(version)
        if version < 0:
            raise ValueError(f"format version {version}")
        cls = _KINDS[kind]
        if cls is Created:
            values[2] = Settings(**values[2])
        elif cls is Moved and len(values) > 3:
            values[3] = tuple(values[3])  # msgpack reads arrays as lists; the event holds a tuple
        elif cls is AutoMoved:
            values[2] = tuple(values[2])
        event: Event = cls(*values)
    except NewerFormat:
        raise
    except (ValueError, TypeError, IndexError, msgpack.UnpackException) as exc:
        raise ValueError(f"corrupt room log entry: {exc}") from None
    return event
