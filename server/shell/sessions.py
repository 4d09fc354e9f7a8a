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
from server.store.interfaces import PlayerCache, SessionStore

SESSION_BELL: Final = "session"
"""The doorbell kind of a session taken over on another node (key: its token, data: that node),
or whose seat another connection of its player took (data: ``SEAT_TAKEN`` and the room's code),
heard while the session's connection is here."""
SEAT_TAKEN: Final = b"seat:"
PLAYER_BELL: Final = "player"
"""The doorbell kind of a frame to one player (key: the player id; data: the frame), heard while a
connection of theirs is here (their new rating, a friend's presence or invitation)."""
PLAYER_TTL: Final = 30 * 86400.0
"""Seconds a registered player's cache entry and seat session token are kept after their last use."""


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
    """The sessions this process holds, by token and by player, each loaded from the store once
    however many hellos ask for it. ``store`` is the server's guarded store: session reads and
    writes are refused while it is stalled, and counted in the metrics.

    A registered player may have several sessions at once (two tabs, a phone and a desktop), one
    per connection; one of them holds the player's seat (docs/protocol.md, "One player, several
    connections"). ``by_player`` is the session here that room frames go to: the seat's, else the
    player's latest; ``of_player`` all of the player's sessions here (their notices reach each)."""

    def __init__(self, store: SessionStore, players: PlayerCache, room_ttl: float, lobby_ttl: float) -> None:
        self.store = store
        self.players = players
        """Where each registered player's seat session is kept (``P{player:ID}:session``)."""
        self.room_ttl = room_ttl
        """Seconds the store keeps a session that is in a room."""
        self.lobby_ttl = lobby_ttl
        """Seconds the store keeps a session in no room."""
        self.by_token: dict[str, Session] = {}
        self.by_player: dict[str, Session] = {}
        self.of_player: dict[str, dict[str, Session]] = {}
        """Each player's sessions here, by token."""
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
        """Make ``conn`` the session's connection; returns the one it replaces (to close). The
        player's room frames come to it unless another session of theirs here is in a room."""
        old, session.conn = session.conn, conn
        self.by_token[session.token] = session
        self.of_player.setdefault(session.player, {})[session.token] = session
        held = self.by_player.get(session.player)
        if held is None or session.room is not None or held.room is None or held.conn is None:
            self.by_player[session.player] = session
        return old if old is not conn else None

    async def seat(self, session: Session) -> None:
        """The session is in a room now: its player's room frames come to it, and a registered
        player's seat is this session's (a hello with their key resumes it)."""
        self.of_player.setdefault(session.player, {})[session.token] = session
        self.by_player[session.player] = session
        if session.identified:
            token = await self.players.player_session(session.player)
            if token != session.token:
                await self.players.swap_player_session(session.player, token, session.token, PLAYER_TTL)

    async def seat_holder(self, session: Session) -> Session | None:
        """Another session of the session's player that is in a room: held here, or as the store
        keeps it (then not held here: only read)."""
        if not session.identified:
            return None
        here = self.by_player.get(session.player)
        if here is not None and here is not session and here.room is not None:
            return here
        token = await self.players.player_session(session.player)
        if token is None or token == session.token:
            return None
        other = self.by_token.get(token)
        if other is None:
            data = await self.store.get_session(token)
            other = Session.load(token, data) if data is not None else None
        return other if other is not None and other.room is not None else None

    def unseat(self, session: Session) -> None:
        """The session lost its player's seat to another connection: in no room, and the player's
        room frames go to another session of theirs here (if any)."""
        session.room = None
        if self.by_player.get(session.player) is session:
            self._hand_on(session)

    def sessions_of(self, player: str) -> list[Session]:
        """Every session of ``player`` held here."""
        sessions = self.of_player.get(player)
        return list(sessions.values()) if sessions is not None else []

    def forget(self, session: Session) -> None:
        """Drop an unconnected session from memory; the store keeps it for a later hello."""
        self.by_token.pop(session.token, None)
        sessions = self.of_player.get(session.player)
        if sessions is not None and sessions.get(session.token) is session:
            del sessions[session.token]
            if not sessions:
                del self.of_player[session.player]
        if self.by_player.get(session.player) is session:
            self._hand_on(session)

    def _hand_on(self, session: Session) -> None:
        """``session`` no longer gets its player's room frames: another connected one does."""
        others = [s for s in self.sessions_of(session.player) if s is not session and s.conn is not None]
        if others:
            self.by_player[session.player] = others[0]
        else:
            del self.by_player[session.player]

    async def save(self, session: Session) -> None:
        ttl = self.room_ttl if session.room is not None else self.lobby_ttl
        await self.store.put_session(session.token, session.dump(), ttl)
