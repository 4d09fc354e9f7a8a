"""The client's side of the wire: one session with a race server.

``RaceConnection`` says hello, matches replies to requests by seq, hands every event
to a callback, and when the socket drops it reconnects by itself with the session
token (the server then sends the room's full state again). A server that no longer knows
the token (it restarted without its store, or the session expired) gets a fresh hello: the
status says ``new-session``.

With a registered player's ``key`` (docs/protocol.md, section 21) a hello that opens a session
says it (a session to come back to is resumed by its token first): the session is that player's.
A key the server refuses is dropped (``on_key(None)``); when the server cannot check it now the
client goes on anonymous and keeps it. A connection without a key asks the
server to ``register`` once it is connected (when ``on_key`` is given and the server keeps
players), and hands the new key to ``on_key``. A fresh start (no session to resume) registers
before its session opens, on a connection of its own, so the session is the player's from its first
race: a race is never filed under a throwaway session id. A resumed anonymous session registers
once connected, as does a fresh one whose first registration went unanswered or met a database
slow for a moment; the new key goes to ``on_key`` (the app opens the player's session with it).

Once seated in a room (a ``room`` message with role ``racer``: created, joined, matched, seated by
an arena) the connection moves to the room's address, ``/r/CODE`` under the server's (docs/protocol.md,
"Room addresses"): a second socket resumes the session with the token, the server closes the first
with 4001, and the requests still unanswered are sent again there with their seq. A balancer that
hashes the path puts both racers of the room on one node; every later reconnection uses that address.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from collections.abc import Callable
from typing import Any, Final
from urllib.parse import quote, urlsplit, urlunsplit

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.typing import Subprotocol

from i18n import _
from protocol.codec import SUBPROTOCOL, decode_server, encode_request
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import Error, Hello, Identity, Register, RoomState, Welcome
from protocol.schema import Message

log = logging.getLogger("seahaven.client")

RETRY_DELAYS: Final = (0.2, 0.5, 1.0, 2.0, 3.0)
"""Seconds between reconnection attempts; the last repeats until ``give_up_after``."""


class ConnectError(Exception):
    """The server cannot be reached or will not talk to us; the message says why, for people.
    ``unreachable``: nothing answered (trying again later may work; a wrong address will not)."""

    def __init__(self, message: str, *, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable


def unreachable_why(error: BaseException) -> str:
    """Why a connection could not be opened, in words (not ``[Errno 111] Connect call failed``)."""
    if isinstance(error, ConnectionRefusedError):
        return _("nothing answers on that port")
    if isinstance(error, socket.gaierror):
        return _("no such host name")
    if isinstance(error, TimeoutError):
        return _("no answer in time")
    if isinstance(error, InvalidHandshake):
        return _("it is not a Seahaven server (the WebSocket handshake failed)")
    if isinstance(error, ssl.SSLCertVerificationError):
        # The OpenSSL code stays as it is: it is what a player searches for.
        return _("its certificate is not trusted: {why} (CERTIFICATE_VERIFY_FAILED; --ca FILE trusts it)").format(
            why=error.verify_message
        )
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return type(error).__name__


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
KeyHandler = Callable[[str | None], None]
"""Told a new key to keep (from ``register``), or None: the server refused the key, forget it."""

KEY_NOT_NOW: Final = frozenset({ErrorCode.RECORDS_UNAVAILABLE, ErrorCode.RATE_LIMITED})
"""A hello's key the server cannot check now: race anonymously this time, keep the key. A
``register`` it cannot answer now: asked again."""
REGISTER_PAUSES: Final = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
"""Seconds before a ``register`` the server could not answer now is asked again, each time. Not
forever: a server that keeps no records at all says the same (``records-unavailable``), and the
next connection asks again."""


def tls_context(ca: str | None) -> ssl.SSLContext | None:
    """How ``wss://`` servers are checked: against the certificate authority (or self-signed
    certificate) in the PEM file ``ca`` as well as the system's; None (no file): the system's alone.
    OSError or ssl.SSLError for a file that cannot be read as one."""
    if ca is None:
        return None
    context = ssl.create_default_context()
    context.load_verify_locations(cafile=ca)
    return context


def room_url(url: str, room: str) -> str:
    """The room's address under the server's ``url``: its path with ``/r/CODE`` added (the query and
    fragment dropped), so a balancer can send a room's racers to one node."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"{parts.path.rstrip('/')}/r/{quote(room, safe='')}", "", ""))


