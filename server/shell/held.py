"""What the shell holds: a room held by this process, a request being answered, a room command,
and the way a request creates a room (the log line is ``server/logs.py``'s)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from websockets.asyncio.server import ServerConnection

from protocol.schema import Message
from server.rooms.core import Outcome, RoomCore
from server.rooms.room import Room
from server.rooms.settings import Settings
from server.shell.clock import Timer
from server.shell.sessions import Session

Command = Callable[[RoomCore, int], Outcome]
"""A room core command, given the time."""


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
    rewatching: set[str] = field(default_factory=set)
    """Spectators connected here whom another node recorded as gone, being seated again: kept as
    visitors (not released, the room not let go) until that is done."""
    ringing: bool = False
    """A doorbell's catch-up is queued."""
    rung: int = 0
    """The longest log length a doorbell announced since the last catch-up."""
    heard: dict[int, tuple[str, list[bytes]]] = field(default_factory=dict)
    """Events doorbells carried since the last catch-up, by the log index they start at, with the
    chain tip of the log they follow."""
    chain: list[str] = field(default_factory=list)
    """The chain tip after each event of the core's log (``store.base.chain`` of the stored bytes):
    an append names the log it was judged on by the tip at its index."""
    refreshed: int | None = None
    """When an append of this process last gave the room's stored keys their TTL (server ms)."""
    listing: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while the room's lobby listing is written: the writes of one room land in order,
    each with the room as it is when it is written (they run outside the room's lock)."""

    @property
    def room(self) -> Room:
        return self.core.room

    def tip(self, length: int) -> str:
        """The chain tip after the log's first ``length`` events ("" for none)."""
        return self.chain[length - 1] if length > 0 else ""


@dataclass(slots=True)
class Asker:
    """A request being answered: the connection that asked, and the seq to answer."""

    ws: ServerConnection
    session: Session
    seq: int
    pending: asyncio.Future[list[bytes]]
    """Resolved with the answer, for a resend of the same seq that arrives meanwhile."""
    answered: bool = False
    reply: Message | None = None
    """The answer, once sent."""


Create = Callable[[Asker, Settings], Awaitable[HeldRoom]]
"""Creates a room for the asker, within its creation budgets (``RoomRequests.create``)."""
