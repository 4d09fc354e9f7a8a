"""Rule vectors: positions with their legal moves and the results of those moves.

Other implementations of the rules (the browser client's ``web/src/rules.js``) check
themselves against these files, so that a move the browser plays at once is one the
server accepts. Written by ``python -m seahaven.vectors WEB_DIR``:

- ``WEB_DIR/src/presets.json``: every preset's rules as data, which the browser bundles
  (with each preset's layout and shuffle limit, so the browser deals a deal number itself);
- ``WEB_DIR/test/vectors.json``: for several presets, positions reached by a seeded walk
  of legal moves, each with its legal moves in order, the board after each of them, the
  double-click (smart) move of every source, progress and whether it is won or stuck
  (``played`` 0: the deal's opening position); and replays: a deal, moves and undos as a
  race record lists them, and the board after each of them.

The walk uses its own linear congruential generator, not ``random``, so the files are
the same on every Python version.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Final

from .board import Board
from .cards import CARDS, Card
from .moves import CELL, CELL_TOKENS, COLUMN, COLUMN_TOKENS, FOUNDATION, Move
from .rules import PRESETS, Place, Rules, preset
from .solver import solve
from .text import to_board_text

DEALS: Final = (1, 2, 617, 2**35 + 11)
"""Deal numbers walked for each preset: Microsoft-numbered ones and a SplitMix64 one."""
SNAPSHOTS: Final = (0, 7, 19, 40, 70)
"""Walk lengths (moves played) at which a position is recorded."""
SOLVED_DEAL: Final = 1
"""The deal whose solution path gives late positions (runs, empty columns, full foundations)."""
REPLAYS: Final = (("seahaven", 1), ("seahaven-easy", 617), ("freecell", 2**35 + 11), ("penguin", 2))
"""The (preset, deal) pairs replayed with undos (a Microsoft and a SplitMix64 deal, a beak)."""
REPLAY_ACTIONS: Final = 30


class _Lcg:
    """A small deterministic generator (Knuth's MMIX constants)."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def below(self, n: int) -> int:
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.state >> 33) % n


def preset_data(rules: Rules) -> dict[str, Any]:
    """A preset as the browser reads it."""
    return {
        "name": rules.name,
        "title": rules.title,
        "tag": rules.tag,
        "columns": rules.columns,
        "cells": rules.cells,
        "build": str(rules.build),
        "empty_column": str(rules.empty_column),
        "capacity": str(rules.capacity),
        "foundation_takeback": rules.foundation_takeback,
        "undo_limit": rules.undo_limit,
        "beak": rules.beak,
        "ms_deal_limit": rules.ms_deal_limit,
        # Where each dealt card goes, one token a card: a column's (1-9, 0) or a cell's (a-h).
        "layout": "".join(
            (COLUMN_TOKENS if place is Place.COLUMN else CELL_TOKENS)[index] for place, index in rules.layout
        ),
    }


def _choose(board: Board, moves: list[Move], rng: _Lcg) -> Move:
    """Mostly forward play: home moves first, cell parking rarely, so walks reach varied shapes."""
    home = [m for m in moves if m.dst_area == FOUNDATION]
    if home and rng.below(3):
        return home[rng.below(len(home))]
    onward = [m for m in moves if m.dst_area == COLUMN or (m.dst_area == CELL and rng.below(4) == 0)]
    pool = onward or moves
    return pool[rng.below(len(pool))]


def _sources(board: Board) -> list[tuple[int, int]]:
    sources = [(COLUMN, i) for i, col in enumerate(board.columns) if col]
    sources += [(CELL, i) for i, card in enumerate(board.cells) if card is not None]
    if board.rules.foundation_takeback:
        sources += [(FOUNDATION, s) for s in range(4) if board.home[s]]
    return sources


def position_vector(board: Board) -> dict[str, Any]:
    """One position: its text, legal moves in order, each move's result, smart moves, the safe
    foundation moves and the move auto-move plays (``Board.auto_move``: the server's, and the
    browser's optimistic copy of it)."""
    results: dict[str, str] = {}
    legal = board.legal_moves()
    for move in legal:
        board.push(move)
        results[str(move)] = to_board_text(board)
        board.pop()
    smart: dict[str, str | None] = {}
    for area, index in _sources(board):
        found = board.smart_move(area, index)
        smart[f"{area}:{index}"] = None if found is None else str(found)
    return {
        "board": to_board_text(board),
        "progress": board.progress,
        "won": board.is_won(),
        "stuck": board.is_stuck(),
        "legal": [str(m) for m in legal],
        "results": results,
        "smart": smart,
        "safe": [str(m) for m in board.safe_home_moves()],
        "auto": None if (auto := board.auto_move()) is None else str(auto),
    }


