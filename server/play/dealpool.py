"""A ready pool of proven-winnable deals per preset and grade, shared by every node through the store.

``take(preset, grade)`` pops a deal atomically and never solves anything: when the pool of that
preset and grade is empty it falls back to a random deal of the shipped list (seahaven/winnable/),
so a fresh server is never without winnable deals. A background task keeps every pool topped up:
it draws random deal numbers, has them solved in worker processes (a ProcessPoolExecutor, never
the event loop), and adds the ones won to the pool of their grade.

The sets of deal numbers live in the store (``DealStore``: in Redis, ``P dealpool:PRESET:GRADE``,
one set each, SPOP handing each number to one room only; see ``server.store.redisstore``), reached
through the server's guarded store like every other store call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Literal

from seahaven import PRESETS, Board
from seahaven.deals import MAX_DEAL
from seahaven.solver import solve
from seahaven.winnable import GRADES, Grade, deal_list
from server.store.base import StoreError
from server.store.interfaces import DealStore

__all__ = ["Deal", "DealPool", "find_winnable"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Deal:
    """A winnable deal handed out by the pool; ``source`` says where it came from."""

    preset: str
    number: int
    grade: Grade
    source: Literal["pool", "shipped"]


def find_winnable(preset: str, numbers: Sequence[int], max_states: int) -> list[tuple[int, Grade]]:
    """The deals of ``numbers`` the solver wins, with their grades (runs in a worker process).

    Each win is replayed on the engine before it counts; deals not won within ``max_states``
    positions (unwinnable or undecided) are left out.
    """
    book = deal_list(preset)
    found: list[tuple[int, Grade]] = []
    for number in numbers:
        board = Board.deal(preset, number)
        solution = solve(board, max_states=max_states)
        if not solution.solved:
            continue
        for move in solution.moves:
            board.push(move)
        if board.is_won():
            found.append((number, book.grade(solution.states)))
    return found


def worker_executor(workers: int = 1, *, nice: int = 5, idle: bool = False) -> ProcessPoolExecutor:
    """Worker processes for solving, started with "spawn" (forking a running event loop is unsafe).

    Each worker runs at a lower priority than the server (``nice``: solving is background work
    next to serving moves) and exits when the server process is gone, even killed without a
    goodbye. ``idle``: only when a CPU has nothing else to run (Linux's SCHED_IDLE, else nice
    19), for work nobody waits on, such as race analyses: a nice worker still takes its slice of a
    busy CPU, and the moves queued behind it wait milliseconds; an idle one waits for a quiet
    moment, however long."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_worker_setup,
        initargs=(os.getpid(), 19 if idle else nice, idle),
    )


def stop_workers(executor: Executor) -> None:
    """Shut ``executor`` down and kill its worker processes, with the job under way: no one waits
    for a search nobody needs any more (a stopping server, a bot whose plan timed out). Left to
    finish, it held the server's exit: the interpreter joins a pool's manager thread at exit, which
    waits for the job, and an analysis at SCHED_IDLE on a busy machine may not finish for minutes.
    Python 3.14 has ``kill_workers()`` for this; 3.11 keeps its processes in ``_processes``."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError):  # gone already, or closed
            process.kill()


class Worker:
    """The one worker process of a node's bots: it plans their moves, solves hints and today's
    deals. Started with its first job, stopped with the node, or when a plan failed (killed, or none
    could start): the next job starts a new one. One object shared by those who use it, built
    before them, so that none builds on another to reach it."""

    def __init__(self) -> None:
        self._executor: ProcessPoolExecutor | None = None

    def executor(self) -> ProcessPoolExecutor:
        """The worker process, started now if none runs."""
        if self._executor is None:
            self._executor = worker_executor(1)
        return self._executor

    def stop(self) -> None:
        """Kill the worker process with its job under way (the next job starts another)."""
        if self._executor is not None:
            stop_workers(self._executor)
            self._executor = None


def _worker_setup(parent: int, nice: int, idle: bool) -> None:
    with contextlib.suppress(OSError):
        os.nice(nice)
    if idle and hasattr(os, "sched_setscheduler"):
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    threading.Thread(target=_exit_with, args=(parent,), name="exit-with-parent", daemon=True).start()


def _exit_with(parent: int) -> None:
    """Exit this worker once ``parent`` has died (the worker is then re-parented)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


