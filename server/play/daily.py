"""The daily race: today's deal per preset (solved off the loop, once per process), and the daily
board of the best finishing times on it across every room, kept in the store (``DailyStore``; in
Redis ``P daily:PRESET:YYYY-MM-DD``, see ``server.store.redisstore``).

A racer's entry keeps their best time of the day; each board expires a week after its first entry,
so yesterday's board is still there to show for a while and nothing lingers.
"""

from __future__ import annotations

import asyncio
import datetime
from dataclasses import dataclass
from typing import Final

from protocol.enums import Status
from seahaven.daily import daily_deal
from server.logs import log_event
from server.play.dealpool import Worker
from server.rooms.events import Ended, Event
from server.rooms.room import Room
from server.store.base import StoreError
from server.store.interfaces import DailyStore

BOARD_TTL: Final = 7 * 24 * 3600
"""Seconds a day's board is kept."""
BOARD_SIZE: Final = 20
"""Entries a daily board shows."""


def utc_date(now_ms: int) -> datetime.date:
    """The UTC calendar day of a server time (ms since the epoch)."""
    return datetime.datetime.fromtimestamp(now_ms / 1000, datetime.UTC).date()


@dataclass(frozen=True, slots=True)
class DailyTime:
    """One racer's best finishing time on a day's deal."""

    player: str
    name: str
    time_ms: int


class DailyTimes:
    """The best finishing times per preset and day, kept in ``store`` (the server's guarded store)."""

    def __init__(self, store: DailyStore) -> None:
        self.store = store

    async def record(self, preset: str, date: datetime.date, entry: DailyTime) -> None:
        """Keep ``entry`` unless the player has a better time that day."""
        await self.store.record_daily(preset, date.isoformat(), entry.player, entry.name, entry.time_ms, BOARD_TTL)

    async def record_race(self, room: Room, lifecycle: list[Event]) -> None:
        """A daily race ended (``lifecycle`` holds its ``Ended``): its human finishers' times go on
        the day's board (best effort). The path's observer runs it before the answer and the
        frames: a racer who asks for the board on hearing ``ended`` finds their time."""
        daily = room.settings.daily
        if daily is None or not any(isinstance(e, Ended) for e in lifecycle):
            return
        date = datetime.date.fromisoformat(daily)
        for standing in room.standings:
            if standing.status == Status.FINISHED and not standing.bot and standing.time_ms is not None:
                entry = DailyTime(standing.player, standing.name, standing.time_ms)
                try:
                    await self.record(room.settings.preset, date, entry)
                except StoreError as exc:
                    log_event("daily.error", room=room.code, error=str(exc))

    async def best(self, preset: str, date: datetime.date, count: int = BOARD_SIZE) -> list[DailyTime]:
        """The ``count`` best entries, fastest first (equal times in player id order)."""
        rows = await self.store.daily_best(preset, date.isoformat(), count)
        return [DailyTime(player, name, time_ms) for player, name, time_ms in rows]


class DailyDeals:
    """Today's deal per preset, solved once per process in ``worker`` (never on the loop)."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self._deals: dict[tuple[str, datetime.date], asyncio.Future[int]] = {}

    async def deal(self, preset: str, date: datetime.date) -> int:
        key = (preset, date)
        future = self._deals.get(key)
        if future is None or (future.done() and future.exception() is not None):  # a failed solve is retried
            yesterday = date - datetime.timedelta(days=1)
            self._deals = {k: v for k, v in self._deals.items() if k[1] >= yesterday}
            job = asyncio.get_running_loop().run_in_executor(self.worker.executor(), daily_deal, preset, date)
            future = self._deals[key] = job
        return await asyncio.shield(future)
