"""What every part of the room path shares (``server.shell.roompath``): the rooms held here, what
the path is given at construction, the one observer of its moments (``RoomObserver``), each
room's one timer, and letting a room go (its listing, its due time, its archive index).

The room path is three parts over this base, each a mixin as the store's parts are
(``server.store.memory``): ``roompath`` the move path, ``healing`` the room and its stored log
brought together, ``membership`` who is in a room here. They call each other through ``self``; the
few calls across parts are declared here (``get``, ``run``, ``_wake``, ``_record_back``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final, Protocol

import msgpack

from protocol.enums import Phase
from protocol.errors import ErrorCode, ProtocolError
from protocol.schema import Message
from server.config import Config
from server.logs import log_event
from server.rooms.core import Outcome
from server.rooms.events import Event, Moved, NewerFormat, Undone
from server.shell.clock import Clock
from server.shell.fanout import Fanout
from server.shell.held import Asker, Command, HeldRoom
from server.shell.replies import Replies
from server.shell.sessions import SessionTable
from server.store.base import StoreError
from server.store.interfaces import Archives, Doorbells, Listings, Nodes, RoomLog

ROOM_BELL: Final = "room"
"""The doorbell kind of a room's appends (key: the room's code), heard while the room is held here."""

Spawn = Callable[[Coroutine[Any, Any, None]], None]
"""Runs a coroutine in the background (``Tasks.spawn``)."""
Then = Callable[[], Awaitable[None]]
"""What a command's caller does once its events are stored, before the answer."""


class RoomStore(RoomLog, Listings, Doorbells, Nodes, Archives, Protocol):
    """What the room path needs of the store: the rooms' logs, their listings, the doorbell of a
    wiped log, each member's place, and the archive's marks of finished races."""


class RoomObserver(Protocol):
    """What the rest of the node hears of the room path, one method per moment, named for when it
    runs; given at the path's construction (server/app.py's ``RoomHooks``)."""

    def after_commit(self, code: str) -> None:
        """After every commit that stored events (moves too: cheap), outside the room's lock and
        after the answer (bots and ghosts look again)."""

    async def before_lifecycle_answer(self, held: HeldRoom, lifecycle: list[Event]) -> None:
        """Lifecycle events (not moves or undos) committed: under the room's lock, before the answer
        and the frames, for what someone who hears of them may count on already (the daily board)."""

    def after_lifecycle_commit(self, code: str) -> None:
        """After a commit of lifecycle events, outside the lock and after the answer (a rematch
        every racer still there voted for starts)."""

    def race_end_indexed(self, code: str) -> None:
        """A race's end is stored with its archive mark and indexed for the archivers."""

    def newer_build_seen(self, code: str, visitors: set[str]) -> None:
        """The room's log turned out a newer build's: it is not held here; ``visitors`` its
        visitors here (to move to the newer build's nodes)."""

    def closed_by_moderators(self, code: str) -> bool:
        """Whether a moderator closed the room of this code (then it is not found, nor listed)."""


class RoomMoments:
    """The path's moments for the parts built on the path (bots, ghosts, rematches, the drain):
    they run commands on it, so they cannot be built before it, and the path hears nothing they
    build. Each listens here from its own construction; the path's observer, built before the
    path, tells this hub, which tells them in the order they listened."""

    def __init__(self) -> None:
        self.commits: list[Callable[[str], None]] = []
        self.lifecycle_commits: list[Callable[[str], None]] = []
        self.newer_builds: list[Callable[[str, set[str]], None]] = []

    def on_commit(self, hook: Callable[[str], None]) -> None:
        """``hook(code)`` after every commit that stored events (``RoomObserver.after_commit``)."""
        self.commits.append(hook)

    def on_lifecycle_commit(self, hook: Callable[[str], None]) -> None:
        """``hook(code)`` after a commit of lifecycle events (``after_lifecycle_commit``)."""
        self.lifecycle_commits.append(hook)

    def on_newer_build(self, hook: Callable[[str, set[str]], None]) -> None:
        """``hook(code, visitors)`` when a room turns out a newer build's (``newer_build_seen``)."""
        self.newer_builds.append(hook)

    def committed(self, code: str) -> None:
        for hook in self.commits:
            hook(code)

    def lifecycle_committed(self, code: str) -> None:
        for hook in self.lifecycle_commits:
            hook(code)

    def newer_build(self, code: str, visitors: set[str]) -> None:
        for hook in self.newer_builds:
            hook(code, visitors)