class RaceConnection:
    """A session with one server. ``status`` callbacks: connecting, connected, reconnecting,
    retrying (each further attempt), new-session (the server forgot the old one), closed, replaced,
    removed (by the server's moderators: ``removed`` says why)."""

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
        key: str | None = None,
        on_key: KeyHandler | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """``token``: a session to resume (a restarted client coming back to its race); ``key``:
        the registered player's key, said in the first hello; ``on_key``: told of a new or
        refused key (None: never register); ``tls``: how a ``wss://`` server is checked (None:
        against the system's certificate authorities; ``tls_context`` makes one trusting a file)."""
        self.url = url
        self.name = name
        self.on_event = on_event
        self.on_status = on_status or (lambda status: None)
        self.give_up_after = give_up_after
        self.open_timeout = open_timeout
        self.reply_timeout = reply_timeout
        self.welcome: Welcome | None = None
        self.removed: str | None = None
        """Why the server's moderators removed this session (close 4004; status ``removed``)."""
        self.resume_token = token
        self.seq = 0
        self._ws: ClientConnection | None = None
        self._pending: dict[int, asyncio.Future[Message]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        self.key = key
        self.on_key = on_key
        self.tls = tls
        self._registering: asyncio.Task[None] | None = None
        self._asked_register = False
        """The server answered a ``register`` of this connection's (a key or a refusal)."""
        self.room: str | None = None
        """The room whose address (``room_url``) the connection uses, once seated in one."""
        self._following: asyncio.Task[None] | None = None
        self._frames: dict[int, bytes] = {}
        """The requests still unanswered, as sent: sent again on the room's connection."""
        self.received = 0
        """Frames read so far, on every socket of the session: an event handed to ``on_event``
        is the ``received``-th, so the App can tell which events came before a reply (``call``)."""
        self._reply_at: dict[int, int] = {}
        """Each answered request's reply: which frame it was (``received`` then)."""

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
        if token is None and self.key is None and self.on_key is not None:
            await self._register_first()
        try:
            welcome = await self._keyed(token)
        except ServerError as error:
            if token is None or error.code != ErrorCode.BAD_TOKEN:
                raise
            welcome = await self._open(None)  # the saved session is gone: a new one
        self.resume_token = None
        self._reader = asyncio.create_task(self._read_forever())
        if self.key is None and self.on_key is not None and not self._asked_register:
            self._registering = asyncio.create_task(self._register())
        return welcome

    async def _register_first(self) -> bool:
        """Before the session opens: register on a connection of its own (a hello, ``register``,
        closed), keep the key (``on_key``) and say it in the session's hello. False when the
        server could not be asked (it answers nothing here that a new session would not hear);
        True when it answered, a key or not (a server that keeps no players: anonymous), and then
        the connection does not ask again."""
        try:
            ws, _welcome = await self._handshake(None, None)
        except (ConnectError, ServerError) as error:
            log.info("not registered first: %s", error)
            return False
        try:
            await ws.send(encode_request(Register(), 1))
            async with asyncio.timeout(self.reply_timeout):
                while True:
                    re, reply = decode_server(await ws.recv())
                    if re == 1:
                        break
        except (ConnectionClosed, TimeoutError, ProtocolError) as error:
            log.info("not registered first: %s", error)
            return False
        finally:
            await ws.close()
        if isinstance(reply, Identity) and reply.key is not None and self.on_key is not None:
            self.key = reply.key
            self.on_key(reply.key)
        else:
            log.info("not registered: the server answered %s", getattr(reply, "code", reply.TYPE))
        # A database slow or down for a moment: the session asks again once it is open.
        self._asked_register = not (isinstance(reply, Error) and reply.code in KEY_NOT_NOW)
        return True

    async def _keyed(self, token: str | None) -> Welcome:
        """Hello with ``token`` (a session to come back to: a race may hold our seat), else with
        the key, else anonymous: a token the server forgot gives way to the key, and a key it
        refuses or cannot check now to a new anonymous session."""
        if token is not None:
            try:
                return await self._open(token)
            except ServerError as error:
                if error.code != ErrorCode.BAD_TOKEN or self.key is None:
                    raise
        if self.key is not None:
            try:
                return await self._open(None, key=self.key)
            except ServerError as error:
                if error.code == ErrorCode.BAD_KEY:
                    self.key = None
                    if self.on_key is not None:
                        self.on_key(None)
                        # Not a player here (any more): a new one, and the session is theirs.
                        if await self._register_first() and self.key is not None:
                            return await self._open(None, key=self.key)
                elif error.code not in KEY_NOT_NOW:
                    raise
                log.warning("the server did not take our key: %s", error)
        return await self._open(None)

    async def _register(self) -> None:
        """Become a registered player of this server; their key goes to ``on_key``. Asked again
        while the server cannot make one now (its database down or slow, or this address over its
        budget), after each of ``REGISTER_PAUSES``. Not after a request that went unanswered (it
        may have made the player, who took this session's races), nor of a server that keeps no
        players (or an older one)."""
        for pause in (*REGISTER_PAUSES, None):
            try:
                identity = await self.request(Register())
            except ServerError as error:
                log.info("not registered: %s", error)
                if error.code not in KEY_NOT_NOW:
                    return
            except (ConnectionLost, TimeoutError) as error:
                log.info("not registered: %s", error)
                return
            else:
                if isinstance(identity, Identity) and identity.key is not None and self.on_key is not None:
                    self.key = identity.key
                    self.on_key(identity.key)
                return
            if pause is not None:
                await asyncio.sleep(pause)

    async def request(self, message: Message) -> Message:
        """Send ``message`` and wait for its reply; ServerError when the server refuses it."""
        reply, _at = await self.call(message)
        return reply

    async def call(self, message: Message) -> tuple[Message, int]:
        """``request``, and which frame of the session its reply was (``received``): the events
        numbered below it came before it on the wire, those above it after."""
        ws = self._ws
        if ws is None:
            raise ConnectionLost("not connected")
        self.seq += 1
        seq = self.seq
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[seq] = future
        self._frames[seq] = frame = encode_request(message, seq)
        try:
            try:
                await ws.send(frame)
            except ConnectionClosed:
                # Closed by a move to the room's address: that connection sends it again.
                if self._following is None:
                    raise
            async with asyncio.timeout(self.reply_timeout):
                reply = await future
        except ConnectionClosed:
            raise ConnectionLost("connection dropped") from None
        finally:
            self._pending.pop(seq, None)
            self._frames.pop(seq, None)
            at = self._reply_at.pop(seq, self.received)
        if isinstance(reply, Error):
            raise ServerError(reply.code, reply.message)
        return reply, at

    async def close(self) -> None:
        self._closing = True
        for task in (self._registering, self._following):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
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

    @property
    def address(self) -> str:
        """Where the connection goes: the room's address once seated in one, else the server's."""
        return self.url if self.room is None else room_url(self.url, self.room)

    async def _open(self, token: str | None, status: str = "connected", key: str | None = None) -> Welcome:
        ws, message = await self._handshake(token, key)
        if message.room is not None and message.room != self.room:
            # Back in a room (a restarted client, a key's live session): resume there before
            # reading anything, so the room is sent once, on the room's connection.
            self.room = message.room
            try:
                moved = await self._handshake(message.token, None)
            except (ConnectError, ServerError) as error:
                log.info("staying on this connection, not the room's: %s", error)
            else:
                await ws.close()  # already replaced (4001) by the server
                ws, message = moved
        self.welcome = message
        self.seq = max(self.seq, message.last_seq)
        self._ws = ws
        self.on_status(status)
        return message

    async def _handshake(self, token: str | None, key: str | None) -> tuple[ClientConnection, Welcome]:
        """A new socket to ``address`` and its hello answered: the socket and the welcome."""
        # websockets refuses an ssl= for a ws:// address: only a wss:// one takes the context.
        tls: dict[str, Any] = {"ssl": self.tls} if self.tls is not None and self.url.lower().startswith("wss:") else {}
        try:
            ws = await connect(
                self.address,
                subprotocols=[Subprotocol(SUBPROTOCOL)],
                open_timeout=self.open_timeout,
                max_size=2**20,
                **tls,
            )
        except InvalidURI:
            raise ConnectError(_("'{url}' is not a WebSocket address (ws://host:port)").format(url=self.url)) from None
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise ConnectError(
                _("cannot reach {url}: {why}").format(url=self.url, why=unreachable_why(exc)), unreachable=True
            ) from None
        try:
            self.seq = max(self.seq, 0)
            await ws.send(encode_request(Hello(name=self.name, token=token, key=key), 0))
            while True:
                async with asyncio.timeout(self.open_timeout):
                    frame = await ws.recv()
                re, message = decode_server(frame)
                if re == 0:
                    break
        except ConnectionClosed as exc:
            await ws.close()
            reason = exc.rcvd.reason if exc.rcvd else "no reason given"
            if exc.rcvd is not None and exc.rcvd.code == CloseCode.VERSION_MISMATCH:
                raise ConnectError(
                    _("the server speaks another protocol version: {reason}").format(reason=reason)
                ) from None
            raise ConnectError(_("the server closed the connection: {reason}").format(reason=reason)) from None
        except (TimeoutError, ProtocolError) as exc:
            await ws.close()
            raise ConnectError(_("the server did not answer hello properly: {error}").format(error=exc)) from None
        if isinstance(message, Error):
            await ws.close()
            raise ServerError(message.code, message.message)
        if not isinstance(message, Welcome):
            await ws.close()
            raise ConnectError(_("unexpected answer to hello: {type}").format(type=message.TYPE))
        return ws, message

    def _seated(self, message: Message) -> None:
        """A racer's seat in a room not yet followed: move to the room's address."""
        if not isinstance(message, RoomState) or message.role != "racer" or message.room == self.room:
            return
        self.room = message.room
        if self._following is None:
            self._following = asyncio.create_task(self._follow())

    async def _follow(self) -> None:
        """Resume the session on the room's address; the server then closes the old connection
        (4001), whose reader goes on with this one. On failure the old connection stays: only a
        routing hint was lost, and the next reconnection uses the room's address."""
        try:
            while (room := self.room) is not None and not self._closing:
                old = self._ws
                if old is None or (old.request is not None and old.request.path == urlsplit(self.address).path):
                    return  # a reconnection under way, or already there
                try:
                    ws, welcome = await self._handshake(self.token, None)
                except (ConnectError, ServerError) as error:
                    log.info("staying on this connection, not the room's: %s", error)
                    return
                self.welcome = welcome
                self.seq = max(self.seq, welcome.last_seq)
                self._ws = ws
                for seq, frame in list(self._frames.items()):
                    answered = self._pending.get(seq)
                    if answered is not None and not answered.done():  # else answered on the old one
                        with contextlib.suppress(ConnectionClosed):
                            await ws.send(frame)
                if room == self.room:
                    return
        finally:
            self._following = None

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
                    self.received += 1
                    future = self._pending.get(re) if re is not None else None
                    if re is not None and future is not None and not future.done():
                        self._reply_at[re] = self.received
                        future.set_result(message)
                    else:
                        self.on_event(message)
                    self._seated(message)
            except ConnectionClosed:
                pass
            following = self._following
            if following is not None:
                await asyncio.wait([following])  # its connection takes this one's place
            if self._ws is not ws and self._ws is not None:
                continue  # moved to the room's address: read the new connection
            self._ws = None
            self._fail_pending()
            if self._closing:
                return
            closed = ws.close_code
            if closed == CloseCode.REPLACED and following is None:
                self.on_status("replaced")
                return
            if closed == CloseCode.REMOVED:  # kicked, banned or the room closed: not automatically back
                self.removed = ws.close_reason or "removed by the server's moderators"
                self.on_status("removed")
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
            # The server is up but forgot the session (restarted without its store): a new one,
            # the registered player's when we have a key.
            try:
                await self._open(None, status="new-session", key=self.key)
                return True
            except (ServerError, ConnectError) as exc:
                log.warning("a new session failed too: %s", exc)
        return False

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionLost("connection dropped"))
        self._pending.clear()
