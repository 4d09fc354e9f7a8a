"""The asyncio shell around the rooms: connections, sessions, the store, timers, fan-out.

Every request runs: decode -> room command (the engine judges) -> store append (one
round trip) -> reply -> broadcast. Rooms are pure objects (server/room.py); this module
only moves bytes between them, the sockets and the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence, Set
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import msgpack
from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.typing import Subprotocol

from protocol.codec import MAX_FRAME, SUBPROTOCOL, decode_request, encode
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import (
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    Leave,
    Limits,
    ListRooms,
    Moved,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    QuickMatch,
    Ready,
    Rematch,
    Resign,
    Rooms,
    RoomSummary,
    Undo,
    Welcome,
)
from protocol.schema import Message
from seahaven import decode as decode_deal
from seahaven.deals import MAX_DEAL

from .config import Config
from .events import Event, Undone, pack, unpack
from .events import Moved as MovedEvent
from .limits import TokenBucket
from .names import new_player_id, new_room_code, new_token, normalise_room_code, sanitise_name
from .room import Room, Settings
from .store import Store, StoreError

log = logging.getLogger("seahaven.server")

_OUTBOX: contextvars.ContextVar[list[tuple[Set[str], bytes]] | None] = contextvars.ContextVar("outbox", default=None)
"""Frames a request caused, held back until its reply is sent (None: send at once)."""


def log_event(event: str, /, **fields: object) -> None:
    """One structured log line: ``event=room.created key=value ...``."""
    log.info("event=%s %s", event, " ".join(f"{k}={v}" for k, v in fields.items()))


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(slots=True)
class Session:
    token: str
    player: str
    name: str
    room: str | None = None
    last_seq: int = -1
    last_reply: list[bytes] = field(default_factory=list)
    conn: ServerConnection | None = None

    def dump(self) -> bytes:
        data: bytes = msgpack.packb([self.player, self.name, self.room])
        return data

    @classmethod
    def load(cls, token: str, data: bytes) -> Session:
        player, name, room = msgpack.unpackb(data, raw=False)
        return cls(token, player, name, room)


@dataclass(slots=True)
class Live:
    """A room held in this process, with the log it was rebuilt from."""

    room: Room
    log: list[Event]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None
    stale: bool = False
    """A store call failed: the stored log may hold more than ``log`` (a lost reply)."""


class RaceServer:
    """The race server: call ``start`` then ``serve_forever``, or use ``run``."""

    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.rooms: dict[str, Live] = {}
        self.sessions: dict[str, Session] = {}
        self.players: dict[str, Session] = {}
        """Sessions by player id, for fan-out."""
        self.ws: WsServer | None = None
        self.handlers: dict[type[Message], Callable[[Session, Any, int], Awaitable[Message]]] = {
            ListRooms: self.on_list_rooms,
            CreateRoom: self.on_create_room,
            JoinRoom: self.on_join_room,
            QuickMatch: self.on_quick_match,
            Leave: self.on_leave,
            Ready: self.on_ready,
            MoveRequest: self.on_move,
            Undo: self.on_undo,
            Resign: self.on_resign,
            Rematch: self.on_rematch,
            Ping: self.on_ping,
        }

    # -- lifecycle ----------------------------------------------------------

    async def start(self) -> WsServer:
        await self.recover()
        self.ws = await serve(
            self.connection,
            self.config.host,
            self.config.port,
            subprotocols=[Subprotocol(SUBPROTOCOL)],
            select_subprotocol=_select_subprotocol,
            process_request=self.health,
            max_size=MAX_FRAME,
            max_queue=32,
        )
        log_event("server.started", host=self.config.host, port=self.port, store=type(self.store).__name__)
        return self.ws

    @property
    def port(self) -> int:
        assert self.ws is not None
        for sock in self.ws.sockets:
            return int(sock.getsockname()[1])
        return self.config.port

    async def stop(self) -> None:
        for live in self.rooms.values():
            if live.timer:
                live.timer.cancel()
        if self.ws is not None:
            self.ws.close(close_connections=True)
            await self.ws.wait_closed()
        await self.store.close()
        log_event("server.stopped")

    async def recover(self) -> None:
        """Rebuild the store's live rooms; their racers count as dropped from now on."""
        now = now_ms()
        for code in await self.store.room_ids():
            live = await self._load(code)
            if live is None:
                continue
            for player in list(live.room.seats):
                await self._commit(live, live.room.disconnect(player, now), now)
            log_event("room.recovered", room=code, phase=live.room.phase)

    async def health(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.path != "/healthz":
            return None
        ok = await self.store.ping()
        status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
        return connection.respond(status, "ok\n" if ok else "store unavailable\n")

    # -- connections --------------------------------------------------------

    async def connection(self, ws: ServerConnection) -> None:
        if ws.subprotocol != SUBPROTOCOL:
            offered = ws.request.headers.get("Sec-WebSocket-Protocol", "none") if ws.request else "none"
            await ws.close(CloseCode.VERSION_MISMATCH, f"this server speaks {SUBPROTOCOL}; you offered {offered}"[:120])
            return
        bucket = TokenBucket(self.config.rate, self.config.burst, time.monotonic())
        strikes = 0
        session: Session | None = None
        try:
            async for frame in ws:
                seq: int | None = None
                try:
                    if not bucket.take(time.monotonic()):
                        strikes += 1
                        if strikes >= self.config.strikes:
                            await ws.close(CloseCode.POLICY, "too many requests")
                            break
                        seq = _peek_seq(frame)
                        raise ProtocolError(ErrorCode.RATE_LIMITED, "slow down: request dropped, send it again")
                    seq, message = decode_request(frame)
                    if session is None:
                        if not isinstance(message, Hello):
                            raise ProtocolError(ErrorCode.HELLO_FIRST, "say hello first")
                        try:
                            session = await self.on_hello(ws, message, seq)
                        except StoreError as exc:
                            log_event("store.error", error=str(exc).replace(" ", "_"))
                            raise ProtocolError(ErrorCode.STORE_UNAVAILABLE, "the game store is unavailable") from None
                        continue
                    if isinstance(message, Hello):
                        raise ProtocolError(ErrorCode.BAD_FIELD, "you already said hello on this connection")
                    await self.request(session, seq, message)
                except ProtocolError as exc:
                    re = seq if seq is not None else exc.seq
                    await _send(ws, Error(code=exc.code, message=exc.message), re)
        except ConnectionClosed:
            pass
        finally:
            if session is not None and session.conn is ws:
                session.conn = None
                await self._dropped(session)
                if session.room is None:
                    self._forget_session(session)

    async def request(self, session: Session, seq: int, message: Message) -> None:
        """Answer one request; a repeated seq gets the same answer again, unreplayed."""
        ws = session.conn
        assert ws is not None
        if seq == session.last_seq:
            for frame in session.last_reply:
                await ws.send(frame)
            return
        if seq < session.last_seq:
            raise ProtocolError(ErrorCode.BAD_SEQ, f"seq {seq} is older than your last request {session.last_seq}")
        session.last_seq = seq
        outbox: list[tuple[Set[str], bytes]] = []
        _OUTBOX.set(outbox)
        try:
            reply = await self.handlers[type(message)](session, message, seq)
        except StoreError as exc:
            log_event("store.error", error=str(exc).replace(" ", "_"))
            reply = Error(code=ErrorCode.STORE_UNAVAILABLE, message="the game store is unavailable; try again")
        except ProtocolError as exc:
            reply = Error(code=exc.code, message=exc.message)
        except Exception:
            # A bug must cost one request, not the connection or the room.
            log.exception("event=request.failed player=%s type=%s", session.player, message.TYPE)
            reply = Error(code=ErrorCode.INTERNAL, message="the server failed on this request")
        finally:
            _OUTBOX.set(None)
        frame = encode(reply, seq)
        session.last_reply = [frame]
        # The requester hears the answer first, then the room hears what it caused.
        with contextlib.suppress(ConnectionClosed):
            await ws.send(frame)
        self._deliver(outbox)

    async def on_hello(self, ws: ServerConnection, hello: Hello, seq: int) -> Session:
        """Open or resume a session. Everything that may fail (the store) happens before this
        connection takes the session over, so a failed hello leaves nothing half done."""
        session: Session | None = None
        if hello.token is not None:
            session = self.sessions.get(hello.token)
            if session is None:
                data = await self.store.get_session(hello.token)
                if data is None:
                    raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown or expired session token: say hello without one")
                session = Session.load(hello.token, data)
        else:
            session = Session(new_token(), new_player_id(), sanitise_name(hello.name))
        live = await self._get(session.room) if session.room is not None else None
        if live is None or session.player not in live.room.members:
            session.room, live = None, None
        now = now_ms()
        if live is not None:
            async with self._locked(live):
                await self._commit(live, live.room.reconnect(session.player, now), now)
        await self.store.put_session(session.token, session.dump(), self.config.session_ttl)

        if session.conn is not None and session.conn is not ws:
            old = session.conn
            session.conn = None
            await old.close(CloseCode.REPLACED, "replaced by a newer connection with the same token")
        session.conn = ws
        self.sessions[session.token] = session
        self.players[session.player] = session
        limits = Limits(
            max_frame=MAX_FRAME, rate=int(self.config.rate), burst=self.config.burst, grace_ms=self.config.grace_ms
        )
        welcome = Welcome(
            token=session.token,
            player=session.player,
            name=session.name,
            server_time=now,
            limits=limits,
            room=session.room,
            last_seq=session.last_seq,
        )
        await _send(ws, welcome, seq)
        log_event("session.hello", player=session.player, resumed=hello.token is not None)
        if live is not None:
            await _send(ws, live.room.state_for(session.player, now_ms()), None)
        return session

    # -- request handlers ---------------------------------------------------

    async def on_ping(self, session: Session, message: Ping, seq: int) -> Message:
        return Pong(server_time=now_ms())

    async def on_list_rooms(self, session: Session, message: ListRooms, seq: int) -> Message:
        rooms = []
        for data in (await self.store.listings()).values():
            try:
                summary = RoomSummary.from_body(msgpack.unpackb(data, raw=False))
            except (ProtocolError, ValueError):
                continue
            if message.preset is None or summary.preset == message.preset:
                rooms.append(summary)
        rooms.sort(key=lambda r: (r.phase != "waiting", r.room))
        return Rooms(rooms=tuple(rooms))

    async def on_create_room(self, session: Session, message: CreateRoom, seq: int) -> Message:
        self._not_in_room(session)
        preset, deal = message.preset, message.deal_number
        if message.deal_code is not None:
            if deal is not None:
                raise ProtocolError(ErrorCode.BAD_FIELD, "give deal_number or deal_code, not both")
            try:
                preset, deal = decode_deal(message.deal_code)
            except ValueError as exc:
                raise ProtocolError(ErrorCode.BAD_DEAL, str(exc)) from None
        settings = Settings(
            preset=preset,
            deal=deal if deal is not None else _random_deal(),
            seats=message.seats,
            public=message.public,
            time_limit_ms=message.time_limit * 1000 if message.time_limit else None,
            undo=message.undo,
            countdown_ms=self.config.countdown_ms,
            grace_ms=self.config.grace_ms,
        )
        live = await self._create(settings)
        return await self._join(session, live, spectate=False)

    async def on_join_room(self, session: Session, message: JoinRoom, seq: int) -> Message:
        self._not_in_room(session)
        live = await self._get(normalise_room_code(message.room))
        if live is None:
            raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"no room {message.room!r}: check the code")
        return await self._join(session, live, spectate=message.spectate)

    async def on_quick_match(self, session: Session, message: QuickMatch, seq: int) -> Message:
        self._not_in_room(session)
        for live in self.rooms.values():
            room = live.room
            someone_waits = any(seat.connected for seat in room.seats.values())
            if room.settings.public and room.settings.preset == message.preset and room.is_open() and someone_waits:
                return await self._join(session, live, spectate=False)
        settings = Settings(
            preset=message.preset,
            deal=_random_deal(),
            countdown_ms=self.config.countdown_ms,
            grace_ms=self.config.grace_ms,
        )
        return await self._join(session, await self._create(settings), spectate=False)

    async def on_leave(self, session: Session, message: Leave, seq: int) -> Message:
        live = self._in_room(session)
        now = now_ms()
        async with self._locked(live):
            await self._commit(live, live.room.leave(session.player, now), now)
        session.room = None
        await self._forget_if_idle(live)
        await self.store.put_session(session.token, session.dump(), self.config.session_ttl)
        return Ok()

    async def on_ready(self, session: Session, message: Ready, seq: int) -> Message:
        return await self._command(session, lambda room, now: room.set_ready(session.player, message.ready, now))

    async def on_move(self, session: Session, message: MoveRequest, seq: int) -> Message:
        return await self._command(session, lambda room, now: room.move(session.player, message.move, now))

    async def on_undo(self, session: Session, message: Undo, seq: int) -> Message:
        return await self._command(session, lambda room, now: room.undo(session.player, now))

    async def on_resign(self, session: Session, message: Resign, seq: int) -> Message:
        return await self._command(session, lambda room, now: room.resign(session.player, now))

    async def on_rematch(self, session: Session, message: Rematch, seq: int) -> Message:
        deal = _random_deal()
        return await self._command(session, lambda room, now: room.vote_rematch(session.player, deal, now))

    # -- rooms --------------------------------------------------------------

    async def _command(self, session: Session, command: Callable[[Room, int], list[Event]]) -> Message:
        """Run a room command; answer ``moved`` for moves and undos, ``ok`` otherwise."""
        live = self._in_room(session)
        async with self._locked(live):
            now = now_ms()
            events = command(live.room, now)
            await self._commit(live, events, now)
        for event in events:
            if isinstance(event, MovedEvent | Undone) and event.player == session.player:
                seat = live.room.seats[session.player]
                assert seat.board is not None
                return Moved(
                    move=event.move if isinstance(event, MovedEvent) else "undo",
                    undo=isinstance(event, Undone),
                    progress=seat.board.progress,
                    moves=seat.moves,
                    status=seat.status,
                    elapsed_ms=live.room.elapsed(now),
                )
        return Ok()

    @contextlib.asynccontextmanager
    async def _locked(self, live: Live) -> AsyncIterator[None]:
        """The room's lock, with the room reloaded from the store if a failure left it unsure."""
        async with live.lock:
            if live.stale:
                events = [unpack(d) for d in await self.store.load(live.room.code)]
                if events:
                    live.room, live.log = Room.replay(events), events
                live.stale = False
            yield

    async def _commit(self, live: Live, events: list[Event], now: int) -> None:
        """Store the events a command caused (before anyone hears of them), then tell the room.

        If the store fails, the room is rebuilt from what was stored: nothing happened.
        """
        if not events:
            return
        room = live.room
        ttl = self.config.finished_ttl if room.phase == "finished" else self.config.room_ttl
        try:
            length = await self.store.append(room.code, [pack(e) for e in events], ttl)
        except StoreError:
            live.room = Room.replay(live.log)
            live.stale = True
            raise
        live.log.extend(events)
        if length != len(live.log):
            live.stale = True  # someone else wrote to this log: read it again before the next command
        frames: list[tuple[Set[str], bytes]] = [
            (room.members if audience is None else audience, encode(message))
            for event in events
            for audience, message in room.messages(event, now)
        ]
        outbox = _OUTBOX.get()
        if outbox is None:
            self._deliver(frames)
        else:
            outbox.extend(frames)
        for event in events:
            if not isinstance(event, MovedEvent | Undone):
                log_event("room." + type(event).__name__.lower(), room=room.code, **_describe(event))
        if any(not isinstance(e, MovedEvent | Undone) for e in events):
            await self._publish(live)
        self._schedule(live)

    def _deliver(self, frames: list[tuple[Set[str], bytes]]) -> None:
        players = self.players
        for audience, frame in frames:
            conns = [s.conn for p in audience if (s := players.get(p)) is not None and s.conn is not None]
            if conns:
                broadcast(conns, frame)

    async def _publish(self, live: Live) -> None:
        room = live.room
        if room.settings.public and room.phase != "finished" and not room.is_empty():
            await self.store.set_listing(room.code, msgpack.packb(room.summary().to_body()), self.config.room_ttl)
        else:
            await self.store.set_listing(room.code, None, self.config.room_ttl)

    def _schedule(self, live: Live) -> None:
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        deadline = live.room.next_deadline()
        if deadline is None:
            return
        delay = max(0.0, (deadline - now_ms()) / 1000)
        loop = asyncio.get_running_loop()
        live.timer = loop.call_later(delay, lambda: loop.create_task(self._tick(live)))

    async def _tick(self, live: Live) -> None:
        _OUTBOX.set(None)  # a timer inherits the context of the request that set it
        async with self._locked(live):
            now = now_ms()
            try:
                await self._commit(live, live.room.tick(now), now)
            except StoreError as exc:
                log_event("store.error", room=live.room.code, error=str(exc).replace(" ", "_"))
                live.timer = asyncio.get_running_loop().call_later(1.0, lambda: asyncio.ensure_future(self._tick(live)))
                return
            self._schedule(live)
        await self._forget_if_idle(live)

    async def _create(self, settings: Settings) -> Live:
        for _ in range(20):
            code = new_room_code()
            if code not in self.rooms and not await self.store.load(code):
                break
        else:
            raise ProtocolError(ErrorCode.INTERNAL, "could not find a free room code")
        now = now_ms()
        room, events = Room.create(code, settings, now)
        live = Live(room, [])
        self.rooms[code] = live
        await self._commit(live, events, now)
        return live

    async def _join(self, session: Session, live: Live, spectate: bool) -> Message:
        now = now_ms()
        async with self._locked(live):
            await self._commit(live, live.room.join(session.player, session.name, spectate, now), now)
        session.room = live.room.code
        await self.store.put_session(session.token, session.dump(), self.config.session_ttl)
        return live.room.state_for(session.player, now)

    async def _get(self, code: str) -> Live | None:
        live = self.rooms.get(code)
        return live if live is not None else await self._load(code)

    async def _load(self, code: str) -> Live | None:
        data = await self.store.load(code)
        if not data:
            return None
        try:
            events = [unpack(d) for d in data]
            room = Room.replay(events)
        except ValueError as exc:
            log_event("room.corrupt", room=code, error=str(exc).replace(" ", "_"))
            return None
        live = Live(room, events)
        self.rooms[code] = live
        self._schedule(live)
        return live

    def _in_room(self, session: Session) -> Live:
        live = self.rooms.get(session.room) if session.room else None
        if live is None or session.player not in live.room.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, "you are not in a room: create or join one")
        return live

    def _not_in_room(self, session: Session) -> None:
        live = self.rooms.get(session.room) if session.room is not None else None
        if live is not None and session.player in live.room.members:
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are in room {session.room}: leave it first")

    async def _dropped(self, session: Session) -> None:
        if session.room is None or session.room not in self.rooms:
            return
        live = self.rooms[session.room]
        now = now_ms()
        try:
            async with self._locked(live):
                await self._commit(live, live.room.disconnect(session.player, now), now)
        except StoreError as exc:
            log_event("store.error", room=live.room.code, error=str(exc).replace(" ", "_"))
        if session.player in live.room.spectators:
            session.room = None
        log_event("session.dropped", player=session.player, room=live.room.code)
        await self._forget_if_idle(live)

    def _forget_session(self, session: Session) -> None:
        """Drop an unconnected session from memory; the store keeps it for a later hello."""
        self.sessions.pop(session.token, None)
        if self.players.get(session.player) is session:
            del self.players[session.player]

    async def _forget_if_idle(self, live: Live) -> None:
        """Let go of a room nobody is connected to once it has nothing left to time."""
        room = live.room
        if room.is_empty() and room.next_deadline() is None:
            if live.timer is not None:
                live.timer.cancel()
            self.rooms.pop(room.code, None)
            for player in room.seats:
                session = self.players.get(player)
                if session is not None and session.conn is None:
                    self._forget_session(session)
            with contextlib.suppress(StoreError):
                await self.store.set_listing(room.code, None, self.config.room_ttl)
                await self.store.expire(room.code, self.config.finished_ttl)


def _select_subprotocol(connection: ServerConnection, offered: Sequence[Subprotocol]) -> Subprotocol | None:
    # Complete every handshake (echoing a wrong version back, which browsers require) so that a
    # mismatch is then closed with a reason the client can read.
    if SUBPROTOCOL in offered:
        return Subprotocol(SUBPROTOCOL)
    return offered[0] if offered else None


async def _send(ws: ServerConnection, message: Message, re: int | None) -> None:
    with contextlib.suppress(ConnectionClosed):
        await ws.send(encode(message, re))


def _peek_seq(frame: bytes | str) -> int | None:
    """The seq of a frame, if it has a readable one (to address a rate-limited reply)."""
    try:
        return decode_request(frame)[0]
    except ProtocolError as exc:
        return exc.seq


def _random_deal() -> int:
    return secrets.randbelow(MAX_DEAL) + 1


def _describe(event: Event) -> dict[str, object]:
    return {f.name: getattr(event, f.name) for f in dataclasses.fields(event) if f.name not in ("at", "settings")}
