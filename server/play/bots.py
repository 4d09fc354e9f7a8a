"""Bot racers at work: one task per bot seat, playing through the server's judged room path.

A bot is a seat whose player id starts with ``bot-``. Its task asks ``server/play/bot.py``'s brain for
the next move (the solver plans in a worker process, never on the event loop), waits the brain's
human-like pause, then submits the move exactly as a human's move is submitted: the room core
validates it, the store appends it, progress and standings follow. The bot readies at once, votes
for a rematch once a human has, and leaves when no human racer is left to race it. Between races it
sleeps on an event the server sets when its room changes, so a bot nobody races costs nothing, and
the worker process starts only with the first bot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Final

from protocol.enums import Phase, Status
from protocol.errors import ProtocolError
from protocol.messages import GHOST_PREFIX
from server.play.bot import PACES, BotBrain, think
from server.play.dealpool import Worker
from server.play.seats import Run, SeatDrivers
from server.rooms.room import BOT_PREFIX, Room
from server.shell.held import Command
from server.shell.roombase import RoomMoments
from server.store.base import StoreError

log = logging.getLogger("seahaven.server")

STILL_ON: Final = (Phase.WAITING, Phase.COUNTDOWN, Phase.RACING)


def human_present(room: Room) -> bool:
    """A human racer (not a bot or a ghost) who may still race: connected, or dropped but within
    their grace period."""
    for player, seat in room.seats.items():
        if player.startswith((BOT_PREFIX, GHOST_PREFIX)) or seat.left:
            continue
        if seat.connected or (room.phase in STILL_ON and seat.status != Status.FORFEIT):
            return True
    return False


class BotRacers(SeatDrivers[str]):
    """The bot seats this process drives.

    ``run`` runs a command on a room through the server's room path; ``room_of`` is the room held
    here under a code (None when gone); ``next_deal`` picks a rematch's deal for a room; ``worker``
    plans their moves; ``time_scale`` multiplies every pause (tests play fast).
    """

    def __init__(
        self,
        run: Run,
        room_of: Callable[[str], Room | None],
        next_deal: Callable[[Room], Awaitable[int]],
        worker: Worker,
        moments: RoomMoments,
        *,
        time_scale: float = 1.0,
    ) -> None:
        super().__init__(run, room_of, moments)
        self.next_deal = next_deal
        self.worker = worker
        self.time_scale = time_scale
        self._rooms: dict[str, str] = {}
        """Room code by bot player id."""

    async def seat(self, code: str, pace: str) -> str:
        """Seat a ready bot of ``pace`` in room ``code`` and start driving it; its player id."""
        if pace not in PACES:
            raise ValueError(f"unknown bot pace {pace!r}")
        bot = BOT_PREFIX + secrets.token_hex(4)
        await self.seat_ready(code, bot, f"Computer ({pace})")
        self._rooms[bot] = code
        self.drive(bot, bot, self._drive(code, bot, pace))
        return bot

    async def close(self) -> None:
        """Stop every bot (their seats stay in the rooms' logs) and the worker process."""
        await super().close()
        self.worker.stop()

    async def _drive(self, code: str, bot: str, pace: str) -> None:
        brain = BotBrain(pace, seed=secrets.randbits(32))
        changed = self.changed[code]
        try:
            while True:
                room = self.room_of(code)
                seat = room.seats.get(bot) if room is not None else None
                if room is None or seat is None or seat.left:
                    return
                if not human_present(room):
                    await self.run(code, lambda core, now: core.leave(bot, now))
                    return
                if room.phase == Phase.RACING and seat.status == Status.RACING and seat.board is not None:
                    board = seat.board
                    try:
                        step = await think(brain, board, self.worker.executor())
                    except (BrokenProcessPool, OSError, ValueError) as exc:
                        # No worker to plan with (killed, or none could start): the bot gives this
                        # race up rather than sit in it unseen; the next bot starts a new worker.
                        log.log(logging.ERROR, "event=bot.no_worker room=%s bot=%s error=%r", code, bot, exc)
                        self.worker.stop()
                        await self.run(code, lambda core, now: core.resign(bot, now))
                        continue
                    if step is None:
                        if brain.wants_plan(board):
                            continue  # the board changed while it planned: plan again
                        await self.run(code, lambda core, now: core.resign(bot, now))  # no win from here
                        continue
                    await asyncio.sleep(step.delay_ms * self.time_scale / 1000)
                    move = str(step.move)
                    with contextlib.suppress(ProtocolError):  # refused: the next look plans again
                        await self.run(code, _move(bot, move))
                    continue
                if room.phase == Phase.FINISHED and room.rematch and bot not in room.rematch:
                    deal = await self.next_deal(room)
                    with contextlib.suppress(ProtocolError):
                        await self.run(code, _rematch(bot, deal))
                    continue
                changed.clear()
                await changed.wait()
        except StoreError as exc:
            log.warning("event=bot.stopped room=%s bot=%s error=%s", code, bot, exc)
        except ProtocolError:
            return  # the room closed under it
        finally:
            del self.tasks[bot], self._rooms[bot]
            if code not in self._rooms.values():
                self.changed.pop(code, None)


def _move(bot: str, move: str) -> Command:
    return lambda core, now: core.move(bot, move, now)


def _rematch(bot: str, deal: int) -> Command:
    return lambda core, now: core.rematch(bot, deal, now)
