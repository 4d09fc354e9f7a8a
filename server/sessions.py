"""A player's session: who they are, which room they are in, their last request."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import msgpack
from websockets.asyncio.server import ServerConnection


@dataclass(slots=True)
class Session:
    token: str
    player: str
    name: str
    room: str | None = None
    last_seq: int = -1
    """The highest seq taken in; its answer is ``last_reply``, or ``pending`` while in flight."""
    last_reply: list[bytes] = field(default_factory=list)
    pending: asyncio.Future[list[bytes]] | None = None
    conn: ServerConnection | None = None

    def dump(self) -> bytes:
        """What the store keeps (the rest lives only while the process does)."""
        data: bytes = msgpack.packb([self.player, self.name, self.room])
        return data

    @classmethod
    def load(cls, token: str, data: bytes) -> Session:
        player, name, room = msgpack.unpackb(data, raw=False)
        return cls(token, player, name, room)
