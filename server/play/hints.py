"""Hints and "lost" detection for a position, solved in a worker process with a time budget.

    advice = await Advisor(executor).advise(board)
    advice.kind   # "hint" (advice.move is the next move of a win), "lost", "won" or "unknown"

"lost" is said only when the solver examined every reachable position and none wins (proven);
"unknown" is the honest answer when no win was found within the budget. A hint's line keeps clear
of the positions the board's moves passed through (its move stack): the next hint, after the racer
played this one, could otherwise lead straight back, and a racer who trusts hints would go in
circles. Only when no win avoids them does a hint lead back through one. The event loop never
solves: the search runs in ``executor`` (worker processes), and a job still waiting for a worker
when the budget is spent is cancelled and answered "unknown".
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Literal

from seahaven import Board, Move
from seahaven.solver import solve

__all__ = ["Advice", "Advisor", "advise_now"]

Kind = Literal["hint", "lost", "won", "unknown"]


@dataclass(frozen=True)
class Advice:
    """What the solver says about a position; ``move`` is set for a hint only."""

    kind: Kind
    move: Move | None = None
    states: int = 0


def advise_now(board: Board, max_seconds: float, max_states: int) -> Advice:
    """The advice for ``board``, solved in this process (what a worker runs); its move stack
    says where it has been."""
    if board.is_won():
        return Advice("won")
    states = 0
    if board.last_move is not None:
        started = time.monotonic()
        clear = solve(board, max_states=max_states, max_seconds=max_seconds, avoid=_been(board))
        if clear.solved:
            return Advice("hint", clear.moves[0], clear.states)
        # No win found clear of them; one through them may exist ("lost" needs the whole search).
        states = clear.states
        max_seconds -= time.monotonic() - started
        if max_seconds <= 0:
            return Advice("unknown", None, states)
    solution = solve(board, max_states=max_states, max_seconds=max_seconds)
    states += solution.states
    if solution.solved:
        return Advice("hint", solution.moves[0], states)
    if solution.status == "unsolvable":
        return Advice("lost", None, states)
    return Advice("unknown", None, states)


def _been(board: Board) -> Iterator[Board]:
    """The positions before ``board``'s, back along its move stack to where it started."""
    earlier = board.copy()
    while earlier.last_move is not None:
        earlier.pop()
        yield earlier.copy(stack=False)


class Advisor:
    """Answers hint and lost questions off the event loop within ``max_seconds`` each."""

    def __init__(self, executor: Executor, *, max_seconds: float = 2.0, max_states: int = 1_000_000) -> None:
        if not max_seconds > 0 or max_states < 1:
            raise ValueError("max_seconds must be positive and max_states at least 1")
        self.executor = executor
        self.max_seconds = max_seconds
        self.max_states = max_states

    async def advise(self, board: Board) -> Advice:
        """Solve ``board``'s position in a worker, the line clear of the positions its move stack
        passed through; the board itself is not touched.

        The wait is bounded: the worker's search stops itself after ``max_seconds``, and the
        answer is "unknown" if the job has not come back a second after that (a queue of jobs).
        """
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(self.executor, advise_now, board.copy(), self.max_seconds, self.max_states)
        try:
            async with asyncio.timeout(self.max_seconds + 1.0):
                return await job
        except TimeoutError:
            return Advice("unknown")
