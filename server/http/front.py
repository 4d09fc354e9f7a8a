"""The front door: every TCP connection on the race server's port starts here.

websockets' own HTTP parser reads a GET and nothing else (``curl -I`` had its connection closed:
"did not receive a valid HTTP request"), so plain HTTP is not left to it. websockets' ``serve``
calls its ``create_connection`` factory for each accepted connection and hands the result to
``loop.create_server`` as the asyncio protocol; ``Doors`` is that factory and returns a
``FrontDoor``, which reads the first request head (at most ``max_head`` bytes, else 431; within
``head_timeout`` seconds, else closed) and parses it with h11:

- **a WebSocket upgrade** (GET with ``Upgrade: websocket``): the door builds the
  ``ServerConnection`` websockets would have built, with the same arguments, hands it the
  transport (``transport.set_protocol``, ``connection_made``) and the bytes (``data_received``):
  the head as h11 read it (request line, then the fields in the order and spelling sent) and
  whatever came after it. From then on websockets owns the connection: its handshake checks,
  its open timeout, and the move path exactly as before, with nothing of ours between the socket
  and websockets;
- **anything else** is answered over h11 by ``HttpRoutes`` (``routes.py``): keep-alive (a later
  request may still be the upgrade), at most ``max_requests`` a connection and ``idle_timeout``
  seconds between them; nothing more is read while a request is answered, and the next only once
  the answer is on its way (the transport's write buffer under its high-water mark, within
  ``idle_timeout``: a client that sends and never reads holds one answer's bytes); a request that
  announces a body is answered and the connection closed (the body is never read); malformed
  HTTP gets 400 and a close, logged in one line like websockets' own refused handshakes; a bug
  while answering gets 500 (unless an answer had started: then the close ends it), never a
  connection dropped without a word.

``Doors.close()`` (a graceful stop) closes every door that is not answering a request at once,
and the others after their answer. TLS (``ssl=`` to ``serve``; not used today): the door then
sits on asyncio's TLS transport, which also takes ``set_protocol``; it cannot half-close, so
the door does not ask to keep writing after the client's EOF there.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any, Final, cast

import h11
from websockets.asyncio.server import Server, ServerConnection
from websockets.server import ServerProtocol

from server.http.reply import TEXT, HttpRequest, Reply
from server.shell.guard import handshake_logger

HEAD_TIMEOUT: Final = 10.0
"""Seconds a new connection has to send its first request head whole (websockets' open timeout)."""
IDLE_TIMEOUT: Final = 5.0
"""Seconds a kept-alive HTTP connection has for its next request head (or to read an answer)."""
MAX_REQUESTS: Final = 100
"""Requests one HTTP connection may send; the last answer closes it."""
MAX_HEAD: Final = 16 * 1024
"""Bytes of a request head at most (more: 431)."""

Routes = Callable[[HttpRequest], Awaitable[Reply]]

log = logging.getLogger("seahaven.http")


class Doors:
    """The ``create_connection`` factory handed to websockets' ``serve``, and the open doors.

    Its timeouts and limits are read as each connection comes to use them (tests shorten them)."""

    def __init__(self, routes: Routes) -> None:
        self.routes = routes
        self.head_timeout = HEAD_TIMEOUT
        self.idle_timeout = IDLE_TIMEOUT
        self.max_requests = MAX_REQUESTS
        self.max_head = MAX_HEAD
        self.open: set[FrontDoor] = set()
        """Connections still at the door: not yet upgraded, not yet closed."""
        self.closing = False

    def __call__(self, protocol: ServerProtocol, server: Server, **settings: Any) -> FrontDoor:
        """What websockets' ``serve`` calls for each accepted connection, in place of
        ``ServerConnection(protocol, server, **settings)``."""
        return FrontDoor(self, protocol, server, settings)

    def as_factory(self) -> type[ServerConnection]:
        """This factory typed as ``serve`` declares its ``create_connection`` (a class): websockets
        only calls it, and asyncio only needs a protocol back."""
        return cast("type[ServerConnection]", self)

    def close(self) -> None:
        """Stop: close the idle doors now, the answering ones after their answer."""
        self.closing = True
        for door in list(self.open):
            door.shut()


class FrontDoor(asyncio.Protocol):
    """One connection until it is upgraded (then websockets' own) or closed."""

    def __init__(self, doors: Doors, protocol: ServerProtocol, server: Server, settings: dict[str, Any]) -> None:
        self.doors = doors
        self.protocol = protocol
        """The sans-I/O protocol websockets made for this connection: the upgrade's. (websockets'
        ``select_subprotocol`` wrapper reads it, and hands the selector this door.)"""
        self.server = server
        self.settings = settings
        self.parser = h11.Connection(h11.SERVER, max_incomplete_event_size=doors.max_head)
        self.transport: asyncio.Transport | None = None
        self.peer = "?"
        self.timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None
        self.readable = asyncio.Event()
        """Set when bytes (or the end) came in for the HTTP task."""
        self.writable = asyncio.Event()
        self.writable.set()
        self.answering = False

    # -- asyncio.Protocol -----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        peer = transport.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        if self.doors.closing:
            self.transport.close()
            return
        self.doors.open.add(self)
        self.timer = asyncio.get_running_loop().call_later(self.doors.head_timeout, self.shut)

    def data_received(self, data: bytes) -> None:
        self.parser.receive_data(data)
        self.received()

    def eof_received(self) -> bool:
        self.parser.receive_data(b"")
        self.received()
        # Keep the write side open to answer a request sent before a half-close (TLS cannot).
        return self.transport is not None and self.transport.get_extra_info("ssl_object") is None

    def connection_lost(self, exc: Exception | None) -> None:
        self.doors.open.discard(self)
        if self.timer is not None:
            self.timer.cancel()
        if self.task is not None:
            self.task.cancel()
        self.writable.set()

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    # -- the first request ----------------------------------------------------------------------

    def received(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        if self.task is not None:  # an HTTP connection: its task reads on
            self.readable.set()
            return
        event = self.next_event()
        if event is None or event is h11.NEED_DATA:
            return
        if not isinstance(event, h11.Request):  # the peer closed before a whole request
            self.close()
            return
        if self.timer is not None:
            self.timer.cancel()
        if is_upgrade(event):
            self.hand_over(event)
        else:
            self.task = asyncio.get_running_loop().create_task(self.serve(event))

    def hand_over(self, request: h11.Request) -> None:
        """Give the connection to websockets, with the request as sent and all read after it."""
        transport = self.transport
        assert transport is not None
        self.doors.open.discard(self)
        rest, ended = self.parser.trailing_data
        connection = ServerConnection(self.protocol, self.server, **self.settings)
        transport.set_protocol(connection)
        connection.connection_made(transport)
        connection.data_received(head_bytes(request) + rest)
        if ended:  # what asyncio does after websockets' eof_received (it never keeps a transport open)
            connection.eof_received()
            transport.close()
        # websockets' subprotocol selector keeps this door for the connection's life (the object its
        # factory returned): let go of the door's own parts, ~4 KiB per idle connection.
        del self.parser, self.readable, self.writable, self.settings
        self.transport = self.timer = None

    # -- HTTP -----------------------------------------------------------------------------------

    async def serve(self, first: h11.Request) -> None:
        """Answer requests until one of the limits, the client, or a stop ends the connection."""
        request: h11.Request | None = first
        served = 0
        try:
            while request is not None:
                served += 1
                if not await self.answer(request, last=served >= self.doors.max_requests):
                    return
                self.parser.start_next_cycle()
                request = await self.next_request()
                if request is not None and is_upgrade(request):
                    self.task = None
                    self.hand_over(request)
                    return
        except TimeoutError:  # the client did not read its answer within the idle timeout
            pass
        except Exception as exc:  # a bug here: answered 500 if no answer was under way, then closed
            log.exception("event=http.door.error peer=%s error=%r", self.peer, exc)
            if self.transport is not None and not self.transport.is_closing():
                self.refuse(500, "internal error", logged=False)
        finally:
            if self.task is not None:
                self.close()

    async def answer(self, request: h11.Request, *, last: bool) -> bool:
        """Answer one request; True if the connection may carry another."""
        transport = self.transport
        assert transport is not None
        transport.pause_reading()  # pipelined requests wait in the kernel meanwhile
        if request.http_version not in (b"1.0", b"1.1"):
            self.refuse(505, "HTTP/1.0 and HTTP/1.1 only")
            return False
        asked = parsed(request, self.peer)
        if asked is None:
            self.refuse(400, "the request target is not an ASCII path")
            return False
        if not asked.has_body and self.next_event() is None:  # its end is in the parser already
            return False
        self.answering = True
        try:
            reply = await self.doors.routes(asked)
        finally:
            self.answering = False
        keep = not (last or asked.has_body or self.doors.closing or transport.is_closing())
        self.write(reply, head_only=asked.method == "HEAD", close=not keep)
        if keep and self.parser.our_state is h11.DONE:
            async with asyncio.timeout(self.doors.idle_timeout):  # the answer must leave first
                await self.writable.wait()
            return not transport.is_closing()
        return False

    async def next_request(self) -> h11.Request | None:
        """The next request head, or None (idle too long, closed, or malformed: answered)."""
        transport = self.transport
        assert transport is not None
        try:
            async with asyncio.timeout(self.doors.idle_timeout):
                while True:
                    event = self.next_event()
                    if event is None:
                        return None
                    if event is not h11.NEED_DATA:
                        return event if isinstance(event, h11.Request) else None
                    self.readable.clear()
                    transport.resume_reading()
                    await self.readable.wait()
        except TimeoutError:
            return None

    def next_event(self) -> Any:
        """h11's next event; None if the request was malformed (then answered and closed)."""
        try:
            return self.parser.next_event()
        except h11.RemoteProtocolError as exc:
            self.refuse(exc.error_status_hint, str(exc))
            return None

    # -- writing --------------------------------------------------------------------------------

    def write(self, reply: Reply, *, head_only: bool, close: bool) -> None:
        transport = self.transport
        assert transport is not None
        headers = [*reply.headers, ("Date", email.utils.formatdate(usegmt=True))]
        bodiless = reply.status < 200 or reply.status in (204, 304)
        if not bodiless:
            headers.append(("Content-Length", str(len(reply.body))))
        if close:
            headers.append(("Connection", "close"))
        data = self.parser.send(h11.Response(status_code=reply.status, headers=headers, reason=reply.status.phrase))
        if reply.body and not (head_only or bodiless):
            data += self.parser.send(h11.Data(data=reply.body))
        data += self.parser.send(h11.EndOfMessage())
        transport.write(data)
        if close or self.parser.our_state is h11.MUST_CLOSE:
            self.close()

    def refuse(self, status: int, reason: str, *, logged: bool = True) -> None:
        """Answer malformed HTTP (400, 431, 505) in plain text, log it in one line (as websockets'
        refused handshakes are: ``server/shell/guard.py``; ``logged`` False: said already), and close."""
        phrase = HTTPStatus(status).phrase
        if logged:
            handshake_logger().warning(
                "event=handshake.rejected peer=%s reason=%r", self.peer, f"{status} {reason}"[:200]
            )
        body = f"{phrase}: {reason}\n".encode()
        headers = [("Content-Type", TEXT), ("Content-Length", str(len(body))), ("Connection", "close")]
        try:
            data = self.parser.send(h11.Response(status_code=status, headers=headers, reason=phrase))
            data += self.parser.send(h11.Data(data=body)) + self.parser.send(h11.EndOfMessage())
        except h11.LocalProtocolError:  # too late to answer (an answer was under way): just close
            data = b""
        if self.transport is not None and data:
            self.transport.write(data)
        self.close()

    def shut(self) -> None:
        """Close now, unless a request is being answered (then its answer closes)."""
        if not self.answering:
            self.close()

    def close(self) -> None:
        self.doors.open.discard(self)
        if self.transport is not None and self.transport.get_protocol() is self:
            self.transport.close()


def is_upgrade(request: h11.Request) -> bool:
    """A WebSocket opening handshake: GET with ``websocket`` among its ``Upgrade`` tokens
    (websockets checks the rest, and refuses a wrong one in its own words)."""
    if request.method != b"GET":
        return False
    return any(
        token.strip().lower() == b"websocket"
        for name, value in request.headers
        if name == b"upgrade"
        for token in value.split(b",")
    )


def head_bytes(request: h11.Request) -> bytes:
    """The request head as sent: request line, then each field with its name as the client wrote it."""
    lines = [b"%s %s HTTP/%s" % (request.method, request.target, request.http_version)]
    lines += [name + b": " + value for name, value in request.headers.raw_items()]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def parsed(request: h11.Request, peer: str) -> HttpRequest | None:
    """The router's view of an h11 request; None for a target that is not an ASCII path."""
    try:
        target = request.target.decode("ascii")
    except UnicodeDecodeError:
        return None
    if not target.startswith("/"):
        return None
    path, _, query = target.partition("?")
    headers = tuple((name.decode("ascii"), value.decode("latin-1")) for name, value in request.headers)
    length = next((value for name, value in headers if name == "content-length"), "0")
    chunked = any(name == "transfer-encoding" for name, _ in headers)
    return HttpRequest(request.method.decode("ascii"), path, query, headers, peer, chunked or length != "0")
