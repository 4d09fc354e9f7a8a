"""Do the solver's deal grades match how hard a deal is to play? A check independent of the grade.

    .venv/bin/python benchmarks/grades.py --preset seahaven --deals 30 --playouts 20 [--player smart]

For a seeded sample of each grade's shipped deals, prints the solver's positions examined (the
grading measure), the winning line's length, and the share of won games for an unguided player:
it sends every card home that may go, then plays a random legal move that leads to a position it
has not seen, until it wins or has none left. ``--player smart`` plays like a casual app player
instead: a random card, sent where the app's double tap sends it (seahaven.Board.smart_move), four
times in five avoiding the cells when it can. A grade that means something should show that player
winning less often from gentle to fiendish.
"""

from __future__ import annotations

import argparse
import random
import statistics

from seahaven import CELL, COLUMN, FOUNDATION, PRESETS, Board, Move
from seahaven.solver import solve
from seahaven.winnable import GRADES, deal_list


def smart_moves(board: Board) -> list[Move]:
    """The app's double-tap move from each place that has one."""
    places = [(COLUMN, i) for i in range(len(board.columns))] + [(CELL, i) for i in range(len(board.cells))]
    return [m for area, index in places if (m := board.smart_move(area, index)) is not None]


def playout(board: Board, rng: random.Random, *, smart: bool = False, max_moves: int = 400) -> bool:
    """One unguided game from ``board`` (changed in place); whether it was won."""
    seen = {board.position()}
    for _ in range(max_moves):
        board.autoplay()
        if board.is_won():
            return True
        options = []
        for move in smart_moves(board) if smart else board.legal_moves():
            if move.dst_area == FOUNDATION:
                options.append(move)
                continue
            board.push(move)
            if board.position() not in seen:
                options.append(move)
            board.pop()
        if not options:
            return False
        not_cells = [m for m in options if m.dst_area != CELL]
        move = rng.choice(not_cells if smart and not_cells and rng.random() < 0.8 else options)
        board.push(move)
        seen.add(board.position())
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--preset", default="seahaven", choices=sorted(PRESETS))
    parser.add_argument("--deals", type=int, default=30, help="deals sampled per grade (default 30)")
    parser.add_argument("--playouts", type=int, default=20, help="unguided games per deal (default 20)")
    parser.add_argument("--player", choices=("random", "smart"), default="random", help="the unguided player")
    args = parser.parse_args(argv)
    book = deal_list(args.preset)
    rng = random.Random(f"grades {args.preset}")
    low, high = book.bounds
    print(f"{args.preset}, {args.player} player: bounds gentle <= {low} < tricky <= {high} < fiendish (positions)")
    print("  grade     deals  positions (median)  solution moves (median)  unguided wins")
    for grade in GRADES:
        sample = rng.sample(book.by_grade(grade), min(args.deals, len(book.by_grade(grade))))
        states, lengths, wins = [], [], 0
        for number in sample:
            solution = solve(Board.deal(args.preset, number), max_states=book.max_states)
            states.append(solution.states)
            lengths.append(len(solution.moves))
            smart = args.player == "smart"
            wins += sum(playout(Board.deal(args.preset, number), rng, smart=smart) for _ in range(args.playouts))
        share = 100 * wins / (len(sample) * args.playouts)
        print(
            f"  {grade:<9} {len(sample):>5}  {statistics.median(states):>18.0f}  "
            f"{statistics.median(lengths):>23.0f}  {share:>12.1f}%"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
