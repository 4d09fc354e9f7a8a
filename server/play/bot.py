"""A bot racer's brain: which move to play next on its board, and after what human-like pause.

    brain = BotBrain("brisk", seed=7)
    step = await think(brain, board, executor)   # Step(delay_ms, move), or None: no win known
    ... wait step.delay_ms, then submit step.move through the same judged path as a human's move

The brain itself is pure: no I/O, no clock, no solving. It follows a plan (a winning move list the
solver found) and keeps its own copy of the board the plan expects; when the real board differs
(a move was refused, the room replayed, anything), ``wants_plan`` says so and ``think`` has the
solver plan again from the real board in a worker process, never on the event loop. Pauses come
from a seeded ``random.Random``, so a seed gives the same race every time.
"""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Final

from seahaven import FOUNDATION, Board, Move
from seahaven.solver import Solution, solve

__all__ = ["PACES", "BotBrain", "Pace", "Step", "plan_for", "think"]


@dataclass(frozen=True)
class Pace:
    """How fast a bot plays. Times are medians in milliseconds; each pause is drawn log-normally."""

    name: str
    first_look_ms: int
    """Reading the deal before the first move."""
    think_ms: int
    """Before an ordinary move."""
    home_ms: int
    """Before a card goes home: a quick tap once it is seen."""
    spread: float
    """Sigma of the log-normal draw: how uneven the pauses are."""
    stall_chance: float
    """How often a move comes after a long look at the board."""
    stall_ms: int


PACES: Final[dict[str, Pace]] = {
    p.name: p
    for p in (
        Pace("stroll", first_look_ms=8000, think_ms=2600, home_ms=900, spread=0.45, stall_chance=0.08, stall_ms=9000),
        Pace("brisk", first_look_ms=5000, think_ms=1300, home_ms=500, spread=0.35, stall_chance=0.05, stall_ms=5000),
        Pace("sprint", first_look_ms=2500, think_ms=600, home_ms=250, spread=0.25, stall_chance=0.02, stall_ms=2500),
    )
}
"""The levels a room can pick, slowest first."""

MAX_DELAY_MS: Final = 30_000
"""No pause is longer: a bot never looks asleep."""


@dataclass(frozen=True)
class Step:
    """Play ``move`` after ``delay_ms`` milliseconds."""

    delay_ms: int
    move: Move


class BotBrain:
    """Chooses a bot's moves from a solver plan and spaces them out like a person would."""

    def __init__(self, pace: str | Pace, seed: int) -> None:
        if isinstance(pace, str):
            if pace not in PACES:
                raise ValueError(f"unknown bot pace {pace!r}; paces: {', '.join(PACES)}")
            pace = PACES[pace]
        self.pace = pace
        self._rng = random.Random(seed)
        self._expected: Board | None = None
        self._plan: list[Move] = []
        self._moves_played = 0
        self._replanned = False

    def wants_plan(self, board: Board) -> bool:
        """Whether ``board`` is not the position the current plan continues from."""
        return self._expected is None or self._expected.position() != board.position()

    def adopt(self, board: Board, solution: Solution) -> None:
        """Follow ``solution``, found by the solver from ``board``'s position (no move if not solved)."""
        if self._expected is not None:
            self._replanned = True
        self._expected = board.copy(stack=False)
        self._plan = list(solution.moves) if solution.solved else []

    def next_step(self, board: Board) -> Step | None:
        """The next move on ``board`` and the pause before it; None when no winning line is known.

        Call ``adopt`` first whenever ``wants_plan(board)``. The brain assumes the move it
        returns will be played; if it is not, the next board differs and a new plan is wanted.
        """
        if self._expected is None or self.wants_plan(board) or not self._plan:
            return None
        move = self._plan.pop(0)
        self._expected.push(move)
        delay = self._delay(move)
        self._moves_played += 1
        return Step(delay, move)

    def _delay(self, move: Move) -> int:
        pace = self.pace
        rng = self._rng
        if self._moves_played == 0:
            median = pace.first_look_ms
        elif move.dst_area == FOUNDATION:
            median = pace.home_ms
        else:
            median = pace.think_ms
        delay = median * rng.lognormvariate(0.0, pace.spread)
        if self._replanned:  # surprised by its own board: a second look
            delay += pace.think_ms
            self._replanned = False
        if self._moves_played and rng.random() < pace.stall_chance:
            delay += pace.stall_ms * rng.uniform(0.5, 1.5)
        return min(MAX_DELAY_MS, max(50, round(delay)))


def plan_for(board: Board, max_states: int = 500_000) -> Solution:
    """A winning line from ``board`` (what a worker process runs for ``think``)."""
    return solve(board, max_states=max_states)


async def think(brain: BotBrain, board: Board, executor: Executor, *, max_states: int = 500_000) -> Step | None:
    """The brain's next step on ``board``, planning first in ``executor`` when the plan is stale."""
    if brain.wants_plan(board):
        snapshot = board.copy(stack=False)
        solution = await asyncio.get_running_loop().run_in_executor(executor, plan_for, snapshot, max_states)
        brain.adopt(snapshot, solution)
    return brain.next_step(board)
