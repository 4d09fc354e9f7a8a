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
created room listed, a daily finish on the board) comes before the answer. The rest of the node
hears of these moments through one ``RoomObserver`` (``server.shell.roombase``).

This module is the move path (``run``) and a room's coming and going here (``get``, ``create``,
``due``); ``RoomPath`` also takes in its two other parts: ``healing`` (the room and its stored
log brought together) and ``membership`` (who is in a room here).
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Final

from protocol.codec import encode
from protocol.enums import Phase
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Ok
from protocol.schema import Message
from server.logs import log_event
from server.rooms.core import Outcome, RoomCore
from server.rooms.events import Ended, Event, NewerFormat, pack, unpack
from server.rooms.settings import Settings
from server.shell.healing import Healing, Heard, Locked
from server.shell.held import Asker, Command, HeldRoom
from server.shell.membership import Membership, seated_elsewhere
from server.shell.names import new_room_code
from server.shell.roombase import ROOM_BELL, RoomObserver, RoomStore, Spawn, Then, is_move, moves_only
from server.store.base import Append, Appended, Behind, Duplicate, Forked, Request, Stored, StoreError, chain

__all__ = [
    "MAX_CONFLICTS",
    "REFRESH_AFTER",
    "ROOM_BELL",
    "STORE_RETRY_MS",
    "Heard",
    "Locked",
    "RoomObserver",
    "RoomPath",
    "RoomStore",
    "Spawn",
    "seated_elsewhere",
]

STORE_RETRY_MS: Final = 1000
"""How soon a room's timer tries again when the store failed it."""
MAX_CONFLICTS: Final = 20
"""Times a command is judged again because another node wrote to the room first."""
REFRESH_AFTER: Final = 1 / 8
"""The part of a room's TTL after which an append gives its keys the TTL again; appends of moves
and undos sooner leave it (5 Redis commands fewer a move), so a room's log outlives its last append
by at least 7/8 of its TTL. Any other event gives the TTL: its length changes with the phase."""


class RoomPath(Healing, Membership):
    """The rooms this node holds, and the one way to change them.

    ``get`` a room (loaded once however many ask), ``run`` a command on it, ``create`` and
    ``join`` one, ``catch_up`` with what other nodes stored, ``dropped`` for a closed
    connection, ``forget_if_idle`` once nobody is left. Its ``observer`` hears each moment
    (``RoomObserver``: after a commit, before a lifecycle answer, ...).
    """

    # -- rooms held here ---------------------------------------------------------------------

    async def get(self, code: str) -> HeldRoom | None:
        """The room of this code: held here, or loaded from the store once however many ask."""
        if self.observer.closed_by_moderators(code):
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

    async def settled(self, held: HeldRoom) -> None:
        """Return once no command runs on ``held``: what one under way sends has gone out."""
        async with held.lock:
            return

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
        then: Then | None = None,
        reply: Message | None = None,
        send: bool = True,
        listed_first: bool = False,
        ends_stay: str | None = None,
    ) -> Outcome:
        """Run ``command`` on the room: store what it caused, ``then`` (stored, not yet told),
        answer ``asker`` (with ``reply`` in place of the core's, when given), send the room its
        frames (unless the caller sends them later), set its timer; then the observer, after the
        lock. ``listed_first``: the lobby listing is written before the answer. ``ends_stay``: the
        player the command takes out of the room, whose memo the room then forgets (``Request``)."""
        async with Locked(self, held):
            outcome, lifecycle = await self._locked_run(
                held, command, asker, then=then, reply=reply, send=send, listed_first=listed_first, ends_stay=ends_stay
            )
        if outcome.events:
            await self._committed(held, lifecycle, listed=listed_first)
        return outcome

    async def _locked_run(
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
        lifecycle: list[Event] = [] if moves_only(outcome.events) else [e for e in outcome.events if not is_move(e)]
        if lifecycle:
            await self.observer.before_lifecycle_answer(held, lifecycle)
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
        refresh = refreshed is None or now - refreshed >= ttl * REFRESH_AFTER * 1000 or not moves_only(events)
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

    async def _committed(self, held: HeldRoom, lifecycle: list[Event], *, listed: bool) -> None:
        """After a commit that stored something, outside the lock and after the answer: the
        observer told of every such commit (bots), and for lifecycle events the logs, seats taken
        away and the lobby listing (unless ``listed`` before the answer)."""
        code = held.room.code
        observer = self.observer
        observer.after_commit(code)
        if not lifecycle:
            return
        observer.after_lifecycle_commit(code)
        await self._set_due(held)
        if self.archiving and _ends(lifecycle):
            await self._index_archive(code)
        for event in lifecycle:
            log_event("room." + type(event).__name__.lower(), room=held.room.code, **_describe(event))
        self._release_seatless(held)
        if not listed:
            await self._publish(held)

    # -- timers ------------------------------------------------------------------------------

    async def _wake(self, held: HeldRoom) -> None:
        """The room's time came: hand out the spectator frames due, then whatever the clock caused."""
        held.timer = None
        try:
            async with Locked(self, held):
                self.fanout.send(held.core.release(self.clock.now()))
                # Every node holding the room runs its timer: the second to fire finds it done.
                outcome, lifecycle = await self._locked_run(held, _tick)
            if outcome.events:
                await self._committed(held, lifecycle, listed=False)
        except ProtocolError:
            return  # the room has closed
        except StoreError as exc:
            log_event("store.error", room=held.room.code, error=str(exc))
            self._wake_at(held, self.clock.now() + STORE_RETRY_MS)
            return
        await self.forget_if_idle(held)


def _ends(events: list[Event]) -> bool:
    """Whether a race ends among ``events`` (one type check per event: moves pass here)."""
    return any(type(e) is Ended for e in events)


def _tick(core: RoomCore, now: int) -> Outcome:
    return core.tick(now)


def _describe(event: Event) -> dict[str, object]:
    return {f.name: getattr(event, f.name) for f in dataclasses.fields(event) if f.name not in ("at", "settings")}
