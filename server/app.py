"""The asyncio shell around the room cores: connections, sessions, the store, timers, fan-out.

A room request runs: lock -> core command (the engine judges; effects come back) -> await
the store append (one round trip) -> commit or abort -> send the reply, then the room's
frames -> schedule the room's next wake-up. The rules and what to tell whom live in
``server/core.py`` and ``server/room.py``; this module only moves bytes between them, the
sockets and the store, on the one injected clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Sequence, Set
from dataclasses import dataclass, field
from typing import Any, Final

import msgpack
from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from protocol.codec import MAX_FRAME, SUBPROTOCOL, decode_request, encode
from protocol.enums import Phase
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import (
    CreateRoom,
    Error,
    Hello,
    JoinRoom,
    Leave,
    Limits,
    ListRooms,
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

from .clock import Clock, SystemClock, Timer
from .config import Config
from .core import Frame, Outcome, RoomCore
from .events import Event, Moved, Undone, pack, unpack
from .http import HttpRoutes
from .limits import TokenBucket
from .names import new_room_code, normalise_room_code
from .room import Room, Settings
from .sessions import Session, SessionTable
from .store import Store, StoreError

log = logging.getLogger("seahaven.server")

MAX_WRITE_BUFFER: Final = 1 << 20
"""Bytes a connection may leave unread before it is closed as too slow (fan-out never waits)."""
WRONG_CODES_AT_ONCE: Final = 20
"""Wrong room codes one address may try at once: a brake on guessing."""
WRONG_CODES_PER_SECOND: Final = 0.2
"""And then how many a second."""
LOBBY_SESSION_TTL: Final = 3600.0
"""Seconds the store keeps a session that never joined a room."""
STORE_RETRY_MS: Final = 1000
"""How soon a room's timer tries again when the store failed it."""

Command = Callable[[RoomCore, int], Outcome]
"""A room core command, given the time."""


def log_event(event: str, /, **fields: object) -> None:
    """One structured log line: ``event=room.created key=value ...`` (values with spaces quoted)."""
    parts = (f"{k}={v!r}" if isinstance(v, str) and (not v or " " in v) else f"{k}={v}" for k, v in fields.items())
    log.info("event=%s %s", event, " ".join(parts))


@dataclass(slots=True)
class HeldRoom:
    """A room this process holds: its core, and what only this process knows of it."""

    core: RoomCore
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    timer: Timer | None = None
    wake_at: int | None = None
    """When ``timer`` fires (server ms)."""
    stale: bool = False
    """A store call failed: the stored log may hold more than the core's (a lost reply)."""
    visitors: set[str] = field(default_factory=set)
    """Players this process seated or seated again here: whose sessions to release later."""

    @property
    def room(self) -> Room:
        return self.core.room


@dataclass(slots=True)
class Asker:
    """A request being answered: the connection that asked, and the seq to answer."""

    ws: ServerConnection
    session: Session
    seq: int
    pending: asyncio.Future[list[bytes]]
    """Resolved with the answer, for a resend of the same seq that arrives meanwhile."""
    answered: bool = False


