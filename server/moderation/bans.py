"""The moderators' list (docs/admin.md): bans of a name, an address or a network for a time,
reserved names, closed rooms.

The list lives in the store, shared by every node; each node keeps a copy (``BanBook``), read
again when the ``admin`` doorbell rings ``bans`` and every ``REFRESH_SECONDS`` besides (a missed
ring), so a hello is checked without a store call (the shell asks it as ``server.shell.ports.Bans``).
"""

from __future__ import annotations

import asyncio
import ipaddress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

import msgpack

from protocol.errors import ErrorCode, ProtocolError
from protocol.names import fold
from server.logs import log_event
from server.shell.clock import Clock
from server.shell.names import normalise_room_code
from server.store.base import StoreError
from server.store.interfaces import BanList

REFRESH_SECONDS: Final = 10.0
"""How often a node reads the list again even though no ring said it changed."""
KINDS: Final = ("name", "address", "network", "reserved", "room")
"""What an entry holds: a banned name, address or network, a reserved name, a closed room."""


@dataclass(frozen=True, slots=True)
class Ban:
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
    def load(cls, data: bytes) -> Ban:
        kind, value, until, reason = msgpack.unpackb(data, raw=False)
        return cls(str(kind), str(value), None if until is None else int(until), str(reason))

    def ended(self, now: int) -> bool:
        return self.until is not None and now >= self.until

    def view(self) -> dict[str, object]:
        """The entry as the admin API shows it."""
        return {"key": self.key, "kind": self.kind, "value": self.value, "until": self.until, "reason": self.reason}


def ban_value(kind: str, value: str) -> str:
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
        self.entries: dict[str, Ban] = {}

    async def refresh(self) -> None:
        """Read the list again (ended entries are dropped, here and in the store)."""
        now = self.clock.now()
        entries: dict[str, Ban] = {}
        for key, data in (await self.store.bans()).items():
            try:
                entry = Ban.load(data)
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

    def _active(self, kind: str, value: str) -> Ban | None:
        entry = self.entries.get(f"{kind}:{value}")
        return entry if entry is not None and not entry.ended(self.clock.now()) else None

    def refusal(self, name: str, address: str, handle: str | None = None) -> ProtocolError | None:
        """Why a player of this name, from this address, may not play here (None: they may). A
        reserved name is a registered player's whose handle it is (``handle``), nobody else's."""
        folded = fold(name)
        banned = self._active("name", folded) or self._address_ban(address)
        if banned is not None:
            return ProtocolError(ErrorCode.BANNED, with_reason("you are banned", banned))
        reserved = self._active("reserved", folded)
        if reserved is not None and (handle is None or fold(handle) != folded):
            return ProtocolError(ErrorCode.NAME_RESERVED, f"the name {name!r} is reserved: choose another")
        return None

    def _address_ban(self, address: str) -> Ban | None:
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

    def closed(self, code: str) -> Ban | None:
        """The entry that closed room ``code`` (None: it is open)."""
        return self._active("room", code)


def with_reason(what: str, entry: Ban | None = None, reason: str = "") -> str:
    """``what``, with the reason and the end of ``entry`` when there are any."""
    if entry is not None:
        reason = entry.reason
    text = f"{what}: {reason}" if reason else what
    if entry is not None and entry.until is not None:
        text += f" (until {datetime.fromtimestamp(entry.until / 1000, UTC):%Y-%m-%d %H:%M} UTC)"
    return text
