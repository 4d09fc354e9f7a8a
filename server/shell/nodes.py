"""Keeping this node in step with the others on the same store: doorbells (a room's log grew,
a session was taken over, a log was wiped, a frame for a player), the heartbeat, and the members
of nodes that died."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from typing import Final, Protocol

from protocol.errors import CloseCode, ProtocolError
from server.logs import log_event
from server.shell.fanout import Fanout
from server.shell.held import HeldRoom
from server.shell.roompath import ROOM_BELL, RoomPath, Spawn
from server.shell.sessions import PLAYER_BELL, SEAT_TAKEN, SESSION_BELL, SessionTable
from server.store.base import StoreError, chain, room_bell
from server.store.interfaces import Doorbells, Nodes


class NodeStore(Doorbells, Nodes, Protocol):
    """What keeping in step with the other nodes needs of the store."""


BEAT_SECONDS: Final = 2.0
"""How often a node says it is alive, and looks for members connected through dead nodes."""
BEAT_LIFE: Final = 3
"""Beats a node may miss before the others count it dead."""
SWEEP_EVERY: Final = 15
"""Beats between two looks at every room's members even though no node is listed dead."""
HEARD_AT_MOST: Final = 64
"""Doorbells' events kept per room until its catch-up runs (more: the catch-up reads the log)."""
DUE_SLACK_MS: Final = 2000
"""How late a room's due time must be before a node that does not hold it claims it (its holders'
own timers act on time and say when it is due next)."""
DUE_LEASE_MS: Final = 10_000
"""How long a claimed due room is passed over by the other nodes' polls."""
DUE_AT_ONCE: Final = 200
"""Due rooms claimed and loaded at once (a dead node's ten thousand rooms load in batches)."""
ANY_LENGTH: Final = sys.maxsize
"""What a room's log may have grown to when doorbells may have been missed."""
CATCH_UP_RETRY: Final = 1.0
"""Seconds before a room whose catch-up the store failed is read again (no later move may come to
read it: a spectator recorded gone through a stall would hear nothing more)."""


