"""The daily race: today's deal per preset (solved off the loop, once per process), and the daily
board of the best finishing times on it across every room, in Redis or in memory.

Redis layout (``P`` is the prefix)::

    P daily:{preset}:{YYYY-MM-DD}   sorted set   member: player id + TAB + name, score: best time (ms)

A racer's entry keeps their best time of the day (``ZADD LT``); each board expires a week after its
first entry, so yesterday's board is still there to show for a while and nothing lingers.
"""

from __future__ import annotations

import abc
import asyncio
import datetime
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Final, cast

import redis.asyncio as aioredis

from seahaven.daily import daily_deal

BOARD_TTL: Final = 7 * 24 * 3600
"""Seconds a day's board is kept."""
BOARD_SIZE: Final = 20
"""Entries a daily board shows."""


def utc_date(now_ms: int) -> datetime.date:
    """The UTC calendar day of a server time (ms since the epoch)."""
    return datetime.datetime.fromtimestamp(now_ms / 1000, datetime.UTC).date()


@dataclass(frozen=True, slots=True)
class Entry:
    """One racer's best finishing time on a day's deal."""

    player: str
    name: str
    time_ms: int


class DailyTimes(abc.ABC):
    """The best finishing times per preset and day."""

    @abc.abstractmethod
    async def record(self, preset: str, date: datetime.date, entry: Entry) -> None:
        """Keep ``entry`` unless the player has a better time that day."""

    @abc.abstractmethod
    async def best(self, preset: str, date: datetime.date, count: int = BOARD_SIZE) -> list[Entry]:
        """The ``count`` best entries, fastest first (equal times in player id order)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Release connections."""


class MemoryDailyTimes(DailyTimes):
    """The boards in this process (a server without Redis)."""

    def __init__(self) -> None:
        self._boards: dict[tuple[str, datetime.date], dict[tuple[str, str], int]] = {}

    async def record(self, preset: str, date: datetime.date, entry: Entry) -> None:
        # a week of boards: older days are dropped when a new one begins
        if (preset, date) not in self._boards:
            week_ago = date - datetime.timedelta(days=7)
            self._boards = {k: v for k, v in self._boards.items() if k[1] > week_ago}
        board = self._boards.setdefault((preset, date), {})
        key = (entry.player, entry.name)
        board[key] = min(board.get(key, entry.time_ms), entry.time_ms)

    async def best(self, preset: str, date: datetime.date, count: int = BOARD_SIZE) -> list[Entry]:
        board = self._boards.get((preset, date), {})
        ranked = sorted(board.items(), key=lambda item: (item[1], item[0]))
        return [Entry(player, name, time) for (player, name), time in ranked[:count]]

    async def close(self) -> None:
        self._boards.clear()


class RedisDailyTimes(DailyTimes):
    """The boards in Redis, shared by every node."""

    def __init__(self, url: str, *, prefix: str = "seahaven:") -> None:
        self.prefix = prefix
        self._redis = aioredis.Redis.from_url(url, socket_timeout=5.0, socket_connect_timeout=5.0)

    def key(self, preset: str, date: datetime.date) -> str:
        return f"{self.prefix}daily:{preset}:{date.isoformat()}"

    async def record(self, preset: str, date: datetime.date, entry: Entry) -> None:
        key = self.key(preset, date)
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {f"{entry.player}\t{entry.name}": entry.time_ms}, lt=True)
            pipe.expire(key, BOARD_TTL, nx=True)
            await pipe.execute()

    async def best(self, preset: str, date: datetime.date, count: int = BOARD_SIZE) -> list[Entry]:
        rows = cast(
            list[tuple[bytes, float]],
            await self._redis.zrange(self.key(preset, date), 0, count - 1, withscores=True),
        )
        entries = []
        for member, score in rows:
            player, _, name = member.decode().partition("\t")
            entries.append(Entry(player, name, int(score)))
        return entries

    async def close(self) -> None:
        await self._redis.aclose()


class DailyDeals:
    """Today's deal per preset, solved once per process in ``executor`` (never on the loop)."""

    def __init__(self, executor: Callable[[], Executor]) -> None:
        self.executor = executor
        self._deals: dict[tuple[str, datetime.date], asyncio.Future[int]] = {}

    async def deal(self, preset: str, date: datetime.date) -> int:
        key = (preset, date)
        future = self._deals.get(key)
        if future is None or (future.done() and future.exception() is not None):  # a failed solve is retried
            yesterday = date - datetime.timedelta(days=1)
            self._deals = {k: v for k, v in self._deals.items() if k[1] >= yesterday}
            job = asyncio.get_running_loop().run_in_executor(self.executor(), daily_deal, preset, date)
            future = self._deals[key] = job
        return await asyncio.shield(future)
