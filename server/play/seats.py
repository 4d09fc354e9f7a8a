"""What bot and ghost seats share: a task per seat, woken whenever its room commits something.

A seat driver seats a ready racer through the room path, then plays it in a task of its own that
sleeps on its room's ``changed`` event between looks (the room path's commit hook sets it), so a
seat nobody races costs nothing. ``close`` stops every task; the seats stay in the rooms' logs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Hashable
from typing import Any, Generic, TypeVar

from protocol.errors import ErrorCode, ProtocolError
from server.rooms.room import Room
from server.shell.held import Command
from server.shell.roombase import RoomMoments

Run = Callable[[str, Command], Awaitable[bool]]
"""Run a command on a room through the judged path; False if the room is no longer held here."""


K = TypeVar("K", bound=Hashable)
"""What a seat's task is kept under."""


class SeatDrivers(Generic[K]):
    """The seats of one kind this process drives, each by a task under its key."""

    def __init__(self, run: Run, room_of: Callable[[str], Room | None], moments: RoomMoments) -> None:
        self.run = run
        self.room_of = room_of
        self.changed: dict[str, asyncio.Event] = {}
        """By room code: set whenever a room with a seat driven here commits something."""
        moments.on_commit(self.notice)
        self.tasks: dict[K, asyncio.Task[None]] = {}
        self.closed = False

    async def seat_ready(self, code: str, player: str, name: str, *, auto: bool = False) -> None:
        """Seat ``player`` as a ready racer of room ``code`` (``auto``: asking for the opening's
        auto-moves; internal error once stopping)."""
        if self.closed:
            raise ProtocolError(ErrorCode.INTERNAL, "the server is stopping")
        await self.run(code, lambda core, now: core.join(player, name, False, now))
        await self.run(code, lambda core, now: core.ready(player, True, now, auto=auto))
        self.changed.setdefault(code, asyncio.Event())

    def drive(self, key: K, name: str, work: Coroutine[Any, Any, None]) -> None:
        """Play a seat: ``work`` in a task kept under ``key``."""
        self.tasks[key] = asyncio.get_running_loop().create_task(work, name=name)

    def notice(self, code: str) -> None:
        """Room ``code`` committed something: its seats look again."""
        changed = self.changed.get(code)
        if changed is not None:
            changed.set()

    async def close(self) -> None:
        """Stop every seat's task (the seats stay in the rooms' logs)."""
        self.closed = True
        for task in list(self.tasks.values()):
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
