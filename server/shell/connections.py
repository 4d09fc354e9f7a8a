"""Connection handling: the version check and the per-address cap, reading a connection's
requests under its rate limit, the hello (a new session, or one resumed and back in its room),
and a session taken over by a newer connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from typing import Protocol

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed

from protocol.codec import MAX_FRAME, SUBPROTOCOL, decode_request, encode
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import Error, Hello, Limits, Welcome
from protocol.schema import Message
from server.config import Config
from server.logs import log_event
from server.rooms.core import Frame
from server.shell.clock import Clock
from server.shell.fanout import Fanout
from server.shell.guard import ConnectionGuard, close_reason
from server.shell.held import HeldRoom
from server.shell.limits import TokenBucket
from server.shell.ports import Bans, Identities
from server.shell.requests import Requests
from server.shell.roompath import RoomPath
from server.shell.sessions import PLAYER_BELL, SESSION_BELL, Session, SessionTable
from server.store.base import StoreError
from server.store.interfaces import Doorbells, Nodes, RoomLog


class TryAnotherNode(Exception):
    """A hello this node does not serve now (it is draining): closed 4003 with this reason."""


class ConnectionStore(RoomLog, Doorbells, Nodes, Protocol):
    """What a hello needs of the store: the room's reply memory, the session's doorbell, the
    member's place."""


