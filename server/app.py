"""The asyncio shell around the room cores: connections, sessions, the store, timers, fan-out.

A room request runs: lock -> core command (the engine judges; effects come back) -> await
the store append (one round trip) -> commit or abort -> send the reply, then the room's
frames -> schedule the room's next wake-up. The rules and what to tell whom live in
``server/core.py`` and ``server/room.py``; this module only moves bytes between them, the
sockets and the store, on the one injected clock.

``RaceServer`` composes the rest: ``Connections`` (hello, resume, takeover; ``connections.py``),
``Lobby`` (its pages, quick match; ``lobby.py``), ``NodeUpkeep`` (doorbells, heartbeat, dead
nodes; ``nodes.py``), ``FairPlay`` (deals, daily board, hints, lost checks, the bots' way in;
``fairplay.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence, Set
from typing import Any, Final

import msgpack
from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.typing import Subprotocol

from protocol.codec import MAX_FRAME, SUBPROTOCOL, encode
from protocol.enums import Phase
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import (
    CreateRoom,
    DailyBoardRequest,
    Error,
    HintRequest,
    JoinRoom,
    Leave,
    ListRooms,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    QuickMatch,
    Ready,
    Rematch,
    Resign,
    Undo,
)
from protocol.schema import Message
from seahaven import decode as decode_deal
from server.config import Config
from server.http.routes import HttpRoutes
from server.play.bots import BotRacers
from server.play.daily import DailyDeals, DailyTimes
from server.play.dealpool import DealPool
from server.play.fairplay import HINT_SECONDS, FairPlay
from server.rooms.core import Frame, Outcome, RoomCore
from server.rooms.events import Ended, Event, Moved, Presence, Undone, pack, unpack
from server.rooms.room import Settings
from server.shell.clock import Clock, SystemClock
from server.shell.connections import Connections
from server.shell.guard import Guard, handshake_logger
from server.shell.held import Asker, Command, HeldRoom, log, log_event
from server.shell.limits import TokenBucket
from server.shell.lobby import Lobby
from server.shell.metrics import LiveCounts, Metrics
from server.shell.names import new_room_code, normalise_room_code
from server.shell.nodes import NodeUpkeep
from server.shell.sessions import Session, SessionTable
from server.store.base import Behind, Duplicate, Request, Stored, StoreError
from server.store.guarded import Breaker
from server.store.interfaces import Store

WRONG_CODES_AT_ONCE: Final = 20
"""Wrong room codes one address may try at once: a brake on guessing."""
WRONG_CODES_PER_SECOND: Final = 0.2
"""And then how many a second."""
LOBBY_SESSION_TTL: Final = 3600.0
"""Seconds the store keeps a session that never joined a room."""
STORE_RETRY_MS: Final = 1000
"""How soon a room's timer tries again when the store failed it."""
MAX_CONFLICTS: Final = 20
"""Times a command is judged again because another node wrote to the room first."""
DRAIN_SECONDS: Final = 10.0
"""How long a graceful stop waits for requests in flight before closing connections (1012)."""
DRAIN_QUIET: Final = 0.2
"""Seconds without a new request after which a stopping server closes its connections."""


class _Behind(Exception):
    """Another node wrote to the room first: the core has caught up, judge the command again."""


class _Duplicate(Exception):
    """The request was stored before (a resend): ``memo`` is its reply (None: a later one replaced it)."""

    def __init__(self, memo: bytes | None) -> None:
        super().__init__("request stored before")
        self.memo = memo


