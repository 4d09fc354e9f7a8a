"""What every store module shares: the error, a room append's request and results, doorbells, TTLs
and the format versions of what a store writes."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import msgpack

__all__ = [
    "BELL_EVENTS",
    "DEAD_NODES_KEPT",
    "LAYOUT_FORMAT",
    "MEMO_FORMAT",
    "Appended",
    "Behind",
    "Duplicate",
    "Request",
    "Ring",
    "StoreError",
    "Stored",
    "check_count",
    "check_races",
    "check_rating",
    "check_ttl",
    "room_bell",
    "room_bell_data",
    "ttl_ms",
]


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
    its events from the expected length on (empty when the log is shorter: it lost its tail or expired)."""

    length: int
    gap: list[bytes]


Appended = Stored | Duplicate | Behind
"""What ``append_at`` did."""


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


def room_bell_data(length: int, events: Sequence[bytes]) -> bytes:
    """A room doorbell's data: the log's new length, then (if few) the events that made it so."""
    if not 1 <= len(events) <= BELL_EVENTS:
        return str(length).encode()
    packed: bytes = msgpack.packb([bytes(e) for e in events])
    return str(length).encode() + b" " + packed


def room_bell(data: bytes) -> tuple[int, list[bytes] | None]:
    """The log length a room's doorbell announces, and the events that made it so (None: read them)."""
    head, _, tail = data.partition(b" ")
    length = int(head or 0)
    if not tail:
        return length, None
    events = msgpack.unpackb(tail, raw=True)
    if not isinstance(events, list) or not all(isinstance(e, bytes) for e in events):
        return length, None
    return length, events


def check_ttl(ttl: float) -> float:
    """``ttl`` as seconds, when it is a finite number > 0; ``ValueError`` otherwise."""
    if not (isinstance(ttl, int | float) and math.isfinite(ttl) and ttl > 0):
        raise ValueError(f"ttl must be a finite number of seconds > 0, not {ttl!r}")
    return float(ttl)


def check_races(races: Sequence[str]) -> list[str]:
    """``races`` as a list of race ids, when each is a non-empty string with no whitespace (the Redis
    append passes them space-separated); ``ValueError`` otherwise (one string is not a list of ids)."""
    if isinstance(races, str | bytes):
        raise ValueError(f"race ids come as a sequence of strings, not one string: {races!r}")
    names = list(races)
    for race in names:
        if not isinstance(race, str) or not race or any(ch.isspace() for ch in race):
            raise ValueError(f"a race id is a non-empty string without whitespace, not {race!r}")
    return names


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