class Connections:
    """Each connection, from its handshake to its close: its hello, then its requests (to
    ``requests``) until it closes, when its room hears of the drop (``path``)."""

    def __init__(
        self,
        requests: Requests,
        path: RoomPath,
        fanout: Fanout,
        table: SessionTable,
        guard: ConnectionGuard,
        store: ConnectionStore,
        config: Config,
        clock: Clock,
        node: str,
        stopping: asyncio.Event,
        identities: Identities,
        *,
        refusing: Callable[[], str | None] = lambda: None,
        book: Bans | None = None,
        welcomed: Sequence[Callable[[Session], None]] = (),
        closed: Sequence[Callable[[Session], None]] = (),
    ) -> None:
        self.refusing = refusing
        """Why this node takes no new connections now (None: it takes them): a drain."""
        self.book = book
        """The moderators' list a hello is checked against (None: nobody is refused)."""
        self.identities = identities
        """Registered players: a ``hello`` with a key."""
        self.requests = requests
        self.path = path
        self.fanout = fanout
        self.table = table
        self.guard = guard
        self.store = store
        self.config = config
        self.clock = clock
        self.node = node
        self.stopping = stopping
        self.welcomed = tuple(welcomed)
        """Hooks told of each session a hello opened or resumed, once its welcome has gone out."""
        self.closed = tuple(closed)
        """Hooks told of each session whose connection closed while it was the session's own,
        outside a drain (its players go on to another node)."""

    def _seconds(self) -> float:
        return self.clock.now() / 1000

    async def accept(self, ws: ServerConnection) -> None:
        """Serve one WebSocket connection from its handshake to its close."""
        if ws.subprotocol != SUBPROTOCOL:
            offered = ws.request.headers.get("Sec-WebSocket-Protocol", "none") if ws.request else "none"
            await ws.close(CloseCode.VERSION_MISMATCH, f"this server speaks {SUBPROTOCOL}; you offered {offered}"[:120])
            return
        address = self.guard.address(ws)
        refusing = self.refusing()
        if refusing is not None:
            await self.guard.close(ws, CloseCode.TRY_ANOTHER_NODE, f"this node is {refusing}"[:120])
            return
        if not self.guard.admit(address):
            log_event("connection.refused", peer=address, reason="too many connections")
            await self.guard.close(ws, CloseCode.TRY_AGAIN_LATER, "too many connections from your address")
            return
        try:
            await self._serve(ws, address)
        finally:
            self.guard.release(ws, address)

    async def _serve(self, ws: ServerConnection, address: str) -> None:
        """Read ``ws``'s requests until it closes (or is let go)."""
        bucket = TokenBucket(self.config.rate, self.config.burst, self._seconds())
        strikes = 0
        session: Session | None = None

        def silent() -> None:
            if session is None:
                log_event("connection.silent", peer=address)
                self.guard.let_go(ws, CloseCode.HELLO_TIMEOUT, "no hello in time")

        deadline = self.clock.call_at(self.clock.now() + self.config.hello_timeout_ms, silent)
        try:
            async for frame in ws:
                if session is not None and session.conn is not ws:
                    break  # another connection took the session over
                seq: int | None = None
                try:
                    if not bucket.take(self._seconds()):
                        strikes += 1
                        if strikes >= self.config.strikes:
                            await self.guard.close(ws, CloseCode.POLICY, "too many requests")
                            break
                        seq = _peek_seq(frame)
                        raise ProtocolError(ErrorCode.RATE_LIMITED, "slow down: request dropped, send it again")
                    seq, message = decode_request(frame)
                    if session is None:
                        if not isinstance(message, Hello):
                            raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello first")
                        session = await self.on_hello(ws, message, seq)
                        deadline.cancel()
                        continue
                    if isinstance(message, Hello):
                        raise ProtocolError(ErrorCode.BAD_FIELD, "you already said hello on this connection")
                    await self.requests.request(ws, session, seq, message)
                except TryAnotherNode as exc:
                    await self.guard.close(ws, CloseCode.TRY_ANOTHER_NODE, str(exc)[:120])
                    break
                except ProtocolError as exc:
                    re = seq if seq is not None else exc.seq
                    if exc.code == ErrorCode.ROOM_UNAVAILABLE and session is None:
                        # Resuming into a newer build's room: its nodes serve it, go there.
                        await self.guard.close(ws, CloseCode.TRY_ANOTHER_NODE, "your room is served by a newer node")
                        break
                    await _send(ws, Error(code=exc.code, message=exc.message), re)
                    if exc.code in (ErrorCode.BANNED, ErrorCode.NAME_RESERVED):
                        await self.guard.close(ws, CloseCode.REMOVED, close_reason(exc.message))
                        break
        except ConnectionClosed:
            pass
        finally:
            deadline.cancel()
            if session is not None and session.conn is ws:
                session.conn = None
                self.store.unlisten(_bells(session))
                if not self.stopping.is_set():
                    for hook in self.closed:
                        hook(session)
                    await self.path.dropped(session)
                if session.room is None:
                    self.table.forget(session)

    async def on_hello(self, ws: ServerConnection, hello: Hello, seq: int) -> Session:
        """Open or resume a session. The store calls come first and the takeover of the
        session after them, all at once, so a failed or slow hello leaves nothing half done.

        The room's frames reach ``ws`` only after ``welcome`` and the room state, which is built
        after anything the room sent meanwhile, so nothing is missed or comes first."""
        self.fanout.greeting.add(ws)
        try:
            session, held, frames = await self._resume(ws, hello)
            # Where the player races on another connection: the lobby offers to take the seat.
            elsewhere = await self.path.seat_elsewhere(session) if held is None else None
        except StoreError as exc:
            log_event("store.error", error=str(exc))
            raise ProtocolError(ErrorCode.STORE_UNAVAILABLE, "the game store is unavailable") from None
        finally:
            self.fanout.greeting.discard(ws)  # from here to the room state nothing is awaited
        limits = Limits(
            max_frame=MAX_FRAME,
            rate=int(self.config.rate),
            burst=self.config.burst,
            grace_ms=self.config.grace_ms,
        )
        welcome = Welcome(
            token=session.token,
            player=session.player,
            name=session.name,
            server_time=self.clock.now(),
            limits=limits,
            room=session.room,
            last_seq=session.last_seq,
            handle=session.handle,
            identified=session.identified,
            seat=elsewhere[1].room.code if elsewhere is not None else None,
        )
        self.fanout.write([ws], encode(welcome, seq))
        if held is not None:
            self.fanout.write([ws], encode(held.core.state_for(session.player, self.clock.now())))
        self.fanout.send(frames)
        for hook in self.welcomed:
            hook(session)
        log_event("session.hello", player=session.player, resumed=hello.token is not None, key=hello.key is not None)
        return session

    async def _resume(self, ws: ServerConnection, hello: Hello) -> tuple[Session, HeldRoom | None, list[Frame]]:
        """The session a hello names (or a new one), taken over by ``ws`` at once, and back in
        its room if it still has a place there (with the frames that tells the room). A ``key``
        names a registered player's session in place of a token (``token`` is then not read)."""
        refusing = self.refusing()
        if refusing is not None:  # a connection accepted before the drain began
            raise TryAnotherNode(f"this node is {refusing}")
        if hello.key is not None:
            session, new = await self.identities.session_for(hello.key, hello.name, self.guard.address(ws))
            self._check(ws, session.name, session.handle)
            if not new and await self._racing(session):  # another tab or device: a session beside it
                session, new = await self.identities.beside(session), True
            if new:
                await self._claim_heard(session, ws)
                return session, None, []
        elif hello.token is None:
            self._check(ws, hello.name, None)
            if not self.guard.new_session(self.guard.address(ws), self._seconds()):
                raise ProtocolError(ErrorCode.RATE_LIMITED, "too many new sessions from your address: resume one")
            session = await self.table.open(hello.name)
            await self._claim_heard(session, ws)
            return session, None, []
        else:
            session = await self.table.find(hello.token)
            if session.identified and session.room is None:  # the player's name, as set on any device
                session.name = await self.identities.name_of(session, self.guard.address(ws))
            self._check(ws, session.name, session.handle)
        self._claim(session, ws)  # from here on, the old connection's drop is not this player's drop
        frames: list[Frame] = []
        try:
            # Heard before the takeover rings: a later hello of this token elsewhere reaches us.
            await self.store.listen(_bells(session))
            await self.store.ring(SESSION_BELL, session.token, self.node)  # a connection on another node: 4001
            held = await self.path.get(session.room) if session.room is not None else None
            if held is not None and not held.room.has_member(session.player):
                await self.path.forget_if_idle(held)
                held = None
            if held is not None:
                # The reply memory of a session back in its room is kept with the room.
                memo = await self.store.memo(held.room.code, session.player)
                if memo is not None and memo[0] > session.last_seq and session.pending is None:
                    session.last_seq, session.last_reply = memo[0], [memo[1]]
                held.visitors.add(session.player)
                player = session.player
                try:
                    outcome = await self.path.run(held, lambda core, now: core.reconnect(player, now), send=False)
                    frames = outcome.frames
                    await self.store.locate(held.room.code, player, self.node, self.config.session_ttl)
                except ProtocolError:
                    held = None  # the room closed meanwhile
            if held is None:
                session.room = None
            await self.table.save(session)
        except BaseException:
            if session.conn is ws:
                session.conn = None
                self.store.unlisten(_bells(session))
            raise
        if session.conn is not ws:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "a newer connection took this session over")
        return session, held, frames

    async def _racing(self, session: Session) -> bool:
        """Whether the session's seat is held by a live connection (here, or as its room says)."""
        if session.conn is not None:
            return True
        held = await self.path.get(session.room) if session.room is not None else None
        seat = held.room.seats.get(session.player) if held is not None else None
        return seat is not None and seat.connected

    def _check(self, ws: ServerConnection, name: str, handle: str | None) -> None:
        """Refuse a banned player, or a reserved name not theirs (banned, name-reserved)."""
        if self.book is not None:
            refused = self.book.refusal(name, self.guard.address(ws), handle)
            if refused is not None:
                log_event("session.refused", name=name, peer=self.guard.address(ws), code=refused.code)
                raise refused

    async def _claim_heard(self, session: Session, ws: ServerConnection) -> None:
        """A new session: claimed by ``ws``, and its doorbells heard here."""
        self._claim(session, ws)
        try:
            await self.store.listen(_bells(session))
        except BaseException:
            if session.conn is ws:
                session.conn = None
                self.store.unlisten(_bells(session))
            raise

    def _claim(self, session: Session, ws: ServerConnection) -> None:
        """Make ``ws`` the session's connection; the one it had is closed (4001)."""
        old = self.table.claim(session, ws)
        if old is not None:
            self.guard.let_go(old, CloseCode.REPLACED, "replaced by a newer connection with the same token")


def _bells(session: Session) -> tuple[tuple[str, str], ...]:
    """The doorbells of a session whose connection is here: its takeover elsewhere, its player's frames."""
    return ((SESSION_BELL, session.token), (PLAYER_BELL, session.player))


async def _send(ws: ServerConnection, message: Message, re: int | None) -> None:
    with contextlib.suppress(ConnectionClosed):
        await ws.send(encode(message, re))


def _peek_seq(frame: bytes | str) -> int | None:
    """The seq of a frame, if it has a readable one (to address a rate-limited reply)."""
    try:
        return decode_request(frame)[0]
    except ProtocolError as exc:
        return exc.seq
