"""Engine figures: validate + apply one move, undo, legal_moves(), deal from number.

    .venv/bin/python benchmarks/engine.py [--rounds N] [--positions N] [--seed S]

Every figure is the distribution of single calls timed with time.perf_counter_ns (the timer's
own cost, printed first, is included in each sample). Positions are mid-game: reached by
random play from assorted deals of the presets measured, each with at least one legal move.
Goal (issue 2): validate + apply one move <= 10 us median in CPython.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from time import perf_counter_ns

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from seahaven import Board
from seahaven.deals import MAX_DEAL

PRESETS_MEASURED = ("seahaven", "seahaven-easy", "freecell", "penguin")
GOAL_NS = 10_000


def mid_game_positions(count: int, seed: int) -> list[Board]:
    """Positions from random play (favouring foundation moves), each with a legal move left."""
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < count:
        name = PRESETS_MEASURED[len(out) % len(PRESETS_MEASURED)]
        board = Board.deal(name, rng.randint(1, 32000) if rng.random() < 0.5 else rng.randint(1, MAX_DEAL))
        target = rng.randint(5, 60)
        for _ in range(target):
            moves = board.legal_moves()
            if not moves:
                break
            home = [m for m in moves if m.dst_area == 2]
            board.push(rng.choice(home) if home and rng.random() < 0.7 else rng.choice(moves))
        if board.legal_moves():
            out.append(board.copy(stack=False))
    return out


def summary(label: str, samples: list[int]) -> str:
    samples = sorted(samples)
    n = len(samples)
    p99 = samples[min(n - 1, (99 * n) // 100)]
    median = statistics.median(samples)
    mean = statistics.fmean(samples)
    return f"{label:<34} {n:>9} {median / 1000:>9.2f} {p99 / 1000:>9.2f} {mean / 1000:>9.2f}"


def timer_cost(rounds: int) -> list[int]:
    out = []
    for _ in range(rounds):
        t0 = perf_counter_ns()
        t1 = perf_counter_ns()
        out.append(t1 - t0)
    return out


def time_moves(positions: list[Board], rounds: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """Per legal move of every position: is_legal, push (validate + apply), pop, push + pop."""
    legal_ns: list[int] = []
    push_ns: list[int] = []
    pop_ns: list[int] = []
    both_ns: list[int] = []
    for _ in range(rounds):
        for board in positions:
            for move in board.legal_moves():
                t0 = perf_counter_ns()
                board.is_legal(move)
                t1 = perf_counter_ns()
                board.push(move)
                t2 = perf_counter_ns()
                board.pop()
                t3 = perf_counter_ns()
                legal_ns.append(t1 - t0)
                push_ns.append(t2 - t1)
                pop_ns.append(t3 - t2)
                both_ns.append(t3 - t1)
    return legal_ns, push_ns, pop_ns, both_ns


def time_calls(fn: Callable[[], object], rounds: int) -> list[int]:
    out = []
    for _ in range(rounds):
        t0 = perf_counter_ns()
        fn()
        out.append(perf_counter_ns() - t0)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=20, help="passes over the positions (default 20)")
    parser.add_argument("--positions", type=int, default=200, help="mid-game positions (default 200)")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)

    positions = mid_game_positions(args.positions, args.seed)
    moves_per_position = statistics.fmean(len(b.legal_moves()) for b in positions)
    print(f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}")
    print(
        f"{len(positions)} mid-game positions of {', '.join(PRESETS_MEASURED)}; "
        f"{moves_per_position:.1f} legal moves each on average; {args.rounds} rounds"
    )
    print()
    print(f"{'operation (microseconds)':<34} {'samples':>9} {'median':>9} {'p99':>9} {'mean':>9}")
    print(summary("perf_counter_ns itself", timer_cost(100_000)))

    legal_ns, push_ns, pop_ns, both_ns = time_moves(positions, args.rounds)
    print(summary("is_legal(move)", legal_ns))
    print(summary("push(move): validate + apply", push_ns))
    print(summary("pop(): undo", pop_ns))
    print(summary("push + pop", both_ns))

    lm: list[int] = []
    for _ in range(args.rounds):
        for board in positions:
            lm.extend(time_calls(board.legal_moves, 1))
    print(summary("legal_moves()", lm))

    rng = random.Random(args.seed)
    for label, name, low, high in (
        ("deal: seahaven, Microsoft shuffle", "seahaven", 1, 32000),
        ("deal: seahaven, SplitMix64", "seahaven", 32001, MAX_DEAL),
        ("deal: freecell, Microsoft shuffle", "freecell", 1, 2**31 - 1),
        ("deal: penguin (beak)", "penguin", 1, MAX_DEAL),
    ):
        numbers = [rng.randint(low, high) for _ in range(2000 * max(1, args.rounds // 10))]
        samples = []
        for number in numbers:
            t0 = perf_counter_ns()
            Board.deal(name, number)
            samples.append(perf_counter_ns() - t0)
        print(summary(label, samples))

    median_push = statistics.median(push_ns)
    verdict = "met" if median_push <= GOAL_NS else "NOT met"
    print()
    print(f"goal: validate + apply <= {GOAL_NS / 1000:.0f} us median: {verdict} ({median_push / 1000:.2f} us)")
    return 0 if median_push <= GOAL_NS else 1


if __name__ == "__main__":
    raise SystemExit(main())
