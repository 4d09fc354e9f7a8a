"""Scripted legal races for the load benchmark: real deals, real moves from the engine.

A script is a solver's winning line for a deal, stopped before the racer would finish (a finished
racer would end the race), followed by a pair of moves that undo each other, played back and forth
for as long as the benchmark needs. Every move is checked with the engine while the script is built,
so the server accepts each one in order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from seahaven import CELL, COLUMN, Board, Move
from seahaven.solver import solve

PRESET = "seahaven"
HOLD_BACK = 4
"""Moves of the winning line left unplayed, so no racer finishes and the race goes on."""


@dataclass(frozen=True)
class Script:
    """The moves one racer plays on ``deal``: ``opening`` once, then ``loop`` over and over."""

    deal: int
    opening: tuple[str, ...]
    loop: tuple[str, str]

    def move(self, index: int) -> str:
        """The move numbered ``index`` (0-based) of the racer's endless line."""
        if index < len(self.opening):
            return self.opening[index]
        return self.loop[(index - len(self.opening)) % 2]


def _inverse(move: Move) -> Move | None:
    """The move that takes a single card straight back, when there is one in the notation."""
    if move.count != 1 or move.src_area not in (CELL, COLUMN) or move.dst_area not in (CELL, COLUMN):
        return None
    return Move(move.dst_area, move.dst, move.src_area, move.src)


def _back_and_forth(board: Board) -> tuple[Move, Move] | None:
    """Two moves from ``board`` that undo each other and never leave the racer without a move."""
    for move in board.legal_moves():
        back = _inverse(move)
        if back is None:
            continue
        board.push(move)
        ok = bool(board.is_legal(back)) and not board.is_stuck()
        board.pop()
        if ok:
            return move, back
    return None


def script_for(deal: int) -> Script:
    """The script of ``deal``; ValueError when the solver finds no line with a loop to end on."""
    board = Board.deal(PRESET, deal)
    solution = solve(board)
    if not solution.solved:
        raise ValueError(f"deal {deal}: the solver found no win ({solution.status})")
    line = list(solution.moves[: max(0, len(solution.moves) - HOLD_BACK)])
    # Stop where a back-and-forth pair exists, as late in the line as possible.
    while True:
        played = Board.deal(PRESET, deal)
        for move in line:
            played.push(move)
        pair = _back_and_forth(played)
        if pair is not None and not played.is_won():
            return Script(deal, tuple(map(str, line)), (str(pair[0]), str(pair[1])))
        if not line:
            raise ValueError(f"deal {deal}: no back-and-forth pair anywhere on the winning line")
        line.pop()


def winning_line(deal: int) -> Script:
    """The solver's whole winning line for ``deal``, checked move by move with the engine, as a
    Script whose ``loop`` is never reached: the line's last move finishes the racer and ends a race
    (benchmarks/capacity.py). ValueError when the solver finds no win."""
    board = Board.deal(PRESET, deal)
    solution = solve(board)
    if not solution.solved or not solution.moves:
        raise ValueError(f"deal {deal}: the solver found no win ({solution.status})")
    for index, move in enumerate(solution.moves):
        verdict = board.is_legal(move)
        assert verdict, f"deal {deal} move {index} {move}: {verdict.reason}"
        board.push(move)
    assert board.is_won(), f"deal {deal}: the line does not win"
    return Script(deal, tuple(map(str, solution.moves)), ("", ""))


def scripts(count: int, first_deal: int = 1, make: Callable[[int], Script] = script_for) -> list[Script]:
    """Scripts for ``count`` different deals, from ``first_deal`` on (deals without one are skipped);
    ``make`` makes a deal's script (``winning_line``: to the finish)."""
    found: list[Script] = []
    deal = first_deal
    while len(found) < count:
        with contextlib.suppress(ValueError):
            found.append(make(deal))
        deal += 1
    return found


def check(script: Script, length: int) -> None:
    """Play ``length`` moves of ``script`` with the engine; AssertionError at the first illegal one."""
    board = Board.deal(PRESET, script.deal)
    for index in range(length):
        move = Move.parse(script.move(index))
        verdict = board.is_legal(move)
        assert verdict, f"deal {script.deal} move {index} {move}: {verdict.reason}"
        board.push(move)
        assert not board.is_won(), f"deal {script.deal}: the racer finished at move {index}"
