"""Race ids: derived from a room's log alone, so every node names a race the same way."""

from __future__ import annotations

import base64
import hashlib

__all__ = ["race_id", "room_of"]


def race_id(code: str, created_at: int, number: int) -> str:
    """The id of race ``number`` (1 for the first) of the room ``code`` created at ``created_at``.

    ``CODE-N-TAG``: the room's code and the race's number keep it readable and let a reader find
    the live room before the race is archived; the tag (a hash of the room's creation) tells apart
    rooms that reused a code after an earlier one expired."""
    digest = hashlib.sha256(f"{code}:{created_at}".encode()).digest()
    tag = base64.b32encode(digest[:5]).decode().lower()
    return f"{code}-{number}-{tag}"


def room_of(race: str) -> str:
    """The room code a race id names (ValueError if it is not a race id)."""
    code, number, tag = race.split("-")
    if not (code and number.isdigit() and len(tag) == 8):
        raise ValueError(f"not a race id: {race!r}")
    return code
