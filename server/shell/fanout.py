"""Fan-out: frames to the connections of the players this node holds, without waiting."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Set

from websockets.asyncio.server import ServerConnection, broadcast

from protocol.errors import CloseCode
from server.rooms.core import Frame
from server.shell.guard import ConnectionGuard
from server.shell.sessions import Session

Broadcast = Callable[[Iterable[ServerConnection], bytes], None]
"""Writes one frame to many connections (``websockets.broadcast``; benchmarks count instead)."""


class Withheld:
    """The connections ``Fanout.withheld`` leaves room frames out for, until each is released."""

    __slots__ = ("greeting", "held")

    def __init__(self, greeting: set[ServerConnection], held: list[ServerConnection]) -> None:
        self.greeting = greeting
        self.held = held

    def release(self, conn: ServerConnection) -> None:
        """``conn`` was sent the room's state: the frames after it are its own again (a frame left
        out then, such as a start that came while the next racer was seated, is never sent)."""
        if conn in self.held:
            self.held.remove(conn)
            self.greeting.discard(conn)


class Fanout:
    """``send`` hands each frame to its audience's connections; ``write`` to given ones.

    A connection whose unsent bytes pass ``max_write_buffer`` stops reading for us: it is let
    go (1008) instead of buffering without bound. Connections in ``greeting`` are being
    welcomed: their room frames wait until their room state has gone out (``Connections``).
    """

    def __init__(
        self,
        players: Mapping[str, Session],
        guard: ConnectionGuard,
        max_write_buffer: int,
        write: Broadcast = broadcast,
    ) -> None:
        self.players = players
        self.guard = guard
        self.max_write_buffer = max_write_buffer
        self.broadcast = write
        self.greeting: set[ServerConnection] = set()

    def send(self, frames: Iterable[Frame]) -> None:
        for audience, frame in frames:
            self.write(self.connections(audience), frame)

    @contextlib.contextmanager
    def withheld(self, conns: Iterable[ServerConnection]) -> Iterator[Withheld]:
        """Room frames to ``conns`` are left out meanwhile, as for a connection being welcomed:
        for players put in a room whose state they are sent after (it holds what was left out).
        Each connection sent its state is ``released`` at once: what follows it reaches it."""
        withheld = Withheld(self.greeting, [conn for conn in conns if conn not in self.greeting])
        self.greeting.update(withheld.held)
        try:
            yield withheld
        finally:
            self.greeting.difference_update(withheld.held)

    def connections(self, players: Set[str]) -> list[ServerConnection]:
        conns = []
        for player in players:
            session = self.players.get(player)
            if session is not None and session.conn is not None and session.conn not in self.greeting:
                conns.append(session.conn)
        return conns

    def write(self, conns: list[ServerConnection], frame: bytes) -> None:
        """Hand ``frame`` to each connection without waiting; one that stops reading is let go."""
        ready = []
        for conn in conns:
            if conn in self.guard.closing:
                continue
            if conn.transport.get_write_buffer_size() > self.max_write_buffer:
                self.guard.let_go(conn, CloseCode.POLICY, "too slow: not reading")
            else:
                ready.append(conn)
        if ready:
            self.broadcast(ready, frame)
