"""A racer that comes back by itself through a balancer, as the clients do: whenever its connection
closes (1012 a restart, 4003 try another node, a drop) it says hello again with its token, until a
node takes it back into its room; then it goes on from the moves that node's room state holds."""

from __future__ import annotations

import asyncio
import contextlib

from websockets.exceptions import ConnectionClosed, InvalidStatus

from protocol.messages import Moved, MoveRequest, Result, RoomState
from protocol.schema import Message
from tests.wsclient import WsClient

BACK_WITHIN = 30.0
"""Seconds a roamer keeps trying to come back."""


async def closed_with(client: WsClient) -> int | None:
    """The code the server closed ``client`` with (reading on, and dropping frames, until it does)."""
    with contextlib.suppress(ConnectionClosed):
        async with asyncio.timeout(10):
            while True:
                await client.ws.recv()
    return client.ws.close_code


class Roamer:
    def __init__(self, url: str, name: str, moves: list[str]) -> None:
        self.url = url
        self.name = name
        self.moves = moves
        """The line this racer plays, move after move."""
        self.client: WsClient | None = None
        self.done = 0
        """Moves of ``moves`` the server holds (acknowledged, or found in the room state)."""
        self.acked = 0
        """Moves acknowledged with ``moved``."""
        self.closes: list[int | None] = []
        """The close code of every connection the server closed under this racer."""
        self.nodes: list[str] = []
        """The node (HAProxy's ``X-Seahaven-Node``) of each connection, in order."""
        self.room: str | None = None

    @property
    def ws(self) -> WsClient:
        assert self.client is not None
        return self.client

    @property
    def node(self) -> str:
        return self.nodes[-1]

    async def open(self, url: str | None = None) -> None:
        """Connect (to ``url``, a node itself, when given; it comes back through ``self.url``)."""
        self.client = await WsClient.open(url or self.url, self.name)
        self._seen()

    def _seen(self) -> None:
        response = self.ws.ws.response
        self.nodes.append(response.headers.get("X-Seahaven-Node", "?") if response is not None else "?")

    async def come_back(self) -> RoomState:
        """Reconnect with the token until a node takes this racer back into its room."""
        token = self.ws.token
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BACK_WITHIN
        while True:
            try:
                client = await WsClient.open(self.url, self.name, token=token)
                assert client.welcome is not None and client.welcome.room == self.room, client.welcome
                state = await client.expect(RoomState)
                break
            except (ConnectionClosed, InvalidStatus, OSError) as exc:
                if isinstance(exc, ConnectionClosed):
                    self.closes.append(exc.rcvd.code if exc.rcvd is not None else None)
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(0.3)
        self.client = client
        self._seen()
        history = list(state.history)
        assert history == self.moves[: len(history)], "the room holds another line than this racer played"
        assert len(history) >= self.acked, "an acknowledged move was lost"
        self.done = len(history)
        return state

    async def drop(self) -> RoomState:
        """The connection drops (the client closes it); back through the balancer."""
        await self.ws.ws.close()
        return await self.come_back()

    async def call(self, message: Message) -> Message | None:
        """The answer, or None when the connection closed first (then it has come back)."""
        try:
            return await self.ws.call(message)
        except ConnectionClosed as exc:
            self.closes.append(exc.rcvd.code if exc.rcvd is not None else None)
            await self.come_back()
            return None

    async def play(self, count: int) -> None:
        """Play the next ``count`` moves of the line, coming back as often as it takes."""
        target = min(self.done + count, len(self.moves))
        while self.done < target:
            answer = await self.call(MoveRequest(move=self.moves[self.done]))
            if answer is None:
                continue  # the room state said how far the room got
            assert isinstance(answer, Moved), answer
            self.done = self.acked = answer.moves

    async def result(self) -> Result:
        return await self.ws.expect(Result)

    async def close(self) -> None:
        if self.client is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.client.close()
