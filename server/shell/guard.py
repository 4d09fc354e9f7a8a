"""Connection limits: per-address caps, and letting a connection go promptly whatever its peer does.

A connection is let go once (``ConnectionGuard.let_go``): one close handshake bounded by a short timeout,
then the transport is aborted. A peer that stops reading therefore costs one task and its unsent
bytes for at most that timeout, however many frames it is sent meanwhile.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from websockets.asyncio.server import ServerConnection

from server.config import Config
from server.shell.limits import TokenBucket

log = logging.getLogger("seahaven.server")

Spawn = Callable[[Coroutine[Any, Any, None]], None]


def address_of(ws: ServerConnection) -> str:
    """The peer's IP address ("?" when the socket no longer says)."""
    try:
        peer = ws.remote_address
    except OSError:
        return "?"
    return str(peer[0]) if peer else "?"


def _networks(cidrs: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(c, strict=False) for c in cidrs)


class ConnectionGuard:
    """Counts connections and new sessions by address, and lets connections go."""

    def __init__(self, config: Config, spawn: Spawn) -> None:
        self.config = config
        self.spawn = spawn
        self.proxies = _networks(config.trusted_proxies)
        self.by_address: dict[str, int] = {}
        """Open connections by peer address."""
        self.sessions: dict[str, TokenBucket] = {}
        """New sessions by peer address."""
        self.rooms_by_address: dict[str, TokenBucket] = {}
        """Rooms created by peer address."""
        self.rooms_by_connection: dict[ServerConnection, TokenBucket] = {}
        """Rooms created by each open connection."""
        self.closing: set[ServerConnection] = set()
        """Connections being let go: each has exactly one closing task."""
        self.let_go_count = 0
        """Connections let go so far (each started one closing task)."""

    def address(self, ws: ServerConnection) -> str:
        """The client's address: the peer's, or the one a trusted proxy (a load balancer) says it
        forwards for (the last ``X-Forwarded-For`` entry, the one that proxy added)."""
        peer = address_of(ws)
        if not self.proxies or ws.request is None:
            return peer
        try:
            trusted = any(ipaddress.ip_address(peer) in net for net in self.proxies)
        except ValueError:
            return peer
        forwarded = ws.request.headers.get_all("X-Forwarded-For")
        if not trusted or not forwarded:
            return peer
        client = forwarded[-1].rsplit(",", 1)[-1].strip()
        try:
            return str(ipaddress.ip_address(client))
        except ValueError:
            return peer

    @property
    def connections(self) -> int:
        return sum(self.by_address.values())

    def admit(self, address: str) -> bool:
        """Count a new connection from ``address``; False (and not counted) past the cap."""
        held = self.by_address.get(address, 0)
        if held >= self.config.connections_per_address:
            return False
        self.by_address[address] = held + 1
        return True

    def release(self, ws: ServerConnection, address: str) -> None:
        """An admitted connection closed."""
        self.rooms_by_connection.pop(ws, None)
        held = self.by_address.get(address, 0) - 1
        if held > 0:
            self.by_address[address] = held
        else:
            self.by_address.pop(address, None)

    def new_session(self, address: str, now: float) -> bool:
        """Spend one of ``address``'s new sessions; False when it has opened too many lately."""
        return _hourly(self.sessions, address, self.config.sessions_per_address, now).take(now)

    def new_room(self, ws: ServerConnection, address: str, now: float) -> bool:
        """Spend one room creation of ``ws`` and of its address; False (nothing spent) past either."""
        mine = self.rooms_by_connection.get(ws)
        if mine is None:
            per_minute = self.config.rooms_per_connection
            mine = self.rooms_by_connection[ws] = TokenBucket(per_minute / 60, per_minute, now)
        theirs = _hourly(self.rooms_by_address, address, self.config.rooms_per_address, now)
        if not (mine.ready(now) and theirs.ready(now)):
            return False
        return mine.take(now) and theirs.take(now)

    def let_go(self, ws: ServerConnection, code: int, reason: str) -> None:
        """Close ``ws`` with ``code`` in the background (once, however often asked), aborting it
        if the close stalls."""
        if ws not in self.closing:
            self.closing.add(ws)
            self.spawn(self._close(ws, code, reason))

    async def close(self, ws: ServerConnection, code: int, reason: str) -> None:
        """Close ``ws`` with ``code`` and wait for it (at most the close timeout, then abort)."""
        if ws not in self.closing:
            self.closing.add(ws)
            await self._close(ws, code, reason)

    async def _close(self, ws: ServerConnection, code: int, reason: str) -> None:
        self.let_go_count += 1
        try:
            async with asyncio.timeout(self.config.close_timeout):
                await ws.close(code, reason)
        except TimeoutError:
            ws.transport.abort()
        finally:
            self.closing.discard(ws)


def _hourly(buckets: dict[str, TokenBucket], address: str, per_hour: int, now: float) -> TokenBucket:
    """``address``'s bucket of ``per_hour`` a hour (all at once at first)."""
    bucket = buckets.get(address)
    if bucket is None:
        if len(buckets) > 10_000:  # forget addresses that have not come lately
            for stale in [a for a, b in buckets.items() if b.full(now)]:
                del buckets[stale]
        bucket = buckets[address] = TokenBucket(per_hour / 3600, per_hour, now)
    return bucket


class OneLineHandshakeErrors(logging.Filter):
    """websockets logs every failed opening handshake (junk HTTP, a port scan) with a traceback:
    keep one line each, naming the peer and the reason."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() == "opening handshake failed" and record.exc_info:
            exc = record.exc_info[1]
            reason = f"{type(exc).__name__}: {exc}"[:200] if exc is not None else "unknown"
            ws = getattr(record, "websocket", None)
            peer = address_of(ws) if isinstance(ws, ServerConnection) else "?"
            record.msg = "event=handshake.rejected peer=%s reason=%r"
            record.args = (peer, reason)
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def handshake_logger() -> logging.Logger:
    """The logger to give websockets' server: failed handshakes are one line each."""
    logger = logging.getLogger("seahaven.websockets")
    if not any(isinstance(f, OneLineHandshakeErrors) for f in logger.filters):
        logger.addFilter(OneLineHandshakeErrors())
    return logger


def close_reason(text: str) -> str:
    """A WebSocket close reason holds at most 123 bytes."""
    data = text.encode()[:120]
    return data.decode(errors="ignore")