class RoomBase:
    """The rooms this node holds, what the path was given, and what its three parts share."""

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
        observer: RoomObserver,
        *,
        archiving: bool = False,
    ) -> None:
        self.store = store
        self.table = table
        self.fanout = fanout
        self.replies = replies
        self.clock = clock
        self.config = config
        self.node = node
        self.spawn = spawn
        self.archiving = archiving
        """Races are archived: each race's end is stored with its archive mark (off: no marks, which
        would keep finished logs alive until an archiver cleared them)."""
        self.rooms: dict[str, HeldRoom] = {}
        self.loading: dict[str, asyncio.Future[HeldRoom | None]] = {}
        self.observer = observer
        """The one observer of the path's moments, given at construction."""

    # -- what one part asks of another ---------------------------------------------------------

    async def get(self, code: str) -> HeldRoom | None:
        """The room of this code (the move path's)."""
        raise NotImplementedError

    async def run(
        self,
        held: HeldRoom,
        command: Command,
        asker: Asker | None = None,
        *,
        then: Then | None = None,
        reply: Message | None = None,
        send: bool = True,
        listed_first: bool = False,
        ends_stay: str | None = None,
    ) -> Outcome:
        """Run a command on the room (the move path's)."""
        raise NotImplementedError

    async def _wake(self, held: HeldRoom) -> None:
        """The room's time came (the move path's)."""
        raise NotImplementedError

    def _record_back(self, held: HeldRoom, events: list[Event]) -> None:
        """Members connected here whom ``events`` call gone, recorded back (membership's)."""
        raise NotImplementedError

    # -- a room's timer, a room that cannot stay here --------------------------------------------

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

    def _newer_held(self, held: HeldRoom, exc: NewerFormat) -> ProtocolError:
        """A room held here whose log a newer build wrote on: let go, its visitors here told."""
        self._let_go(held)
        return self._newer(held.room.code, exc, set(held.visitors))

    def _newer(self, code: str, exc: NewerFormat, visitors: set[str]) -> ProtocolError:
        """A room whose log a newer build wrote: not held here, never written to, not called lost
        (the newer build's nodes serve it); the observer moves its visitors here to them, and the
        asker is told so."""
        log_event("room.newer_format", room=code, error=str(exc))
        self.observer.newer_build_seen(code, visitors)
        return ProtocolError(ErrorCode.ROOM_UNAVAILABLE, f"room {code} is served by a newer server version: try again")

    def _lost(self, held: HeldRoom, exc: ValueError) -> ProtocolError:
        """The stored log does not replay on what this node holds: let the room go (a later
        load reads the stored log whole) and tell the asker."""
        code = held.room.code
        log_event("room.corrupt", room=code, error=str(exc))
        self._let_go(held)
        return ProtocolError(ErrorCode.ROOM_NOT_FOUND, f"room {code} was lost")

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
                and not self.observer.closed_by_moderators(room.code)
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
        self.observer.race_end_indexed(code)

    def _ttl(self, held: HeldRoom) -> float:
        return self.config.finished_ttl if held.room.phase == Phase.FINISHED else self.config.room_ttl

    @staticmethod
    async def quietly(work: Awaitable[object]) -> None:
        """Await background room work; a store failure or a closed room is logged, not raised."""
        try:
            await work
        except (StoreError, ProtocolError) as exc:
            log_event("room.background_failed", error=str(exc))


_MOVES: Final = (Moved, Undone)
"""Racers' moves and undos: what a room's log holds most. A tuple, built once: ``Moved | Undone``
in an ``isinstance`` builds a union at every call, and this is asked on every move."""


def is_move(event: Event) -> bool:
    return isinstance(event, _MOVES)


def moves_only(events: list[Event]) -> bool:
    """Only racers' moves and undos (a loop, not a generator: it runs on every move)."""
    for event in events:  # noqa: SIM110 - a generator costs a frame per call
        if not isinstance(event, _MOVES):
            return False
    return True
