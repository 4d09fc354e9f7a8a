"""Connection limits on a live server: slow readers, silent sockets, per-address caps, room creation
limits, junk HTTP and floods. Real sockets on loopback; the server's clock is a FakeClock."""

from __future__ import annotations

import asyncio
import logging
import socket

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from protocol.codec import SUBPROTOCOL
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import (
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    Leave,
    Moved,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    Progress,
    QuickMatch,
    RoomState,
    Undo,
    Welcome,
)
from server.app import RaceServer
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.racing import DEAL, room_with, solution, start_race
from tests.wsclient import WsClient


async def gone(server: RaceServer, connections: int = 0) -> None:
    """Wait (up to 10 s) until the server holds ``connections`` open connections."""
    await wait_until(
        lambda: server.guard.connections == connections,
        what=lambda: f"{server.guard.connections} connections open, not {connections}",
    )


async def closed_with(client: WsClient) -> int:
    """The close code the server sent ``client`` (reading past any frames first)."""
    with pytest.raises(ConnectionClosed) as info:
        while True:
            await asyncio.wait_for(client.ws.recv(), 10)
    assert info.value.rcvd is not None, "the server closed without a close frame"
    return info.value.rcvd.code


# -- slow readers ------------------------------------------------------------------------------------


async def test_a_slow_reader_is_let_go_once_and_bystanders_keep_hearing(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(max_write_buffer=4096, close_timeout=0.2)
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    eve = await WsClient.open(url_of(server), "Eve")
    assert isinstance(await eve.call(JoinRoom(room=state.room, spectate=True)), RoomState)
    await start_race([ann, bob])
    # Bob stops reading. Small socket buffers at both ends, so that what he does not take piles up
    # in the server's write buffer within a few hundred frames.
    bob.ws.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    bobs = server.players[bob.player].conn
    assert bobs is not None
    bobs.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1024)
    bob.ws.transport.pause_reading()

    first = str(solution()[0])
    rounds = 0
    while server.guard.let_go_count == 0 or server.guard.connections > 2:
        assert rounds < 3000, "the slow reader was never let go"
        assert isinstance(await ann.call(MoveRequest(move=first)), Moved)
        assert isinstance(await ann.call(Undo()), Moved | Ok)
        rounds += 1
    # Ann played on while Bob was let go: one closing task in all, never one per frame.
    for _ in range(50):
        assert isinstance(await ann.call(MoveRequest(move=first)), Moved)
        assert isinstance(await ann.call(Undo()), Moved | Ok)
    await gone(server, 2)
    assert server.guard.let_go_count == 1
    assert not server.guard.closing
    # The spectator saw every one of Ann's moves and undos, in order.
    seen = [e for e in await eve.settle() if isinstance(e, Progress) and e.player == ann.player]
    assert len(seen) == 2 * (rounds + 50)


# -- silent and flooding connections -----------------------------------------------------------------


