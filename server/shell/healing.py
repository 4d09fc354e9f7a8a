"""Healing: a room held here and its stored log brought together (part of the room path,
``server.shell.roompath``). Another node's appends applied (``catch_up``, from a doorbell or a
read), a lost tail written back, two histories that part merged or the stored one adopted, and
every member here sent the room as it is then (``_resync``). ``Locked`` enters a room's lock on
the room as stored: a room a failed store call left unsure is read again first (``fresh``).
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.codec import encode
from protocol.errors import ErrorCode, ProtocolError
from server.logs import log_event
from server.rooms.core import RoomCore
from server.rooms.events import Event, NewerFormat, pack, unpack
from server.rooms.history import ended_races
from server.rooms.merge import RACE_WIDE, Unmergeable, merge
from server.shell.held import HeldRoom
from server.shell.roombase import RoomBase, moves_only
from server.store.base import Append, Behind, Forked, Stored, StoreError, chain

Heard = Callable[[HeldRoom], list[bytes] | None]
"""What a node already heard of a room's log beyond its core (None: read the log)."""


class Healing(RoomBase):
    """Catching up with the stored log, writing back what it lost, merging or adopting another
    history: the room path's part that heals."""

    async def catch_up(self, held: HeldRoom, known: Heard | None = None) -> None:
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
        if not moves_only(outcome.events):
            self._release_seatless(held)

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


class Locked:
    """``async with Locked(path, held)``: the room's lock, on the room the path still holds
    (read again if a failure left it unsure); room-not-found when it closed while we waited.

    A class, not an ``@asynccontextmanager``: that is an async generator per command, which
    asyncio registers in a WeakSet and contextlib wraps: 2.35 against 0.67 us per ``async
    with`` (timeit, uvloop)."""

    __slots__ = ("held", "path")

    def __init__(self, path: Healing, held: HeldRoom) -> None:
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
