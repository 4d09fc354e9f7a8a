"""Moderation (docs/admin.md): the moderators' list and what a moderator's action does here.

The list (bans of a name, an address or a network for a time, reserved names, closed rooms) lives
in the store, shared by every node; each node keeps a copy (``BanBook``), read again when the
``admin`` doorbell rings ``bans`` and every ``REFRESH_SECONDS`` besides (a missed ring), so a
hello is checked without a store call. An action taken on one node (``Moderation``) is stored,
then rung to every node (itself included), and each node does its share to the connections it
holds: a notice written to all of them, a kicked player's or a banned one's connection closed
(4004), a closed room's members told and closed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Protocol

import msgpack
from websockets.asyncio.server import ServerConnection

from protocol.codec import encode
from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import Notice
from protocol.names import fold
from server.shell.clock import Clock
from server.shell.fanout import Fanout
from server.shell.guard import Guard, Spawn
from server.shell.held import HeldRoom, log_event
from server.shell.names import normalise_room_code
from server.shell.sessions import Session, SessionTable
from server.store.base import StoreError
from server.store.interfaces import BanList, Doorbells

audit_log = logging.getLogger("seahaven.admin")
"""Every moderator's action, at WARNING: kept whatever the log level (an audit trail)."""

ADMIN_BELL: Final = "admin"
"""The doorbell kind of moderators' actions (key: ``bans``, ``notice``, ``kick`` or ``close``)."""
REFRESH_SECONDS: Final = 10.0
"""How often a node reads the list again even though no ring said it changed."""
KINDS: Final = ("name", "address", "network", "reserved", "room")
"""What an entry holds: a banned name, address or network, a reserved name, a closed room."""


class ModerationStore(BanList, Doorbells, Protocol):
    """What moderation needs of the store: the list, and the doorbell that tells every node."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the list: ``kind`` and its ``value`` (names folded, networks normalised), until
    ``until`` (unix ms; None: until lifted), and why."""

    kind: str
    value: str
    until: int | None
    reason: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.value}"

    def dump(self) -> bytes:
        return bytes(msgpack.packb([self.kind, self.value, self.until, self.reason]))

    @classmethod
    def load(cls, data: bytes) -> Entry:
        kind, value, until, reason = msgpack.unpackb(data, raw=False)
        return cls(str(kind), str(value), None if until is None else int(until), str(reason))

    def ended(self, now: int) -> bool:
        return self.until is not None and now >= self.until

    def view(self) -> dict[str, object]:
        """The entry as the admin API shows it."""
        return {"key": self.key, "kind": self.kind, "value": self.value, "until": self.until, "reason": self.reason}


def entry_value(kind: str, value: str) -> str:
    """``value`` as the list keeps it (ValueError: not a name, address, network or room code)."""
    if kind in ("name", "reserved"):
        folded = fold(value)
        if not folded:
            raise ValueError(f"not a name: {value!r}")
        return folded
    if kind == "address":
        return str(ipaddress.ip_address(value.strip()))
    if kind == "network":
        return str(ipaddress.ip_network(value.strip(), strict=False))
    if kind == "room":
        return normalise_room_code(value)
    raise ValueError(f"not a kind of entry: {kind!r} (one of {', '.join(KINDS)})")


