"""What every store module shares: the error, a room append's request and results, doorbells, TTLs
and the format versions of what a store writes."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeVar, dataclass_transform

import msgpack

__all__ = [
    "BELL_EVENTS",
    "DEAD_NODES_KEPT",
    "LAYOUT_FORMAT",
    "MEMO_FORMAT",
    "TIP_CHARS",
    "Append",
    "Appended",
    "Behind",
    "Duplicate",
    "Forked",
    "Request",
    "Ring",
    "StoreError",
    "Stored",
    "chain",
    "check_count",
    "check_races",
    "check_rating",
    "check_replicas",
    "check_ttl",
    "room_bell",
    "room_bell_data",
    "ttl_ms",
]

T = TypeVar("T")


class StoreError(Exception):
    """The store cannot be reached or refused an operation (the server answers "store-unavailable")."""


@dataclass(frozen=True, slots=True)
class Request:
    """The request a room append answers: the player, their seq, and the reply frame to keep.
    ``ends_stay`` (``Request.stay_ended``): the events take the player out of the room (``leave``):
    nothing is checked and the room forgets the player's memo, so that a later stay (a new session
    counting from 1 again, its ``last_seq`` -1 outside a room) is not answered from the earlier
    one's memory."""

    player: str
    seq: int
    reply: bytes
    ends_stay: bool = False

    @classmethod
    def stay_ended(cls, player: str) -> Request:
        return cls(player, -1, b"", ends_stay=True)


@dataclass_transform(frozen_default=True)
def _frozen_to_the_checker(cls: type[T]) -> type[T]:
    """A dataclass frozen for the type checker (mypy refuses an assignment to a field), a plain
    slots dataclass at run time: a frozen one's ``__init__`` sets each field through
    ``object.__setattr__``, which for ``Append`` (built once per move) cost 10,000 instructions
    more per append than plain slots, 4% of a move (callgrind, benchmarks.requestpath)."""
    return dataclass(slots=True)(cls)


@_frozen_to_the_checker
class Append:
    """How a room append goes (``RoomLog.append_at``): one value, built once per append and not changed.

    The events are stored only if the log is ``expected`` long, its chain tip there is ``tip``
    (``chain`` of the caller's first ``expected`` events; None: not checked, for callers that keep
    no chain) and ``request`` (if any) was not stored before, in one atomic call; then the request's
    reply is kept with the room, the node ``holder`` is counted among the room's holders and the
    room's doorbell (the new length) rings for the other holders. No other holder, no doorbell: a
    node alone with its rooms hears nothing. ``ttl``: the log's time to live from now (seconds).
    ``archive``: ids of races these events end, marked in the same atomic call as due for the
    database (``Archives``); while a room has marks its log and replies keep no TTL (``ttl`` and
    ``expire`` apply again once the marks are cleared). ``refresh=False``: the caller gave the room
    ``ttl`` lately (within an eighth of it), so the store may leave the TTL as it is, but for keys
    this append creates. ``tips``: ``chain(tip, events)`` when the caller has it already (the store
    then computes no link; with ``tip`` None they are ignored). ``append_at`` checks ``ttl`` and
    ``archive`` when called (``ValueError``)."""

    ttl: float
    expected: int
    request: Request | None = None
    holder: str | None = None
    archive: Sequence[str] = ()
    tip: str | None = None
    refresh: bool = True
    tips: Sequence[str] | None = None


@dataclass(frozen=True, slots=True)
class Stored:
    """``append_at`` stored the events: the log is now ``length`` long."""

    length: int


@dataclass(frozen=True, slots=True)
class Duplicate:
    """``append_at`` stored nothing: the request was stored before. ``memo`` is its reply; None when
    a later request replaced it, or when it was written in a newer format than this node reads."""

    length: int
    memo: bytes | None


@dataclass(frozen=True, slots=True)
class Behind:
    """``append_at`` stored nothing: the log was not the expected length but ``length``; ``gap`` holds
    its events from the expected length on (empty when the log is shorter: it lost its tail or expired).
    When longer, its first ``expected`` events are the caller's (their chain tip matched, if one was
    given); when shorter, ``tip`` is the chain tip of what is stored: the caller's own tip at
    ``length`` if the log is a prefix of its own (a lost tail), anything else if it is not."""

    length: int
    gap: list[bytes]
    tip: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class Forked:
    """``append_at`` stored nothing: the log's first ``expected`` events are not the ones the caller
    named by its chain tip (the log lost a tail and another node appended at that index). ``log`` is
    the whole stored log, ``length`` long: find where the histories part, and heal or resync."""

    length: int
    log: list[bytes]


Appended = Stored | Duplicate | Behind | Forked
"""What ``append_at`` did."""

