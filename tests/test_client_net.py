"""The client's network session against a real server on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.server import ServerConnection, serve

from client.net.connection import ConnectError, RaceConnection, ServerError
from protocol.errors import CloseCode
from protocol.messages import CreateRoom, JoinRoom, Notice, Ping, Pong, RoomState
from protocol.schema import Message
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests.helpers import wait_until


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    race = RaceServer(Config(port=0, countdown_ms=50, grace_ms=5000), MemoryStore())
    await race.start()
    yield race
    await race.stop()


def url(server: RaceServer) -> str:
    return f"ws://127.0.0.1:{server.port}"


async def test_requests_are_answered_and_refusals_raise(server: RaceServer) -> None:
    events: list[Message] = []
    conn = RaceConnection(url(server), "Ann", events.append)
    welcome = await conn.connect()
    assert welcome.name == "Ann" and conn.player == welcome.player
    assert isinstance(await conn.request(Ping()), Pong)
    with pytest.raises(ServerError) as info:
        await conn.request(JoinRoom(room="ZZZZZZ"))
    assert info.value.code == "room-not-found"
    await conn.close()


async def test_unreachable_server_is_a_clear_error() -> None:
    conn = RaceConnection("ws://127.0.0.1:9", "Ann", lambda m: None, open_timeout=2)
    with pytest.raises(ConnectError, match="cannot reach"):
        await conn.connect()
    with pytest.raises(ConnectError, match="not a WebSocket address"):
        await RaceConnection("http://nowhere", "Ann", lambda m: None).connect()


async def test_version_mismatch_is_explained() -> None:
    async def old_server(ws: ServerConnection) -> None:
        await ws.close(CloseCode.VERSION_MISMATCH, "this server speaks seahaven.v9")

    async with serve(old_server, "127.0.0.1", 0) as legacy:
        port = next(iter(legacy.sockets)).getsockname()[1]
        with pytest.raises(ConnectError, match="another protocol version"):
            await RaceConnection(f"ws://127.0.0.1:{port}", "Ann", lambda m: None).connect()


async def test_a_dropped_socket_reconnects_with_the_token_and_gets_the_room_again(server: RaceServer) -> None:
    events: list[Message] = []
    statuses: list[str] = []
    got_room = asyncio.Event()

    def on_event(message: Message) -> None:
        events.append(message)
        if isinstance(message, RoomState):
            got_room.set()

    conn = RaceConnection(url(server), "Ann", on_event, statuses.append)
    await conn.connect()
    state = await conn.request(CreateRoom())
    assert isinstance(state, RoomState)
    # Seated, the client moves to the room's address (its resume sends the room again): drop that one.
    await asyncio.wait_for(got_room.wait(), 5)
    got_room.clear()
    events.clear()
    player = conn.player
    session = server.players[player or ""]
    assert session.conn is not None
    await session.conn.close()  # the server drops us
    await asyncio.wait_for(got_room.wait(), 5)
    assert statuses[-2:] == ["reconnecting", "connected"]
    again = next(e for e in events if isinstance(e, RoomState))
    assert again.room == state.room and conn.player == player
    assert isinstance(await conn.request(Ping()), Pong)
    await conn.close()


async def test_a_notice_is_an_event_and_a_moderators_removal_is_final(server: RaceServer) -> None:
    events: list[Message] = []
    statuses: list[str] = []
    conn = RaceConnection(url(server), "Ann", events.append, statuses.append)
    await conn.connect()
    await server.moderation.notice("Restarting in 5 minutes")
    await wait_until(lambda: any(isinstance(e, Notice) for e in events))
    notice = next(e for e in events if isinstance(e, Notice))
    assert notice.text == "Restarting in 5 minutes" and notice.room is None

    # 4003 (try another node) is a reconnect like any drop; 4004 (removed) is not.
    session = server.players[conn.player or ""]
    assert session.conn is not None
    await session.conn.close(CloseCode.TRY_ANOTHER_NODE, "this node is draining: reconnect")
    await wait_until(lambda: statuses[-2:] == ["reconnecting", "connected"])
    await server.moderation.kick(conn.player or "", "spam")
    await wait_until(lambda: statuses[-1:] == ["removed"])
    assert conn.removed is not None and "spam" in conn.removed
    assert not conn.connected
    await conn.close()