def vectors() -> dict[str, Any]:
    """Every preset's walks, positions de-duplicated, in a fixed order."""
    positions: list[dict[str, Any]] = []
    for name in PRESETS:
        for deal in DEALS:
            board = Board.deal(name, deal)
            rng = _Lcg(deal * 1000 + len(name))
            seen: set[str] = set()
            for played in range(max(SNAPSHOTS) + 1):
                if played in SNAPSHOTS:
                    vector = position_vector(board)
                    if vector["board"] not in seen:
                        seen.add(vector["board"])
                        positions.append({"preset": name, "deal": deal, "played": played, **vector})
                moves = board.legal_moves()
                if not moves:
                    break
                board.push(_choose(board, moves, rng))
        positions += _solution_positions(name)
    positions.append(_finishing_position())
    replays = [replay_vector(name, deal) for name, deal in REPLAYS]
    return {"presets": list(PRESETS), "positions": positions, "replays": replays}


def replay_vector(name: str, deal: int) -> dict[str, Any]:
    """A seeded walk with undos in it, as a race record lists a racer's actions (a move in
    notation or ``"undo"``), and the board before the first and after each action."""
    board = Board.deal(name, deal)
    rng = _Lcg(deal * 7 + len(name))
    actions: list[str] = []
    boards = [to_board_text(board)]
    for _ in range(REPLAY_ACTIONS):
        moves = board.legal_moves()
        if board.move_stack and (not moves or rng.below(4) == 0):
            board.pop()
            actions.append("undo")
        elif moves:
            move = _choose(board, moves, rng)
            board.push(move)
            actions.append(str(move))
        else:
            break
        boards.append(to_board_text(board))
    return {"preset": name, "deal": deal, "actions": actions, "boards": boards}


def _solution_positions(name: str) -> list[dict[str, Any]]:
    """Positions a quarter, half, three quarters and all the way along a solution of SOLVED_DEAL."""
    board = Board.deal(name, SOLVED_DEAL)
    solution = solve(board.copy(), max_states=20_000)
    if solution.status != "solved":
        return []
    steps = len(solution.moves)
    marks = sorted({steps // 4, steps // 2, 3 * steps // 4, steps - 1, steps})
    positions: list[dict[str, Any]] = []
    for played, move in enumerate((*solution.moves, None)):
        if played in marks:
            positions.append({"preset": name, "deal": SOLVED_DEAL, "played": played, **position_vector(board)})
        if move is not None:
            board.push(move)
    return positions


def _finishing_position() -> dict[str, Any]:
    """A FreeCell board where no foundation move is safe and only foundation moves are left:
    auto-move finishes it (``Board.auto_move``'s second case, which no walk reaches)."""
    rules = preset("freecell")

    def run(suit: int, high: int, low: int) -> list[Card]:
        return [CARDS[(rank - 1) * 4 + suit] for rank in range(high, low - 1, -1)]

    clubs, diamonds, hearts, spades = range(4)
    columns: list[list[Card]] = [[] for _ in range(rules.columns)]
    # The black 10s (unsafe: the red foundations are at 2) lie on the red runs they block.
    columns[0] = run(diamonds, 13, 3) + run(clubs, 10, 10)
    columns[1] = run(hearts, 13, 3) + run(spades, 10, 10)
    columns[2] = run(clubs, 13, 11)
    columns[3] = run(spades, 13, 11)
    board = Board(rules, columns, [None] * rules.cells, (9, 2, 2, 9))
    return {"preset": rules.name, "deal": 0, "played": 0, **position_vector(board)}


def write(web_dir: Path) -> list[Path]:
    """Write both files under ``web_dir``; the paths written."""
    presets = web_dir / "src" / "presets.json"
    cases = web_dir / "test" / "vectors.json"
    presets.parent.mkdir(parents=True, exist_ok=True)
    cases.parent.mkdir(parents=True, exist_ok=True)
    presets.write_text(json.dumps({r.name: preset_data(r) for r in PRESETS.values()}, indent=1) + "\n")
    cases.write_text(json.dumps(vectors(), separators=(",", ":")) + "\n")
    return [presets, cases]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m seahaven.vectors WEB_DIR", file=sys.stderr)
        return 2
    for path in write(Path(args[0])):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
