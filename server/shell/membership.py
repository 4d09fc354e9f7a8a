"""Membership: who is in a room held here (part of the room path, ``server.shell.roompath``).
Joining (asked, or seated by quick match), leaving, a dropped connection, a player's one seat
moving between their sessions (``take_seat``, ``lose_seat``), the checks before a new room
(``check_free``), members whose node is gone dropped (``drop_lost``), members connected here whom
the log calls gone recorded back (``_record_back``: a racer reconnected, a spectator rewatching),
and a room let go once nobody here is in it (``forget_if_idle``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Awaitable, Callable
from typing import Final

from protocol.codec import encode
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import GHOST_PREFIX, SeatTaken
from protocol.schema import Message
from server.logs import log_event
from server.rooms.core import Outcome, RoomCore
from server.rooms.events import Event, Left, Presence
from server.rooms.room import BOT_PREFIX, Room, Seat
from server.shell.held import Asker, Command, HeldRoom
from server.shell.roombase import RoomBase
from server.shell.sessions import SEAT_TAKEN, SESSION_BELL, Session
from server.store.base import StoreError

RECORD_BACK_EVERY: Final = 0.5
"""Seconds between two tries at recording a member back while the store fails (the stall that made
another node count this one dead most often fails this node's first calls after it, too)."""


class Membership(RoomBase):
    """Joins, leaves, drops and seats of the rooms held here, and members recorded back: the room
    path's part that keeps who is in a room."""

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

    def _connected_here(self, held: HeldRoom) -> bool:
        """Whether a member of the room, or a player seated here (a spectator another node
        counted gone while this one stalled, to be seated again), has a connection to this node."""
        sessions = self.table.by_player
        if any((s := sessions.get(player)) is not None and s.conn is not None for player in held.room.members):
            return True
        code = held.room.code
        seated = (sessions.get(player) for player in held.visitors)
        return any(s is not None and s.conn is not None and s.room == code for s in seated)

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


def _driven_seats(room: Room) -> bool:
    """Whether ``room`` seats a bot or a ghost still racing (their node plays them)."""
    return any(player.startswith((BOT_PREFIX, GHOST_PREFIX)) and not seat.left for player, seat in room.seats.items())
