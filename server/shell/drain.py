"""Taking this node out of service without cutting its races (docs/admin.md, "Drain").

A drain (SIGUSR1, or the admin API's ``POST /drain``) stops taking connections here: ``/healthz``
answers 503 ``draining`` so the balancer's check takes the node out, and a new connection is
closed with 4003 (try another node) so its client reconnects through the balancer. Every
connection not in a live race (countdown or racing) is moved the same way at once, and each
racer's as soon as their race is over; racers still racing after ``limit`` seconds are moved
too (their room goes on on the node they reconnect to: it loads the room from the store). Then
``done`` is set and the command stops gracefully.

A node that meets a room a newer server version wrote moves that room's members here at once
(4003); and while a node of a newer build is alive on the store (a node's name ends with its format
version: ``NAME.fN``), it is **outdated**: that build reads every room this one wrote, so new
connections go there (503 ``outdated``, 4003) while the connections here stay. Only while one is
alive: after a rollback, with newer rooms left in the store and no newer node, the older nodes stay
in service (those rooms wait for a newer node).
"""

from __future__ import annotations

import asyncio
from typing import Final

from protocol.enums import Phase
from protocol.errors import CloseCode
from server.logs import log_event
from server.shell.guard import ConnectionGuard, Spawn
from server.shell.held import HeldRoom
from server.shell.roombase import RoomMoments
from server.shell.sessions import SessionTable
from server.store.base import StoreError
from server.store.interfaces import Nodes

LOOK_SECONDS: Final = 0.25
"""How often a draining node looks for connections whose race is over."""
MOVE_REASON: Final = "this node is draining: reconnect"
LIVE: Final = frozenset({Phase.COUNTDOWN, Phase.RACING})
WATCH_SECONDS: Final = 5.0
"""How often a node that met a newer build's room looks whether a node of that build is alive."""


def node_name(token: str, format_version: int) -> str:
    """A node's name on the store: its random token and the format version of its build."""
    return f"{token}.f{format_version}"


def format_of(node: str) -> int:
    """The format version in a node's name (0: a name of a build before names carried it)."""
    _, dot, version = node.rpartition(".f")
    return int(version) if dot and version.isdigit() else 0


class Drain:
    """Whether this node takes connections, and the drain that empties it."""

    def __init__(
        self,
        table: SessionTable,
        rooms: dict[str, HeldRoom],
        guard: ConnectionGuard,
        spawn: Spawn,
        limit: float,
        nodes: Nodes,
        format_version: int,
        moments: RoomMoments,
    ) -> None:
        self.nodes = nodes
        self.format_version = format_version
        """This build's format version (``server.rooms.events.FORMAT``)."""
        self.met_newer = False
        self.table = table
        self.rooms = rooms
        self.guard = guard
        self.spawn = spawn
        self.limit = limit
        """Seconds live races may take to finish before their racers are moved."""
        self.draining = False
        self.outdated = False
        self.done = asyncio.Event()
        """Set once a drain has moved every connection: the node may stop."""
        moments.on_newer_build(self.newer_build)

    def status(self) -> str | None:
        """Why this node takes no new connections (None: it takes them), for ``/healthz``."""
        if self.draining:
            return "draining"
        if self.outdated:
            return "outdated: a newer server version serves this store"
        return None

    def begin(self, why: str) -> bool:
        """Start draining (False: already draining)."""
        if self.draining:
            return False
        self.draining = True
        log_event("server.draining", why=why, limit=self.limit, connections=self.guard.connections)
        self.spawn(self._empty())
        return True

    def newer_build(self, code: str, players: set[str]) -> None:
        """A room here turned out a newer build's: its members here reconnect elsewhere, and new
        connections go to the newer build's nodes."""
        if not self.met_newer:
            self.met_newer = True
            log_event("server.newer_build_met", room=code)
            self.spawn(self._watch_newer())
        for player in players:
            session = self.table.by_player.get(player)
            if session is not None and session.conn is not None:
                self.guard.let_go(session.conn, CloseCode.TRY_ANOTHER_NODE, "your room is served by a newer node")

    async def _watch_newer(self) -> None:
        """Outdated while a node of a newer build beats on the store."""
        while True:
            try:
                newer = any(format_of(node) > self.format_version for node in await self.nodes.alive())
            except StoreError as exc:
                log_event("store.error", error=str(exc))
            else:
                if newer != self.outdated:
                    self.outdated = newer
                    log_event("server.outdated" if newer else "server.current")
            await asyncio.sleep(WATCH_SECONDS)

    async def _empty(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limit
        while True:
            past = loop.time() >= deadline
            left = 0
            for session in list(self.table.by_token.values()):
                conn = session.conn
                if conn is None or conn in self.guard.closing:
                    continue
                held = self.rooms.get(session.room) if session.room is not None else None
                if not past and held is not None and held.room.phase in LIVE and held.room.has_member(session.player):
                    left += 1
                    continue
                self.guard.let_go(conn, CloseCode.TRY_ANOTHER_NODE, MOVE_REASON)
            # Past the limit, connections that never said hello are not waited for: nothing of
            # theirs is held here.
            if not left and (past or not self.guard.connections):
                break
            await asyncio.sleep(LOOK_SECONDS)
        log_event("server.drained", moved_after_limit=past)
        self.done.set()
