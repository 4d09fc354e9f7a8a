"""The fair-play side of the server: which deal a room races (the pool of winnable deals, the
daily deal), the daily board, hints and lost checks (solved off the loop), and the bots' way
into the room path."""

from __future__ import annotations

import contextlib
import datetime
import secrets
from typing import TYPE_CHECKING, Any, Final

from protocol.codec import encode
from protocol.enums import Status
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Advice, DailyBoard, DailyBoardRequest, DailyEntry, HintRequest, Lost
from protocol.schema import Message
from seahaven import encode as encode_deal
from seahaven.deals import MAX_DEAL
from seahaven.winnable import GRADES, deal_list
from server.play.daily import Entry, utc_date
from server.play.hints import Advisor
from server.rooms.room import Room, Settings
from server.shell.held import Asker, Command, log_event
from server.store.stores import StoreError

if TYPE_CHECKING:
    from server.app import RaceServer

HINT_SECONDS: Final = 2.0
"""The solver's budget for one hint or one lost check."""
QUICK_MATCH_BOT: Final = "brisk"
"""The pace of the bot quick match offers after a wait."""


class FairPlay:
    """Deals, the daily board, hints and lost checks, and the bots' commands, for ``server``."""

    def __init__(self, server: RaceServer, hint_seconds: float) -> None:
        self.server = server
        self.hint_seconds = hint_seconds
        self.advisor: Advisor | None = None
        """Solves hints and lost checks in the bots' worker process; made on first use."""
        self.lost_watch: set[str] = set()
        """Racers whose position is being checked for a proven loss."""

    async def on_daily_board(self, asker: Asker, message: DailyBoardRequest) -> Message:
        date, deal = await self.daily_deal(message.preset)
        entries = await self.server.daily_board.best(message.preset, datetime.date.fromisoformat(date))
        return DailyBoard(
            preset=message.preset,
            date=date,
            deal=encode_deal(message.preset, deal),
            entries=tuple(
                DailyEntry(place=i, player=e.player, name=e.name, time_ms=e.time_ms)
                for i, e in enumerate(entries, start=1)
            ),
        )

    async def daily_deal(self, preset: str) -> tuple[str, int]:
        """Today (UTC, on the server's clock) and its daily deal of ``preset``, solved off the loop."""
        date = utc_date(self.server.clock.now())
        return date.isoformat(), await self.server.daily_deals.deal(preset, date)

    async def record_daily(self, room: Room) -> None:
        """A daily race ended: its human finishers' times go on the day's board (best effort)."""
        daily = room.settings.daily
        assert daily is not None
        date = datetime.date.fromisoformat(daily)
        for standing in room.standings:
            if standing.status == Status.FINISHED and not standing.bot and standing.time_ms is not None:
                entry = Entry(standing.player, standing.name, standing.time_ms)
                try:
                    await self.server.daily_board.record(room.settings.preset, date, entry)
                except StoreError as exc:
                    log_event("daily.error", room=room.code, error=str(exc))

    async def on_hint(self, asker: Asker, message: HintRequest) -> Message:
        held = self.server._held_by(asker.session)
        player = asker.session.player
        board = held.room.check_hint(player)
        advice = await self._advisor().advise(board)  # in a worker, within HINT_SECONDS
        if advice.kind == "hint":
            await self.server._command(held, lambda core, now: core.hint(player, now))
        return Advice(kind=advice.kind, move=str(advice.move) if advice.move is not None else None)

    def _advisor(self) -> Advisor:
        if self.advisor is None:
            self.advisor = Advisor(self.server.bots.executor(), max_seconds=self.hint_seconds)
        return self.advisor

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
                    self.server._send([(frozenset({player}), encode(Lost(moves=seat.moves)))])
                return
        finally:
            self.lost_watch.discard(player)

    async def rematch_deal(self, room: Room) -> int:
        if room.settings.daily is not None:
            return room.settings.deal  # a daily room races its day's deal again
        return await self.pick_deal(room.settings.preset, room.settings.any_deal, room.settings.deal_grade)

    def room_held(self, code: str) -> Room | None:
        held = self.server.rooms.get(code)
        return held.room if held is not None else None

    async def run_for_bot(self, code: str, command: Command) -> bool:
        """A bot's command, through the same room path as a human's request."""
        held = self.server.rooms.get(code)
        if held is None:
            return False
        await self.server._command(held, command)
        await self.server._forget_if_idle(held)
        return True

    async def offer_bot(self, code: str, player: str) -> None:
        """Quick match waited long enough: a bot takes the free seat if the player still waits alone."""
        room = self.room_held(code)
        seat = room.seats.get(player) if room is not None else None
        if room is None or seat is None or not seat.connected or not room.is_open() or len(room.seats) > 1:
            return
        if self.server.stopping:
            return
        with contextlib.suppress(ProtocolError, StoreError):
            await self.server.bots.seat(code, QUICK_MATCH_BOT)

    async def pick_deal(self, preset: str, any_deal: bool, grade: str | None) -> int:
        """A deal the server picks: from the pool of winnable deals (of ``grade``), unless the room
        asked for any deal. Never solves: the pool hands out deals verified beforehand."""
        if self.server.deals is not None:
            return self.server.deals()
        if any_deal:
            return _random_deal()
        if grade is not None and grade not in GRADES:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"unknown deal grade {grade!r}; grades: {', '.join(GRADES)}")
        try:
            return (await self.server.pool.take(preset, grade)).number
        except StoreError as exc:  # the shared pool is down: the shipped list still serves
            log_event("dealpool.error", error=str(exc))
            book = deal_list(preset)
            return secrets.choice(book.by_grade(grade) if grade else [n for n, _ in book.deals])

    async def settings(self, preset: str, deal: int | None, **chosen: Any) -> Settings:
        if deal is None:
            deal = await self.pick_deal(preset, chosen.get("any_deal", False), chosen.get("deal_grade"))
        else:
            chosen["chosen"] = True
        return Settings(
            preset=preset,
            deal=deal,
            countdown_ms=self.server.config.countdown_ms,
            grace_ms=self.server.config.grace_ms,
            spectator_delay_ms=self.server.config.spectator_delay_ms,
            **chosen,
        )


def _random_deal() -> int:
    return secrets.randbelow(MAX_DEAL) + 1
