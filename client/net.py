"""The client's side of the wire: one session with a race server.

``RaceConnection`` says hello, matches replies to requests by seq, hands every event
to a callback, and when the socket drops it reconnects by itself with the session
token (the server then sends the room's full state again). A server that no longer knows
the token (it restarted without its store, or the session expired) gets a fresh hello: the
status says ``new-session``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Final

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.typing import Subprotocol

from protocol.codec import SUBPROTOCOL, decode_server, encode_request
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import Error, Hello, Welcome
from protocol.schema import Message

log = logging.getLogger("seahaven.client")

RETRY_DELAYS: Final = (0.2, 0.5, 1.0, 2.0, 3.0)
"""Seconds between reconnection attempts; the last repeats until ``give_up_after``."""


class ConnectError(Exception):
    """The server cannot be reached or will not talk to us; the message says why, for people."""


class ServerError(Exception):
    """The server refused a request: a stable ``code`` and its ``message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConnectionLost(Exception):
    """The socket dropped before the reply came; the request may or may not have been applied."""


EventHandler = Callable[[Message], None]
StatusHandler = Callable[[str], None]


class RaceConnection:
    """A session with one server. ``status`` callbacks: connecting, connected, reconnecting,
    retrying (each further attempt), new-session (the server forgot the old one), closed, replaced."""

    def __init__(
        self,
        url: str,
        name: str,
        on_event: EventHandler,
        on_status: StatusHandler | None = None,
        *,
        give_up_after: float = 60.0,
        open_timeout: float = 5.0,
        reply_timeout: float = 10.0,
        token: str | None = None,
    ) -> None:
        """``token``: a session to resume (a restarted client coming back to its race)."""
        self.url = url
        self.name = name
        self.on_event = on_event
        self.on_status = on_status or (lambda status: None)
        self.give_up_after = give_up_after
        self.open_timeout = open_timeout
        self.reply_timeout = reply_timeout
        self.welcome: Welcome | None = None
        self.resume_token = token
        self.seq = 0
        self._ws: ClientConnection | None = None
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closing = False

    @property
    def token(self) -> str | None:
        return self.welcome.token if self.welcome else None

    @property
    def player(self) -> str | None:
        return self.welcome.player if self.welcome else None

    @property
    def connected(self) -> bool:
        return self._ws is not None

    async def connect(self) -> Welcome:
        """Open the socket and say hello; ConnectError with a readable reason on failure."""
        self.on_status("connecting")
        token = self.token or self.resume_token
        try:
            welcome = await self._open(token)
        except ServerError as error:
            if token is None or error.code != ErrorCode.BAD_TOKEN:
                raise
            welcome = await self._open(None)  # the saved session is gone: a new one
        self.resume_token = None
        self._reader = asyncio.create_task(self._read_forever())
        return welcome

    async def request(self, message: Message) -> Message:
        """Send ``message`` and wait for its reply; ServerError when the server refuses it."""
        ws = self._ws
        if ws is None:
            raise ConnectionLost("not connected")
        self.seq += 1
        seq = self.seq
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[seq] = future
        try:
            await ws.send(encode_request(message, seq))
            reply = await asyncio.wait_for(future, self.reply_timeout)
        except ConnectionClosed:
            raise ConnectionLost("connection dropped") from None
        finally:
            self._pending.pop(seq, None)
        if isinstance(reply, Error):
            raise ServerError(reply.code, reply.message)
        return reply

    async def close(self) -> None:
        self._closing = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._ws is not None:
            await self._ws.close()
            self._ws = None
        self._fail_pending()
        self.on_status("closed")

    # -- internals ----------------------------------------------------------

    async def _open(self, token: str | None, status: str = "connected") -> Welcome:
        try:
            ws = await connect(
                self.url,
                subprotocols=[Subprotocol(SUBPROTOCOL)],
                open_timeout=self.open_timeout,
                max_size=2**20,
            )
        except InvalidURI:
            raise ConnectError(f"{self.url!r} is not a WebSocket address (ws://host:port)") from None
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise ConnectError(f"cannot reach {self.url}: {exc or type(exc).__name__}") from None
        try:
            self.seq = max(self.seq, 0)
            await ws.send(encode_request(Hello(name=self.name, token=token), 0))
            while True:
                re, message = decode_server(await asyncio.wait_for(ws.recv(), self.open_timeout))
                if re == 0:
                    break
        except ConnectionClosed as exc:
            await ws.close()
            reason = exc.rcvd.reason if exc.rcvd else "no reason given"
            if exc.rcvd is not None and exc.rcvd.code == CloseCode.VERSION_MISMATCH:
                raise ConnectError(f"the server speaks another protocol version: {reason}") from None
            raise ConnectError(f"the server closed the connection: {reason}") from None
        except (TimeoutError, ProtocolError) as exc:
            await ws.close()
            raise ConnectError(f"the server did not answer hello properly: {exc}") from None
        if isinstance(message, Error):
            await ws.close()
            raise ServerError(message.code, message.message)
        if not isinstance(message, Welcome):
            await ws.close()
            raise ConnectError(f"unexpected answer to hello: {message.TYPE}")
        self.welcome = message
        self.seq = max(self.seq, message.last_seq)
        self._ws = ws
        self.on_status(status)
        return message

    async def _read_forever(self) -> None:
        while not self._closing:
            ws = self._ws
            if ws is None:
                return
            try:
                async for frame in ws:
                    try:
                        re, message = decode_server(frame)
                    except ProtocolError as exc:
                        log.warning("ignoring a frame the client cannot read: %s", exc)
                        continue
                    future = self._pending.get(re) if re is not None else None
                    if future is not None and not future.done():
                        future.set_result(message)
                    else:
                        self.on_event(message)
            except ConnectionClosed:
                pass
            self._ws = None
            self._fail_pending()
            if self._closing:
                return
            closed = ws.close_code
            if closed == CloseCode.REPLACED:
                self.on_status("replaced")
                return
            if not await self._reconnect():
                self.on_status("closed")
                return

    async def _reconnect(self) -> bool:
        """Try again with the token until ``give_up_after`` seconds pass."""
        self.on_status("reconnecting")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.give_up_after
        attempt = 0
        while loop.time() < deadline and not self._closing:
            await asyncio.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
            if attempt:
                self.on_status("retrying")
            attempt += 1
            try:
                await self._open(self.token)
                return True
            except ServerError as exc:
                if exc.code != ErrorCode.BAD_TOKEN:
                    log.warning("the server refused our session: %s", exc)
                    return False
            except ConnectError:
                continue
            # The server is up but forgot the session (restarted without its store): a new one.
            try:
                await self._open(None, status="new-session")
                return True
            except (ServerError, ConnectError) as exc:
                log.warning("a new session failed too: %s", exc)
        return False

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionLost("connection dropped"))
        self._pending.clear()
