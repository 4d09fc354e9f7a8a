"""Measure the solver: win rate, solve time and positions examined over deals 1..N.

    .venv/bin/python benchmarks/solver.py                      # Seahaven deals 1..200
    .venv/bin/python benchmarks/solver.py --count 1000 --preset freecell

Every solution found is replayed on the engine before it is counted as a win.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from seahaven import PRESETS, Board
from seahaven.solver import solve


def percentile(values: list[float], fraction: float) -> float:
    """The value ``fraction`` of the way up ``values`` (nearest rank)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, default=200, help="solve deals 1..COUNT (default 200)")
    parser.add_argument("--first", type=int, default=1, help="first deal number (default 1)")
    parser.add_argument("--preset", default="seahaven", choices=sorted(PRESETS), help="rules (default seahaven)")
    parser.add_argument("--max-states", type=int, default=200_000, help="search limit per deal (default 200000)")
    parser.add_argument("--verbose", "-v", action="store_true", help="one line per deal")
    args = parser.parse_args(argv)

    counts = {"solved": 0, "unsolvable": 0, "gave-up": 0}
    times: dict[str, list[float]] = {status: [] for status in counts}
    states: dict[str, list[float]] = {status: [] for status in counts}
    lengths: list[float] = []
    started = time.perf_counter()
    for number in range(args.first, args.first + args.count):
        board = Board.deal(args.preset, number)
        t0 = time.perf_counter()
        solution = solve(board, max_states=args.max_states)
        elapsed = time.perf_counter() - t0
        if solution.status == "solved":
            replay = board.copy(stack=False)
            for move in solution.moves:
                replay.push(move)
            if not replay.is_won():
                print(f"deal {number}: the solution does not win", file=sys.stderr)
                return 1
            lengths.append(len(solution.moves))
        counts[solution.status] += 1
        times[solution.status].append(elapsed)
        states[solution.status].append(solution.states)
        if args.verbose:
            print(f"deal {number:>6}: {solution.status:<10} {solution.states:>8} states {elapsed:8.3f} s", flush=True)
    total = time.perf_counter() - started

    n = args.count
    print(f"{args.preset} deals {args.first}..{args.first + n - 1}, max_states {args.max_states}")
    for status, count in counts.items():
        print(f"  {status:<10} {count:>6}  {100 * count / n:5.1f}%")
    decided = counts["solved"] + counts["unsolvable"]
    if decided:
        print(f"  win rate among decided deals: {100 * counts['solved'] / decided:.1f}%")
    all_times = [t for ts in times.values() for t in ts]
    all_states = [s for ss in states.values() for s in ss]
    for label, values, fmt in (
        ("time (s)", all_times, "{:.3f}"),
        ("states", all_states, "{:.0f}"),
        ("solved time (s)", times["solved"], "{:.3f}"),
        ("solved states", states["solved"], "{:.0f}"),
        ("solution moves", lengths, "{:.0f}"),
    ):
        if values:
            median = fmt.format(statistics.median(values))
            p90 = fmt.format(percentile(values, 0.9))
            worst = fmt.format(max(values))
            print(f"  {label:<16} median {median:>8}  p90 {p90:>8}  max {worst:>8}")
    print(f"  total {total:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
