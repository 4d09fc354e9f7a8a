"""Moderation (docs/admin.md): what a moderator's action does here.

An action taken on one node (``Moderation``) is stored in the moderators' list (``bans.py``) or
rung, then rung to every node (itself included), and each node does its share to the connections
it holds: a notice written to all of them, a kicked player's or a banned one's connection closed
(4004), a closed room's members told and closed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Protocol

from websockets.asyncio.server import ServerConnection

from protocol.codec import encode
from protocol.errors import CloseCode
from protocol.messages import Notice
from server.logs import audit, log_event
from server.moderation.bans import Ban, BanBook, ban_value, with_reason
from server.shell.fanout import Fanout
from server.shell.guard import ConnectionGuard, Spawn, close_reason
from server.shell.held import HeldRoom
from server.shell.sessions import Session, SessionTable
from server.store.base import StoreError
from server.store.interfaces import BanList, Doorbells

ADMIN_BELL: Final = "admin"
"""The doorbell kind of moderators' actions (key: ``bans``, ``notice``, ``kick`` or ``close``)."""


class ModerationStore(BanList, Doorbells, Protocol):
    """What moderation needs of the store: the list, and the doorbell that tells every node."""


class Moderation:
    """A moderator's actions, taken from this node (``ban``, ``lift``, ``notice``, ``kick``,
    ``close_room``: stored, then rung to every node), and each node's share of them (``ring``)."""

    def __init__(
        self,
        store: ModerationStore,
        book: BanBook,
        table: SessionTable,
        fanout: Fanout,
        guard: ConnectionGuard,
        rooms: Mapping[str, HeldRoom],
        spawn: Spawn,
        room_ttl: float,
    ) -> None:
        self.store = store
        self.book = book
        self.table = table
        self.fanout = fanout
        self.guard = guard
        self.rooms = rooms
        """The rooms held here (the room path's): a closed room's visitors here are told."""
        self.spawn = spawn
        self.room_ttl = room_ttl

    # -- actions (the admin API calls these; each is logged) ---------------------------------

    async def ban(self, kind: str, value: str, seconds: float | None, reason: str) -> Ban:
        """Add ``kind``/``value`` to the list for ``seconds`` (None: until lifted), on every node."""
        until = None if seconds is None else self.book.clock.now() + int(seconds * 1000)
        entry = Ban(kind, ban_value(kind, value), until, reason)
        await self.store.put_ban(entry.key, entry.dump())
        audit("admin.ban", key=entry.key, until=until, reason=reason)
        await self.store.ring(ADMIN_BELL, "bans", b"")
        return entry

    async def lift(self, key: str) -> bool:
        lifted = await self.store.lift_ban(key)
        audit("admin.lift", key=key, lifted=lifted)
        await self.store.ring(ADMIN_BELL, "bans", b"")
        return lifted

    async def notice(self, text: str) -> None:
        audit("admin.notice", text=text)
        await self.store.ring(ADMIN_BELL, "notice", text)

    async def kick(self, player: str, reason: str) -> None:
        audit("admin.kick", player=player, reason=reason)
        await self.store.ring(ADMIN_BELL, "kick", f"{player}\t{reason}")

    async def close_room(self, code: str, reason: str) -> Ban:
        """Close the room on every node: nobody joins it or comes back to it again, and its members
        are told and removed (a race under way ends by their forfeits on the room's timers)."""
        entry = Ban("room", ban_value("room", code), self.book.clock.now() + int(self.room_ttl * 1000), reason)
        await self.store.put_ban(entry.key, entry.dump())
        audit("admin.close_room", room=entry.value, reason=reason)
        await self.store.ring(ADMIN_BELL, "close", f"{entry.value}\t{reason}")
        return entry

    # -- each node's share -----------------------------------------------------------------------

    def ring(self, action: str, data: bytes) -> None:
        """The ``admin`` doorbell rang: do this node's share of ``action``."""
        text = data.decode(errors="replace")
        if action == "notice":
            conns = [s.conn for s in self.table.by_token.values() if s.conn is not None]
            self.fanout.write(conns, encode(Notice(text=text[:300])))
        elif action == "kick":
            player, _, reason = text.partition("\t")
            session = self.table.by_player.get(player)
            if session is not None and session.conn is not None:
                self._remove(session, session.conn, with_reason("removed by a moderator", reason=reason))
        elif action == "bans":
            self.spawn(self._sweep())
        elif action == "close":
            code, _, reason = text.partition("\t")
            self.spawn(self._close(code, reason))

    async def _sweep(self) -> None:
        """The list changed: read it, and remove the connections here it now refuses."""
        try:
            await self.book.refresh()
        except StoreError as exc:
            log_event("store.error", error=str(exc))
            return
        for session in list(self.table.by_token.values()):
            conn = session.conn
            if conn is None:
                continue
            refused = self.book.refusal(session.name, self.guard.address(conn), session.handle)
            if refused is not None:
                self._remove(session, conn, refused.message)

    async def _close(self, code: str, reason: str) -> None:
        try:
            await self.book.refresh()
        except StoreError as exc:
            log_event("store.error", error=str(exc))
        why = with_reason(f"room {code} was closed by a moderator", reason=reason)
        held = self.rooms.get(code)
        for player in set(held.visitors) if held is not None else ():
            session = self.table.by_player.get(player)
            if session is not None and session.conn is not None and session.room == code:
                self.fanout.write([session.conn], encode(Notice(text=why[:300], room=code)))
                self._remove(session, session.conn, why)

    def _remove(self, session: Session, conn: ServerConnection, why: str) -> None:
        audit("admin.removed", player=session.player, room=session.room, why=why)
        self.guard.let_go(conn, CloseCode.REMOVED, close_reason(why))
