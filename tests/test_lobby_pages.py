"""The paged lobby: ``list_rooms`` never lists more than 1000 rooms, and its cursor walks them all."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgpack
import pytest

from client.net.connection import RaceConnection
from protocol.errors import ErrorCode
from protocol.messages import LOBBY_PAGE, Error, ListRooms, Rooms, RoomSummary
from server.app import RaceServer
from tests.helpers import MakeServer, url_of
from tests.wsclient import WsClient

LISTED = 2 * LOBBY_PAGE + 345


@pytest.fixture
async def lobby(make_memory_server: MakeServer) -> AsyncIterator[RaceServer]:
    """A server whose lobby lists ``LISTED`` rooms, a third of them racing."""
    server = await make_memory_server()
    for n in range(LISTED):
        summary = RoomSummary(
            room=f"R{n:05d}",
            preset="seahaven",
            seats=2,
            racers=1,
            spectators=0,
            phase="racing" if n % 3 == 0 else "waiting",
            time_limit=None,
            undo=True,
        )
        await server.store.append(summary.room, [b"listed"], 3600)  # a listing counts while its log lives
        await server.store.set_listing(summary.room, msgpack.packb(summary.to_body()), 3600)
    yield server


async def test_pages_list_every_room_once_in_lobby_order(lobby: RaceServer) -> None:
    client = await WsClient.open(url_of(lobby), "Ann")
    seen: list[RoomSummary] = []
    cursor: str | None = None
    pages = 0
    while True:
        page = await client.call(ListRooms(cursor=cursor))
        assert isinstance(page, Rooms)
        assert len(page.rooms) <= LOBBY_PAGE
        seen += page.rooms
        pages += 1
        if page.next is None:
            break
        cursor = page.next
    assert pages == 3
    assert len(seen) == LISTED and len({r.room for r in seen}) == LISTED
    order = [(r.phase != "waiting", r.room) for r in seen]
    assert order == sorted(order)  # waiting rooms first, then by code, across pages


async def test_a_small_page_and_a_bad_cursor(lobby: RaceServer) -> None:
    client = await WsClient.open(url_of(lobby), "Ann")
    first = await client.call(ListRooms(limit=10))
    assert isinstance(first, Rooms) and len(first.rooms) == 10 and first.next is not None
    second = await client.call(ListRooms(limit=10, cursor=first.next))
    assert isinstance(second, Rooms) and second.rooms[0].room > first.rooms[-1].room
    for bad in ("nonsense", "7.R00001", "0.R0000!"):
        refused = await client.call(ListRooms(cursor=bad))
        assert isinstance(refused, Error) and refused.code == ErrorCode.BAD_FIELD


async def test_the_reference_client_decodes_a_full_page(lobby: RaceServer) -> None:
    conn = RaceConnection(url_of(lobby), "Ann", lambda m: None)
    await conn.connect()
    try:
        page = await conn.request(ListRooms())
        assert isinstance(page, Rooms) and len(page.rooms) == LOBBY_PAGE and page.next is not None
    finally:
        await conn.close()


async def test_an_empty_lobby_has_no_next_page(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    client = await WsClient.open(url_of(server), "Ann")
    assert await client.call(ListRooms()) == Rooms(rooms=(), next=None)
