"""The room path: every command on a room held here, in one order, on the one clock.

    lock -> (catch up if stale) -> judge -> append -> match the append's result -> commit
         -> (what a promise needs) -> answer -> send -> schedule; then, outside the lock, what
         follows a commit

A command is judged by the room's core (the engine decides; nothing is changed yet), its events
are appended to the room's stored log in one round trip, only if the log is as long as the core
thinks, with the asker's request and reply; then the core commits, the asker hears its answer,
the room its frames, and the room's one timer is set for its next wake-up. What follows a commit
but promises nothing to the asker (the lobby listing, seats taken away, bots) runs after the
lock is released and the answer sent; what someone who hears of the commit may count on (a
created room listed, a daily finish on the board) comes before the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final, Protocol

import msgpack

from protocol.codec import encode
from protocol.enums import Phase
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import GHOST_PREFIX, Ok, SeatTaken
from protocol.schema import Message
from server.config import Config
from server.rooms.core import Outcome, RoomCore
from server.rooms.events import Ended, Event, Left, Moved, NewerFormat, Presence, Undone, pack, unpack
from server.rooms.history import ended_races
from server.rooms.merge import RACE_WIDE, Unmergeable, merge
from server.rooms.room import BOT_PREFIX, Room, Seat
from server.rooms.settings import Settings
from server.shell.clock import Clock
from server.shell.fanout import Fanout
from server.shell.held import Asker, Command, HeldRoom, log_event
from server.shell.names import new_room_code
from server.shell.replies import Replies
from server.shell.sessions import SEAT_TAKEN, SESSION_BELL, Session, SessionTable
from server.store.base import Append, Appended, Behind, Duplicate, Forked, Request, Stored, StoreError, chain
from server.store.interfaces import Archives, Doorbells, Listings, Nodes, RoomLog

ROOM_BELL: Final = "room"
"""The doorbell kind of a room's appends (key: the room's code), heard while the room is held here."""
STORE_RETRY_MS: Final = 1000
"""How soon a room's timer tries again when the store failed it."""
MAX_CONFLICTS: Final = 20
"""Times a command is judged again because another node wrote to the room first."""
REFRESH_AFTER: Final = 1 / 8
"""The part of a room's TTL after which an append gives its keys the TTL again; appends of moves
and undos sooner leave it (5 Redis commands fewer a move), so a room's log outlives its last append
by at least 7/8 of its TTL. Any other event gives the TTL: its length changes with the phase."""
RECORD_BACK_EVERY: Final = 0.5
"""Seconds between two tries at recording a member back while the store fails (the stall that made
another node count this one dead most often fails this node's first calls after it, too)."""

Spawn = Callable[[Coroutine[Any, Any, None]], None]
"""Runs a coroutine in the background (``Tasks.spawn``)."""
Noticed = Callable[[str], None]
"""Told the code of every room that committed something (cheap, on every move)."""
Promised = Callable[[HeldRoom, list[Event]], Awaitable[None]]
"""Told a room's lifecycle events (not moves or undos) once committed, before the answer and the
frames, under the room's lock: for what someone who hears of them may count on already."""
Known = Callable[[HeldRoom], list[bytes] | None]
"""What a node already heard of a room's log beyond its core (None: read the log)."""


class RoomStore(RoomLog, Listings, Doorbells, Nodes, Archives, Protocol):
    """What the room path needs of the store: the rooms' logs, their listings, the doorbell of a
    wiped log, each member's place, and the archive's marks of finished races."""


