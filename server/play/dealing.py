"""Which deal a room races: a deal chosen by its creator, one from the pool of proven-winnable
deals (of a grade), any deal at all, or the day's daily deal."""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Callable
from typing import Any

from protocol.errors import ErrorCode, ProtocolError
from seahaven.deals import MAX_DEAL
from seahaven.verify import draw_candidates
from seahaven.winnable import GRADES, Grade, deal_list
from server.config import Config
from server.logs import log_event
from server.play.daily import DailyDeals, utc_date
from server.play.dealpool import DealPool
from server.rooms.room import Room
from server.rooms.settings import Settings
from server.shell.clock import Clock
from server.store.base import StoreError


class Dealing:
    """The deals of new rooms and rematches (``server.shell.ports.Deals``).

    ``chosen`` picks every deal the server picks, in place of the pool (for tests and benchmarks
    that need a known deal)."""

    def __init__(
        self,
        config: Config,
        clock: Clock,
        pool: DealPool,
        daily: DailyDeals,
        chosen: Callable[[], int] | None = None,
    ) -> None:
        self.config = config
        self.clock = clock
        self.pool = pool
        self.daily = daily
        self.chosen = chosen

    async def daily_deal(self, preset: str) -> tuple[str, int]:
        """Today (UTC, on the server's clock) and its daily deal of ``preset``, solved off the loop."""
        date: datetime.date = utc_date(self.clock.now())
        return date.isoformat(), await self.daily.deal(preset, date)

    async def rematch_deal(self, room: Room) -> int:
        if room.settings.daily is not None:
            return room.settings.deal  # a daily room races its day's deal again
        if room.settings.secret is not None:
            return room.settings.deal  # a drawn room draws its next deal at the start
        return await self.pick_deal(room.settings.preset, room.settings.any_deal, room.settings.deal_grade)

    async def pick_deal(self, preset: str, any_deal: bool, grade: str | None) -> int:
        """A deal the server picks: from the pool of winnable deals (of ``grade``), unless the room
        asked for any deal. Never solves: the pool hands out deals verified beforehand."""
        if self.chosen is not None:
            return self.chosen()
        if any_deal:
            return secrets.randbelow(MAX_DEAL) + 1
        grade = self._graded(grade)
        try:
            return (await self.pool.take(preset, grade)).number
        except StoreError as exc:  # the shared pool is down: the shipped list still serves
            log_event("dealpool.error", error=str(exc))
            book = deal_list(preset)
            return secrets.choice(book.by_grade(grade) if grade else [n for n, _ in book.deals])

    def draws(self, drawn: bool, chosen: dict[str, Any]) -> bool:
        """Whether a new room's server-picked deal is drawn at each start: for a rated room or an
        arena's race (``drawn``), unless it races any deal or the daily deal, or this server deals
        one known deal (``chosen``: tests and benchmarks)."""
        return drawn and self.chosen is None and not chosen.get("any_deal") and chosen.get("daily") is None

    @staticmethod
    def _graded(grade: str | None) -> Grade | None:
        """``grade`` if it is one (None: any grade); bad-field if it is not."""
        if grade is not None and grade not in GRADES:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"unknown deal grade {grade!r}; grades: {', '.join(GRADES)}")
        return grade

    async def settings(self, preset: str, deal: int | None, *, drawn: bool = False, **chosen: Any) -> Settings:
        grade = chosen.get("deal_grade")
        if deal is not None:
            chosen["chosen"] = True
        elif self.draws(drawn or chosen.get("rated", False), chosen):
            # Drawn at each start from the published list (server/rooms/draw.py): the first
            # listed deal stands in until then, shown to nobody.
            self._graded(grade)
            chosen["secret"] = secrets.token_hex(32)
            deal = draw_candidates(preset, grade)[0]
        else:
            deal = await self.pick_deal(preset, chosen.get("any_deal", False), grade)
        return Settings(
            preset=preset,
            deal=deal,
            countdown_ms=self.config.countdown_ms,
            grace_ms=self.config.grace_ms,
            spectator_delay_ms=self.config.spectator_delay_ms,
            **chosen,
        )
