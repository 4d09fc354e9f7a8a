"""Winning: a frozen win of Seahaven Towers #1, and the check that a solver's solution wins."""

from __future__ import annotations

from seahaven import Board, Move
from seahaven.solver import Solution

# A win of Seahaven Towers #1 (found once by seahaven.solver, frozen here).
WIN_TEXT = (
    "3c 08 3d 3# 3# a# 5a d5 78 73 7d 75 a7 10 1a d1 14:2 21 21 2# 5# 5# 5# 2# 2# 6# 9# a# 1# 1# "
    "1# 4# 4# 4# 1a 69 67 6# b6 63:2 57 5b 5# 0# 0# 0# c# a0 9a 9c 9# 9# 4# 0# 0# 9# 47 40 40 b1 "
    "80:3 8# c8 7# 7# 7# 7# 7# 0# 0# 0# 0# 0# 0# a8 81:3 8# 8# 3# 3# 3# 3# 1# 1# 1# 1#"
)
SEAHAVEN_1_WIN = WIN_TEXT.split()
"""Its moves, as a client sends them."""


def replay(board: Board, moves: tuple[Move, ...]) -> Board:
    """A copy of ``board`` with ``moves`` pushed (the engine rejects an illegal one)."""
    copy = board.copy(stack=False)
    for move in moves:
        copy.push(move)
    return copy


def assert_wins(board: Board, solution: Solution) -> None:
    assert solution.status == "solved", solution
    assert solution.moves
    assert solution.states >= 1
    assert replay(board, solution.moves).is_won()
