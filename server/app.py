"""The race server's wiring: the object graph of the shell, the play side and HTTP, and its
start and graceful stop. Nothing here judges, stores or sends: each part does its own.

    store (guarded) ─▶ RoomPath ─▶ Requests ◀── Connections ◀── websockets
         ▲              │  ▲          ▲
         │   Fanout ◀───┘  └─ RoomRequests, Lobby (shell); Matchmaker, FairPlay, Dealing (play, through ports)
         └── NodeUpkeep (doorbells, heartbeat)
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Callable, Sequence
from typing import Final

from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.typing import Subprotocol

from protocol.codec import MAX_FRAME, SUBPROTOCOL
from protocol.errors import CloseCode
from protocol.schema import Message
from server.config import Config
from server.http.admin import AdminRoutes
from server.http.api import RecordsReader
from server.http.front import Doors
from server.http.routes import HttpRoutes
from server.logs import log_event
from server.moderation.actions import ADMIN_BELL, Moderation
from server.moderation.bans import BanBook
from server.play.analyst import Analyst
from server.play.arena_schedule import Series
from server.play.arenas import Arenas
from server.play.challenges import ChallengeRequests
from server.play.daily import DailyDeals, DailyTimes
from server.play.dealing import Dealing
from server.play.dealpool import DealPool, Worker
from server.play.fairplay import HINT_SECONDS, FairPlay
from server.play.friends import FriendRequests
from server.play.ghosts import GhostRacers
from server.play.matchmaking import Matchmaker
from server.play.rematches import Rematches
from server.players.accounts import AccountRequests
from server.players.identities import Identities
from server.players.ratings import RatingNotices
from server.records.archiver import Archiver, RaceArchive
from server.rooms import events
from server.rooms.events import Event
from server.shell.clock import Clock, SystemClock
from server.shell.connections import Connections
from server.shell.drain import Drain, node_name
from server.shell.fanout import Fanout
from server.shell.guard import ConnectionGuard, handshake_logger
from server.shell.handlers import handlers_of
from server.shell.held import HeldRoom
from server.shell.lobby import Lobby
from server.shell.metrics import LiveCounts, Metrics
from server.shell.nodes import NodeUpkeep
from server.shell.ports import Accounts, ArenaArchive, ChallengeBook, FriendBook
from server.shell.replies import Replies
from server.shell.requests import Requests
from server.shell.room_requests import RoomRequests
from server.shell.roombase import RoomMoments
from server.shell.roompath import RoomPath
from server.shell.sessions import Session, SessionTable
from server.shell.tasks import Tasks
from server.store.base import StoreError
from server.store.guarded import Breaker
from server.store.interfaces import Store

LOBBY_SESSION_TTL: Final = 3600.0
"""Seconds the store keeps a session that never joined a room."""
DRAIN_SECONDS: Final = 10.0
"""How long a graceful stop waits for requests in flight before closing connections (1012)."""
DRAIN_QUIET: Final = 0.2
"""Seconds without a new request after which a stopping server closes its connections."""


class RoomHooks:
    """What this node does at each moment of the room path (its ``RoomObserver``), built before
    the path and given to it: the daily board is written before a lifecycle answer, the archiver
    wakes at a race's end, and a room moderators closed is not found. The parts built on the path
    (bots and ghosts after every commit, a due rematch after a lifecycle commit, the drain when a
    newer build's room is seen) hear it through ``moments``, where each listens from its own
    construction."""

    __slots__ = ("archiver", "bans", "daily_board", "moments")

    def __init__(self, daily_board: DailyTimes, archiver: Archiver | None, bans: BanBook, moments: RoomMoments) -> None:
        self.daily_board = daily_board
        self.archiver = archiver
        self.bans = bans
        self.moments = moments

    def after_commit(self, code: str) -> None:
        self.moments.committed(code)

    async def before_lifecycle_answer(self, held: HeldRoom, lifecycle: list[Event]) -> None:
        await self.daily_board.record_race(held.room, lifecycle)

    def after_lifecycle_commit(self, code: str) -> None:
        self.moments.lifecycle_committed(code)

    def race_end_indexed(self, code: str) -> None:
        if self.archiver is not None:
            self.archiver.wake(code)

    def newer_build_seen(self, code: str, visitors: set[str]) -> None:
        self.moments.newer_build(code, visitors)

    def closed_by_moderators(self, code: str) -> bool:
        return self.bans.closed(code) is not None


class RaceServer:
    """The race server: ``await start()``, later ``await stop()``.

    ``deals`` chooses every deal the server picks, in place of the pool (for tests that need a
    known deal); ``pool`` holds the proven-winnable deals to pick from (without workers, it deals
    from the shipped lists); ``daily_board`` the best finishing times of the daily races;
    ``accounts`` the registered players on record (None: the account requests answer
    ``records-unavailable``, and a key is known only while the store's cache holds it);
    ``records`` what the public API reads (None: ``/api/v1`` answers 503, records are off);
    ``archive`` the database finished races go to; ``challenges`` the ghost challenges' records
    (None: this server answers challenges with records-unavailable); ``arena_archive`` the
    database finished arenas go to (None: they are not kept); ``arena_series`` the operator's
    arenas of the ``--arenas`` file (docs/arenas.md); ``analyst`` analyses the races on record
    (None: none is analysed here), woken by each archive pass."""

    def __init__(
        self,
        config: Config,
        store: Store,
        clock: Clock | None = None,
        deals: Callable[[], int] | None = None,
        *,
        pool: DealPool | None = None,
        bot_time_scale: float = 1.0,
        hint_seconds: float = HINT_SECONDS,
        daily_board: DailyTimes | None = None,
        archive: RaceArchive | None = None,
        accounts: Accounts | None = None,
        records: RecordsReader | None = None,
        challenges: ChallengeBook | None = None,
        friends: FriendBook | None = None,
        arena_archive: ArenaArchive | None = None,
        arena_series: Sequence[Series] = (),
        analyst: Analyst | None = None,
    ) -> None:
        self.config = config
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.breaker = Breaker()
        """Fails store calls at once while the store is stalled."""
        # Read at each scrape: what this node holds (its parts are built below), the breaker, the analyst.
        self.metrics = Metrics(config.node_name, self.live_counts, breaker=self.breaker, analyst=analyst)
        store.guard(self.breaker, self.metrics)
        self.store = store
        """Every call through the breaker and into the metrics (the store's one guarded call)."""
        self.pool = pool if pool is not None else DealPool(store)
        self.daily_board = daily_board if daily_board is not None else DailyTimes(store)
        self.node = node_name(secrets.token_hex(4), events.FORMAT)
        """This process's name in doorbells and member places (with its build's format version)."""
        self.stopping = asyncio.Event()
        """Set when ``stop()`` begins: no bot is offered, and a closed connection is a drop no more."""
        self.tasks = Tasks()
        self.guard = ConnectionGuard(config, self.tasks.spawn)
        self.table = SessionTable(self.store, self.store, config.session_ttl, LOBBY_SESSION_TTL)
        self.sessions = self.table.by_token
        self.players = self.table.by_player
        """Sessions by player id, for fan-out."""
        self.fanout = Fanout(self.players, self.guard, config.max_write_buffer)
        replies = Replies(self.fanout)
        self.worker = Worker()
        """The bots' worker process: their plans, hints, lost checks and today's deals."""

        # What the room path tells of its moments, built before it (the parts built on it listen
        # through ``moments``): finished races into the database (None: records are off, no race
        # is marked), their analyses, and the moderators' list.
        self.archiver: Archiver | None = None
        if archive is not None:
            archived = (analyst.archived,) if analyst is not None else ()
            self.archiver = Archiver(self.store, archive, config.finished_ttl, archived)
            # What a rated race did to its racers' ratings: into the store, and to each racer.
            archive.rated.append(RatingNotices(self.store).tell)
        self.analyst = analyst
        self.bans = BanBook(self.store, self.clock)
        self.moments = RoomMoments()
        self.path = RoomPath(
            self.store,
            self.table,
            self.fanout,
            replies,
            self.clock,
            config,
            self.node,
            self.tasks.spawn,
            RoomHooks(self.daily_board, self.archiver, self.bans, self.moments),
            archiving=archive is not None,
        )
        self.rooms = self.path.rooms

        # The parts built on the path, in the order they listen to its moments (bots, ghosts).
        self.daily_deals = DailyDeals(self.worker)
        self.dealing = Dealing(config, self.clock, self.pool, self.daily_deals, deals)
        self.fair = FairPlay(
            self.path,
            self.fanout,
            self.clock,
            self.dealing,
            self.daily_board,
            self.tasks.spawn,
            self.stopping,
            self.worker,
            self.moments,
            hint_seconds=hint_seconds,
            bot_time_scale=bot_time_scale,
        )
        # Ghost challenges: recorded runs raced again (without records, both requests say so).
        self.ghosts = GhostRacers(self.fair.run_for_bot, self.fair.room_held, self.clock, self.moments)
        self.rematches = Rematches(
            self.fair.run_for_bot, self.fair.room_held, self.dealing, self.tasks.spawn, self.moments
        )
        rooms = RoomRequests(self.path, self.table, self.guard, self.clock, self.dealing, self.fair, self.fair)
        self.lobby = Lobby(self.store)
        self.matches = Matchmaker(
            self.path,
            self.store,
            rooms.create,
            self.dealing,
            self.fair,
            self.fanout,
            self.clock,
            self.node,
            self.tasks.spawn,
        )
        """Quick match: the queues' pairs, and this node's waiters."""
        challenge_requests = ChallengeRequests(
            self.path, challenges, self.ghosts, rooms.create, self.dealing, self.clock
        )
        # Friends, presence and invitations (without records, every request says so).
        self.friends = FriendRequests(
            self.path,
            self.table,
            self.store,
            friends,
            self.dealing,
            rooms.create,
            rooms.on_join_room,
            self.clock,
            self.tasks.spawn,
            self.node,
        )
        self.upkeep = NodeUpkeep(
            self.path, self.table, self.fanout, self.store, self.tasks.spawn, self.node, heard=self.friends.heard
        )
        # Players that last: keys at the door, and the account requests (docs/protocol.md, section 21).
        self.identities = Identities(self.store, self.table, accounts)
        account_requests = AccountRequests(
            accounts,
            self.identities,
            self.store,
            self.table,
            self.clock,
            self.guard.address,
            renamed=self.friends.renamed,
        )
        # Arenas: timed events pairing their players race after race (one node pairs, by lease).
        self.arenas = Arenas(
            self.path,
            self.table,
            self.fanout,
            self.store,
            self.dealing,
            self.clock,
            self.node,
            self.tasks.spawn,
            config.session_ttl,
            archive=arena_archive,
            series=arena_series,
        )
        # Taking the node out of service (a drain), and the moderators' actions (docs/admin.md).
        self.drain = Drain(
            self.table,
            self.path.rooms,
            self.guard,
            self.tasks.spawn,
            config.drain_limit,
            self.store,
            events.FORMAT,
            self.moments,
        )
        self.moderation = Moderation(
            self.store,
            self.bans,
            self.table,
            self.fanout,
            self.guard,
            self.path.rooms,
            self.tasks.spawn,
            config.room_ttl,
        )

        # Every request type's one handler, declared beside its code (``@handles``).
        handlers = handlers_of(
            rooms, self.lobby, self.matches, self.fair, challenge_requests, self.friends, account_requests, self.arenas
        )
        self.requests = Requests(self.path, replies, self.metrics, self.store, self.guard, handlers)
        self.conns = Connections(
            self.requests,
            self.path,
            self.fanout,
            self.table,
            self.guard,
            self.store,
            config,
            self.clock,
            self.node,
            self.stopping,
            self.identities,
            refusing=self.drain.status,
            book=self.bans,
            welcomed=(self.arenas.welcomed,),
            closed=(self.arenas.closed,),
        )
        self.ws: WsServer | None = None
        self.http = HttpRoutes(
            self.store,
            self.metrics,
            records,
            clock=self.clock,
            trusted_proxies=config.trusted_proxies,
            arenas=self.arenas,
            refusing=self.drain.status,
        )
        """Plain HTTP on the port (``/healthz``, ``/metrics``, ``/api/v1``, the browser client)."""
        self.doors = Doors(self.http)
        """Every connection's first request: upgrades go to websockets, the rest to ``http``."""
        self.admin: WsServer | None = None
        """The admin API's port (``config.admin_port``), once started."""
        self.admin_doors: Doors | None = None

    # -- lifecycle ----------------------------------------------------------

    async def start(self) -> WsServer:
        # The store first: a store this node cannot use (down, or a key layout newer than it
        # knows) fails the start before any background task holds a connection to it. No room is
        # loaded here yet (lazily, when someone needs one); every room loaded listens to its
        # doorbell before it reads its log.
        await self.path.recover()
        await self.bans.refresh()
        self.tasks.spawn(self.bans.run())
        self.tasks.spawn(self.store.doorbells(self._ring))
        self.tasks.spawn(self.upkeep.heartbeat())
        self.tasks.spawn(self.upkeep.due_rooms())
        self.tasks.spawn(self.arenas.run())
        if self.archiver is not None:
            self.tasks.spawn(self.archiver.run())
        if self.analyst is not None:
            self.tasks.spawn(self.analyst.run())
        if self.friends.book is not None:
            self.tasks.spawn(self.friends.run())
        try:
            await self.pool.seed()
        except StoreError as exc:  # deals still come from the shipped lists
            log_event("dealpool.error", error=str(exc))
        if self.pool.executor is not None:
            self.pool.start()
        self.ws = await serve(
            self.conns.accept,
            self.config.host,
            self.config.port,
            subprotocols=[Subprotocol(SUBPROTOCOL)],
            select_subprotocol=_select_subprotocol,
            create_connection=self.doors.as_factory(),
            max_size=MAX_FRAME,
            max_queue=32,
            close_timeout=self.config.close_timeout,
            logger=handshake_logger(),
            # No permessage-deflate: it costs ~37 KiB of zlib state per connection and buys
            # nothing on frames of 50-100 bytes (docs/performance.md).
            compression=None,
            reuse_port=self.config.reuse_port or None,
        )
        if self.config.admin_port is not None:
            await self._start_admin()
        log_event("server.started", host=self.config.host, port=self.port, store=type(self.store).__name__)
        return self.ws

    async def _start_admin(self) -> None:
        """The admin API on its own port: plain HTTP through a front door of its own (a WebSocket
        upgrade there is refused)."""
        if not self.config.admin_token:
            raise ValueError("the admin API needs a token (--admin-token or SEAHAVEN_ADMIN_TOKEN)")
        routes = AdminRoutes(
            self.config.admin_token, self.moderation, self.drain, self.path.rooms, self.table, self.guard, self.store
        )
        self.admin_doors = Doors(routes)
        self.admin = await serve(
            _no_websocket,
            self.config.admin_host,
            self.config.admin_port,
            create_connection=self.admin_doors.as_factory(),
            logger=handshake_logger(),
        )
        log_event("admin.listening", host=self.config.admin_host, port=self.admin_port)

    @property
    def admin_port(self) -> int:
        assert self.admin is not None
        for sock in self.admin.sockets:
            return int(sock.getsockname()[1])
        return self.config.admin_port or 0

    def _ring(self, kind: str, key: str, data: bytes) -> None:
        # upkeep.ring looked up at each ring, so that a test can listen in on this node's doorbells.
        if kind != "*":  # "*" is no doorbell: the subscription came back, every room is read again
            self.metrics.doorbell(kind)
        if kind == "arena":
            self.arenas.ring(key, data)
        elif kind == ADMIN_BELL:
            self.moderation.ring(key, data)
        else:
            self.upkeep.ring(kind, key, data)

    @property
    def port(self) -> int:
        assert self.ws is not None
        for sock in self.ws.sockets:
            return int(sock.getsockname()[1])
        return self.config.port

    async def stop(self) -> None:
        """Stop listening, answer the requests in flight, then close every connection with 1012
        (service restart) without counting anyone as dropped: a restart resumes the races."""
        self.stopping.set()
        self.matches.stop()
        if self.admin is not None:
            self.admin.close(close_connections=False)
            if self.admin_doors is not None:
                self.admin_doors.close()
        if self.ws is not None:
            self.ws.close(close_connections=False)
            self.doors.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(DRAIN_SECONDS):
                    await self._drained()
        await self.fair.bots.close()
        if self.analyst is not None:
            self.analyst.close()
        await self.ghosts.close()
        self.path.stop_timers()
        if self.ws is not None:
            closing = [
                conn.close(CloseCode.SERVICE_RESTART, "server restarting: reconnect") for conn in self.ws.connections
            ]
            await asyncio.gather(*closing, return_exceptions=True)
            await self.ws.wait_closed()
        if self.admin is not None:
            await self.admin.wait_closed()
        await self.tasks.cancel()
        # Gone at once for the other nodes: a node starting next does not take this one's closed
        # connections for live ones.
        with contextlib.suppress(StoreError):
            await self.store.leave(self.node)
        await self.pool.close()
        await self.store.close()
        log_event("server.stopped")

    async def _drained(self) -> None:
        """Until no request is in flight and none started for a short while (frames already on
        their way when the stop began are read and answered too)."""
        requests = self.requests
        while True:
            await requests.idle.wait()
            if self.ws is None or not self.ws.connections:
                return
            started = requests.started
            await asyncio.sleep(DRAIN_QUIET)
            if requests.idle.is_set() and requests.started == started:
                return

    async def request(self, ws: ServerConnection, session: Session, seq: int, message: Message) -> None:
        """Answer one decoded request (what a connection's reader does; benchmarks call it)."""
        await self.requests.request(ws, session, seq, message)

    def live_counts(self) -> LiveCounts:
        """What this node holds now (read at each /metrics scrape)."""
        racers = spectators = 0
        for held in self.path.rooms.values():
            racers += sum(1 for seat in held.room.seats.values() if not seat.left)
            spectators += len(held.room.spectators)
        return LiveCounts(len(self.path.rooms), racers, spectators, self.guard.connections)


async def _no_websocket(ws: ServerConnection) -> None:
    await ws.close(CloseCode.POLICY, "the admin port speaks plain HTTP only")


def _select_subprotocol(connection: object, offered: Sequence[Subprotocol]) -> Subprotocol | None:
    # ``connection`` is what websockets' factory made, the front door (server/http/front.py): unused.
    # Complete every handshake (echoing a wrong version back, which browsers require) so that a
    # mismatch is then closed with a reason the client can read.
    if SUBPROTOCOL in offered:
        return Subprotocol(SUBPROTOCOL)
    return offered[0] if offered else None
