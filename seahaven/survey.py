"""Solvability surveys: solve a range of deals, count the verdicts, checkpoint to a file.

    >>> from seahaven.survey import survey, tally
    >>> results = survey("seahaven", 1, 3)
    >>> tally(results)["solved"]
    3

Every win is replayed on the engine before it is counted. A checkpoint file holds one line per
deal already decided (``number status states moves seconds``), so a long survey stopped half way
resumes where it stopped and still reports the time the whole range took.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .board import Board
from .rules import preset as get_preset
from .solver import Status, solve

STATUSES: tuple[Status, ...] = ("solved", "unsolvable", "gave-up")


@dataclass(frozen=True)
class DealResult:
    """One deal's verdict: the solver's status, positions examined, solution length, time taken."""

    number: int
    status: Status
    states: int
    moves: int
    seconds: float

    def line(self) -> str:
        return f"{self.number} {self.status} {self.states} {self.moves} {self.seconds:.4f}\n"

    @classmethod
    def parse(cls, line: str) -> DealResult:
        number, status, states, moves, seconds = line.split()
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r} in checkpoint line {line!r}")
        return cls(int(number), status, int(states), int(moves), float(seconds))


def judge(preset: str, number: int, *, max_states: int) -> DealResult:
    """Solve one deal and check that a solution found really wins on the engine."""
    board = Board.deal(preset, number)
    started = time.perf_counter()
    solution = solve(board, max_states=max_states)
    seconds = time.perf_counter() - started
    if solution.solved:
        replay = board.copy(stack=False)
        for move in solution.moves:
            replay.push(move)
        if not replay.is_won():  # pragma: no cover - a solver bug, never expected
            raise AssertionError(f"{preset} #{number}: the solver's solution does not win")
    return DealResult(number, solution.status, solution.states, len(solution.moves), seconds)


def _header(preset: str, max_states: int) -> str:
    """A checkpoint's first line: what its verdicts depend on (any range of deals may follow)."""
    return f"# survey {preset} max_states={max_states}\n"


def read_checkpoint(path: Path, preset: str, max_states: int) -> dict[int, DealResult]:
    """The verdicts a checkpoint holds, by deal number; ValueError if it is another survey's."""
    return _read_checkpoint(path, _header(preset, max_states))


def _read_checkpoint(path: Path, header: str) -> dict[int, DealResult]:
    if not path.exists() or path.stat().st_size == 0:
        return {}
    with path.open(encoding="utf-8") as f:
        lines = f.readlines()
    if lines[0] != header:
        raise ValueError(f"{path} is a checkpoint of another survey: {lines[0].strip()!r}")
    # A line cut short by a kill (no newline) is dropped and solved again.
    done = [DealResult.parse(line) for line in lines[1:] if line.endswith("\n")]
    return {r.number: r for r in done}


def survey(
    preset: str,
    first: int,
    last: int,
    *,
    max_states: int = 200_000,
    checkpoint: Path | None = None,
    on_result: Callable[[DealResult], None] | None = None,
) -> list[DealResult]:
    """The verdicts on deals ``first``..``last`` (inclusive), resuming from ``checkpoint``."""
    name = get_preset(preset).name
    if not 1 <= first <= last:
        raise ValueError(f"need 1 <= first <= last, not {first}..{last}")
    header = _header(name, max_states)
    done: dict[int, DealResult] = {}
    if checkpoint is not None:
        done = _read_checkpoint(checkpoint, header)
        if not done:
            checkpoint.write_text(header, encoding="utf-8")
        else:
            _drop_partial_line(checkpoint)
    results: list[DealResult] = []
    for number in range(first, last + 1):
        result = done.get(number)
        if result is None:
            result = judge(name, number, max_states=max_states)
            if checkpoint is not None:
                with checkpoint.open("a", encoding="utf-8") as f:
                    f.write(result.line())
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def _drop_partial_line(path: Path) -> None:
    """Cut a last line left without its newline, so appended lines start on a line of their own."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)
            f.flush()
            os.fsync(f.fileno())


def tally(results: list[DealResult]) -> dict[Status, int]:
    """How many deals got each status."""
    counts: dict[Status, int] = dict.fromkeys(STATUSES, 0)
    for r in results:
        counts[r.status] += 1
    return counts