async def test_a_silent_connection_is_closed_after_the_hello_timeout(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(hello_timeout_ms=5000)
    silent = await WsClient.open(url_of(server))
    talker = await WsClient.open(url_of(server), "Talker")
    fake(server).advance(4999)
    assert isinstance(await talker.call(Ping()), Pong)
    fake(server).advance(1)
    assert await closed_with(silent) == CloseCode.HELLO_TIMEOUT
    fake(server).advance(60_000)
    assert isinstance(await talker.call(Ping()), Pong)  # a connection that said hello stays
    await gone(server, 1)


async def test_a_flooder_that_ignores_the_close_goes_away_promptly(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(rate=1.0, burst=2, strikes=3, close_timeout=0.2)
    flood = await WsClient.open(url_of(server), "Flood")
    for _ in range(10):
        await flood.send(Ping())
    flood.ws.transport.pause_reading()  # never sees the close frame, so never answers it
    await gone(server, 0)
    assert server.guard.let_go_count == 1


# -- per-address caps -------------------------------------------------------------------------------


async def test_connections_per_address_are_capped(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(connections_per_address=2)
    first = await WsClient.open(url_of(server), "One")
    second = await WsClient.open(url_of(server), "Two")
    third = await WsClient.open(url_of(server))
    assert await closed_with(third) == CloseCode.TRY_AGAIN_LATER
    await first.close()
    await gone(server, 1)
    again = await WsClient.open(url_of(server), "Again")  # room for one more
    assert isinstance(await again.call(Ping()), Pong)
    assert isinstance(await second.call(Ping()), Pong)


async def test_new_sessions_per_address_are_capped_but_resuming_is_not(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(sessions_per_address=2)
    one = await WsClient.open(url_of(server), "One")
    await WsClient.open(url_of(server), "Two")
    third = await WsClient.open(url_of(server))
    refused = await third.call(Hello(name="Three"))
    assert isinstance(refused, Error) and refused.code == ErrorCode.RATE_LIMITED
    resumed = await third.call(Hello(name="One", token=one.token))
    assert isinstance(resumed, Welcome) and resumed.player == one.player
    fake(server).advance(3600 * 1000 // 2)  # an hour refills the cap: half an hour, one session
    assert isinstance(await (await WsClient.open(url_of(server))).call(Hello(name="Four")), Welcome)


async def test_room_creation_is_limited_per_connection(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(rooms_per_connection=2)
    ann = await WsClient.open(url_of(server), "Ann")
    for _ in range(2):
        assert isinstance(await ann.call(CreateRoom(deal_number=DEAL)), RoomState)
        assert isinstance(await ann.call(Leave()), Ok)
    refused = await ann.call(QuickMatch())
    assert isinstance(refused, Error) and refused.code == ErrorCode.ROOM_LIMIT
    refused = await ann.call(CreateRoom(deal_number=DEAL))
    assert isinstance(refused, Error) and refused.code == ErrorCode.ROOM_LIMIT
    assert server.rooms == {}  # nothing was created
    fake(server).advance(30_000)  # two a minute: one more after half a minute
    assert isinstance(await ann.call(CreateRoom(deal_number=DEAL)), RoomState)


async def test_room_creation_is_limited_per_address(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(rooms_per_address=3)
    made = 0
    for name in ("Ann", "Bob"):
        client = await WsClient.open(url_of(server), name)
        for _ in range(2):
            answer = await client.call(CreateRoom(deal_number=DEAL))
            if isinstance(answer, RoomState):
                made += 1
                assert isinstance(await client.call(Leave()), Ok)
            else:
                assert isinstance(answer, Error) and answer.code == ErrorCode.ROOM_LIMIT
    assert made == 3


# -- junk -------------------------------------------------------------------------------------------


async def test_junk_http_is_one_log_line_each(make_memory_server: MakeServer, caplog: pytest.LogCaptureFixture) -> None:
    server = await make_memory_server()
    caplog.set_level(logging.INFO, logger="seahaven")
    for junk in (b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(junk)
        await writer.drain()
        await reader.read()  # the server answers (or not) and closes
        writer.close()
        await writer.wait_closed()
    async with connect(url_of(server), subprotocols=[SUBPROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(b"x")  # and the server still serves
    rejected = [r for r in caplog.records if "handshake" in r.getMessage()]
    assert len(rejected) == 2
    for record in rejected:
        assert record.exc_info is None and "\n" not in record.getMessage()
        assert "event=handshake.rejected peer=127.0.0.1" in record.getMessage()


async def forwarded_for(server: RaceServer, client: str) -> WsClient:
    """A connection as a load balancer makes it: from 127.0.0.1, naming ``client``."""
    ws = await connect(
        url_of(server),
        subprotocols=[SUBPROTOCOL],  # type: ignore[list-item]
        additional_headers={"X-Forwarded-For": f"203.0.113.99, {client}"},
    )
    return WsClient(ws)


@pytest.mark.parametrize("trusted", [True, False])
async def test_a_trusted_load_balancer_names_the_client(make_memory_server: MakeServer, trusted: bool) -> None:
    server = await make_memory_server(connections_per_address=1, trusted_proxies=("127.0.0.0/8",) if trusted else ())
    first = await forwarded_for(server, "198.51.100.1")
    other = await forwarded_for(server, "198.51.100.2")
    assert isinstance(await first.call(Ping()), Error)  # hello-first: open, and answering
    if trusted:  # two clients behind the balancer; the first one's second connection is one too many
        assert isinstance(await other.call(Ping()), Error)
        assert await closed_with(await forwarded_for(server, "198.51.100.1")) == CloseCode.TRY_AGAIN_LATER
    else:  # untrusted: the header is ignored, and everyone is 127.0.0.1
        assert await closed_with(other) == CloseCode.TRY_AGAIN_LATER
