"""The analyst: each archived race analysed once, in a worker, off the move path.

One per node, as the archiver is. Each pass takes the newest race no other analyst holds from the
records' queue (``AnalysisBook.take``, for a lease), analyses it in a worker process at a lower
priority than anything else (``seahaven.analysis``: a budget per position and per race, "unknown"
when it runs out), and stores the analysis (``AnalysisBook.store``: once, whoever stores it
first). Nothing here is on the move path: the queue is written in the race's archive transaction,
and the analysis reads only the records.

A database outage leaves the race queued and the loop backs off; a worker that dies (killed, out
of memory) is replaced and the race, still queued, is taken again when its lease runs out (by
this node or another). A race whose analysis raises is logged and left to its lease; after a few
tries the records say it failed (``server/records/analyses.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Final

from seahaven.analysis import analyse
from server.logs import log_event
from server.play.dealpool import stop_workers
from server.rooms.history import RaceRecord
from server.shell.ports import AnalysisBook

__all__ = ["Analyst", "Budget"]

POLL_SECONDS: Final = 5.0
"""How often an idle analyst looks at the queue (an archive here wakes it at once)."""
BACKOFF_SECONDS: Final = (0.5, 1.0, 2.0, 5.0, 10.0)
"""Waits after consecutive failed passes (the database away)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much search a race's analysis may take: ``max_states`` per position (the same verdicts
    on every machine), ``max_seconds`` per position and ``race_seconds`` per race on top."""

    max_states: int = 100_000
    max_seconds: float = 30.0
    race_seconds: float = 300.0
    """Generous: the worker runs only on an idle CPU, so a busy machine stretches its wall time;
    the state budget is what bounds the work (100,000 states: a few seconds of CPU at most)."""
    lease_seconds: float = 420.0
    """How long a race is held: its whole budget, and two minutes for the worker to start and the
    store to answer. Another analyst takes the race after that."""

    @property
    def lease_ms(self) -> int:
        return int(self.lease_seconds * 1000)


def analysed(race: dict[str, Any], budget: Budget) -> dict[str, Any]:
    """What a worker runs: the race's analysis as the records keep it."""
    report = analyse(
        race, max_states=budget.max_states, max_seconds=budget.max_seconds, race_seconds=budget.race_seconds
    )
    return report.as_json()


class Analyst:
    """One node's analyst: ``run()`` as a background task, ``wake()`` when races were archived.
    ``workers`` makes the worker (a process pool of one), again after one died."""

    def __init__(self, book: AnalysisBook, workers: Callable[[], Executor], budget: Budget = Budget()) -> None:
        self.book = book
        self.workers = workers
        self.budget = budget
        self.stored = 0
        """Analyses this analyst stored since it started."""
        self.failures = 0
        """Passes that failed since the last one that did not."""
        self._executor: Executor | None = None
        self._due = asyncio.Event()

    def wake(self) -> None:
        """Races were archived: look at the queue now."""
        self._due.set()

    async def archived(self, records: Sequence[RaceRecord]) -> None:
        """The archiver's hook: it wrote ``records`` (each queued for analysis with its race)."""
        self.wake()

    async def run(self) -> None:
        """Analyse until cancelled."""
        while True:
            try:
                while await self.drain():
                    pass
            except OSError as exc:  # the database is away: the race stays queued
                self.failures += 1
                if self.failures == 1:
                    log_event("analysis.unavailable", error=str(exc))
                await asyncio.sleep(BACKOFF_SECONDS[min(self.failures, len(BACKOFF_SECONDS)) - 1])
                continue
            if self.failures:
                log_event("analysis.resumed", after=self.failures)
                self.failures = 0
            self._due.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(POLL_SECONDS):
                    await self._due.wait()

    async def drain(self) -> int:
        """Take one race, analyse it and store it; how many were taken (0: the queue is empty)."""
        races = await self.book.take(1, self.budget.lease_ms)
        for race in races:
            document = await self.analyse(race)
            if document is not None and await self.book.store(race["race_id"], document):
                self.stored += 1
        return len(races)

    async def analyse(self, race: dict[str, Any]) -> dict[str, Any] | None:
        """The race's analysis from the worker (None: it failed, and the race waits for its lease)."""
        loop = asyncio.get_running_loop()
        job = functools.partial(analysed, race, self.budget)
        try:
            return await loop.run_in_executor(self.executor(), job)
        except BrokenProcessPool:  # the worker died: a new one for the next race
            self.close()
            log_event("analysis.worker_died", race=race["race_id"])
        except Exception as exc:  # a bug in the analysis of this race: logged, the others go on
            log_event("analysis.failed", race=race["race_id"], error=repr(exc))
        return None

    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = self.workers()
        return self._executor

    def close(self) -> None:
        """Stop the worker, the analysis under way with it: its race's lease runs out, and the next
        pass (here after a restart, or another node's) takes it again."""
        if self._executor is not None:
            stop_workers(self._executor)
            self._executor = None
