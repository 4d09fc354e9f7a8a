"""Hints and "lost" detection for a position, solved in a worker process with a time budget.

    advice = await Advisor(executor).advise(board)
    advice.kind   # "hint" (advice.move is the next move of a win), "lost", "won" or "unknown"

"lost" is said only when the solver examined every reachable position and none wins (proven);
"unknown" is the honest answer when no win was found within the budget. The event loop never
solves: the search runs in ``executor`` (worker processes), and a job still waiting for a worker
when the budget is spent is cancelled and answered "unknown".
"""

from __future__ import annotations

import asyncio
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
    """The advice for ``board``, solved in this process (what a worker runs)."""
    if board.is_won():
        return Advice("won")
    solution = solve(board, max_states=max_states, max_seconds=max_seconds)
    if solution.solved:
        return Advice("hint", solution.moves[0], solution.states)
    if solution.status == "unsolvable":
        return Advice("lost", None, solution.states)
    return Advice("unknown", None, solution.states)


class Advisor:
    """Answers hint and lost questions off the event loop within ``max_seconds`` each."""

    def __init__(self, executor: Executor, *, max_seconds: float = 2.0, max_states: int = 1_000_000) -> None:
        if not max_seconds > 0 or max_states < 1:
            raise ValueError("max_seconds must be positive and max_states at least 1")
        self.executor = executor
        self.max_seconds = max_seconds
        self.max_states = max_states

    async def advise(self, board: Board) -> Advice:
        """Solve ``board``'s position in a worker; the board itself is not touched.

        The wait is bounded: the worker's search stops itself after ``max_seconds``, and the
        answer is "unknown" if the job has not come back a second after that (a queue of jobs).
        """
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(
            self.executor, advise_now, board.copy(stack=False), self.max_seconds, self.max_states
        )
        try:
            return await asyncio.wait_for(job, timeout=self.max_seconds + 1.0)
        except TimeoutError:
            return Advice("unknown")
