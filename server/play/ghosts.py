"""Ghost racers: a recorded run raced again, one task per ghost seat, through the judged room path.

A ghost is a seat whose player id is ``ghost-`` and its challenge's id, named as the run's racer
was. It is seated ready. Once the race starts, its task plays each recorded move of the racer's
own (a recorded undo as an undo; a move the server followed with auto-moves asking for them, so
the server plays them again, as the opening's with ready) at the race's start plus the move's
recorded time, on the room path's clock, exactly
as a racer's move is played: the room core judges it, the store appends it, the rival hears
``progress`` at once and spectators a delay later. A run that ended by resignation (or forfeit)
resigns right after its last move (the record keeps when a run's last move was, not when it gave
up). A ghost never asks for a rematch and leaves when no human racer is left; a move the room
refuses (a record that no longer replays) stops the ghost: it resigns, the race goes on.

Between its moves a ghost sleeps on one event, set by its next move's timer or by any commit in
its room, so it costs nothing while it waits. Like a bot, a ghost is played by the node that
seated it: should that node stop, the seat is an absent racer whose grace period runs out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from protocol.enums import Phase, Status
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import GHOST_PREFIX
from server.logs import log_event
from server.play.bots import human_present
from server.play.seats import Run, SeatDrivers
from server.rooms.history import RacerRecord
from server.rooms.room import Room
from server.shell.clock import Clock
from server.shell.held import Command
from server.shell.roombase import RoomMoments
from server.store.base import StoreError

__all__ = ["GhostPlan", "GhostRacers"]

STORE_RETRY_MS: Final = 1000
"""How soon a ghost tries a command again that the store failed."""
QUITS: Final = frozenset({Status.RESIGNED, Status.FORFEIT})
"""How a run may have ended that a ghost plays out by resigning."""
PLAYING: Final = frozenset({Status.RACING, Status.STUCK})
"""A seat that may still move or undo (a stuck one, only undo)."""


@dataclass(frozen=True, slots=True)
class GhostPlan:
    """What a ghost plays: the run's own moves (ms from the start, move in the notation or
    ``"undo"``, whether the server followed it with auto-moves), whether the server played the
    opening's, and whether it resigns after the last one."""

    moves: tuple[tuple[int, str, bool], ...]
    opening: bool
    resigns: bool

    @classmethod
    def of(cls, run: RacerRecord) -> GhostPlan:
        served = set(run.auto)
        moves: list[tuple[int, str, bool]] = []
        opening = False
        for index, (at, move) in enumerate(run.moves):
            if index not in served:
                moves.append((at, move, False))
            elif move != "undo":  # an auto-move: the server plays it again, asked with the move before
                if moves:
                    moves[-1] = (*moves[-1][:2], True)
                else:
                    opening = True
        return cls(tuple(moves), opening, run.status in QUITS)


class GhostRacers(SeatDrivers[tuple[str, str]]):
    """The ghost seats this process plays.

    ``run`` runs a command on a room through the room path, ``room_of`` is the room held here
    under a code (None when gone), ``clock`` the room path's clock (the moves' times are on it).
    """

    def __init__(self, run: Run, room_of: Callable[[str], Room | None], clock: Clock, moments: RoomMoments) -> None:
        super().__init__(run, room_of, moments)
        self.clock = clock

    async def seat(self, code: str, challenge: str, run: RacerRecord) -> str:
        """Seat a ready ghost of ``run`` (the run challenge ``challenge`` names) in room ``code``
        and start playing it; its player id. Its task is kept by (room code, ghost player id): the
        same challenge may be raced in several rooms."""
        ghost = GHOST_PREFIX + challenge
        plan = GhostPlan.of(run)
        await self.seat_ready(code, ghost, run.name, auto=plan.opening)
        self.drive((code, ghost), ghost, self._drive(code, ghost, plan))
        return ghost

    async def _drive(self, code: str, ghost: str, plan: GhostPlan) -> None:
        changed = self.changed[code]
        step = 0  # the next recorded move to play
        resigns = plan.resigns
        try:
            while True:
                changed.clear()  # before reading the room: a commit from here on wakes the wait below
                room = self.room_of(code)
                seat = room.seats.get(ghost) if room is not None else None
                if room is None or seat is None or seat.left:
                    return
                due: int | None = None  # when the next recorded move falls due, if it is what comes next
                command: Command | None = None
                if not human_present(room):
                    command = _leave(ghost)
                elif room.phase == Phase.RACING and room.started_at is not None and seat.status in PLAYING:
                    if step < len(plan.moves):
                        at, move, auto = plan.moves[step]
                        due = room.started_at + at
                        command = _play(ghost, move, auto) if self.clock.now() >= due else None
                    elif resigns:
                        command = _resign(ghost)
                if command is None:
                    await self._wait(changed, due)
                    continue
                try:
                    await self.run(code, command)
                except StoreError as exc:  # the same command again a little later
                    log_event("ghost.store_error", room=code, ghost=ghost, error=str(exc))
                    await self._wait(changed, self.clock.now() + STORE_RETRY_MS)
                    continue
                except ProtocolError as exc:
                    if exc.code == ErrorCode.ROOM_NOT_FOUND or not human_present(room):
                        return  # the room closed under it, or it could not leave: nothing left to do
                    if due is not None:
                        # A recorded move the room refuses: the record does not replay here. Stop playing.
                        log_event("ghost.refused", room=code, ghost=ghost, step=step, error=exc.message)
                        step, resigns = len(plan.moves), True
                    else:
                        resigns = False  # stuck where it may not resign (no undo): it is done already
                    continue
                if due is not None:
                    step += 1
        finally:
            del self.tasks[(code, ghost)]
            if not any(key[0] == code for key in self.tasks):
                self.changed.pop(code, None)

    async def _wait(self, changed: asyncio.Event, until: int | None) -> None:
        """Until the room commits something, or the clock reaches ``until`` (None: no time)."""
        timer = self.clock.call_at(until, changed.set) if until is not None else None
        try:
            await changed.wait()
        finally:
            if timer is not None:
                timer.cancel()


def _play(ghost: str, move: str, auto: bool) -> Command:
    if move == "undo":
        return lambda core, now: core.undo(ghost, now)
    return lambda core, now: core.move(ghost, move, now, auto)


def _resign(ghost: str) -> Command:
    return lambda core, now: core.resign(ghost, now)


def _leave(ghost: str) -> Command:
    return lambda core, now: core.leave(ghost, now)
