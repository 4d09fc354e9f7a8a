"""Rematches the room cannot start by itself: when the last racer who had not voted leaves or
drops, everyone still there has voted, but no vote came to start it (``Room.rematch_due``). A
hook that follows lifecycle commits sees it and votes again for one of the voters, with the deal
a vote would have had, so the rematch starts as the protocol says: once every racer still
connected has voted."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from protocol.errors import ProtocolError
from server.play.seats import Run
from server.rooms.room import Room
from server.shell.held import Command
from server.shell.ports import Deals
from server.shell.roombase import RoomMoments
from server.shell.roompath import Spawn
from server.store.base import StoreError


class Rematches:
    """``changed`` (a room path hook, after lifecycle commits: a move never makes a rematch due)
    starts a due rematch in the background, on the node whose commit made it due; ``run`` and
    ``room_of`` are the bots' way into the room path."""

    def __init__(
        self, run: Run, room_of: Callable[[str], Room | None], deals: Deals, spawn: Spawn, moments: RoomMoments
    ) -> None:
        self.run = run
        self.room_of = room_of
        self.deals = deals
        self.spawn = spawn
        self.starting: set[str] = set()
        """Rooms whose rematch is being started here (one try at a time)."""
        moments.on_lifecycle_commit(self.changed)

    def changed(self, code: str) -> None:
        room = self.room_of(code)
        if room is not None and code not in self.starting and room.rematch_due():
            self.starting.add(code)
            self.spawn(self._start(code))

    async def _start(self, code: str) -> None:
        try:
            room = self.room_of(code)
            if room is None or not room.rematch_due():
                return
            deal = await self.deals.rematch_deal(room)
            voter = min(room.rematch)
            # Judged again under the room's lock: a room that changed meanwhile refuses or does nothing.
            with contextlib.suppress(ProtocolError, StoreError):
                await self.run(code, _vote(voter, deal))
        finally:
            self.starting.discard(code)


def _vote(player: str, deal: int) -> Command:
    return lambda core, now: core.rematch(player, deal, now)
