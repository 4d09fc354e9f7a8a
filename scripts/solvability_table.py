"""Print the markdown table of docs/solvability.md from the results scripts/survey wrote.

    .venv/bin/python scripts/solvability_table.py survey/results.jsonl

For each preset, the widest range surveyed (the last pass that finished).
"""

from __future__ import annotations

import json
import sys
from typing import Any

ORDER = (
    "seahaven",
    "seahaven-relaxed",
    "seahaven-unlimited",
    "seahaven-3cells",
    "seahaven-medium",
    "seahaven-hard",
    "bakers-game",
    "freecell",
    "eight-off",
)


def main(path: str) -> int:
    best: dict[str, dict[str, Any]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["preset"] not in best or int(row["to"]) > int(best[row["preset"]]["to"]):
                best[row["preset"]] = row
    print("| preset | deals | winnable | unwinnable | undecided | won of decided | solving time | command |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for preset in ORDER:
        row = best.get(preset)
        if row is None:
            print(f"| `{preset}` | not finished by the deadline | | | | | | |")
            continue
        won, lost, open_ = (int(row[k]) for k in ("winnable", "unwinnable", "undecided"))
        total = won + lost + open_
        rate = f"{100 * won / (won + lost):.2f}%" if won + lost else "-"
        command = f"`seahaven solvability {preset} --from {row['from']} --to {row['to']}`"
        print(
            f"| `{preset}` | {row['from']}-{row['to']} | {won} ({100 * won / total:.2f}%) | {lost} | {open_} | {rate} "
            f"| {float(row['solve_seconds']):.0f} s | {command} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "survey/results.jsonl"))
