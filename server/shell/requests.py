"""Requests: one answer per seq, whatever the handler does (a resend gets the same answer again).

Each request type has one handler, declared beside its code (``@handles(Move)``) and collected
from the parts the wiring gives (``handlers_of``); a handler returns the reply, or answers itself
through the room path. A store failure, a refused request or a bug costs that request only: it is
answered with an ``error``.
"""

from __future__ import annotations

import asyncio
import time

from websockets.asyncio.server import ServerConnection

from protocol.errors import CloseCode, ErrorCode, ProtocolError
from protocol.messages import Error, MoveRequest, Ok
from protocol.schema import Message
from server.logs import log, log_event
from server.shell.guard import ConnectionGuard
from server.shell.handlers import Handler
from server.shell.held import Asker, HeldRoom
from server.shell.metrics import Metrics
from server.shell.replies import Replies
from server.shell.roompath import RoomPath
from server.shell.sessions import Session
from server.store.base import StoreError
from server.store.interfaces import RoomLog


class Requests:
    """Answers the requests of every session here; counts those in flight for a graceful stop."""

    def __init__(
        self,
        path: RoomPath,
        replies: Replies,
        metrics: Metrics,
        memos: RoomLog,
        guard: ConnectionGuard,
        handlers: dict[type[Message], Handler],
    ) -> None:
        self.path = path
        self.memos = memos
        self.replies = replies
        self.metrics = metrics
        self.guard = guard
        """Sends a connection whose room is a newer build's to another node, once answered."""
        self.handlers = handlers
        """The one handler of each request type (``handlers_of``)."""
        self.inflight = 0
        self.started = 0
        """Requests taken in so far (a graceful stop waits for a quiet moment)."""
        self.idle = asyncio.Event()
        self.idle.set()

    async def request(self, ws: ServerConnection, session: Session, seq: int, message: Message) -> None:
        """Answer one request on ``ws``; a repeated seq gets the same answer again, unreplayed."""
        self.inflight += 1
        self.started += 1
        self.idle.clear()
        try:
            await self._request(ws, session, seq, message)
        finally:
            self.inflight -= 1
            if not self.inflight:
                self.idle.set()

    async def _request(self, ws: ServerConnection, session: Session, seq: int, message: Message) -> None:
        late = None
        if seq == session.last_seq and session.unsure and session.pending is None:
            late = await self._settle_unsure(session, seq)
        if seq == session.last_seq:
            frames = await asyncio.shield(session.pending) if session.pending else session.last_reply
            for frame in frames:
                await ws.send(frame)
            if late is not None:  # the reply first, then what the change caused (section 4)
                await RoomPath.quietly(self.path.catch_up(late))
            return
        if seq < session.last_seq:
            raise ProtocolError(ErrorCode.BAD_SEQ, f"seq {seq} is older than your last request {session.last_seq}")
        session.last_seq = seq
        started = time.perf_counter()
        session.unsure = False
        asker = Asker(ws, session, seq, asyncio.get_running_loop().create_future())
        session.pending = asker.pending
        reply: Message | None
        try:
            reply = await self.handlers[type(message)](asker, message)
        except StoreError as exc:
            log_event("store.error", error=str(exc))
            reply = Error(code=ErrorCode.STORE_UNAVAILABLE, message="the game store is unavailable; try again")
        except ProtocolError as exc:
            reply = Error(code=exc.code, message=exc.message)
        except Exception:
            # A bug must cost one request, not the connection or the room.
            log.exception("event=request.failed player=%s type=%s", session.player, message.TYPE)
            reply = Error(code=ErrorCode.INTERNAL, message="the server failed on this request")
        if not asker.answered:
            self.replies.answer(asker, reply if reply is not None else Ok())
            session.unsure = isinstance(reply, Error) and reply.code == ErrorCode.STORE_UNAVAILABLE
        if isinstance(reply, Error) and reply.code == ErrorCode.ROOM_UNAVAILABLE:
            self.guard.let_go(ws, CloseCode.TRY_ANOTHER_NODE, "that room is served by a newer node")
        if isinstance(message, MoveRequest):
            if isinstance(asker.reply, Error):
                self.metrics.move_refused(asker.reply.code, time.perf_counter() - started)
            else:
                self.metrics.move_accepted(time.perf_counter() - started)

    async def _settle_unsure(self, session: Session, seq: int) -> HeldRoom | None:
        """``seq`` was answered store-unavailable: its change may have landed after all. If it
        did, its stored reply is the answer, and the room it landed in (returned) must catch up
        so that everyone else hears of it now; else it is judged again (the store refuses a
        second copy of the same request)."""
        if session.room is None:
            session.last_seq -= 1
            return None
        try:
            memo = await self.memos.memo(session.room, session.player)
        except StoreError as exc:
            log_event("store.error", error=str(exc))
            raise ProtocolError(ErrorCode.STORE_UNAVAILABLE, "the game store is unavailable; try again") from None
        if memo is None or memo[0] != seq:
            session.last_seq -= 1
            return None
        session.last_reply, session.unsure = [memo[1]], False
        return self.path.rooms.get(session.room)