class BanBook:
    """This node's copy of the list, checked at every hello."""

    def __init__(self, store: BanList, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.entries: dict[str, Entry] = {}

    async def refresh(self) -> None:
        """Read the list again (ended entries are dropped, here and in the store)."""
        now = self.clock.now()
        entries: dict[str, Entry] = {}
        for key, data in (await self.store.bans()).items():
            try:
                entry = Entry.load(data)
            except (ValueError, TypeError):
                log_event("admin.bad_entry", key=key)
                continue
            if entry.ended(now):
                await self.store.lift_ban(key)
            else:
                entries[key] = entry
        self.entries = entries

    async def run(self) -> None:
        """Read the list every ``REFRESH_SECONDS`` (a ring may have been missed)."""
        while True:
            try:
                await self.refresh()
            except StoreError as exc:
                log_event("store.error", error=str(exc))
            await asyncio.sleep(REFRESH_SECONDS)

    def _active(self, kind: str, value: str) -> Entry | None:
        entry = self.entries.get(f"{kind}:{value}")
        return entry if entry is not None and not entry.ended(self.clock.now()) else None

    def refusal(self, name: str, address: str, handle: str | None = None) -> ProtocolError | None:
        """Why a player of this name, from this address, may not play here (None: they may). A
        reserved name is a registered player's whose handle it is (``handle``), nobody else's."""
        folded = fold(name)
        banned = self._active("name", folded) or self._address_ban(address)
        if banned is not None:
            return ProtocolError(ErrorCode.BANNED, _why("you are banned", banned))
        reserved = self._active("reserved", folded)
        if reserved is not None and (handle is None or fold(handle) != folded):
            return ProtocolError(ErrorCode.NAME_RESERVED, f"the name {name!r} is reserved: choose another")
        return None

    def _address_ban(self, address: str) -> Entry | None:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return None
        found = self._active("address", str(ip))
        if found is not None:
            return found
        for entry in self.entries.values():
            if entry.kind == "network" and not entry.ended(self.clock.now()):
                network = ipaddress.ip_network(entry.value)
                if ip.version == network.version and ip in network:
                    return entry
        return None

    def closed(self, code: str) -> Entry | None:
        """The entry that closed room ``code`` (None: it is open)."""
        return self._active("room", code)


class Moderation:
    """A moderator's actions, taken from this node (``ban``, ``lift``, ``notice``, ``kick``,
    ``close_room``: stored, then rung to every node), and each node's share of them (``ring``)."""

    def __init__(
        self,
        store: ModerationStore,
        book: BanBook,
        table: SessionTable,
        fanout: Fanout,
        guard: Guard,
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

    async def ban(self, kind: str, value: str, seconds: float | None, reason: str) -> Entry:
        """Add ``kind``/``value`` to the list for ``seconds`` (None: until lifted), on every node."""
        until = None if seconds is None else self.book.clock.now() + int(seconds * 1000)
        entry = Entry(kind, entry_value(kind, value), until, reason)
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

    async def close_room(self, code: str, reason: str) -> Entry:
        """Close the room on every node: nobody joins it or comes back to it again, and its members
        are told and removed (a race under way ends by their forfeits on the room's timers)."""
        entry = Entry("room", entry_value("room", code), self.book.clock.now() + int(self.room_ttl * 1000), reason)
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
                self._remove(session, session.conn, _why("removed by a moderator", reason=reason))
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
        why = _why(f"room {code} was closed by a moderator", reason=reason)
        held = self.rooms.get(code)
        for player in set(held.visitors) if held is not None else ():
            session = self.table.by_player.get(player)
            if session is not None and session.conn is not None and session.room == code:
                self.fanout.write([session.conn], encode(Notice(text=why[:300], room=code)))
                self._remove(session, session.conn, why)

    def _remove(self, session: Session, conn: ServerConnection, why: str) -> None:
        audit("admin.removed", player=session.player, room=session.room, why=why)
        self.guard.let_go(conn, CloseCode.REMOVED, close_reason(why))


def audit(event: str, /, **fields: object) -> None:
    """One line of the audit log, in the form of the other log lines (``event=admin.ban key=...``)."""
    parts = (f"{k}={v!r}" if isinstance(v, str) and (not v or " " in v) else f"{k}={v}" for k, v in fields.items())
    audit_log.warning("event=%s %s", event, " ".join(parts))


def _why(what: str, entry: Entry | None = None, reason: str = "") -> str:
    """``what``, with the reason and the end of ``entry`` when there are any."""
    if entry is not None:
        reason = entry.reason
    text = f"{what}: {reason}" if reason else what
    if entry is not None and entry.until is not None:
        text += f" (until {datetime.fromtimestamp(entry.until / 1000, UTC):%Y-%m-%d %H:%M} UTC)"
    return text


def close_reason(text: str) -> str:
    """A WebSocket close reason holds at most 123 bytes."""
    data = text.encode()[:120]
    return data.decode(errors="ignore")
