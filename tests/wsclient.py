"""A bare test client: real WebSocket, protocol frames, replies matched by seq; a two-racer start;
a registered player."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable
from typing import Any, TypeVar

from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import SUBPROTOCOL, decode_server, encode_request
from protocol.messages import (
    CreateRoom,
    Error,
    Hello,
    Identity,
    JoinRoom,
    Ok,
    Ping,
    Pong,
    Ready,
    Register,
    RoomState,
    Started,
    Welcome,
)
from protocol.schema import Message

M = TypeVar("M", bound=Message)
TIMEOUT = 10.0


class WsClient:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seq = 0
        self.events: list[Message] = []
        self.welcome: Welcome | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        name: str | None = None,
        token: str | None = None,
        key: str | None = None,
        *,
        tls: ssl.SSLContext | None = None,
    ) -> WsClient:
        """``tls``: the context a ``wss://`` URL is opened with (None: the system's trust)."""
        extra: dict[str, Any] = {"ssl": tls} if tls is not None else {}
        # No cap on frames waiting to be read: a test reads its events when it looks for them, and a
        # capped queue stops the socket's reading, pongs included, so a slow test lost its
        # connection to a keepalive timeout (1011) while it was not looking.
        client = cls(
            await connect(url, subprotocols=[SUBPROTOCOL], open_timeout=TIMEOUT, max_queue=None, **extra)  # type: ignore[list-item]
        )
        if name is not None:
            welcome = await client.call(Hello(name=name, token=token, key=key))
            assert isinstance(welcome, Welcome), welcome
            client.welcome = welcome
            client.seq = max(client.seq, welcome.last_seq)
        return client

    @property
    def player(self) -> str:
        assert self.welcome is not None
        return self.welcome.player

    @property
    def token(self) -> str:
        assert self.welcome is not None
        return self.welcome.token

    async def send(self, message: Message, seq: int | None = None) -> int:
        if seq is None:
            self.seq += 1
            seq = self.seq
        await self.ws.send(encode_request(message, seq))
        return seq

    async def reply(self, seq: int) -> Message:
        """Wait for the answer to ``seq``, keeping events that come first."""
        while True:
            re, message = decode_server(await asyncio.wait_for(self.ws.recv(), TIMEOUT))
            if re == seq:
                return message
            self.events.append(message)

    async def call(self, message: Message, seq: int | None = None) -> Message:
        return await self.reply(await self.send(message, seq))

    async def error(self, message: Message) -> Error:
        answer = await self.call(message)
        assert isinstance(answer, Error), answer
        return answer

    async def expect(self, kind: type[M], wait: float = TIMEOUT, where: Callable[[M], bool] | None = None) -> M:
        """The next event of ``kind`` (that ``where`` accepts); earlier other events are kept."""
        for i, event in enumerate(self.events):
            if isinstance(event, kind) and (where is None or where(event)):
                del self.events[i]
                return event
        async with asyncio.timeout(wait):
            while True:
                _, message = decode_server(await self.ws.recv())
                if isinstance(message, kind) and (where is None or where(message)):
                    return message
                self.events.append(message)

    async def drain(self, wait: float = 0.05) -> list[Message]:
        """Every event that arrives within ``wait`` seconds of quiet."""
        try:
            while True:
                _, message = decode_server(await asyncio.wait_for(self.ws.recv(), wait))
                self.events.append(message)
        except TimeoutError:
            pass
        events, self.events = self.events, []
        return events

    async def settle(self) -> list[Message]:
        """Every event the server sent before it answers a ping now (then forgotten): what a
        request already handled has caused, without waiting on a timer."""
        assert isinstance(await self.call(Ping()), Pong)
        events, self.events = self.events, []
        return events

    async def close(self) -> None:
        await self.ws.close()


async def race_of_two(
    ann: WsClient, bob: WsClient, create: CreateRoom, watchers: tuple[WsClient, ...] = ()
) -> RoomState:
    """``ann`` creates a room, ``bob`` joins it (each on any node), ``watchers`` watch it, both
    ready; the room once all of them have seen the start."""
    state = await ann.call(create)
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    for watcher in watchers:
        assert isinstance(await watcher.call(JoinRoom(room=state.room, spectate=True)), RoomState)
    for client in (ann, bob):
        assert isinstance(await client.call(Ready()), Ok)
    for client in (ann, bob, *watchers):
        await client.expect(Started)
    return state


async def registered(url: str, name: str) -> WsClient:
    """A registered player's connection: registered on a first connection, then a hello with the key."""
    first = await WsClient.open(url, name)
    identity = await first.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    await first.close()
    return await WsClient.open(url, name, key=identity.key)
