"""The lobby: the shared listing read back as room summaries and paged by cursor. (Quick match,
which no longer looks for listed rooms, is server/play/matchmaking.py.)"""

from __future__ import annotations

from collections.abc import Iterable

import msgpack

from protocol.enums import Phase
from protocol.errors import ProtocolError
from protocol.messages import ListRooms, Rooms, RoomSummary
from protocol.schema import Message
from server.shell.handlers import handles
from server.shell.held import Asker
from server.store.interfaces import Listings


class Lobby:
    """The ``list_rooms`` request: a page of the rooms listed in the shared ``listings``."""

    def __init__(self, listings: Listings) -> None:
        self.listings = listings

    @handles(ListRooms)
    async def on_list_rooms(self, asker: Asker, message: ListRooms) -> Message:
        listings = (await self.listings.listings()).values()
        return lobby_page(listings, message.preset, message.cursor, message.limit)


def read_summary(data: bytes) -> RoomSummary | None:
    """A listed room's summary (None: unreadable, so left out of the lobby)."""
    try:
        return RoomSummary.from_body(msgpack.unpackb(data, raw=False))
    except (ProtocolError, ValueError):
        return None


def lobby_page(listings: Iterable[bytes], preset: str | None, cursor: str | None, limit: int) -> Rooms:
    """One ``list_rooms`` page of the listed rooms (of ``preset``), from after ``cursor``."""
    rooms = []
    for data in listings:
        summary = read_summary(data)
        if summary is not None and (preset is None or summary.preset == preset):
            rooms.append(summary)
    after = _lobby_cursor(cursor) if cursor is not None else None
    rooms = sorted((r for r in rooms if after is None or _lobby_key(r) > after), key=_lobby_key)
    page = rooms[:limit]
    more = len(rooms) > len(page)
    return Rooms(rooms=tuple(page), next=_lobby_cursor_of(_lobby_key(page[-1])) if more else None)


def _lobby_key(room: RoomSummary) -> tuple[int, str]:
    """A room's place in the lobby: waiting rooms first, then by code."""
    return (0 if room.phase == Phase.WAITING else 1, room.room)


def _lobby_cursor_of(key: tuple[int, str]) -> str:
    return f"{key[0]}.{key[1]}"


def _lobby_cursor(cursor: str) -> tuple[int, str]:
    """The lobby place a ``list_rooms`` cursor names (``ListRooms`` refused any other form, as a
    validation error: protocol.messages.LOBBY_CURSOR)."""
    rank, _, code = cursor.partition(".")
    return (int(rank), code)