class RaceServer:
    """The race server: ``await start()``, later ``await stop()``."""

    def __init__(
        self,
        config: Config,
        store: Store,
        clock: Clock | None = None,
        deals: Callable[[], int] | None = None,
        metrics: Metrics | None = None,
        *,
        pool: DealPool | None = None,
        bot_time_scale: float = 1.0,
        hint_seconds: float = HINT_SECONDS,
        daily_board: DailyTimes | None = None,
    ) -> None:
        self.config = config
        self.metrics = metrics if metrics is not None else Metrics(config.node_name)
        self.metrics.watch(self.live_counts)
        self.breaker = Breaker()
        """Fails store calls at once while the store is stalled."""
        store.guard(self.breaker, self.metrics)
        self.store: Store = store
        """Every call through the breaker and into the metrics (the store's one guarded call)."""
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.deals = deals
        """Chooses every deal the server picks, in place of the pool (for tests that need a known deal)."""
        self.pool = pool if pool is not None else DealPool(store)
        """Proven-winnable deals to pick from (this one, without workers, deals from the shipped lists)."""
        self.daily_board = daily_board if daily_board is not None else DailyTimes(store)
        """The best finishing times of the daily races."""
        self.fair = FairPlay(self, hint_seconds)
        """Deal choice, daily deals, hints and lost checks, and what the bots need of the server."""
        self.bots = BotRacers(
            self.fair.run_for_bot, self.fair.room_held, self.fair.rematch_deal, time_scale=bot_time_scale
        )
        self.daily_deals = DailyDeals(self.bots.executor)
        self.rooms: dict[str, HeldRoom] = {}
        self.loading: dict[str, asyncio.Future[HeldRoom | None]] = {}
        self.table = SessionTable(store, config.session_ttl, LOBBY_SESSION_TTL)
        self.sessions = self.table.by_token
        self.players = self.table.by_player
        """Sessions by player id, for fan-out."""
        self.tasks: set[asyncio.Task[None]] = set()
        self.guesses: dict[str, TokenBucket] = {}
        """Wrong room codes by client address."""
        self.guard = Guard(config, self._spawn)
        self.greeting: set[ServerConnection] = set()
        """Connections whose hello is being answered: the room's frames wait for its room state."""
        self.stopping = False
        self.node = secrets.token_hex(4)
        """This process's name in session doorbells."""
        self.inflight = 0
        self.started = 0
        """Requests taken in so far (a graceful stop waits for a quiet moment)."""
        self.idle = asyncio.Event()
        self.idle.set()
        self.ws: WsServer | None = None
        self.conns = Connections(self)
        """Hellos, resumes and session takeovers, and reading each connection's requests."""
        self.lobby = Lobby(self)
        """The lobby's pages, and quick match's search for a room to join."""
        self.upkeep = NodeUpkeep(self)
        """Doorbells, heartbeats and the dead nodes' members: in step with the other nodes."""
        self.handlers: dict[type[Message], Callable[[Asker, Any], Awaitable[Message | None]]] = {
            ListRooms: self.lobby.on_list_rooms,
            CreateRoom: self.on_create_room,
            JoinRoom: self.on_join_room,
            QuickMatch: self.lobby.on_quick_match,
            Leave: self.on_leave,
            Ready: self.on_ready,
            MoveRequest: self.on_move,
            Undo: self.on_undo,
            Resign: self.on_resign,
            Rematch: self.on_rematch,
            Ping: self.on_ping,
            HintRequest: self.fair.on_hint,
            DailyBoardRequest: self.fair.on_daily_board,
        }

    # -- lifecycle ----------------------------------------------------------

    async def start(self) -> WsServer:
        self._spawn(self.store.doorbells(self._ring))
        self._spawn(self._heartbeat())
        await self.recover()
        try:
            await self.pool.seed()
        except StoreError as exc:  # deals still come from the shipped lists
            log_event("dealpool.error", error=str(exc))
        if self.pool.executor is not None:
            self.pool.start()
        self.ws = await serve(
            self.connection,
            self.config.host,
            self.config.port,
            subprotocols=[Subprotocol(SUBPROTOCOL)],
            select_subprotocol=_select_subprotocol,
            process_request=HttpRoutes(self.store, self.metrics),
            max_size=MAX_FRAME,
            max_queue=32,
            close_timeout=self.config.close_timeout,
            logger=handshake_logger(),
            # No permessage-deflate: it costs ~37 KiB of zlib state per connection and buys
            # nothing on frames of 50-100 bytes (docs/performance.md).
            compression=None,
            reuse_port=self.config.reuse_port or None,
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
        """Stop listening, answer the requests in flight, then close every connection with 1012
        (service restart) without counting anyone as dropped: a restart resumes the races."""
        self.stopping = True
        if self.ws is not None:
            self.ws.close(close_connections=False)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(DRAIN_SECONDS):
                    await self._drained()
        await self.bots.close()
        for held in self.rooms.values():
            if held.timer is not None:
                held.timer.cancel()
        if self.ws is not None:
            closing = [
                conn.close(CloseCode.SERVICE_RESTART, "server restarting: reconnect") for conn in self.ws.connections
            ]
            await asyncio.gather(*closing, return_exceptions=True)
            await self.ws.wait_closed()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.pool.close()
        await self.store.close()
        log_event("server.stopped")

    async def _drained(self) -> None:
        """Until no request is in flight and none started for a short while (frames already on
        their way when the stop began are read and answered too)."""
        while True:
            await self.idle.wait()
            if self.ws is None or not self.ws.connections:
                return
            started = self.started
            await asyncio.sleep(DRAIN_QUIET)
            if self.idle.is_set() and self.started == started:
                return

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

    def _ring(self, kind: str, key: str, data: bytes) -> None:
        self.upkeep.ring(kind, key, data)

    async def _heartbeat(self) -> None:
        await self.upkeep.heartbeat()

    # -- connections and requests -------------------------------------------

    def live_counts(self) -> LiveCounts:
        """What this node holds now (read at each /metrics scrape)."""
        racers = spectators = 0
        for held in self.rooms.values():
            racers += sum(1 for seat in held.room.seats.values() if not seat.left)
            spectators += len(held.room.spectators)
        return LiveCounts(len(self.rooms), racers, spectators, self.guard.connections)

    async def connection(self, ws: ServerConnection) -> None:
        await self.conns.accept(ws)

    def _seconds(self) -> float:
        return self.clock.now() / 1000

    async def request(self, ws: ServerConnection, session: Session, seq: int, message: Message) -> None:
        """Answer one request on ``ws``; a repeated seq gets the same answer again, unreplayed."""
        self.inflight += 1
        self.started += 1
        self.idle.clear()
        try:
            await self._request(ws, session, seq, message)
        finally:
            self.inflight -= 1
            if not self.inflight:
                self.idle.set()

    async def _request(self, ws: ServerConnection, session: Session, seq: int, message: Message) -> None:
        if seq == session.last_seq and session.unsure and session.pending is None:
            # Answered store-unavailable: the change may have landed after all. Its reply, if it
            # did; else it is judged again (the store refuses a second copy of the same request).
            memo = await self._memo(session)
            if memo is not None and memo[0] == seq:
                session.last_reply, session.unsure = [memo[1]], False
            else:
                session.last_seq -= 1
        if seq == session.last_seq:
            frames = await asyncio.shield(session.pending) if session.pending else session.last_reply
            for frame in frames:
                await ws.send(frame)
            return
        if seq < session.last_seq:
            raise ProtocolError(ErrorCode.BAD_SEQ, f"seq {seq} is older than your last request {session.last_seq}")
        session.last_seq = seq
        started = time.perf_counter()
        session.unsure = False
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
            session.unsure = isinstance(reply, Error) and reply.code == ErrorCode.STORE_UNAVAILABLE
        if isinstance(message, MoveRequest):
            self._count_move(asker, time.perf_counter() - started)

    def _count_move(self, asker: Asker, seconds: float) -> None:
        """A move request's outcome and latency, for /metrics."""
        if isinstance(asker.reply, Error):
            self.metrics.move_refused(asker.reply.code, seconds)
        else:
            self.metrics.move_accepted(seconds)

    async def _memo(self, session: Session) -> tuple[int, bytes] | None:
        """The session's last request stored in its room, and its reply."""
        if session.room is None:
            return None
        try:
            return await self.store.memo(session.room, session.player)
        except StoreError as exc:
            log_event("store.error", error=str(exc))
            raise ProtocolError(ErrorCode.STORE_UNAVAILABLE, "the game store is unavailable; try again") from None

    def _answer(self, asker: Asker, message: Message) -> None:
        """Send the answer to the connection that asked, and keep it for a resend."""
        asker.reply = message
        encoded = asker.encoded
        self._answer_frame(
            asker, encoded[1] if encoded is not None and encoded[0] is message else encode(message, asker.seq)
        )

    def _answer_frame(self, asker: Asker, frame: bytes) -> None:
        asker.answered = True
        session = asker.session
        session.last_reply = [frame]
        if session.pending is asker.pending:
            session.pending = None
        asker.pending.set_result([frame])
        self._write([asker.ws], frame)

    # -- request handlers ---------------------------------------------------

    async def on_ping(self, asker: Asker, message: Ping) -> Message:
        return Pong(server_time=self.clock.now())

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
        if deal is not None and (message.any_deal or message.deal_grade is not None):
            raise ProtocolError(ErrorCode.BAD_FIELD, "a chosen deal takes neither any_deal nor deal_grade")
        daily = None
        if message.daily:
            if deal is not None or message.any_deal or message.deal_grade is not None:
                raise ProtocolError(ErrorCode.BAD_FIELD, "a daily race takes no deal, any_deal or deal_grade")
            daily, deal = await self.fair.daily_deal(preset)
        settings = await self.fair.settings(
            preset,
            deal,
            daily=daily,
            seats=message.seats,
            public=message.public,
            time_limit_ms=message.time_limit * 1000 if message.time_limit else None,
            undo=message.undo,
            any_deal=message.any_deal,
            deal_grade=message.deal_grade,
            hints=message.hints,
            lost_notice=message.lost_notice,
        )
        held = await self._create(asker, settings)
        await self._join(asker, held, spectate=False)
        if message.bot is not None:
            await self.bots.seat(held.room.code, message.bot)

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
        held = self._held_by(asker.session)
        player = asker.session.player
        await self._command(held, lambda core, now: core.move(player, message.move, now), asker)
        if held.room.settings.lost_notice and player not in self.fair.lost_watch:
            self.fair.lost_watch.add(player)
            self._spawn(self.fair.watch_lost(held.room.code, player))

    async def on_undo(self, asker: Asker, message: Undo) -> None:
        await self._in_my_room(asker, lambda core, now: core.undo(asker.session.player, now))

    async def on_resign(self, asker: Asker, message: Resign) -> None:
        await self._in_my_room(asker, lambda core, now: core.resign(asker.session.player, now))

    async def on_rematch(self, asker: Asker, message: Rematch) -> None:
        deal = await self.fair.rematch_deal(self._held_by(asker.session).room)
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
            try:
                outcome = await self._judge_and_store(held, command, asker)
            except _Duplicate as duplicate:
                if then is not None:
                    await then()
                if asker is not None:
                    if duplicate.memo is None:
                        raise ProtocolError(ErrorCode.BAD_SEQ, f"seq {asker.seq} was answered and replaced") from None
                    self._answer_frame(asker, duplicate.memo)
                return Outcome([], Ok())
            if then is not None:
                await then()
            # The lobby listing is written before the answer, so a room is listed once created.
            await self._settle(held, outcome)
            if asker is not None:
                self._answer(asker, outcome.reply)
            if send:
                self._send(outcome.frames)
        return outcome

    async def _judge_and_store(self, held: HeldRoom, command: Command, asker: Asker | None) -> Outcome:
        """Judge ``command`` on the room as this node holds it and store what it caused; judged
        again each time another node wrote to the room first (the core catches up meanwhile)."""
        for _ in range(MAX_CONFLICTS):
            outcome = command(held.core, self.clock.now())
            try:
                await self._store(held, outcome, asker)
            except _Behind:
                continue
            return outcome
        raise StoreError(f"room {held.room.code} kept changing under {MAX_CONFLICTS} tries")

    async def _in_my_room(self, asker: Asker, command: Command) -> None:
        await self._command(self._held_by(asker.session), command, asker)

    def _ttl(self, held: HeldRoom) -> float:
        return self.config.finished_ttl if held.room.phase == Phase.FINISHED else self.config.room_ttl

    async def _store(self, held: HeldRoom, outcome: Outcome, asker: Asker | None = None) -> None:
        """Append the events if the stored log is the one the core holds (one round trip; the
        asker's request and reply go with them), then commit them. Otherwise abort and raise:
        ``_Behind`` once the core caught up with the log (or wrote back its lost tail),
        ``_Duplicate`` for a request stored before, StoreError when the store failed (the room
        reads the log back before its next command; a room whose creation failed is let go)."""
        core = held.core
        if not outcome.events:
            core.commit(outcome, None)
            return
        code = core.room.code
        expected = len(core.log)
        request = None
        if asker is not None:
            asker.encoded = (outcome.reply, encode(outcome.reply, asker.seq))
            request = Request(asker.session.player, asker.seq, asker.encoded[1])
        try:
            appended = await self.store.append_at(
                code, [pack(e) for e in outcome.events], self._ttl(held), expected, request, self.node
            )
        except StoreError:
            core.abort()
            if core.log:
                held.stale = True
            else:
                self._let_go(held)
            raise
        if isinstance(appended, Stored):
            core.commit(outcome, appended.length)
            return
        core.abort()
        if not core.log:
            self._let_go(held)
            raise ProtocolError(ErrorCode.INTERNAL, "that room code was just taken: try again")
        match appended:
            case Duplicate(memo=memo):
                raise _Duplicate(memo)
            case Behind():
                await self._caught_up(held, appended)
                raise _Behind

    async def _caught_up(self, held: HeldRoom, stored: Behind) -> None:
        """Bring the room and its stored log together: apply the events other nodes stored after
        ours, or write back what the log lost (its tail, or all of it) from what we hold."""
        if stored.length < len(held.core.log):
            await self._write_back(held, stored.length)
        else:
            self._apply(held, stored.gap)

    async def _sync(self, held: HeldRoom) -> None:
        """Read the log from where the core's ends (a doorbell rang, or a store call failed)."""
        length, gap = await self.store.read_from(held.room.code, len(held.core.log), self.node)
        await self._caught_up(held, Behind(length, gap))

    def _apply(self, held: HeldRoom, gap: list[bytes]) -> None:
        """Events other nodes stored: into the core, their frames to our connections."""
        if not gap:
            return
        outcome = held.core.apply([unpack(d) for d in gap], self.clock.now())
        self._send(outcome.frames)
        self._wake_at(held, outcome.wake)
        if any(not isinstance(e, Moved | Undone) for e in outcome.events):
            self._release_seatless(held)
        for event in outcome.events:
            # A racer connected here whom the log calls dropped (a node restarting, or a drop
            # recorded after this node took the session over) is recorded back.
            if isinstance(event, Presence) and not event.connected:
                session = self.players.get(event.player)
                if session is not None and session.conn is not None and session.room == held.room.code:
                    self._spawn(self._quietly(self._command(held, _reconnect(event.player))))

    async def _quietly(self, work: Awaitable[object]) -> None:
        try:
            await work
        except (StoreError, ProtocolError) as exc:
            log_event("room.background_failed", error=str(exc))

    async def _write_back(self, held: HeldRoom, length: int) -> None:
        """The stored log lost its tail (or all of it): write back what this node holds beyond
        ``length``, and when it was wiped, the sessions of the room's visitors here too."""
        code = held.room.code
        tail = held.core.log[length:]
        appended = await self.store.append_at(code, [pack(e) for e in tail], self._ttl(held), length, None, self.node)
        if not isinstance(appended, Stored):
            held.stale = True  # someone wrote meanwhile: read again before the next command
            return
        log_event("room.log_restored", room=code, events=len(tail), kept=length)
        if length == 0:  # Redis was wiped: every node holding the room writes back its sessions
            await self.store.ring("wiped", code, self.node)
            await self._publish(held)

    async def _settle(self, held: HeldRoom, outcome: Outcome) -> None:
        """After a commit: the next wake-up, and for lifecycle events the logs, seats and lobby."""
        self._wake_at(held, outcome.wake)
        self.bots.notice(held.room.code)
        lifecycle = [e for e in outcome.events if not isinstance(e, Moved | Undone)]
        for event in lifecycle:
            log_event("room." + type(event).__name__.lower(), room=held.room.code, **_describe(event))
        if lifecycle:
            self._release_seatless(held)
            await self._publish(held)
        if held.room.settings.daily and any(isinstance(e, Ended) for e in lifecycle):
            await self.fair.record_daily(held.room)

    def _locked(self, held: HeldRoom) -> _Locked:
        """``async with``: the room's lock, on the room this process holds (reloaded if a failure
        left it unsure).

        ProtocolError room-not-found when the room closed while we waited for the lock.
        """
        return _Locked(self, held)

    async def _fresh(self, held: HeldRoom) -> None:
        """Under the room's lock: the room is still held here, and read again if it was unsure."""
        code = held.room.code
        if self.rooms.get(code) is not held:
            raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} has just closed")
        if held.stale:
            held.stale = False
            try:
                await self._sync(held)
            except StoreError:
                held.stale = True
                raise
            except ValueError as exc:
                log_event("room.corrupt", room=code, error=str(exc))
                self._let_go(held)
                raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} was lost") from None

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
                self._send(held.core.release(self.clock.now()))
                # Every node holding the room runs its timer: the second to fire finds it done.
                try:
                    outcome = await self._judge_and_store(held, lambda core, now: core.tick(now), None)
                except _Duplicate:
                    return
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
            if conn in self.guard.closing:
                continue
            if conn.transport.get_write_buffer_size() > self.config.max_write_buffer:
                self.guard.let_go(conn, CloseCode.POLICY, "too slow: not reading")
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
        address = self.guard.address(session.conn) if session.conn else "?"
        bucket = self.guesses.get(address)
        if bucket is None:
            now = self._seconds()
            if len(self.guesses) > 10_000:  # forget addresses that have not guessed lately
                self.guesses = {a: b for a, b in self.guesses.items() if not b.full(now)}
            bucket = self.guesses[address] = TokenBucket(WRONG_CODES_PER_SECOND, WRONG_CODES_AT_ONCE, now)
        return bucket

    async def _create(self, asker: Asker, settings: Settings) -> HeldRoom:
        if not self.guard.new_room(asker.ws, self.guard.address(asker.ws), self._seconds()):
            raise ProtocolError(ErrorCode.ROOM_LIMIT, "you have created too many rooms lately: join one or wait")
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
            await self.store.locate(session.room, session.player, self.node, self.config.session_ttl)

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
        data = await self.store.load(code, self.node)  # from here on, other nodes' appends ring here
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


class _Locked:
    """A room's lock held for one command (``RaceServer._locked``). A class, not an
    ``@asynccontextmanager``: that is an async generator per command, which asyncio registers in
    a WeakSet and contextlib wraps: 2.35 against 0.67 us per ``async with`` (timeit, uvloop)."""

    __slots__ = ("held", "server")

    def __init__(self, server: RaceServer, held: HeldRoom) -> None:
        self.server = server
        self.held = held

    async def __aenter__(self) -> None:
        await self.held.lock.acquire()
        try:
            await self.server._fresh(self.held)
        except BaseException:
            self.held.lock.release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        self.held.lock.release()


def _select_subprotocol(connection: ServerConnection, offered: Sequence[Subprotocol]) -> Subprotocol | None:
    # Complete every handshake (echoing a wrong version back, which browsers require) so that a
    # mismatch is then closed with a reason the client can read.
    if SUBPROTOCOL in offered:
        return Subprotocol(SUBPROTOCOL)
    return offered[0] if offered else None


def _reconnect(player: str) -> Command:
    return lambda core, now: core.reconnect(player, now)


def _describe(event: Event) -> dict[str, object]:
    return {f.name: getattr(event, f.name) for f in dataclasses.fields(event) if f.name not in ("at", "settings")}