class NodeUpkeep:
    """This node's side of a multi-node deployment: the rooms of ``path`` and the sessions of
    ``table`` kept in step with what the other nodes store."""

    def __init__(
        self,
        path: RoomPath,
        table: SessionTable,
        fanout: Fanout,
        store: NodeStore,
        spawn: Spawn,
        node: str,
        heard: Callable[[str, bytes], None] | None = None,
    ) -> None:
        """``heard``: told of each frame a player's doorbell brought here (player, frame)."""
        self.path = path
        self.table = table
        self.fanout = fanout
        self.store = store
        self.spawn = spawn
        self.node = node
        self.heard = heard
        self.beats = 0

    def ring(self, kind: str, key: str, data: bytes) -> None:
        """A doorbell: a room's log grew or was written back whole (catch up), another node took
        a session over, or a frame for a player (sent if their connection is here)."""
        if kind == PLAYER_BELL:  # to each of the player's connections here
            self.fanout.write([s.conn for s in self.table.sessions_of(key) if s.conn is not None], data)
            if self.heard is not None:
                self.heard(key, data)
            return
        if kind == SESSION_BELL:
            session = self.table.by_token.get(key)
            if session is None or data.decode(errors="replace") == self.node:
                return
            if data.startswith(SEAT_TAKEN):  # another connection of the player took the seat
                code = data[len(SEAT_TAKEN) :].decode(errors="replace")
                self.path.lose_seat(session, code)
                return
            old, session.conn = session.conn, None  # not a drop: the player is connected elsewhere
            self.store.unlisten(((SESSION_BELL, key), (PLAYER_BELL, session.player)))
            self.table.forget(session)  # a later hello here reads it from the store again
            if old is not None:
                self.spawn(old.close(CloseCode.REPLACED, "replaced by a newer connection with the same token"))
            return
        length = 0
        if kind == ROOM_BELL:
            held = self.path.rooms.get(key)
            loading = self.path.loading.get(key) if held is None else None
            if loading is not None:  # rung after its read, before it is held: ring again once held
                self.spawn(self._ring_when_loaded(loading, key, data))
            length, events, tip = room_bell(data)
            rooms = [held] if held is not None and length > len(held.core.log) else []
            if rooms and events is not None and len(rooms[0].heard) < HEARD_AT_MOST:
                rooms[0].heard[length - len(events)] = (tip, events)
        elif kind == "wiped":  # read it again: the read makes this node one of its holders again
            self.spawn(self._save_sessions(key))
            held = self.path.rooms.get(key)
            rooms = [held] if held is not None else []
        else:  # doorbells may have been missed
            rooms = list(self.path.rooms.values())
        for held in rooms:
            self._rung(held, max(held.rung, length) if kind == ROOM_BELL else ANY_LENGTH)

    def _rung(self, held: HeldRoom, length: int) -> None:
        held.rung = length
        if not held.ringing:
            held.ringing = True
            self.spawn(self._catch_up(held))

    async def _ring_when_loaded(self, loading: asyncio.Future[HeldRoom | None], key: str, data: bytes) -> None:
        with contextlib.suppress(Exception):
            await asyncio.shield(loading)
        if self.path.rooms.get(key) is not None:
            self.ring("room", key, data)

    async def heartbeat(self) -> None:
        """Say this node is alive; members whose connection was on a node that stopped saying so
        are dropped (their grace period starts), as if that node had recorded the drop; and the
        rooms whose time came with no node holding them are loaded here (``RoomPath.due``)."""
        while True:
            try:
                await self.store.beat(self.node, BEAT_SECONDS * BEAT_LIFE)
                await self._drop_the_dead_nodes_members()
            except StoreError as exc:
                log_event("store.error", error=str(exc))
            await asyncio.sleep(BEAT_SECONDS)

    async def due_rooms(self) -> None:
        """Every beat, load the rooms whose time came a while ago with no node acting on it (a
        node holding a room acts on its own timer, on time, and says when it is due next): a batch
        at a time, each batch done before the next is claimed, until none is left."""
        while True:
            try:
                while len(await self._claim_due()) == DUE_AT_ONCE:
                    pass
            except StoreError as exc:
                log_event("store.error", error=str(exc))
            await asyncio.sleep(BEAT_SECONDS)

    async def _drop_the_dead_nodes_members(self) -> None:
        # Looking each room's members up costs a store call per room: only while some node has
        # stopped beating lately, and every SWEEP_EVERY beats anyway (a node that died unlisted).
        self.beats += 1
        dead = await self.store.dead()
        for node in sorted(dead):
            # The rooms a dead node had members in become due (every survivor may hand them over:
            # a second finds nothing left), and whoever loads one records the drops.
            await self.store.hand_over(node, self.path.clock.now())
        if self.beats % SWEEP_EVERY and not dead:
            return
        alive = await self.store.alive()
        for held in list(self.path.rooms.values()):
            await self.path.drop_lost(held, alive)

    async def _claim_due(self) -> list[str]:
        """One batch of due rooms, claimed and loaded (those held here run their own timers)."""
        now = self.path.clock.now()
        claimed = await self.store.claim_due(now - DUE_SLACK_MS, DUE_LEASE_MS, DUE_AT_ONCE)
        await asyncio.gather(*(RoomPath.quietly(self.path.due(c)) for c in claimed if c not in self.path.rooms))
        return claimed

    async def _save_sessions(self, code: str) -> None:
        """Write back the sessions held here of the room whose log was wiped."""
        for session in [s for s in self.table.by_token.values() if s.room == code]:
            try:
                await self.table.save(session)
            except StoreError as exc:
                log_event("store.error", room=code, error=str(exc))
                return

    async def _catch_up(self, held: HeldRoom) -> None:
        try:
            await self.path.catch_up(held, self._heard)
            await self.path.forget_if_idle(held)  # everyone may have left through other nodes
        except ProtocolError:
            return  # the room closed
        except (StoreError, ValueError) as exc:
            held.stale = True  # the next command or doorbell reads again, or the retry below
            log_event("store.error", room=held.room.code, error=str(exc))
            if isinstance(exc, StoreError):  # it may pass (a stall, an outage); bad data would not
                self.spawn(self._catch_up_later(held))
        finally:
            held.ringing = False

    async def _catch_up_later(self, held: HeldRoom) -> None:
        await asyncio.sleep(CATCH_UP_RETRY)
        if self.path.rooms.get(held.room.code) is held and held.stale:
            self._rung(held, ANY_LENGTH)

    @staticmethod
    def _heard(held: HeldRoom) -> list[bytes] | None:
        """Under the room's lock: the events the doorbells carried, when they reach as far as
        the longest log they announced (None: read the log). A command that ran meanwhile may
        have read what they announced."""
        held.ringing = False
        heard, held.heard = held.heard, {}
        if held.rung <= len(held.core.log):
            return []
        length = len(held.core.log)
        gap = _contiguous(heard, length, held.tip(length))
        reaches = len(held.core.log) + len(gap) >= held.rung
        held.rung = 0
        return gap if reaches else None


def _contiguous(heard: dict[int, tuple[str, list[bytes]]], start: int, tip: str) -> list[bytes]:
    """The events heard from log index ``start`` on (where the log's chain tip is ``tip``), as far
    as they run without a gap and each follows the history before it (a doorbell of another
    history, grown on a lost tail, is not applied: the log is read and healed)."""
    gap: list[bytes] = []
    while (found := heard.get(start + len(gap))) is not None and found[0] == tip:
        gap += found[1]
        tip = chain(tip, found[1])[-1]
    return gap