class RoomPath:
    """The rooms this node holds, and the one way to change them.

    ``get`` a room (loaded once however many ask), ``run`` a command on it, ``create`` and
    ``join`` one, ``catch_up`` with what other nodes stored, ``dropped`` for a closed
    connection, ``forget_if_idle`` once nobody is left. ``noticed`` hooks follow commits (after
    the answer), ``promised`` ones come before it.
    """

    def __init__(
        self,
        store: RoomStore,
        table: SessionTable,
        fanout: Fanout,
        replies: Replies,
        clock: Clock,
        config: Config,
        node: str,
        spawn: Spawn,
    ) -> None:
        self.store = store
        self.table = table
        self.fanout = fanout
        self.replies = replies
        self.clock = clock
        self.config = config
        self.node = node
        self.spawn = spawn
        self.rooms: dict[str, HeldRoom] = {}
        self.loading: dict[str, asyncio.Future[HeldRoom | None]] = {}
        self.noticed: list[Noticed] = []
        self.promised: list[Promised] = []
        self.archiving = False
        """Races are archived: each race's end is stored with its archive mark (off: no marks, which
        would keep finished logs alive until an archiver cleared them)."""
        self.changed: list[Noticed] = []
        """Told the room's code after each commit of lifecycle events (not of moves or undos)."""
        self.ended: list[Callable[[str], None]] = []
        """Told the room's code once a race's end is stored and indexed for the archive."""
        self.newer: list[Callable[[str, set[str]], None]] = []
        """Told a room's code and its visitors here when its log turned out a newer build's."""
        self.closed: Callable[[str], bool] = lambda code: False
        """Whether a moderator closed the room of this code (then it is not found)."""

    # -- rooms held here ---------------------------------------------------------------------

    async def get(self, code: str) -> HeldRoom | None:
        """The room of this code: held here, or loaded from the store once however many ask."""
        if self.closed(code):
            return None
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
        # Listening before the read: an append after it (which sees this node among the holders
        # the read joins) rings a channel this node already hears.
        await self.store.listen(((ROOM_BELL, code),))
        try:
            data = await self.store.load(code, self.node)  # from here on, other nodes' appends ring here
        except BaseException:
            self.store.unlisten(((ROOM_BELL, code),))
            raise
        if not data:
            self.store.unlisten(((ROOM_BELL, code),))
            return None
        try:
            core = RoomCore.load([unpack(d) for d in data], self.clock.now())
        except NewerFormat as exc:
            self.store.unlisten(((ROOM_BELL, code),))
            raise self._newer(code, exc, set()) from None
        except ValueError as exc:
            self.store.unlisten(((ROOM_BELL, code),))
            log_event("room.corrupt", room=code, error=str(exc))
            return None
        held = self.rooms[code] = HeldRoom(core, chain=chain("", data))
        self._wake_at(held, core.next_wake())
        # Loaded lazily (a resume, a join, a spectator, a due timer): members whose node is gone
        # (it died or restarted) get their drops recorded now, and their grace periods run.
        await self.quietly(self.drop_lost(held))
        return held

    async def drop_lost(self, held: HeldRoom, alive: set[str] | None = None) -> None:
        """Record the drop of every member the log calls connected whose connection was on a node
        that stopped beating (``alive``: the live nodes, when known): as if that node had recorded it."""
        room = held.room
        here = self.table.by_player
        elsewhere = [p for p in room.members if p not in here and _connected(room.seats.get(p), p in room.spectators)]
        if not elsewhere:
            return
        if alive is None:
            alive = await self.store.alive()
        where = await self.store.located(room.code)
        for player in elsewhere:
            node = where.get(player)
            if node is not None and node != self.node and node not in alive:
                log_event("session.node_lost", player=player, room=room.code, node=node)
                await self.quietly(self.run(held, _disconnect(player)))

    def held_by(self, session: Session) -> HeldRoom:
        """The room the session has a place in (not-in-room otherwise)."""
        held = self.rooms.get(session.room) if session.room else None
        if held is None or not held.room.has_member(session.player):
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, "you are not in a room: create or join one")
        return held

    def check_not_in_room(self, session: Session) -> None:
        held = self.rooms.get(session.room) if session.room is not None else None
        if held is not None and held.room.has_member(session.player):
            raise ProtocolError(ErrorCode.ALREADY_IN_ROOM, f"you are in room {session.room}: leave it first")

    async def seat_elsewhere(self, session: Session) -> tuple[Session, HeldRoom] | None:
        """The session of the same player that holds a race seat, and its room, when that is not
        this session (a registered player's other tab or device)."""
        other = await self.table.seat_holder(session)
        if other is None or other.room is None:
            return None
        held = await self.get(other.room)
        seat = held.room.seats.get(session.player) if held is not None else None
        if held is None or seat is None or seat.left:
            return None
        return other, held

    async def check_free(self, session: Session) -> None:
        """Refuse (already-in-room) a session in a room, or whose player races on another connection."""
        self.check_not_in_room(session)
        elsewhere = await self.seat_elsewhere(session)
        if elsewhere is not None:
            raise seated_elsewhere(elsewhere[1].room.code)

    async def take_seat(self, asker: Asker, held: HeldRoom, other: Session) -> None:
        """The asker's session takes its player's seat in ``held`` from ``other`` (another
        connection of theirs), which stays connected, in no room, told ``seat_taken``. The seat's
        append forgets the player's reply memory in the room: the two connections count their
        seqs apart."""
        session = asker.session
        player, code = session.player, held.room.code
        if player in held.room.spectators:
            raise seated_elsewhere(code)
        replies: list[Message] = []

        def take(core: RoomCore, now: int) -> Outcome:
            outcome = core.take_seat(player, now)
            replies.append(outcome.reply)
            return outcome

        async def seated() -> None:
            await self._seated(held, session)
            await self._unseat(other, code)

        outcome = await self.run(held, take, then=seated, send=False, ends_stay=player)
        self.replies.answer(asker, replies[-1])
        self.fanout.send(outcome.frames)
        log_event("session.seat_taken", player=player, room=code)

    async def _unseat(self, other: Session, code: str) -> None:
        """``other`` is out of the room ``code``: here, or told on the node its connection is on."""
        here = self.table.by_token.get(other.token)
        if here is not None:
            self.lose_seat(here, code)
            if here.conn is not None:
                await self.table.save(here)
                return
        other.room = None  # its connection may be on another node (a copy here is only read)
        await self.table.save(other)
        await self.store.ring(SESSION_BELL, other.token, SEAT_TAKEN + code.encode())

    def lose_seat(self, session: Session, code: str) -> None:
        """Another connection of the session's player took its seat in ``code``: the session is in
        no room and says so to its connection, which stays."""
        if session.room != code:
            return
        self.table.unseat(session)
        if session.conn is not None:
            self.fanout.write([session.conn], encode(SeatTaken(room=code)))

    async def create(self, settings: Settings) -> HeldRoom:
        """A new room of ``settings`` under a free code, stored."""
        for _ in range(20):
            code = new_room_code()
            if code not in self.rooms and not await self.store.load(code):
                break
        else:
            raise ProtocolError(ErrorCode.INTERNAL, "could not find a free room code")
        core, created = RoomCore.create(code, settings, self.clock.now())
        await self.store.listen(((ROOM_BELL, code),))  # before its first append: a joiner's node may ring
        held = self.rooms[code] = HeldRoom(core)
        await self.run(held, lambda _core, _now: created)
        return held

    async def join(
        self, asker: Asker, held: HeldRoom, spectate: bool, then: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        """Seat (or sit as spectator) the asker; the lobby listing shows it before the answer, and
        ``then`` runs once the seat is stored and the session is in the room, before the answer."""
        session = asker.session
        join: Command = lambda core, now: core.join(session.player, session.name, spectate, now)  # noqa: E731

        async def seated() -> None:
            await self._seated(held, session)
            if then is not None:
                await then()

        try:
            await self.run(held, join, asker, then=seated, listed_first=True)
        except ProtocolError:
            await self.forget_if_idle(held)
            raise

    async def seat_unasked(self, session: Session, held: HeldRoom) -> None:
        """Seat a session that did not ask (quick match brings a waiter to a partner's room): as
        ``join``, with its room state sent to it as an event, before the frames of the join."""
        player = session.player

        def join(core: RoomCore, now: int) -> Outcome:
            outcome = core.join(player, session.name, False, now)
            outcome.frames.insert(0, (frozenset({player}), encode(outcome.reply)))
            return outcome

        try:
            await self.run(held, join, then=lambda: self._seated(held, session), listed_first=True)
        except ProtocolError:
            await self.forget_if_idle(held)
            raise

    async def leave(self, session: Session, held: HeldRoom) -> Outcome:
        """The session leaves the room for good (its answer is the outcome's reply), and the
        room is let go once nobody is left in it."""

        async def out_of_the_room() -> None:
            session.room = None
            held.visitors.discard(session.player)
            await self.table.save(session)

        player = session.player
        leave: Command = lambda core, now: core.leave(player, now)  # noqa: E731
        outcome = await self.run(held, leave, then=out_of_the_room, ends_stay=player)
        await self.forget_if_idle(held)  # before the answer: the leaver is out of the room for good
        return outcome

    async def _seated(self, held: HeldRoom, session: Session) -> None:
        """A session joined the room (stored, not yet answered): it is in the room, here."""
        session.room = held.room.code
        held.visitors.add(session.player)
        await self.table.save(session)
        await self.table.seat(session)
        await self.store.locate(held.room.code, session.player, self.node, self.config.session_ttl)

    async def dropped(self, session: Session) -> None:
        """A session's connection closed: its room hears of it (a racer keeps the seat a while)."""
        held = self.rooms.get(session.room) if session.room is not None else None
        if held is None:
            return
        player = session.player
        try:
            await self.run(held, lambda core, now: core.disconnect(player, now))
        except (StoreError, ProtocolError) as exc:
            log_event("session.drop_unrecorded", player=player, error=str(exc))
        if not held.room.has_member(player):
            session.room = None
        log_event("session.dropped", player=player, room=held.room.code)
        await self.forget_if_idle(held)

    async def settled(self, held: HeldRoom) -> None:
        """Return once no command runs on ``held``: what one under way sends has gone out."""
        async with held.lock:
            return

    async def forget_if_idle(self, held: HeldRoom) -> None:
        """Let go of a room nobody is connected to once it has nothing left to time (its
        spectator schedule is rebuilt from the log whenever someone comes back); or of one whose
        members are all connected to other nodes (a room's racers moved to the node its code
        hashes to: docs/scaling.md, "Keeping a room together"), which hold it, run its timers and
        write its listing, so this node stops hearing its every move. A room with a bot or ghost
        seat is kept: its seats are driven by the node that seated them."""
        async with held.lock:
            room = held.room
            if self.rooms.get(room.code) is not held:
                return
            elsewhere = not room.is_empty()
            if elsewhere and (self._connected_here(held) or _driven_seats(room)):
                return
            if not elsewhere and room.next_deadline() is not None:
                return
            self._let_go(held)
        if elsewhere:
            return  # live on its members' nodes: listed and kept by them
        with contextlib.suppress(StoreError):
            await self._publish(held)  # no longer held: unlisted
            await self.store.expire(room.code, self.config.finished_ttl)

    async def recover(self) -> None:
        """Start lazily: no room is loaded here until someone needs it (a resume, a join, a
        spectator, a due timer: ``due``). The members of a node that died or restarted get their
        drops recorded by whichever node loads their room (``drop_lost``), and the nodes' beats
        make every such room due (``NodeUpkeep``). One store call: a node that cannot use its store
        (down, or a key layout newer than it knows) fails to start."""
        await self.store.alive()

    async def due(self, code: str) -> None:
        """A room whose time came with no node holding it (its countdown, a grace period, its time
        limit; or its members' node died): loaded here, told the time, and let go once idle."""
        try:
            held = await self.get(code)
        except ProtocolError:  # a newer build's room: left to its nodes
            return
        if held is None:
            await self.store.set_due(code, None)
            return
        await self.quietly(self.run(held, _tick))
        await self.store.set_due(code, held.room.next_deadline())
        log_event("room.due", room=code, phase=held.room.phase)
        await self.forget_if_idle(held)

    def stop_timers(self) -> None:
        for held in self.rooms.values():
            if held.timer is not None:
                held.timer.cancel()

    # -- the path ------------------------------------------------------------------------------

    async def run(
        self,
        held: HeldRoom,
        command: Command,
        asker: Asker | None = None,
        *,
        then: Callable[[], Awaitable[None]] | None = None,
        reply: Message | None = None,
        send: bool = True,
        listed_first: bool = False,
        ends_stay: str | None = None,
    ) -> Outcome:
        """Run ``command`` on the room: store what it caused, ``then`` (stored, not yet told),
        answer ``asker`` (with ``reply`` in place of the core's, when given), send the room its
        frames (unless the caller sends them later), set its timer; then the hooks, after the
        lock. ``listed_first``: the lobby listing is written before the answer. ``ends_stay``: the
        player the command takes out of the room, whose memo the room then forgets (``Request``)."""
        async with Locked(self, held):
            outcome, lifecycle = await self._locked_run(
                held, command, asker, then, reply, send, listed_first, ends_stay
            )
        if outcome.events:
            await self._committed(held, lifecycle, listed_first)
        return outcome

    async def _locked_run(
        self,
        held: HeldRoom,
        command: Command,
        asker: Asker | None,
        then: Callable[[], Awaitable[None]] | None,
        reply: Message | None,
        send: bool,
        listed_first: bool,
        ends_stay: str | None = None,
    ) -> tuple[Outcome, list[Event]]:
        """The path under the lock; the outcome and its lifecycle events (not moves or undos)."""
        for _ in range(MAX_CONFLICTS):
            core = held.core  # a heal may have put another core in its place
            outcome = command(core, self.clock.now())  # judge
            answer = reply if reply is not None else outcome.reply
            frame = encode(answer, asker.seq) if asker is not None else None
            if not outcome.events:
                core.commit(outcome, None)
                break
            appended, tips = await self._append(held, outcome, asker, frame, ends_stay)
            match appended:  # match the append's result
                case Stored(length=length):
                    held.chain += tips
                    core.commit(outcome, length)
                    break
                case Duplicate(memo=memo):
                    if then is not None:
                        await then()
                    if asker is not None:
                        if memo is None:
                            raise ProtocolError(ErrorCode.BAD_SEQ, f"seq {asker.seq} was answered and replaced")
                        self.replies.answer_frame(asker, memo)
                    return Outcome([], Ok()), []
                case Behind() | Forked() as behind:  # judged again on the caught-up (or healed) core
                    try:
                        await self._caught_up(held, behind)
                    except NewerFormat as exc:
                        raise self._newer_held(held, exc) from None
                    except ValueError as exc:  # what the others stored does not fit ours
                        raise self._lost(held, exc) from None
        else:
            raise StoreError(f"room {held.room.code} kept changing under {MAX_CONFLICTS} tries")
        if then is not None:
            await then()
        lifecycle: list[Event] = [] if _moves_only(outcome.events) else [e for e in outcome.events if not _is_move(e)]
        if lifecycle:
            for promise in self.promised:
                await promise(held, lifecycle)
        if listed_first:
            await self._publish(held)
        if asker is not None:
            self.replies.answer(asker, answer, frame)
        if send:
            self.fanout.send(outcome.frames)
        self._wake_at(held, outcome.wake)
        return outcome, lifecycle

    async def _append(
        self, held: HeldRoom, outcome: Outcome, asker: Asker | None, frame: bytes | None, ends_stay: str | None = None
    ) -> tuple[Appended, list[str]]:
        """Append the events if the stored log is the one the core holds, named by its length and
        chain tip (one round trip; the asker's request and reply go with them); the core is aborted
        unless they were stored. When the store failed, the room reads the log back before its next
        command (a room whose creation failed is let go). Also the chain's new tips, computed once
        here: the store checks the tip named and keeps these (no SHA-1 in Redis)."""
        core = held.core
        request = Request(asker.session.player, asker.seq, frame) if asker is not None and frame is not None else None
        if request is None and ends_stay is not None:
            request = Request.stay_ended(ends_stay)
        events = outcome.events
        # The race's end and its archive mark are stored in one call: no crash can keep one without the other.
        ends = self.archiving and core.room.phase == Phase.FINISHED and _ends(events)
        archive = (core.room.race_id(),) if ends else ()
        packed = [pack(e) for e in events]
        length = len(core.log)
        tip = held.tip(length)
        tips = chain(tip, packed)
        ttl = self._ttl(held)
        now = self.clock.now()
        refreshed = held.refreshed
        refresh = refreshed is None or now - refreshed >= ttl * REFRESH_AFTER * 1000 or not _moves_only(events)
        append = Append(ttl, length, request, self.node, archive, tip, refresh, tips)  # positional: no kwargs dict
        try:
            appended = await self.store.append_at(core.room.code, packed, append)
        except StoreError:
            core.abort()
            if core.log:
                held.stale = True
            else:
                self._let_go(held)
            raise
        if isinstance(appended, Stored):
            if refresh:
                held.refreshed = now
        else:
            core.abort()
            if not core.log:
                self._let_go(held)
                raise ProtocolError(ErrorCode.INTERNAL, "that room code was just taken: try again")
        return appended, tips

    async def _committed(self, held: HeldRoom, lifecycle: list[Event], listed: bool) -> None:
        """After a commit that stored something, outside the lock and after the answer: the
        hooks told of every such commit (bots), and for lifecycle events the logs, seats taken
        away and the lobby listing (unless ``listed`` before the answer)."""
        code = held.room.code
        for notice in self.noticed:
            notice(code)
        if not lifecycle:
            return
        for hook in self.changed:
            hook(code)
        await self._set_due(held)
        if self.archiving and _ends(lifecycle):
            await self._index_archive(code)
        for event in lifecycle:
            log_event("room." + type(event).__name__.lower(), room=held.room.code, **_describe(event))
        self._release_seatless(held)
        if not listed:
            await self._publish(held)

    # -- catching up with the stored log ---------------------------------------------------------

    async def catch_up(self, held: HeldRoom, known: Known | None = None) -> None:
        """Under the room's lock, bring the core up to the stored log: with what ``known`` says
        was heard already when it reaches far enough, else by reading the log."""
        read = held.stale  # entering the lock reads the log of a stale room
        async with Locked(self, held):
            gap = known(held) if known is not None else None
            try:
                if gap is not None:
                    self._apply(held, gap)
                elif not read:
                    await self._read_on(held)
            except NewerFormat as exc:
                raise self._newer_held(held, exc) from None

    async def _caught_up(self, held: HeldRoom, stored: Behind | Forked) -> None:
        """Bring the room and its stored log together: apply the events other nodes stored after
        ours, write back what the log lost (its tail, or all of it) from what we hold, or, when
        the stored log holds another history from some index on, heal the two (``_heal``)."""
        if isinstance(stored, Forked):
            await self._heal(held, stored.log)
        elif stored.length >= len(held.core.log):
            self._apply(held, stored.gap)  # the script found our tip at our length: they follow ours
        elif stored.tip == held.tip(stored.length):
            await self._write_back(held, stored.length)
        else:  # shorter, and not a prefix of ours: another history grew on a lost tail
            await self._heal(held, await self._read_all(held))

    async def _read_on(self, held: HeldRoom) -> None:
        """Read the log from where the core's ends (a doorbell rang, or a store call failed)."""
        start = len(held.core.log)
        length, gap, tip = await self.store.read_from(held.room.code, start, self.node)
        if tip != held.tip(min(start, length)):  # not our history up to there
            await self._heal(held, await self._read_all(held))
        elif length < start:
            await self._write_back(held, length)
        else:
            self._apply(held, gap)

    async def _read_all(self, held: HeldRoom) -> list[bytes]:
        return (await self.store.read_from(held.room.code, 0, self.node))[1]

    def _apply(self, held: HeldRoom, gap: list[bytes]) -> None:
        """Events other nodes stored: into the core, their frames to our connections."""
        if not gap:
            return
        tip = held.tip(len(held.core.log))
        outcome = held.core.apply([unpack(d) for d in gap], self.clock.now())
        held.chain += chain(tip, gap)
        self.fanout.send(outcome.frames)
        self._wake_at(held, outcome.wake)
        self._record_back(held, outcome.events)
        if not _moves_only(outcome.events):
            self._release_seatless(held)

    def _record_back(self, held: HeldRoom, events: list[Event]) -> None:
        """A member connected here whom the log calls gone (another node restarting, or its
        sweep counting this node dead through a stall, or a drop recorded after this node took
        the session over) is recorded back: a racer as reconnected, a spectator as joined again,
        with the room as it is now (a spectator stays among ``held.rewatching`` meanwhile)."""
        code = held.room.code
        back: list[tuple[Session, Presence | Left]] = []
        for event in events:
            if isinstance(event, Left) or (isinstance(event, Presence) and not event.connected):
                session = self.table.by_player.get(event.player)
                if session is not None and session.conn is not None and session.room == code:
                    back.append((session, event))
        for session, event in back:
            if isinstance(event, Presence):
                reconnect = functools.partial(self.run, held, _reconnect(event.player))
                self.spawn(self._until_recorded(held, session, reconnect))
            elif not held.room.has_member(event.player) and session.player not in held.rewatching:
                held.rewatching.add(session.player)
                self.spawn(self._rewatch(held, session))

    async def _until_recorded(self, held: HeldRoom, session: Session, record: Callable[[], Awaitable[object]]) -> None:
        """``record`` a member back, again every ``RECORD_BACK_EVERY`` s while the store fails and
        they are still connected here to a room still held: dropped, they would stay connected
        and hear nothing more of the race."""
        code = held.room.code
        while True:
            try:
                await record()
                return
            except ProtocolError as exc:  # the room closed meanwhile
                log_event("room.background_failed", room=code, error=str(exc))
                return
            except StoreError as exc:
                log_event("room.record_back_failed", room=code, player=session.player, error=str(exc))
            await asyncio.sleep(RECORD_BACK_EVERY)
            if session.conn is None or self.rooms.get(code) is not held:
                return

    async def _rewatch(self, held: HeldRoom, session: Session) -> None:
        """Seat a spectator connected here whom another node recorded as gone back among the
        spectators (``held.rewatching`` until done), and send them the room as it is now (their
        view goes on from there)."""
        try:
            await self._until_recorded(held, session, lambda: self._watch_again(held, session))
        finally:
            held.rewatching.discard(session.player)

    async def _watch_again(self, held: HeldRoom, session: Session) -> None:
        player = session.player
        code = held.room.code
        if held.room.has_member(player) or session.conn is None or session.room not in (None, code):
            return  # back already, gone, or elsewhere by now
        watch: Command = lambda core, now: core.join(player, session.name, True, now)  # noqa: E731
        try:
            outcome = await self.run(held, watch, then=lambda: self._seated(held, session))
            if not outcome.events:
                return
            reply = outcome.reply
        except ProtocolError as exc:
            if exc.code != ErrorCode.ALREADY_IN_ROOM:
                raise
            # An earlier try's append landed after all (the store answered too late to say so).
            await self._seated(held, session)
            reply = held.core.state_for(player, self.clock.now())
        self.fanout.send([(frozenset({player}), encode(reply))])
        log_event("session.rewatching", player=player, room=code)

    async def _write_back(self, held: HeldRoom, length: int) -> None:
        """The stored log lost its tail (or all of it): write back what this node holds beyond
        ``length``, and when it was wiped, the sessions of the room's visitors here too."""
        code = held.room.code
        log = held.core.log
        tail = log[length:]
        # A lost end is archived again (a second write changes nothing).
        archive = ended_races(log, length) if self.archiving else []
        append = Append(self._ttl(held), length, None, self.node, archive, tip=held.tip(length))
        appended = await self.store.append_at(code, [pack(e) for e in tail], append)
        if not isinstance(appended, Stored):
            held.stale = True  # someone wrote meanwhile: read again before the next command
            return
        log_event("room.log_restored", room=code, events=len(tail), kept=length)
        if archive:
            await self._index_archive(code)
        if length == 0:  # Redis was wiped: every node holding the room writes back its sessions
            await self.store.ring("wiped", code, self.node)
            await self._publish(held)

    async def _heal(self, held: HeldRoom, stored: list[bytes]) -> None:
        """The stored log holds another history from some index on: it lost a tail this node
        holds, and a node that never saw the tail appended there. When the two commute
        (``server.rooms.merge``) our tail is appended after theirs and the log replays with both;
        otherwise the stored history wins and our tail is dropped (``_adopt``)."""
        code = held.room.code
        theirs_chain = chain("", stored)
        ours_chain = held.chain
        parted = 0  # the length of the common prefix
        while parted < min(len(ours_chain), len(theirs_chain)) and ours_chain[parted] == theirs_chain[parted]:
            parted += 1
        log = held.core.log
        ours, theirs = log[parted:], [unpack(d) for d in stored[parted:]]
        if not theirs:  # the stored log is a prefix of ours after all (it changed since it was read)
            await self._write_back(held, parted)
            return
        if not ours:
            self._apply(held, stored[len(log) :])
            return
        try:
            extra = merge(ours, theirs)
            merged = RoomCore.load([*log[:parted], *theirs, *extra], self.clock.now())  # every move judged again
        except Unmergeable as exc:
            self._adopt(held, stored, theirs_chain, theirs, len(ours), str(exc))
            return
        except ValueError as exc:
            self._adopt(held, stored, theirs_chain, theirs, len(ours), f"the merged log does not replay: {exc}")
            return
        packed = [pack(e) for e in extra]
        extra_tips = chain(theirs_chain[-1], packed)
        archive = ended_races(merged.log, len(stored)) if self.archiving else []
        append = Append(self._ttl(held), len(stored), None, self.node, archive, tip=theirs_chain[-1], tips=extra_tips)
        appended = await self.store.append_at(code, packed, append)
        if not isinstance(appended, Stored):
            held.stale = True  # it changed again meanwhile: read it again before the next command
            return
        # Their events onto what we hold (our tail commutes with them): their frames to our
        # connections, spectators' frames scheduled; then the room and the log in the stored order
        # (the standings of an end in our tail ranked again with their moves in).
        core = held.core
        outcome = core.apply(theirs, self.clock.now())
        core.room, core.log = merged.room, merged.log
        held.chain = theirs_chain + extra_tips
        self.fanout.send(outcome.frames)
        if any(isinstance(e, RACE_WIDE) for e in extra):
            self._resync(held)
        self._wake_at(held, core.next_wake())
        self._record_back(held, theirs)
        self._release_seatless(held)
        log_event("room.histories_merged", room=code, kept=parted, theirs=len(theirs), ours=len(extra))
        if archive:
            await self._index_archive(code)

    def _adopt(
        self, held: HeldRoom, stored: list[bytes], tips: list[str], theirs: list[Event], dropped: int, why: str
    ) -> None:
        """Our lost tail (``dropped`` events) and the stored history (``theirs`` after the common
        prefix) cannot be one: the stored history wins (other nodes built on it). The room is loaded
        from it, and every member connected here is sent the room as it is now (a racer's board
        goes back to what is stored)."""
        code = held.room.code
        held.core = RoomCore.load([unpack(d) for d in stored], self.clock.now())
        held.chain = tips
        self._resync(held)
        self._wake_at(held, held.core.next_wake())
        self._record_back(held, theirs)
        self._release_seatless(held)
        log_event("room.tail_dropped", room=code, dropped=dropped, kept=len(stored), reason=why)

    def _resync(self, held: HeldRoom) -> None:
        """Send every member connected here the room as it is now."""
        now = self.clock.now()
        code = held.room.code
        for player in held.room.members:
            session = self.table.by_player.get(player)
            if session is not None and session.conn is not None and session.room == code:
                self.fanout.send([(frozenset({player}), encode(held.core.state_for(player, now)))])

    async def fresh(self, held: HeldRoom) -> None:
        """Under the room's lock: the room is still held here, and read again if it was unsure."""
        code = held.room.code
        if self.rooms.get(code) is not held:
            raise ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} has just closed")
        if held.stale:
            held.stale = False
            try:
                await self._read_on(held)
            except StoreError:
                held.stale = True
                raise
            except NewerFormat as exc:
                raise self._newer_held(held, exc) from None
            except ValueError as exc:
                raise self._lost(held, exc) from None

    def _newer_held(self, held: HeldRoom, exc: NewerFormat) -> ProtocolError:
        """A room held here whose log a newer build wrote on: let go, its visitors here told."""
        self._let_go(held)
        return self._newer(held.room.code, exc, set(held.visitors))

    def _newer(self, code: str, exc: NewerFormat, visitors: set[str]) -> ProtocolError:
        """A room whose log a newer build wrote: not held here, never written to, not called lost
        (the newer build's nodes serve it); the hooks move its visitors here to them, and the
        asker is told so."""
        log_event("room.newer_format", room=code, error=str(exc))
        for hook in self.newer:
            hook(code, visitors)
        return ProtocolError(ErrorCode.ROOM_UNAVAILABLE, f"room {code} is served by a newer server version: try again")

    def _lost(self, held: HeldRoom, exc: ValueError) -> ProtocolError:
        """The stored log does not replay on what this node holds: let the room go (a later
        load reads the stored log whole) and tell the asker."""
        code = held.room.code
        log_event("room.corrupt", room=code, error=str(exc))
        self._let_go(held)
        return ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} was lost")

    # -- timers ------------------------------------------------------------------------------

    def _wake_at(self, held: HeldRoom, wake: int | None) -> None:
        """The room's one timer, set for ``wake`` (None: no timer)."""
        if wake == held.wake_at and (held.timer is not None or wake is None):
            return
        if held.timer is not None:
            held.timer.cancel()
            held.timer = None
        held.wake_at = wake
        if wake is not None:
            held.timer = self.clock.call_at(wake, lambda: self.spawn(self._wake(held)))

    async def _wake(self, held: HeldRoom) -> None:
        """The room's time came: hand out the spectator frames due, then whatever the clock caused."""
        held.timer = None
        try:
            async with Locked(self, held):
                self.fanout.send(held.core.release(self.clock.now()))
                # Every node holding the room runs its timer: the second to fire finds it done.
                outcome, lifecycle = await self._locked_run(held, _tick, None, None, None, True, False)
            if outcome.events:
                await self._committed(held, lifecycle, False)
        except ProtocolError:
            return  # the room has closed
        except StoreError as exc:
            log_event("store.error", room=held.room.code, error=str(exc))
            self._wake_at(held, self.clock.now() + STORE_RETRY_MS)
            return
        await self.forget_if_idle(held)

    # -- letting go ----------------------------------------------------------------------------

    def _release_seatless(self, held: HeldRoom) -> None:
        """Sessions whose seat the room took away (grace ran out, a rematch went on without them)
        are in no room any more; unconnected ones are forgotten. Spectators being seated again
        (``held.rewatching``) are kept."""
        room = held.room
        for player in [p for p in held.visitors if not room.has_member(p) and p not in held.rewatching]:
            held.visitors.discard(player)
            session = self.table.by_player.get(player)
            if session is not None and session.room == room.code:
                session.room = None
                if session.conn is None:
                    self.table.forget(session)

    def _connected_here(self, held: HeldRoom) -> bool:
        """Whether a member of the room, or a player seated here (a spectator another node
        counted gone while this one stalled, to be seated again), has a connection to this node."""
        sessions = self.table.by_player
        if any((s := sessions.get(player)) is not None and s.conn is not None for player in held.room.members):
            return True
        code = held.room.code
        seated = (sessions.get(player) for player in held.visitors)
        return any(s is not None and s.conn is not None and s.room == code for s in seated)

    def _let_go(self, held: HeldRoom) -> None:
        """Stop holding a room: no timer, not held, its visitors' idle sessions forgotten."""
        if held.timer is not None:
            held.timer.cancel()
            held.timer = None
        if self.rooms.get(held.room.code) is held:
            del self.rooms[held.room.code]
            self.store.unlisten(((ROOM_BELL, held.room.code),))
        for player in held.visitors:
            session = self.table.by_player.get(player)
            if session is not None and session.conn is None:
                self.table.forget(session)

    async def _publish(self, held: HeldRoom) -> None:
        """Update the lobby listing to the room as it is now (unlisted once not held here):
        best effort, the events are stored already. One write at a time per room, each reading
        the room when it starts, so the last write is of the latest state."""
        async with held.listing:
            room = held.room
            listed = (
                self.rooms.get(room.code) is held
                and room.settings.public
                and room.phase != Phase.FINISHED
                and not room.is_empty()
                and not self.closed(room.code)
            )
            summary = msgpack.packb(room.summary().to_body()) if listed else None
            try:
                await self.store.set_listing(room.code, summary, self.config.room_ttl)
            except StoreError as exc:
                log_event("store.error", room=room.code, error=str(exc))

    async def _set_due(self, held: HeldRoom) -> None:
        """Say when the room next needs a node, for when none holds it then (best effort: a room a
        node holds runs its own timer; one nobody holds waits for a load or a node's sweep)."""
        try:
            await self.store.set_due(held.room.code, held.room.next_deadline())
        except StoreError as exc:
            log_event("store.error", room=held.room.code, error=str(exc))

    async def _index_archive(self, code: str) -> None:
        """Tell the archivers of a room with a race to archive: best effort, the mark is stored
        already (the archivers' sweep indexes a mark whose room this failed to index)."""
        try:
            await self.store.index_archive(code)
        except StoreError as exc:
            log_event("store.error", room=code, error=str(exc))
            return
        for hook in self.ended:
            hook(code)

    def _ttl(self, held: HeldRoom) -> float:
        return self.config.finished_ttl if held.room.phase == Phase.FINISHED else self.config.room_ttl

    @staticmethod
    async def quietly(work: Awaitable[object]) -> None:
        """Await background room work; a store failure or a closed room is logged, not raised."""
        try:
            await work
        except (StoreError, ProtocolError) as exc:
            log_event("room.background_failed", error=str(exc))


