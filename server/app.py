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
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence, Set
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Final, NamedTuple

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
from .events import Started as StartedEvent
from .limits import TokenBucket
from .names import new_player_id, new_room_code, new_token, normalise_room_code, sanitise_name
from .room import Room, Settings
from .sessions import Session
from .static import static_response
from .store import Store, StoreError

log = logging.getLogger("seahaven.server")

Frame = tuple[Set[str], bytes]
"""Who gets a frame, and the frame."""


class Delayed(NamedTuple):
    """A frame for the spectators of one race, due at a loop time."""

    due: float
    race: int | None
    frame: bytes
    watch: tuple[str, int] | None


_OUTBOX: contextvars.ContextVar[list[Frame] | None] = contextvars.ContextVar("outbox", default=None)
"""Frames a request caused, held back until its reply is sent (None: send at once)."""

MAX_WRITE_BUFFER: Final = 1 << 20
"""Bytes a connection may leave unread before it is closed as too slow (fan-out never waits)."""
GUESSES: Final = (20, 0.2)
"""Wrong room codes one address may try at once, and then per second: a brake on guessing."""
LOBBY_SESSION_TTL: Final = 3600.0
"""Seconds the store keeps a session that never joined a room."""


def log_event(event: str, /, **fields: object) -> None:
    """One structured log line: ``event=room.created key=value ...`` (values with spaces quoted)."""
    parts = (f"{k}={v!r}" if isinstance(v, str) and (not v or " " in v) else f"{k}={v}" for k, v in fields.items())
    log.info("event=%s %s", event, " ".join(parts))


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(slots=True)
class Live:
    """A room held in this process, with the log it was rebuilt from."""

    room: Room
    log: list[Event]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: asyncio.TimerHandle | None = None
    deadline: int | None = None
    stale: bool = False
    """A store call failed: the stored log may hold more than ``log`` (a lost reply)."""
    visitors: set[str] = field(default_factory=set)
    """Players this process seated or seated again here: whose sessions to release later."""
    joining: set[str] = field(default_factory=set)
    """Spectators whose room state is not built yet: it will hold what falls due meanwhile."""
    delayed: deque[Delayed] = field(default_factory=deque)
    """Spectator frames waiting for their time, in the order the events happened."""
    delay_timer: asyncio.TimerHandle | None = None
    delivered: dict[str, int] = field(default_factory=dict)
    """Timeline entries of each racer sent to spectators so far: where ``watching`` stops."""


