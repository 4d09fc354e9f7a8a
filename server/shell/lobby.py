"""The lobby: the shared listing read back as room summaries and paged by cursor, and quick
match's search for a room to join (here, then on other nodes) before it creates one."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable

import msgpack

from protocol.enums import Phase
from protocol.errors import ProtocolError
from protocol.messages import ListRooms, QuickMatch, Rooms, RoomSummary
from protocol.schema import Message
from server.rooms.settings import Settings
from server.shell.held import Asker, HeldRoom
from server.shell.ports import Bots, Deals
from server.shell.roompath import RoomPath
from server.store.interfaces import Listings

Create = Callable[[Asker, Settings], Awaitable[HeldRoom]]
"""Creates a room for the asker, within its creation budgets."""


class Lobby:
    """The lobby requests: a page of listed rooms (from the shared ``listings``), and quick match
    (a room held here, then one another node lists, then a new one of ``create``)."""

    def __init__(self, path: RoomPath, listings: Listings, create: Create, deals: Deals, bots: Bots) -> None:
        self.path = path
        self.listings = listings
        self.create = create
        self.deals = deals
        self.bots = bots

    async def on_list_rooms(self, asker: Asker, message: ListRooms) -> Message:
        listings = (await self.listings.listings()).values()
        return lobby_page(listings, message.preset, message.cursor, message.limit)

    async def on_quick_match(self, asker: Asker, message: QuickMatch) -> None:
        self.path.check_not_in_room(asker.session)
        daily, deal = await self.deals.daily_deal(message.preset) if message.daily else (None, None)
        for held in self.path.rooms.values():
            room = held.room
            someone_waits = any(seat.connected for seat in room.seats.values())
            grade_fits = message.deal_grade is None or room.settings.deal_grade == message.deal_grade
            if (
                room.settings.public
                and room.settings.preset == message.preset
                and grade_fits
                and room.settings.daily == daily
                and room.is_open()
                and someone_waits
            ):
                return await self.path.join(asker, held, spectate=False)
        # Then the rooms other nodes hold, from the shared lobby listing.
        for code, data in sorted((await self.listings.listings()).items()):
            summary = read_summary(data)
            if summary is None:
                continue
            if code in self.path.rooms or summary.preset != message.preset or summary.phase != Phase.WAITING:
                continue
            try:
                other = await self.path.get(code)
            except ProtocolError:  # a newer build's room: its nodes match it
                continue
            if (
                other is not None
                and other.room.is_open()
                and other.room.settings.daily == daily
                and (message.deal_grade is None or other.room.settings.deal_grade == message.deal_grade)
                and any(s.connected for s in other.room.seats.values())
            ):
                with contextlib.suppress(ProtocolError):
                    return await self.path.join(asker, other, spectate=False)
        if daily is not None:  # the daily deal is public: its races are never rated
            settings = await self.deals.settings(message.preset, deal, daily=daily)
        else:  # the room quick match opens is rated (docs/ratings.md)
            settings = await self.deals.settings(message.preset, None, deal_grade=message.deal_grade, rated=True)
        held = await self.create(asker, settings)
        await self.path.join(asker, held, spectate=False)
        if message.bot_after is not None:
            self.bots.offer(held.room.code, asker.session.player, message.bot_after * 1000)


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