class Locked:
    """``async with Locked(path, held)``: the room's lock, on the room the path still holds
    (read again if a failure left it unsure); room-not-found when it closed while we waited.

    A class, not an ``@asynccontextmanager``: that is an async generator per command, which
    asyncio registers in a WeakSet and contextlib wraps: 2.35 against 0.67 us per ``async
    with`` (timeit, uvloop)."""

    __slots__ = ("held", "path")

    def __init__(self, path: RoomPath, held: HeldRoom) -> None:
        self.path = path
        self.held = held

    async def __aenter__(self) -> None:
        await self.held.lock.acquire()
        try:
            await self.path.fresh(self.held)
        except BaseException:
            self.held.lock.release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        self.held.lock.release()


def _ends(events: list[Event]) -> bool:
    """Whether a race ends among ``events`` (one type check per event: moves pass here)."""
    return any(type(e) is Ended for e in events)


def _tick(core: RoomCore, now: int) -> Outcome:
    return core.tick(now)


def _disconnect(player: str) -> Command:
    return lambda core, now: core.disconnect(player, now)


def seated_elsewhere(code: str) -> ProtocolError:
    return ProtocolError(
        ErrorCode.ALREADY_IN_ROOM,
        f"you are racing in room {code} on another tab or device: join room {code} to race here",
    )


def _connected(seat: Seat | None, spectating: bool) -> bool:
    """A spectator, or a racer whose seat is connected."""
    return seat.connected if seat is not None else spectating


def _reconnect(player: str) -> Command:
    return lambda core, now: core.reconnect(player, now)


def _describe(event: Event) -> dict[str, object]:
    return {f.name: getattr(event, f.name) for f in dataclasses.fields(event) if f.name not in ("at", "settings")}


def _driven_seats(room: Room) -> bool:
    """Whether ``room`` seats a bot or a ghost still racing (their node plays them)."""
    return any(player.startswith((BOT_PREFIX, GHOST_PREFIX)) and not seat.left for player, seat in room.seats.items())


_MOVES: Final = (Moved, Undone)
"""Racers' moves and undos: what a room's log holds most. A tuple, built once: ``Moved | Undone``
in an ``isinstance`` builds a union at every call, and this is asked on every move."""


def _is_move(event: Event) -> bool:
    return isinstance(event, _MOVES)


def _moves_only(events: list[Event]) -> bool:
    """Only racers' moves and undos (a loop, not a generator: it runs on every move)."""
    for event in events:  # noqa: SIM110 - a generator costs a frame per call
        if not isinstance(event, _MOVES):
            return False
    return True
