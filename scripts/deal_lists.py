"""Write the shipped winnable-deal lists, seahaven/winnable/PRESET.txt, with each deal's grade.

    .venv/bin/python scripts/deal_lists.py                       # every preset, 1500 deals each
    .venv/bin/python scripts/deal_lists.py --count 300 seahaven-hard --cache /tmp/survey

For each preset, deals 1, 2, 3, ... are solved with the budget --max-states (a deal the solver
does not win within it is left out, whether proven unwinnable or undecided) until --count winnable
deals are found or --scan-limit deals were tried. Every win is replayed on the engine. The grade
bounds are the terciles of the positions the solver examined on the listed deals. The deals and
grades depend only on the arguments (the solver is deterministic); only the timing comment varies. --cache points at the
checkpoints of scripts/survey (DIR/PRESET.txt, same budget) so deals already solved there are not
solved again; new verdicts are added to them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from seahaven import PRESETS
from seahaven.survey import DealResult, survey
from seahaven.winnable import DealList, Grade, list_path

OUT = Path(__file__).resolve().parent.parent / "seahaven" / "winnable"


def terciles(values: list[int]) -> tuple[int, int]:
    ordered = sorted(values)
    return ordered[len(ordered) // 3], ordered[2 * len(ordered) // 3]


def build(preset: str, count: int, max_states: int, scan_limit: int, cache: Path | None) -> tuple[DealList, str]:
    """The list for one preset, and a line of figures about how it was found."""
    checkpoint = None if cache is None else cache / f"{preset}.txt"
    scanned: list[DealResult] = []
    found: list[DealResult] = []
    first = 1
    while len(found) < count and first <= scan_limit:
        last = min(scan_limit, first + 999)
        for result in survey(preset, first, last, max_states=max_states, checkpoint=checkpoint):
            if len(found) < count:
                scanned.append(result)
                if result.status == "solved":
                    found.append(result)
        first = last + 1
    solving = sum(r.seconds for r in scanned)
    statuses = [r.status for r in scanned]
    figures = (
        f"{preset}: scanned deals 1..{len(scanned)}: {len(found)} winnable, {statuses.count('unsolvable')} unwinnable, "
        f"{statuses.count('gave-up')} undecided; {solving:.1f} s of solving, "
        f"{len(found) / solving if solving else 0:.1f} winnable deals per second"
    )
    if not found:
        raise SystemExit(f"{preset}: no winnable deal in 1..{scan_limit}")
    bounds = terciles([r.states for r in found])
    book = DealList(preset, bounds, (), max_states)
    deals: tuple[tuple[int, Grade], ...] = tuple((r.number, book.grade(r.states)) for r in found)
    comments = (
        f"Winnable {preset} deals, written by: python scripts/deal_lists.py --count {count} "
        f"--max-states {max_states} --scan-limit {scan_limit} {preset}",
        figures,
        "Each line: deal number, grade letter (g gentle, t tricky, f fiendish). The grade is the number of",
        f"positions the solver examined to find the win: gentle <= {bounds[0]} < tricky <= {bounds[1]} < fiendish.",
    )
    return DealList(preset, bounds, deals, max_states, comments), figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("presets", nargs="*", metavar="PRESET", help="presets to write (default: all)")
    parser.add_argument("--count", type=int, default=1500, help="winnable deals per preset (default 1500)")
    parser.add_argument("--max-states", type=int, default=200_000, help="solver budget per deal (default 200000)")
    parser.add_argument("--scan-limit", type=int, default=50_000, help="last deal number tried (default 50000)")
    parser.add_argument("--cache", type=Path, help="scripts/survey checkpoint folder to reuse and extend")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the lists (default seahaven/winnable)")
    args = parser.parse_args(argv)
    for preset in args.presets or list(PRESETS):
        if preset not in PRESETS:
            parser.error(f"unknown preset {preset!r}")
        book, figures = build(preset, args.count, args.max_states, args.scan_limit, args.cache)
        (args.out / list_path(preset)).write_text(book.to_text(), encoding="utf-8")
        print(figures, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
