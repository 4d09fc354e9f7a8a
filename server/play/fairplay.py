"""The fair-play side of a race: the daily board, hints and lost checks (solved off the loop), and
the bots' way into the room path."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
from typing import Final

from protocol.codec import encode
from protocol.enums import Status
from protocol.errors import ProtocolError
from protocol.messages import Advice, DailyBoard, DailyBoardRequest, DailyEntry, HintRequest, Lost
from protocol.schema import Message
from seahaven import encode as encode_deal
from server.play.bots import BotRacers
from server.play.daily import DailyTimes
from server.play.dealing import Dealing
from server.play.dealpool import Worker
from server.play.hints import Advisor
from server.rooms.room import Room
from server.shell.clock import Clock
from server.shell.fanout import Fanout
from server.shell.handlers import handles
from server.shell.held import Asker, Command
from server.shell.roombase import RoomMoments
from server.shell.roompath import RoomPath, Spawn
from server.store.base import StoreError

HINT_SECONDS: Final = 2.0
"""The solver's budget for one hint or one lost check."""
QUICK_MATCH_BOT: Final = "brisk"
"""The pace of the bot quick match offers after a wait."""


class FairPlay:
    """The daily board, hints and lost checks, and bot seats, on the rooms of ``path``.

    Implements the shell's ``Bots`` and ``MoveWatch`` ports; its bots plan in ``worker`` and look
    again at each commit ``moments`` tells."""

    def __init__(
        self,
        path: RoomPath,
        fanout: Fanout,
        clock: Clock,
        dealing: Dealing,
        daily_board: DailyTimes,
        spawn: Spawn,
        stopping: asyncio.Event,
        worker: Worker,
        moments: RoomMoments,
        *,
        hint_seconds: float = HINT_SECONDS,
        bot_time_scale: float = 1.0,
    ) -> None:
        self.path = path
        self.fanout = fanout
        self.clock = clock
        self.dealing = dealing
        self.daily_board = daily_board
        self.spawn = spawn
        self.stopping = stopping
        self.hint_seconds = hint_seconds
        self.worker = worker
        self.bots = BotRacers(
            self.run_for_bot, self.room_held, dealing.rematch_deal, worker, moments, time_scale=bot_time_scale
        )
        self.advisor: Advisor | None = None
        """Solves hints and lost checks in the bots' worker process; made on first use."""
        self.lost_watch: set[str] = set()
        """Racers whose position is being checked for a proven loss."""

    # -- the daily board ---------------------------------------------------------------------

    @handles(DailyBoardRequest)
    async def on_daily_board(self, asker: Asker, message: DailyBoardRequest) -> Message:
        date, deal = await self.dealing.daily_deal(message.preset)
        entries = await self.daily_board.best(message.preset, datetime.date.fromisoformat(date))
        return DailyBoard(
            preset=message.preset,
            date=date,
            deal=encode_deal(message.preset, deal),
            entries=tuple(
                DailyEntry(place=i, player=e.player, name=e.name, time_ms=e.time_ms)
                for i, e in enumerate(entries, start=1)
            ),
        )

    # -- hints and lost checks ---------------------------------------------------------------

    @handles(HintRequest)
    async def on_hint(self, asker: Asker, message: HintRequest) -> Message | None:
        held = self.path.held_by(asker.session)
        player = asker.session.player
        board = held.room.check_hint(player)
        advice = await self._advisor().advise(board)  # in a worker, within HINT_SECONDS
        reply = Advice(kind=advice.kind, move=str(advice.move) if advice.move is not None else None)
        if advice.kind != "hint":
            return reply
        # Counted: the reply goes before the frames the count causes (and is stored with it).
        await self.path.run(held, lambda core, now: core.hint(player, now), asker, reply=reply)
        return None

    def _advisor(self) -> Advisor:
        if self.advisor is None:
            self.advisor = Advisor(self.worker.executor(), max_seconds=self.hint_seconds)
        return self.advisor

    def moved(self, code: str, player: str) -> None:
        """A racer moved in a room that tells racers when they are lost: check, if not already."""
        if player not in self.lost_watch:
            self.lost_watch.add(player)
            self.spawn(self.watch_lost(code, player))

    async def watch_lost(self, code: str, player: str) -> None:
        """Check a racer's position off the loop, again while they keep moving; tell them when
        it is proven lost (one check at a time per racer)."""
        try:
            while True:
                room = self.room_held(code)
                seat = room.seats.get(player) if room is not None else None
                if room is None or seat is None or seat.board is None or seat.status != Status.RACING:
                    return
                position = seat.board.position()
                advice = await self._advisor().advise(seat.board)
                room = self.room_held(code)
                seat = room.seats.get(player) if room is not None else None
                if seat is None or seat.board is None or seat.status != Status.RACING:
                    return
                if seat.board.position() != position:
                    continue  # they moved meanwhile: look at the new position
                if advice.kind == "lost":
                    self.fanout.send([(frozenset({player}), encode(Lost(moves=seat.moves)))])
                return
        finally:
            self.lost_watch.discard(player)

    # -- bots --------------------------------------------------------------------------------

    def room_held(self, code: str) -> Room | None:
        held = self.path.rooms.get(code)
        return held.room if held is not None else None

    async def run_for_bot(self, code: str, command: Command) -> bool:
        """A bot's command, through the same room path as a human's request."""
        held = self.path.rooms.get(code)
        if held is None:
            return False
        await self.path.run(held, command)
        await self.path.forget_if_idle(held)
        return True

    async def seat(self, code: str, pace: str) -> str:
        return await self.bots.seat(code, pace)

    async def offer(self, code: str, player: str) -> None:
        """Quick match: a bot takes the free seat now if ``player`` still waits there alone."""
        room = self.room_held(code)
        seat = room.seats.get(player) if room is not None else None
        if room is None or seat is None or not seat.connected or not room.is_open() or len(room.seats) > 1:
            return
        if self.stopping.is_set():
            return
        with contextlib.suppress(ProtocolError, StoreError):
            await self.bots.seat(code, QUICK_MATCH_BOT)
