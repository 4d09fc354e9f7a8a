"""Measure the solver: win rate, solve time and positions examined over deals 1..N.

    .venv/bin/python benchmarks/solver.py                      # Seahaven deals 1..200
    .venv/bin/python benchmarks/solver.py --count 1000 --preset freecell
    .venv/bin/python benchmarks/solver.py --count 1000 --vs-fc-solve   # and Debian's fc-solve, deal by deal

Every solution found is replayed on the engine before it is counted as a win, fc-solve's too.
"""

from __future__ import annotations

import argparse
import math
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time

from seahaven import CELL, COLUMN, FOUNDATION, PRESETS, Board, IllegalMoveError, Move, to_board_text
from seahaven.solver import solve

FC_GAMES = {
    "seahaven": ["--game", "seahaven_towers"],
    "freecell": ["--game", "freecell"],
    "bakers-game": ["--game", "bakers_game"],
    "eight-off": ["--game", "eight_off"],
}
"""Our presets that fc-solve plays under the same rules, and how to ask it for them."""

_FC_MOVE = re.compile(
    r"Move (?:a card|(?P<n>\d+) cards) from (?P<src>stack|freecell) (?P<s>\d+) to "
    r"(?:(?P<dst>stack|freecell) (?P<d>\d+)|the foundations)"
)


def fc_moves(output: str) -> list[Move]:
    """The moves of fc-solve's ``-m`` output (stacks and freecells counted from 0), as our Moves."""
    moves = []
    for m in _FC_MOVE.finditer(output):
        src_area = COLUMN if m["src"] == "stack" else CELL
        if m["dst"] is None:
            moves.append(Move(src_area, int(m["s"]), FOUNDATION, 0))
        else:
            dst_area = COLUMN if m["dst"] == "stack" else CELL
            moves.append(Move(src_area, int(m["s"]), dst_area, int(m["d"]), int(m["n"] or 1)))
    return moves


def fc_verdict(preset: str, number: int, max_iters: int, extra: list[str]) -> tuple[str, float]:
    """fc-solve's verdict on one deal ("solved", "illegal", "unsolvable", "gave-up") and its wall time.

    A solution counts only if every move is legal in our engine and it ends in a win ("illegal"
    otherwise). fc-solve prints the same words for an exhausted search and a spent budget, so a
    search that checked ``max_iters`` states is "gave-up".
    """
    board = Board.deal(preset, number)
    argv = ["fc-solve", *FC_GAMES[preset], *extra, "-mi", str(max_iters), "-m", "-"]
    t0 = time.perf_counter()
    done = subprocess.run(argv, input=to_board_text(board), capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - t0
    if "This game is solveable." in done.stdout:
        try:
            for move in fc_moves(done.stdout):
                board.push(move)
        except IllegalMoveError:
            return "illegal", elapsed
        return ("solved" if board.is_won() else "illegal"), elapsed
    checked = re.search(r"Total number of states checked is (\d+)", done.stdout)
    if checked and int(checked[1]) >= max_iters:
        return "gave-up", elapsed
    return "unsolvable", elapsed


def vs_fc_solve(args: argparse.Namespace) -> int:
    """Both solvers on the same deals in one run: verdicts side by side, total times and their ratio."""
    if shutil.which("fc-solve") is None:
        print("fc-solve is not installed: apt-get install -y freecell-solver-bin", file=sys.stderr)
        return 1
    if args.preset not in FC_GAMES:
        print(f"fc-solve does not play {args.preset}; choose one of {', '.join(FC_GAMES)}", file=sys.stderr)
        return 1
    extra = shlex.split(args.fc_args)
    ours_total = theirs_total = 0.0
    pairs: dict[tuple[str, str], int] = {}
    for number in range(args.first, args.first + args.count):
        board = Board.deal(args.preset, number)
        t0 = time.perf_counter()
        ours = solve(board, max_states=args.max_states).status
        ours_total += time.perf_counter() - t0
        theirs, elapsed = fc_verdict(args.preset, number, args.fc_max_iters, extra)
        theirs_total += elapsed
        pairs[(ours, theirs)] = pairs.get((ours, theirs), 0) + 1
        if args.verbose:
            print(f"deal {number:>6}: ours {ours:<10} fc-solve {theirs:<10} {elapsed:7.3f} s", flush=True)
    last = args.first + args.count - 1
    print(
        f"{args.preset} deals {args.first}..{last}: ours max_states {args.max_states}; fc-solve "
        f"{' '.join(FC_GAMES[args.preset] + extra)} -mi {args.fc_max_iters}"
    )
    print("  ours        fc-solve     deals")
    for (mine, fc), n in sorted(pairs.items()):
        print(f"  {mine:<11} {fc:<12} {n:>5}")
    agree = sum(n for (o, t), n in pairs.items() if (o, t) in (("solved", "solved"), ("unsolvable", "unsolvable")))
    illegal = sum(n for (_, t), n in pairs.items() if t == "illegal")
    print(f"  same decided verdict on {agree} of {args.count} deals; fc-solve solutions illegal here: {illegal}")
    print(
        f"  total time: ours {ours_total:.1f} s, fc-solve {theirs_total:.1f} s (a process per deal), "
        f"fc-solve / ours = {theirs_total / ours_total:.2f}"
    )
    return 0


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
    parser.add_argument("--vs-fc-solve", action="store_true", help="also run Debian's fc-solve on each deal")
    parser.add_argument("--fc-max-iters", type=int, default=2_000_000, help="fc-solve's state budget (-mi)")
    parser.add_argument("--fc-args", default="", help="more fc-solve options, e.g. '-l lg' (a fast preset)")
    args = parser.parse_args(argv)
    if args.vs_fc_solve:
        return vs_fc_solve(args)

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