class DealPool:
    """Winnable deals ready to deal, per preset and grade, refilled in the background.

    ``target``: the size each pool is refilled to; a refill starts when one falls below ``low``.
    ``batch``: deal numbers one worker job tries (a job takes about batch x a few ms).
    """

    def __init__(
        self,
        store: DealStore,
        executor: Executor | None = None,
        *,
        presets: Iterable[str] = PRESETS,
        target: int = 50,
        low: int = 20,
        batch: int = 64,
        max_states: int | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not 0 <= low <= target:
            raise ValueError("need 0 <= low <= target")
        self.store = store
        self.executor = executor
        self.presets = tuple(presets)
        for name in self.presets:
            deal_list(name)  # fail now, not in a worker, if a preset has no shipped list
        self.target = target
        self.low = low
        self.batch = batch
        self.max_states = max_states
        self._rng = rng or random.SystemRandom()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    async def seed(self) -> None:
        """Fill every empty pool from the shipped lists (a fresh server or a fresh Redis)."""
        for preset in self.presets:
            book = deal_list(preset)
            for grade in GRADES:
                if await self.store.count_deals(preset, grade) == 0:
                    await self.store.add_deals(preset, grade, book.by_grade(grade))

    async def take(self, preset: str, grade: Grade | None = None) -> Deal:
        """A winnable deal of ``preset`` (of ``grade``, or any grade for None); never waits on a solve."""
        if preset not in self.presets:
            raise ValueError(f"no deal pool for preset {preset!r}")
        if grade is None:
            chosen: Grade = self._rng.choice(GRADES)
        elif grade in GRADES:
            chosen = grade
        else:
            raise ValueError(f"unknown grade {grade!r}; grades: {', '.join(GRADES)}")
        number = await self.store.pop_deal(preset, chosen)
        if number is None or await self.store.count_deals(preset, chosen) < self.low:
            self._wake.set()
        if number is not None:
            return Deal(preset, number, chosen, "pool")
        return Deal(preset, self._rng.choice(deal_list(preset).by_grade(chosen)), chosen, "shipped")

    async def _sizes(self, preset: str) -> dict[Grade, int]:
        return {g: await self.store.count_deals(preset, g) for g in GRADES}

    async def needs_refill(self) -> bool:
        """Whether some pool is below ``low``."""
        for preset in self.presets:
            if min((await self._sizes(preset)).values()) < self.low:
                return True
        return False

    async def refill_once(self) -> int:
        """One round: a worker job for each preset with a pool below ``low``; returns deals added."""
        if self.executor is None:
            return 0
        loop = asyncio.get_running_loop()
        added = 0
        for preset in self.presets:
            sizes = await self._sizes(preset)
            if min(sizes.values()) >= self.low:
                continue
            numbers = [1 + self._rng.randrange(MAX_DEAL) for _ in range(self.batch)]
            book = deal_list(preset)
            max_states = self.max_states or book.max_states
            found = await loop.run_in_executor(self.executor, find_winnable, preset, numbers, max_states)
            for grade in GRADES:
                wanted = [n for n, g in found if g == grade][: max(0, self.target - sizes[grade])]
                await self.store.add_deals(preset, grade, wanted)
                added += len(wanted)
        return added

    async def _refill_forever(self, interval: float) -> None:
        while not self._closed:
            self._wake.clear()
            try:
                await self.refill_once()
                if await self.needs_refill():
                    continue  # rare presets need many jobs: keep the worker busy until they are full
            except StoreError as exc:  # the store is down (or stalled): try again next round
                log.warning("deal pool refill failed: %s", exc)
            # asyncio.timeout, not wait_for: Python 3.11's wait_for can drop a cancellation.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(interval):
                    await self._wake.wait()

    def start(self, interval: float = 30.0) -> None:
        """Start refilling in the background (call ``seed`` first)."""
        if self._task is None:
            self._task = asyncio.create_task(self._refill_forever(interval), name="deal-pool-refill")

    async def close(self) -> None:
        """Stop refilling (a worker job under way is waited for by the executor's owner)."""
        # Not only cancelled: redis-py can swallow a cancellation as a connection error, which the
        # store reports as an outage (the loop then waited on, and close() with it, forever).
        self._closed = True
        self._wake.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