class RaceServer:
    """The race server: ``await start()``, later ``await stop()``."""

    def __init__(
        self, config: Config, store: Store, clock: Clock | None = None, deals: Callable[[], int] | None = None
    ) -> None:
        self.config = config
        self.store = store
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.deals = deals if deals is not None else _random_deal
        """Chooses the deal of a room created without one, and of each rematch."""
        self.rooms: dict[str, HeldRoom] = {}
        self.loading: dict[str, asyncio.Future[HeldRoom | None]] = {}
        self.table = SessionTable(store, config.session_ttl, LOBBY_SESSION_TTL)
        self.sessions = self.table.by_token
        self.players = self.table.by_player
        """Sessions by player id, for fan-out."""
        self.tasks: set[asyncio.Task[None]] = set()
        self.guesses: dict[str, TokenBucket] = {}
        """Wrong room codes by client address."""
        self.greeting: set[ServerConnection] = set()
        """Connections whose hello is being answered: the room's frames wait for its room state."""
        self.stopping = False
        self.ws: WsServer | None = None
        self.handlers: dict[type[Message], Callable[[Asker, Any], Awaitable[Message | None]]] = {
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
            process_request=HttpRoutes(self.store),
            max_size=MAX_FRAME,
            max_queue=32,
            # No permessage-deflate: it costs ~37 KiB of zlib state per connection and buys
            # nothing on frames of 50-100 bytes (docs/performance.md).
            compression=None,
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
        for held in self.rooms.values():
            if held.timer is not None:
                held.timer.cancel()
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
        for code in await self.store.room_ids():
            held = await self._get(code)
            if held is None:
                continue
            await self._command(held, lambda core, now: core.restart(now))
            log_event("room.recovered", room=code, phase=held.room.phase)
            await self._forget_if_idle(held)

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
        bucket = TokenBucket(self.config.rate, self.config.burst, self._seconds())
        strikes = 0
        session: Session | None = None
        try:
            async for frame in ws:
                if session is not None and session.conn is not ws:
                    break  # another connection took the session over
                seq: int | None = None
                try:
                    if not bucket.take(self._seconds()):
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
                    self.table.forget(session)

    def _seconds(self) -> float:
        return self.clock.now() / 1000

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
        asker = Asker(ws, session, seq, asyncio.get_running_loop().create_future())
        session.pending = asker.pending
        reply: Message | None
        try:
            reply = await self.handlers[type(message)](asker, message)
        except StoreError as exc:
            log_event("store.error", error=str(exc))
            reply = Error(code=ErrorCode.STORE_UNAVAILABLE, message="the game store is unavailable; try again")
        except ProtocolError as exc:
            reply = Error(code=exc.code, message=exc.message)
        except Exception:
            # A bug must cost one request, not the connection or the room.
            log.exception("event=request.failed player=%s type=%s", session.player, message.TYPE)
            reply = Error(code=ErrorCode.INTERNAL, message="the server failed on this request")
        if not asker.answered:
            self._answer(asker, reply if reply is not None else Ok())

    def _answer(self, asker: Asker, message: Message) -> None:
        """Send the answer to the connection that asked, and keep it for a resend."""
        frame = encode(message, asker.seq)
        asker.answered = True
        session = asker.session
        session.last_reply = [frame]
        if session.pending is asker.pending:
            session.pending = None
        asker.pending.set_result([frame])
        self._write([asker.ws], frame)

    async def on_hello(self, ws: ServerConnection, hello: Hello, seq: int) -> Session:
        """Open or resume a session. The store calls come first and the takeover of the
        session after them, all at once, so a failed or slow hello leaves nothing half done.

        The room's frames reach ``ws`` only after ``welcome`` and the room state, which is built
        after anything the room sent meanwhile, so nothing is missed or comes first."""
        self.greeting.add(ws)
        try:
            session, held, frames = await self._resume(ws, hello)
        except StoreError as exc:
            log_event("store.error", error=str(exc))
            raise ProtocolError(ErrorCode.STORE_UNAVAILABLE, "the game store is unavailable") from None
        finally:
            self.greeting.discard(ws)  # from here to the room state nothing is awaited
        limits = Limits(
            max_frame=MAX_FRAME, rate=int(self.config.rate), burst=self.config.burst, grace_ms=self.config.grace_ms
        )
        welcome = Welcome(
            token=session.token,
            player=session.player,
            name=session.name,
            server_time=self.clock.now(),
            limits=limits,
            room=session.room,
            last_seq=session.last_seq,
        )
        self._write([ws], encode(welcome, seq))
        if held is not None:
            self._write([ws], encode(held.core.state_for(session.player, self.clock.now())))
        self._send(frames)
        log_event("session.hello", player=session.player, resumed=hello.token is not None)
        return session

    async def _resume(self, ws: ServerConnection, hello: Hello) -> tuple[Session, HeldRoom | None, list[Frame]]:
        """The session a hello names (or a new one), taken over by ``ws`` at once, and back in
        its room if it still has a place there (with the frames that tells the room)."""
        if hello.token is None:
            session = await self.table.open(hello.name)
            self._claim(session, ws)
            return session, None, []
        session = await self.table.find(hello.token)
        self._claim(session, ws)  # from here on, the old connection's drop is not this player's drop
        frames: list[Frame] = []
        try:
            held = await self._get(session.room) if session.room is not None else None
            if held is not None and not held.room.has_member(session.player):
                await self._forget_if_idle(held)
                held = None
            if held is not None:
                held.visitors.add(session.player)
                player = session.player
                try:
                    outcome = await self._command(held, lambda core, now: core.reconnect(player, now), send=False)
                    frames = outcome.frames
                except ProtocolError:
                    held = None  # the room closed meanwhile
            if held is None:
                session.room = None
            await self.table.save(session)
        except BaseException:
            if session.conn is ws:
                session.conn = None
            raise
        if session.conn is not ws:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "a newer connection took this session over")
        return session, held, frames

    def _claim(self, session: Session, ws: ServerConnection) -> None:
        """Make ``ws`` the session's connection; the one it had is closed (4001)."""
        old = self.table.claim(session, ws)
        if old is not None:
            self._spawn(old.close(CloseCode.REPLACED, "replaced by a newer connection with the same token"))

    # -- request handlers ---------------------------------------------------

    async def on_ping(self, asker: Asker, message: Ping) -> Message:
        return Pong(server_time=self.clock.now())

    async def on_list_rooms(self, asker: Asker, message: ListRooms) -> Message:
        rooms = []
        for data in (await self.store.listings()).values():
            try:
                summary = RoomSummary.from_body(msgpack.unpackb(data, raw=False))
            except (ProtocolError, ValueError):
                continue
            if message.preset is None or summary.preset == message.preset:
                rooms.append(summary)
        rooms.sort(key=lambda r: (r.phase != Phase.WAITING, r.room))
        return Rooms(rooms=tuple(rooms))

    async def on_create_room(self, asker: Asker, message: CreateRoom) -> None:
        self._not_in_room(asker.session)
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
        await self._join(asker, await self._create(settings), spectate=False)

    async def on_join_room(self, asker: Asker, message: JoinRoom) -> None:
        self._not_in_room(asker.session)
        guesses = self._guesses(asker.session)
        if not guesses.ready(self._seconds()):
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many wrong room codes: wait a few seconds")
        code = normalise_room_code(message.room)
        held = await self._get(code)
        if held is not None:
            try:
                return await self._join(asker, held, spectate=message.spectate)
            except ProtocolError as exc:
                if exc.code != ErrorCode.ROOM_NOT_FOUND:
                    raise
                held = await self._get(code)  # the process let go of it while we waited: load it again
        if held is None:
            guesses.take(self._seconds())
            raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"no room {message.room!r}: check the code")
        await self._join(asker, held, spectate=message.spectate)

    async def on_quick_match(self, asker: Asker, message: QuickMatch) -> None:
        self._not_in_room(asker.session)
        for held in self.rooms.values():
            room = held.room
            someone_waits = any(seat.connected for seat in room.seats.values())
            if room.settings.public and room.settings.preset == message.preset and room.is_open() and someone_waits:
                return await self._join(asker, held, spectate=False)
        settings = self._settings(message.preset, None)
        await self._join(asker, await self._create(settings), spectate=False)

    async def on_leave(self, asker: Asker, message: Leave) -> Message:
        session = asker.session
        held = self._held_by(session)

        async def out_of_the_room() -> None:
            session.room = None
            held.visitors.discard(session.player)
            await self.table.save(session)

        outcome = await self._command(held, lambda core, now: core.leave(session.player, now), then=out_of_the_room)
        await self._forget_if_idle(held)  # before the answer: the leaver is out of the room for good
        return outcome.reply

    async def on_ready(self, asker: Asker, message: Ready) -> None:
        await self._in_my_room(asker, lambda core, now: core.ready(asker.session.player, message.ready, now))

    async def on_move(self, asker: Asker, message: MoveRequest) -> None:
        await self._in_my_room(asker, lambda core, now: core.move(asker.session.player, message.move, now))

    async def on_undo(self, asker: Asker, message: Undo) -> None:
        await self._in_my_room(asker, lambda core, now: core.undo(asker.session.player, now))

    async def on_resign(self, asker: Asker, message: Resign) -> None:
        await self._in_my_room(asker, lambda core, now: core.resign(asker.session.player, now))

    async def on_rematch(self, asker: Asker, message: Rematch) -> None:
        deal = self.deals()
        await self._in_my_room(asker, lambda core, now: core.rematch(asker.session.player, deal, now))

    # -- the room path: lock -> command -> append -> commit/abort -> send -> schedule

    async def _command(
        self,
        held: HeldRoom,
        command: Command,
        asker: Asker | None = None,
        *,
        then: Callable[[], Awaitable[None]] | None = None,
        send: bool = True,
    ) -> Outcome:
        """Run ``command`` on the room: store what it caused, ``then`` (stored, not yet told),
        answer ``asker``, send the room its frames (unless the caller sends them later)."""
        async with self._locked(held):
            outcome = command(held.core, self.clock.now())
            await self._store(held, outcome)
            if then is not None:
                await then()
            # The lobby listing is written before the answer, so a room is listed once created.
            await self._settle(held, outcome)
            if asker is not None:
                self._answer(asker, outcome.reply)
            if send:
                self._send(outcome.frames)
        return outcome

    async def _in_my_room(self, asker: Asker, command: Command) -> None:
        await self._command(self._held_by(asker.session), command, asker)

    async def _store(self, held: HeldRoom, outcome: Outcome) -> None:
        """Append the events (one round trip), then commit them; if the store fails, abort:
        nothing happened (a room whose creation failed is let go)."""
        core = held.core
        if not outcome.events:
            core.commit(outcome, None)
            return
        code = core.room.code
        ttl = self.config.finished_ttl if core.room.phase == Phase.FINISHED else self.config.room_ttl
        try:
            length = await self.store.append(code, [pack(e) for e in outcome.events], ttl)
        except StoreError:
            core.abort()
            if core.log:
                held.stale = True
            else:
                self._let_go(held)
            raise
        if not core.commit(outcome, length):
            await self._heal(held, length, len(outcome.events), ttl)

    async def _settle(self, held: HeldRoom, outcome: Outcome) -> None:
        """After a commit: the next wake-up, and for lifecycle events the logs, seats and lobby."""
        self._wake_at(held, outcome.wake)
        lifecycle = [e for e in outcome.events if not isinstance(e, Moved | Undone)]
        for event in lifecycle:
            log_event("room." + type(event).__name__.lower(), room=held.room.code, **_describe(event))
        if lifecycle:
            self._release_seatless(held)
            await self._publish(held)

    @contextlib.asynccontextmanager
    async def _locked(self, held: HeldRoom) -> AsyncIterator[None]:
        """The room's lock, on the room this process holds (reloaded if a failure left it unsure).

        ProtocolError room-not-found when the room closed while we waited for the lock.
        """
        async with held.lock:
            code = held.room.code
            if self.rooms.get(code) is not held:
                raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} has just closed")
            if held.stale:
                try:
                    events = [unpack(d) for d in await self.store.load(code)]
                    held.core = RoomCore.load(events, held.core.watermark)
                    self._schedule(held)
                except ValueError as exc:
                    log_event("room.corrupt", room=code, error=str(exc))
                    self._let_go(held)
                    raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} was lost") from None
                held.stale = False
            yield

    async def _heal(self, held: HeldRoom, length: int, added: int, ttl: float) -> None:
        """The stored log is not the one we hold. If it had expired under the live room, write
        it again whole; otherwise someone else wrote to it: read it before the next command."""
        code = held.room.code
        if length == added:
            try:
                await self.store.delete(code)
                await self.store.append(code, [pack(e) for e in held.core.log], ttl)
                log_event("room.log_restored", room=code, events=len(held.core.log))
                return
            except StoreError as exc:
                log_event("store.error", room=code, error=str(exc))
        held.stale = True

    def _schedule(self, held: HeldRoom) -> None:
        """Set the room's one timer for its core's next wake-up (after a load)."""
        self._wake_at(held, held.core.next_wake())

    def _wake_at(self, held: HeldRoom, wake: int | None) -> None:
        """The room's one timer, set for ``wake`` (None: no timer)."""
        if wake == held.wake_at and (held.timer is not None or wake is None):
            return
        if held.timer is not None:
            held.timer.cancel()
            held.timer = None
        held.wake_at = wake
        if wake is not None:
            held.timer = self.clock.call_at(wake, lambda: self._spawn(self._wake(held)))

    async def _wake(self, held: HeldRoom) -> None:
        """The room's time came: hand out the spectator frames due, then whatever the clock caused."""
        held.timer = None
        try:
            async with self._locked(held):
                now = self.clock.now()
                self._send(held.core.release(now))
                outcome = held.core.tick(now)
                await self._store(held, outcome)
                self._send(outcome.frames)
                await self._settle(held, outcome)
        except ProtocolError:
            return  # the room has closed
        except StoreError as exc:
            log_event("store.error", room=held.room.code, error=str(exc))
            self._wake_at(held, self.clock.now() + STORE_RETRY_MS)
            return
        await self._forget_if_idle(held)

    # -- sending ------------------------------------------------------------

    def _send(self, frames: Iterable[Frame]) -> None:
        for audience, frame in frames:
            self._write(self._connections(audience), frame)

    def _connections(self, players: Set[str]) -> list[ServerConnection]:
        conns = []
        for player in players:
            session = self.players.get(player)
            if session is not None and session.conn is not None and session.conn not in self.greeting:
                conns.append(session.conn)
        return conns

    def _write(self, conns: list[ServerConnection], frame: bytes) -> None:
        """Hand ``frame`` to each connection without waiting; one that stops reading is let go."""
        ready = []
        for conn in conns:
            if conn.transport.get_write_buffer_size() > MAX_WRITE_BUFFER:
                self._spawn(conn.close(CloseCode.POLICY, "too slow: not reading"))
            else:
                ready.append(conn)
        if ready:
            broadcast(ready, frame)

    async def _publish(self, held: HeldRoom) -> None:
        """Update the lobby listing: best effort, the events are stored already."""
        room = held.room
        summary = msgpack.packb(room.summary().to_body())
        listed = room.settings.public and room.phase != Phase.FINISHED and not room.is_empty()
        try:
            await self.store.set_listing(room.code, summary if listed else None, self.config.room_ttl)
        except StoreError as exc:
            log_event("store.error", room=room.code, error=str(exc))

    # -- rooms held here ----------------------------------------------------

    def _guesses(self, session: Session) -> TokenBucket:
        """The wrong-code budget of the session's address (shared by all its sessions)."""
        address = session.conn.remote_address[0] if session.conn and session.conn.remote_address else "?"
        bucket = self.guesses.get(address)
        if bucket is None:
            now = self._seconds()
            if len(self.guesses) > 10_000:  # forget addresses that have not guessed lately
                self.guesses = {a: b for a, b in self.guesses.items() if not b.full(now)}
            bucket = self.guesses[address] = TokenBucket(WRONG_CODES_PER_SECOND, WRONG_CODES_AT_ONCE, now)
        return bucket

    def _settings(self, preset: str, deal: int | None, **chosen: Any) -> Settings:
        return Settings(
            preset=preset,
            deal=deal if deal is not None else self.deals(),
            countdown_ms=self.config.countdown_ms,
            grace_ms=self.config.grace_ms,
            spectator_delay_ms=self.config.spectator_delay_ms,
            **chosen,
        )

    async def _create(self, settings: Settings) -> HeldRoom:
        for _ in range(20):
            code = new_room_code()
            if code not in self.rooms and not await self.store.load(code):
                break
        else:
            raise ProtocolError(ErrorCode.INTERNAL, "could not find a free room code")
        core, created = RoomCore.create(code, settings, self.clock.now())
        held = self.rooms[code] = HeldRoom(core)
        await self._command(held, lambda _core, _now: created)
        return held

    async def _join(self, asker: Asker, held: HeldRoom, spectate: bool) -> None:
        session = asker.session

        async def seated() -> None:
            session.room = held.room.code
            held.visitors.add(session.player)
            await self.table.save(session)

        join: Command = lambda core, now: core.join(session.player, session.name, spectate, now)  # noqa: E731
        try:
            await self._command(held, join, asker, then=seated)
        except ProtocolError:
            await self._forget_if_idle(held)
            raise

    async def _get(self, code: str) -> HeldRoom | None:
        """The room of this code: held here, or loaded from the store once however many ask."""
        held = self.rooms.get(code)
        if held is not None:
            return held
        loading = self.loading.get(code)
        if loading is not None:
            return await asyncio.shield(loading)
        future: asyncio.Future[HeldRoom | None] = asyncio.get_running_loop().create_future()
        self.loading[code] = future
        try:
            held = await self._load(code)
            future.set_result(held)
            return held
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters get it, nobody else must
            raise
        finally:
            del self.loading[code]

    async def _load(self, code: str) -> HeldRoom | None:
        data = await self.store.load(code)
        if not data:
            return None
        try:
            core = RoomCore.load([unpack(d) for d in data], self.clock.now())
        except ValueError as exc:
            log_event("room.corrupt", room=code, error=str(exc))
            return None
        held = self.rooms[code] = HeldRoom(core)
        self._schedule(held)
        return held

    def _held_by(self, session: Session) -> HeldRoom:
        held = self.rooms.get(session.room) if session.room else None
        if held is None or not held.room.has_member(session.player):
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, "you are not in a room: create or join one")
        return held

    def _not_in_room(self, session: Session) -> None:
        held = self.rooms.get(session.room) if session.room is not None else None
        if held is not None and held.room.has_member(session.player):
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are in room {session.room}: leave it first")

    async def _dropped(self, session: Session) -> None:
        """A session's connection closed: its room hears of it (a racer keeps the seat a while)."""
        held = self.rooms.get(session.room) if session.room is not None else None
        if held is None:
            return
        player = session.player
        try:
            await self._command(held, lambda core, now: core.disconnect(player, now))
        except (StoreError, ProtocolError) as exc:
            log_event("session.drop_unrecorded", player=player, error=str(exc))
        if not held.room.has_member(player):
            session.room = None
        log_event("session.dropped", player=player, room=held.room.code)
        await self._forget_if_idle(held)

    def _release_seatless(self, held: HeldRoom) -> None:
        """Sessions whose seat the room took away (grace ran out, a rematch went on without them)
        are in no room any more; unconnected ones are forgotten."""
        room = held.room
        for player in [p for p in held.visitors if not room.has_member(p)]:
            held.visitors.discard(player)
            session = self.players.get(player)
            if session is not None and session.room == room.code:
                session.room = None
                if session.conn is None:
                    self.table.forget(session)

    def _let_go(self, held: HeldRoom) -> None:
        """Stop holding a room: no timer, not held, its visitors' idle sessions forgotten."""
        if held.timer is not None:
            held.timer.cancel()
            held.timer = None
        if self.rooms.get(held.room.code) is held:
            del self.rooms[held.room.code]
        for player in held.visitors:
            session = self.players.get(player)
            if session is not None and session.conn is None:
                self.table.forget(session)

    async def _forget_if_idle(self, held: HeldRoom) -> None:
        """Let go of a room nobody is connected to once it has nothing left to time (its
        spectator schedule is rebuilt from the log whenever someone comes back)."""
        async with held.lock:
            room = held.room
            if self.rooms.get(room.code) is not held or not room.is_empty() or room.next_deadline() is not None:
                return
            self._let_go(held)
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