class RaceServer:
    """The race server: ``await start()``, later ``await stop()``."""

    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.rooms: dict[str, Live] = {}
        self.loading: dict[str, asyncio.Future[Live | None]] = {}
        self.session_loads: dict[str, asyncio.Future[Session | None]] = {}
        self.sessions: dict[str, Session] = {}
        self.players: dict[str, Session] = {}
        """Sessions by player id, for fan-out."""
        self.tasks: set[asyncio.Task[None]] = set()
        self.guesses: dict[str, TokenBucket] = {}
        """Wrong room codes by client address."""
        self.stopping = False
        self.ws: WsServer | None = None
        self.handlers: dict[type[Message], Callable[[Session, Any], Awaitable[Message]]] = {
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
        """Close every connection without counting anyone as dropped: a restart resumes the races."""
        self.stopping = True
        for live in self.rooms.values():
            for timer in (live.timer, live.delay_timer):
                if timer is not None:
                    timer.cancel()
        if self.ws is not None:
            self.ws.close(close_connections=True)
            await self.ws.wait_closed()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.store.close()
        log_event("server.stopped")

    async def recover(self) -> None:
        """Rebuild the store's live rooms. Nobody is connected yet: racers get their grace
        period from now, spectators are gone."""
        now = now_ms()
        for code in await self.store.room_ids():
            live = await self._get(code)
            if live is None:
                continue
            room = live.room
            for player in [*room.seats, *room.spectators]:
                seat = room.seats.get(player)
                if seat is not None and not seat.connected:
                    # Dropped before the restart: count the grace period from now.
                    await self._commit(live, room.reconnect(player, now), now)
                await self._commit(live, room.disconnect(player, now), now)
            log_event("room.recovered", room=code, phase=room.phase)
            await self._forget_if_idle(live)

    async def health(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.path != "/healthz":
            return None if "Upgrade" in request.headers else static_response(request.path)
        ok = await self.store.ping()
        status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
        return connection.respond(status, "ok\n" if ok else "store unavailable\n")

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` in the background, kept and cancelled on stop."""
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

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
                if session is not None and session.conn is not ws:
                    break  # another connection took the session over
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
                        session = await self.on_hello(ws, message, seq)
                        continue
                    if isinstance(message, Hello):
                        raise ProtocolError(ErrorCode.BAD_FIELD, "you already said hello on this connection")
                    await self.request(ws, session, seq, message)
                except ProtocolError as exc:
                    re = seq if seq is not None else exc.seq
                    await _send(ws, Error(code=exc.code, message=exc.message), re)
        except ConnectionClosed:
            pass
        finally:
            if session is not None and session.conn is ws:
                session.conn = None
                if not self.stopping:
                    await self._dropped(session)
                if session.room is None:
                    self._forget_session(session)

    async def request(self, ws: ServerConnection, session: Session, seq: int, message: Message) -> None:
        """Answer one request on ``ws``; a repeated seq gets the same answer again, unreplayed."""
        if seq == session.last_seq:
            frames = await asyncio.shield(session.pending) if session.pending else session.last_reply
            for frame in frames:
                await ws.send(frame)
            return
        if seq < session.last_seq:
            raise ProtocolError(ErrorCode.BAD_SEQ, f"seq {seq} is older than your last request {session.last_seq}")
        session.last_seq = seq
        pending = session.pending = asyncio.get_running_loop().create_future()
        outbox: list[Frame] = []
        _OUTBOX.set(outbox)
        try:
            reply = await self.handlers[type(message)](session, message)
        except StoreError as exc:
            log_event("store.error", error=str(exc))
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
        if session.pending is pending:
            session.pending = None
        pending.set_result([frame])
        # The requester hears the answer first, then the room hears what it caused.
        with contextlib.suppress(ConnectionClosed):
            await ws.send(frame)
        self._deliver(outbox)

    async def on_hello(self, ws: ServerConnection, hello: Hello, seq: int) -> Session:
        """Open or resume a session. The store calls come first and the takeover of the
        session after them, all at once, so a failed or slow hello leaves nothing half done."""
        outbox: list[Frame] = []
        _OUTBOX.set(outbox)
        try:
            session, live = await self._resume(ws, hello)
        except StoreError as exc:
            log_event("store.error", error=str(exc))
            raise ProtocolError(ErrorCode.STORE_UNAVAILABLE, "the game store is unavailable") from None
        finally:
            _OUTBOX.set(None)
        limits = Limits(
            max_frame=MAX_FRAME, rate=int(self.config.rate), burst=self.config.burst, grace_ms=self.config.grace_ms
        )
        welcome = Welcome(
            token=session.token,
            player=session.player,
            name=session.name,
            server_time=now_ms(),
            limits=limits,
            room=session.room,
            last_seq=session.last_seq,
        )
        await _send(ws, welcome, seq)
        log_event("session.hello", player=session.player, resumed=hello.token is not None)
        if live is not None:
            await _send(ws, live.room.state_for(session.player, now_ms(), live.delivered), None)
        self._deliver(outbox)
        return session

    async def _resume(self, ws: ServerConnection, hello: Hello) -> tuple[Session, Live | None]:
        """The session a hello names (or a new one), taken over by ``ws`` at once, and back in
        its room if it still has a place there."""
        if hello.token is None:
            session = Session(new_token(), new_player_id(), sanitise_name(hello.name))
            await self.store.put_session(session.token, session.dump(), LOBBY_SESSION_TTL)
            self._claim(session, ws)
            return session, None
        session = await self._session(hello.token)
        self._claim(session, ws)  # from here on, the old connection's drop is not this player's drop
        try:
            live = await self._get(session.room) if session.room is not None else None
            if live is not None and not live.room.has_member(session.player):
                await self._forget_if_idle(live)
                live = None
            if live is not None:
                live.visitors.add(session.player)
                try:
                    async with self._locked(live):
                        now = now_ms()
                        await self._commit(live, live.room.reconnect(session.player, now), now)
                except ProtocolError:
                    live = None  # the room closed meanwhile
            if live is None:
                session.room = None
            await self._save(session)
        except BaseException:
            if session.conn is ws:
                session.conn = None
            raise
        if session.conn is not ws:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "a newer connection took this session over")
        return session, live

    def _claim(self, session: Session, ws: ServerConnection) -> None:
        """Make ``ws`` the session's connection; the one it had is closed (4001)."""
        old, session.conn = session.conn, ws
        self.sessions[session.token] = session
        self.players[session.player] = session
        if old is not None and old is not ws:
            self._spawn(old.close(CloseCode.REPLACED, "replaced by a newer connection with the same token"))

    async def _session(self, token: str) -> Session:
        """The session of ``token``: held here, or loaded from the store once however many ask."""
        known = self.sessions.get(token)
        if known is not None:
            return known
        loading = self.session_loads.get(token)
        if loading is None:
            loading = self.session_loads[token] = asyncio.get_running_loop().create_future()
            try:
                data = await self.store.get_session(token)
                known = self.sessions.get(token)  # someone may have put it there meanwhile
                if known is None and data is not None:
                    known = self.sessions[token] = Session.load(token, data)
                loading.set_result(known)
            except BaseException as exc:
                loading.set_exception(exc)
                loading.exception()  # retrieved: waiters get it
                raise
            finally:
                del self.session_loads[token]
        session = await asyncio.shield(loading)
        if session is None:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown or expired session token: say hello without one")
        return session

    async def _save(self, session: Session) -> None:
        ttl = self.config.session_ttl if session.room is not None else LOBBY_SESSION_TTL
        await self.store.put_session(session.token, session.dump(), ttl)

    # -- request handlers ---------------------------------------------------

    async def on_ping(self, session: Session, message: Ping) -> Message:
        return Pong(server_time=now_ms())

    async def on_list_rooms(self, session: Session, message: ListRooms) -> Message:
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

    async def on_create_room(self, session: Session, message: CreateRoom) -> Message:
        self._not_in_room(session)
        preset, deal = message.preset, message.deal_number
        if message.deal_code is not None:
            if deal is not None:
                raise ProtocolError(ErrorCode.BAD_FIELD, "give deal_number or deal_code, not both")
            try:
                preset, deal = decode_deal(message.deal_code)
            except ValueError as exc:
                raise ProtocolError(ErrorCode.BAD_DEAL, str(exc)) from None
        settings = self._settings(
            preset,
            deal,
            seats=message.seats,
            public=message.public,
            time_limit_ms=message.time_limit * 1000 if message.time_limit else None,
            undo=message.undo,
        )
        return await self._join(session, await self._create(settings), spectate=False)

    async def on_join_room(self, session: Session, message: JoinRoom) -> Message:
        self._not_in_room(session)
        guesses = self._guesses(session)
        if not guesses.ready(time.monotonic()):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many wrong room codes: wait a few seconds")
        code = normalise_room_code(message.room)
        live = await self._get(code)
        if live is not None:
            try:
                return await self._join(session, live, spectate=message.spectate)
            except ProtocolError as exc:
                if exc.code != ErrorCode.ROOM_NOT_FOUND:
                    raise
                live = await self._get(code)  # the process let go of it while we waited: load it again
        if live is None:
            guesses.take(time.monotonic())
            raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"no room {message.room!r}: check the code")
        return await self._join(session, live, spectate=message.spectate)

    async def on_quick_match(self, session: Session, message: QuickMatch) -> Message:
        self._not_in_room(session)
        for live in self.rooms.values():
            room = live.room
            someone_waits = any(seat.connected for seat in room.seats.values())
            if room.settings.public and room.settings.preset == message.preset and room.is_open() and someone_waits:
                return await self._join(session, live, spectate=False)
        settings = self._settings(message.preset, None)
        return await self._join(session, await self._create(settings), spectate=False)

    async def on_leave(self, session: Session, message: Leave) -> Message:
        live = self._in_room(session)
        async with self._locked(live):
            now = now_ms()
            await self._commit(live, live.room.leave(session.player, now), now)
        session.room = None
        live.visitors.discard(session.player)
        await self._forget_if_idle(live)
        await self._save(session)
        return Ok()

    async def on_ready(self, session: Session, message: Ready) -> Message:
        return await self._command(session, lambda room, now: room.set_ready(session.player, message.ready, now))

    async def on_move(self, session: Session, message: MoveRequest) -> Message:
        return await self._command(session, lambda room, now: room.move(session.player, message.move, now))

    async def on_undo(self, session: Session, message: Undo) -> Message:
        return await self._command(session, lambda room, now: room.undo(session.player, now))

    async def on_resign(self, session: Session, message: Resign) -> Message:
        return await self._command(session, lambda room, now: room.resign(session.player, now))

    async def on_rematch(self, session: Session, message: Rematch) -> Message:
        deal = _random_deal()
        return await self._command(session, lambda room, now: room.vote_rematch(session.player, deal, now))

    # -- rooms --------------------------------------------------------------

    def _guesses(self, session: Session) -> TokenBucket:
        """The wrong-code budget of the session's address (shared by all its sessions)."""
        address = session.conn.remote_address[0] if session.conn and session.conn.remote_address else "?"
        bucket = self.guesses.get(address)
        if bucket is None:
            now = time.monotonic()
            if len(self.guesses) > 10_000:  # forget addresses that have not guessed lately
                self.guesses = {a: b for a, b in self.guesses.items() if not b.full(now)}
            bucket = self.guesses[address] = TokenBucket(GUESSES[1], GUESSES[0], now)
        return bucket

    def _settings(self, preset: str, deal: int | None, **chosen: Any) -> Settings:
        return Settings(
            preset=preset,
            deal=deal if deal is not None else _random_deal(),
            countdown_ms=self.config.countdown_ms,
            grace_ms=self.config.grace_ms,
            spectator_delay_ms=self.config.spectator_delay_ms,
            **chosen,
        )

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
        """The room's lock, on the room this process holds (reloaded if a failure left it unsure).

        ProtocolError room-not-found when the room closed while we waited for the lock.
        """
        async with live.lock:
            code = live.room.code
            if self.rooms.get(code) is not live:
                raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} has just closed")
            if live.stale:
                try:
                    events = [unpack(d) for d in await self.store.load(code)]
                    live.room, live.log = Room.replay(events), events
                    self._schedule(live)
                except ValueError as exc:
                    log_event("room.corrupt", room=code, error=str(exc))
                    self._drop(live)
                    raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} was lost") from None
                live.stale = False
            yield

    async def _commit(self, live: Live, events: list[Event], now: int) -> None:
        """Store the events a command caused (before anyone hears of them), then tell the room.

        If the store fails, the room is rebuilt from what was stored: nothing happened.
        """
        if not events:
            return
        room = live.room
        code = room.code
        ttl = self.config.finished_ttl if room.phase == "finished" else self.config.room_ttl
        try:
            length = await self.store.append(code, [pack(e) for e in events], ttl)
        except StoreError:
            if not live.log:  # the room's creation itself failed: there is no room
                self._drop(live)
                raise
            live.room = Room.replay(live.log)
            live.stale = True
            raise
        live.log.extend(events)
        if any(isinstance(e, StartedEvent) for e in events):
            live.delivered = {}
        self._schedule(live)
        if length != len(live.log):
            await self._heal(live, length, len(events), ttl)
        frames: list[Frame] = []
        for event in events:
            for out in room.messages(event, now):
                if out.delay_ms:
                    self._to_watchers_later(live, encode(out.message), out.delay_ms, out.watch)
                else:
                    frames.append((room.members if out.audience is None else out.audience, encode(out.message)))
        outbox = _OUTBOX.get()
        if outbox is None:
            self._deliver(frames)
        else:
            outbox.extend(frames)
        lifecycle = [e for e in events if not isinstance(e, MovedEvent | Undone)]
        for event in lifecycle:
            log_event("room." + type(event).__name__.lower(), room=code, **_describe(event))
        if lifecycle:
            self._release_seatless(live)
            await self._publish(live)

    async def _heal(self, live: Live, length: int, added: int, ttl: float) -> None:
        """The stored log is not the one we hold. If it had expired under the live room, write
        it again whole; otherwise someone else wrote to it: read it before the next command."""
        if length == added:
            try:
                await self.store.delete(live.room.code)
                await self.store.append(live.room.code, [pack(e) for e in live.log], ttl)
                log_event("room.log_restored", room=live.room.code, events=len(live.log))
                return
            except StoreError as exc:
                log_event("store.error", room=live.room.code, error=str(exc))
        live.stale = True

    def _deliver(self, frames: list[Frame]) -> None:
        for audience, frame in frames:
            self._send_now(audience, frame)

    def _to_watchers_later(self, live: Live, frame: bytes, delay_ms: int, watch: tuple[str, int] | None) -> None:
        """Queue ``frame`` for whoever spectates this race ``delay_ms`` from now. The queue keeps
        the events' order, and what it has sent is what a joining spectator's ``watching`` holds."""
        loop = asyncio.get_running_loop()
        live.delayed.append(Delayed(loop.time() + delay_ms / 1000, live.room.started_at, frame, watch))
        if live.delay_timer is None:
            live.delay_timer = loop.call_at(live.delayed[0].due, self._pump, live)

    def _pump(self, live: Live) -> None:
        """Send the spectator frames that are due, in order; wake again for the next."""
        live.delay_timer = None
        loop = asyncio.get_running_loop()
        room = live.room
        while live.delayed and live.delayed[0].due <= loop.time():
            item = live.delayed.popleft()
            if self.rooms.get(room.code) is not live or room.started_at != item.race:
                continue  # the room closed, or a rematch began: that race's frames are stale
            self._send_now(frozenset(room.spectators.keys() - live.joining), item.frame)
            if item.watch is not None:
                live.delivered[item.watch[0]] = item.watch[1]
        if live.delayed:
            live.delay_timer = loop.call_at(live.delayed[0].due, self._pump, live)

    def _send_now(self, audience: Set[str], frame: bytes) -> None:
        conns = []
        for player in audience:
            session = self.players.get(player)
            conn = session.conn if session is not None else None
            if conn is None:
                continue
            if conn.transport.get_write_buffer_size() > MAX_WRITE_BUFFER:
                # Fan-out never waits for a reader; one that stops reading is let go.
                self._spawn(conn.close(CloseCode.POLICY, "too slow: not reading"))
                continue
            conns.append(conn)
        if conns:
            broadcast(conns, frame)

    async def _publish(self, live: Live) -> None:
        """Update the lobby listing: best effort, the events are stored already."""
        room = live.room
        summary = msgpack.packb(room.summary().to_body())
        listed = room.settings.public and room.phase != "finished" and not room.is_empty()
        try:
            await self.store.set_listing(room.code, summary if listed else None, self.config.room_ttl)
        except StoreError as exc:
            log_event("store.error", room=room.code, error=str(exc))

    def _schedule(self, live: Live) -> None:
        deadline = live.room.next_deadline()
        if deadline == live.deadline and live.timer is not None:
            return
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        live.deadline = deadline
        if deadline is not None:
            delay = max(0.0, (deadline - now_ms()) / 1000)
            live.timer = self._tick_later(live, delay)

    def _tick_later(self, live: Live, delay: float) -> asyncio.TimerHandle:
        return asyncio.get_running_loop().call_later(delay, lambda: self._spawn(self._tick(live)))

    async def _tick(self, live: Live) -> None:
        _OUTBOX.set(None)  # a timer inherits the context of the request that set it
        live.timer = None
        try:
            async with self._locked(live):
                now = now_ms()
                await self._commit(live, live.room.tick(now), now)
                self._schedule(live)
        except ProtocolError:
            return  # the room has closed
        except StoreError as exc:
            log_event("store.error", room=live.room.code, error=str(exc))
            live.deadline = None
            live.timer = self._tick_later(live, 1.0)
            return
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
        live.joining.add(session.player)
        try:
            async with self._locked(live):
                now = now_ms()
                await self._commit(live, live.room.join(session.player, session.name, spectate, now), now)
            session.room = live.room.code
            live.visitors.add(session.player)
            await self._save(session)
            return live.room.state_for(session.player, now_ms(), live.delivered)
        except ProtocolError:
            await self._forget_if_idle(live)
            raise
        finally:
            live.joining.discard(session.player)

    async def _get(self, code: str) -> Live | None:
        """The room of this code: held here, or loaded from the store once however many ask."""
        live = self.rooms.get(code)
        if live is not None:
            return live
        loading = self.loading.get(code)
        if loading is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[Live | None] = asyncio.get_running_loop().create_future()
        self.loading[code] = future
        try:
            live = await self._load(code)
            future.set_result(live)
            return live
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters get it, nobody else must
            raise
        finally:
            del self.loading[code]

    async def _load(self, code: str) -> Live | None:
        data = await self.store.load(code)
        if not data:
            return None
        try:
            events = [unpack(d) for d in data]
            room = Room.replay(events)
        except ValueError as exc:
            log_event("room.corrupt", room=code, error=str(exc))
            return None
        live = Live(room, events)
        self.rooms[code] = live
        self._schedule(live)
        return live

    def _in_room(self, session: Session) -> Live:
        live = self.rooms.get(session.room) if session.room else None
        if live is None or not live.room.has_member(session.player):
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, "you are not in a room: create or join one")
        return live

    def _not_in_room(self, session: Session) -> None:
        live = self.rooms.get(session.room) if session.room is not None else None
        if live is not None and live.room.has_member(session.player):
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are in room {session.room}: leave it first")

    async def _dropped(self, session: Session) -> None:
        live = self.rooms.get(session.room) if session.room is not None else None
        if live is None:
            return
        try:
            async with self._locked(live):
                now = now_ms()
                await self._commit(live, live.room.disconnect(session.player, now), now)
        except (StoreError, ProtocolError) as exc:
            log_event("session.drop_unrecorded", player=session.player, error=str(exc))
        if not live.room.has_member(session.player):
            session.room = None
        log_event("session.dropped", player=session.player, room=live.room.code)
        await self._forget_if_idle(live)

    def _forget_session(self, session: Session) -> None:
        """Drop an unconnected session from memory; the store keeps it for a later hello."""
        self.sessions.pop(session.token, None)
        if self.players.get(session.player) is session:
            del self.players[session.player]

    def _release_seatless(self, live: Live) -> None:
        """Sessions whose seat the room took away (grace ran out, a rematch went on without them)
        are in no room any more; unconnected ones are forgotten."""
        room = live.room
        for player in [p for p in live.visitors if not room.has_member(p)]:
            live.visitors.discard(player)
            session = self.players.get(player)
            if session is not None and session.room == room.code:
                session.room = None
                if session.conn is None:
                    self._forget_session(session)

    def _drop(self, live: Live) -> None:
        """Let go of a room: no timer, not held, its visitors' idle sessions forgotten."""
        if live.timer is not None:
            live.timer.cancel()
            live.timer = None
        if self.rooms.get(live.room.code) is live:
            del self.rooms[live.room.code]
        for player in live.visitors:
            session = self.players.get(player)
            if session is not None and session.conn is None:
                self._forget_session(session)

    async def _forget_if_idle(self, live: Live) -> None:
        """Let go of a room nobody is connected to once it has nothing left to time."""
        async with live.lock:
            room = live.room
            if self.rooms.get(room.code) is not live or not room.is_empty() or room.next_deadline() is not None:
                return
            self._drop(live)
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
