"""A player's session (who they are, which room they are in, their last request), and the
table of the sessions a process holds."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Final

import msgpack
from websockets.asyncio.server import ServerConnection

from protocol.errors import ErrorCode, ProtocolError
from protocol.names import sanitise_name
from server.shell.names import new_player_id, new_token
from server.store.interfaces import SessionStore

SESSION_BELL: Final = "session"
"""The doorbell kind of a session taken over on another node (key: its token, data: that node),
heard while the session's connection is here."""


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
    unsure: bool = False
    """``last_seq`` was answered store-unavailable: its change may have landed (read the room's
    replies before judging a resend of it again)."""
    conn: ServerConnection | None = None
    identified: bool = False
    """A registered player's session (opened by a ``hello`` with the player's key)."""
    handle: str | None = None
    """That player's handle, when they claimed one."""

    def dump(self) -> bytes:
        """What the store keeps (the rest lives only while the process does). A registered
        player's session has a fourth item, its handle; an anonymous one is as it always was."""
        kept: list[object] = [self.player, self.name, self.room]
        if self.identified:
            kept.append(self.handle)
        data: bytes = msgpack.packb(kept)
        return data

    @classmethod
    def load(cls, token: str, data: bytes) -> Session:
        player, name, room, *identity = msgpack.unpackb(data, raw=False)
        session = cls(token, player, name, room)
        if identity:
            session.identified, session.handle = True, identity[0]
        return session


class SessionTable:
    """The sessions this process holds, by token and by player (for fan-out), each loaded from
    the store once however many hellos ask for it. ``store`` is the server's guarded store: session
    reads and writes are refused while it is stalled, and counted in the metrics."""

    def __init__(self, store: SessionStore, room_ttl: float, lobby_ttl: float) -> None:
        self.store = store
        self.room_ttl = room_ttl
        """Seconds the store keeps a session that is in a room."""
        self.lobby_ttl = lobby_ttl
        """Seconds the store keeps a session in no room."""
        self.by_token: dict[str, Session] = {}
        self.by_player: dict[str, Session] = {}
        self._loading: dict[str, asyncio.Future[Session | None]] = {}

    async def open(self, name: str) -> Session:
        """A new session, stored."""
        session = Session(new_token(), new_player_id(), sanitise_name(name))
        await self.save(session)
        return session

    async def open_identified(self, player: str, name: str, handle: str | None) -> Session:
        """A new session of the registered ``player``, stored and held here at once (so that a
        hello that finds it by its token meanwhile gets this very session)."""
        session = Session(new_token(), player, sanitise_name(name), identified=True, handle=handle)
        await self.save(session)
        self.by_token[session.token] = session
        return session

    async def discard(self, session: Session) -> None:
        """Forget an unconnected session here and in the store (one opened for nothing)."""
        self.forget(session)
        await self.store.delete_session(session.token)

    async def find(self, token: str) -> Session:
        """The session of ``token``: held here, or loaded from the store (ProtocolError
        bad-token when there is none)."""
        known = self.by_token.get(token)
        if known is not None:
            return known
        loading = self._loading.get(token)
        if loading is None:
            loading = self._loading[token] = asyncio.get_running_loop().create_future()
            try:
                data = await self.store.get_session(token)
                known = self.by_token.get(token)  # someone may have put it there meanwhile
                if known is None and data is not None:
                    known = self.by_token[token] = Session.load(token, data)
                loading.set_result(known)
            except BaseException as exc:
                loading.set_exception(exc)
                loading.exception()  # retrieved: waiters get it
                raise
            finally:
                del self._loading[token]
        session = await asyncio.shield(loading)
        if session is None:
            raise ProtocolError(ErrorCode.BAD_TOKEN, "unknown or expired session token: say hello without one")
        return session

    def claim(self, session: Session, conn: ServerConnection) -> ServerConnection | None:
        """Make ``conn`` the session's connection; returns the one it replaces (to close)."""
        old, session.conn = session.conn, conn
        self.by_token[session.token] = session
        self.by_player[session.player] = session
        return old if old is not conn else None

    def forget(self, session: Session) -> None:
        """Drop an unconnected session from memory; the store keeps it for a later hello."""
        self.by_token.pop(session.token, None)
        if self.by_player.get(session.player) is session:
            del self.by_player[session.player]

    async def save(self, session: Session) -> None:
        ttl = self.room_ttl if session.room is not None else self.lobby_ttl
        await self.store.put_session(session.token, session.dump(), ttl)