TIP_CHARS = 16
"""The hex digits kept of each link of a log's chain (64 bits: events are the server's own, the
chain guards against accidents, not forgery)."""


def chain(tip: str, events: Iterable[bytes]) -> list[str]:
    """The log's chain tips after each of ``events``, from ``tip`` (the tip before them; "" for an
    empty log): each is SHA-1 of the previous tip and the event, in hex, cut to TIP_CHARS. Two logs
    with the same tip at one length hold the same events up to it. The Lua scripts compute the same
    (``redis.sha1hex``), so a log shortened and grown again by other events cannot pass for the old."""
    tips: list[str] = []
    for event in events:
        tip = hashlib.sha1(tip.encode() + event, usedforsecurity=False).hexdigest()[:TIP_CHARS]
        tips.append(tip)
    return tips


Ring = Callable[[str, str, bytes], None]
"""A doorbell: ``(kind, id, data)``; kind ``room`` (data: the log's new length), or one rung by
``Doorbells.ring``; kind ``*`` means doorbells may have been missed (resync every room held)."""


DEAD_NODES_KEPT = 60.0
"""Seconds a node that stopped beating is still listed by ``dead`` (then it is forgotten)."""

BELL_EVENTS = 8
"""A room's doorbell carries the events of an append of at most this many (most are one move), so
the other nodes holding the room apply them without reading the log."""

LAYOUT_FORMAT = 1
"""The Redis key layout this code writes (the module docstring of ``server.store.redisstore``). A
store recording a newer one is refused: nothing is read or written there."""

MEMO_FORMAT = 1
"""The format of the reply memos this code writes. A memo recorded in a newer one is not served (a
resend of its request is answered as one replaced by a later request)."""


def room_bell_data(length: int, events: Sequence[bytes], tip: str = "") -> bytes:
    """A room doorbell's data: the log's new length, then (if few) the chain tip of the log before
    the events that made it so (``-`` for none) and those events."""
    if not 1 <= len(events) <= BELL_EVENTS:
        return str(length).encode()
    packed: bytes = msgpack.packb([bytes(e) for e in events])
    return b"%d %s %s" % (length, (tip or "-").encode(), packed)


def room_bell(data: bytes) -> tuple[int, list[bytes] | None, str]:
    """The log length a room's doorbell announces, the events that made it so (None: read them) and
    the chain tip of the log they follow ("" for an empty one)."""
    head, _, rest = data.partition(b" ")
    length = int(head or 0)
    tip, _, tail = rest.partition(b" ")
    if not tail:
        return length, None, ""
    events = msgpack.unpackb(tail, raw=True)
    if not isinstance(events, list) or not all(isinstance(e, bytes) for e in events):
        return length, None, ""
    return length, events, "" if tip == b"-" else tip.decode()


_NUMBERS: Final = (int, float)
_TEXTS: Final = (str, bytes)
"""Tuples built once: ``int | float`` in an ``isinstance`` builds a union at every call (every append)."""


def check_ttl(ttl: float) -> float:
    """``ttl`` as seconds, when it is a finite number > 0; ``ValueError`` otherwise."""
    if not (isinstance(ttl, _NUMBERS) and math.isfinite(ttl) and ttl > 0):
        raise ValueError(f"ttl must be a finite number of seconds > 0, not {ttl!r}")
    return float(ttl)


def check_races(races: Sequence[str]) -> list[str]:
    """``races`` as a list of race ids, when each is a non-empty string with no whitespace (the Redis
    append passes them space-separated); ``ValueError`` otherwise (one string is not a list of ids)."""
    if isinstance(races, _TEXTS):
        raise ValueError(f"race ids come as a sequence of strings, not one string: {races!r}")
    names = list(races)
    for race in names:
        if not isinstance(race, str) or not race or any(ch.isspace() for ch in race):
            raise ValueError(f"a race id is a non-empty string without whitespace, not {race!r}")
    return names


def check_replicas(replicas: int) -> int:
    """``replicas`` when it is an int >= 0 (how many replicas an append waits for); ``ValueError`` otherwise."""
    if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
        raise ValueError(f"replicas must be an int >= 0, not {replicas!r}")
    return replicas


def check_count(count: int) -> int:
    """``count`` when it is an int >= 1; ``ValueError`` otherwise."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be an int >= 1, not {count!r}")
    return count


def check_rating(rating: int) -> int:
    """``rating`` when it is an int (a shown rating: docs/ratings.md); ``ValueError`` otherwise."""
    if isinstance(rating, bool) or not isinstance(rating, int):
        raise ValueError(f"a rating is an int, not {rating!r}")
    return rating


def ttl_ms(ttl: float) -> int:
    """Seconds to whole milliseconds, rounded up so a short TTL never becomes 0 (which deletes)."""
    return max(1, math.ceil(check_ttl(ttl) * 1000))
