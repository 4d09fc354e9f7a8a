"""A room's requests, sent one at a time and in order on the session's connection.

Board actions (moves and undos) carry the screen's sequence number so their answers go back to
the right optimistic action; other requests (ready, resign, rematch) carry None. The sending
loop runs as a worker of the race screen and ends when that worker is cancelled.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from i18n import _
from protocol.schema import Message

from .connection import ConnectionLost, ServerError
from .errors import error_text

log = logging.getLogger("seahaven.client")

Answered = Callable[[int | None, Message], None]
Refused = Callable[[int | None, str], None]


class Requester(Protocol):
    """What the outbox needs of a ``RaceConnection``."""

    @property
    def player(self) -> str | None: ...

    async def request(self, message: Message) -> Message: ...


class Outbox:
    """Queued requests and the loop that sends them; answers and refusals go to callbacks."""

    def __init__(self, conn: Requester, answered: Answered, refused: Refused) -> None:
        self.conn = conn
        self.answered = answered
        self.refused = refused
        self.queue: asyncio.Queue[tuple[int | None, Message]] = asyncio.Queue()
        self.busy = False

    def put(self, seq: int | None, message: Message) -> None:
        self.queue.put_nowait((seq, message))

    @property
    def idle(self) -> bool:
        return self.queue.empty() and not self.busy

    def drop(self, *, board_only: bool = True) -> None:
        """Forget queued requests: the board actions (after a refusal, which the screen rolled
        back with every later one), or all of them (after a drop: the room frame decides)."""
        kept: list[tuple[int | None, Message]] = []
        while not self.queue.empty():
            item = self.queue.get_nowait()
            if item[0] is None and board_only:
                kept.append(item)
        for item in kept:
            self.queue.put_nowait(item)

    async def run(self) -> None:
        """Send the queued requests one at a time, in order, until cancelled."""
        while True:
            seq, message = await self.queue.get()
            self.busy = True
            try:
                await self._send(seq, message)
            finally:
                self.busy = False

    async def _send(self, seq: int | None, message: Message) -> None:
        try:
            reply = await self.conn.request(message)
        except ServerError as error:
            if seq is not None:
                self.drop()
            self.refused(seq, error_text(error.code, error.message))
            return
        except ConnectionLost:
            self.drop(board_only=False)  # it may or may not have happened: the room frame says
            return
        except TimeoutError:
            if seq is not None:
                self.drop()
            self.refused(seq, _("the server did not answer in time"))
            return
        except Exception:  # a bug must not stop the room
            log.exception("request %s failed", message.TYPE)
            return
        self.answered(seq, reply)
