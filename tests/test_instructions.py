"""The guard on what a move costs: instructions per move, counted by valgrind's callgrind.

Callgrind counts instructions, not seconds, so the figure barely moves on a loaded machine (about
1% on the memory store, 2% on Redis, whose batching depends on timing): a change that makes every
move dearer fails here even where a timed benchmark could not tell. The budget is
benchmarks/instructions.json; a move that got cheaper by more than twice the tolerance fails too,
asking for the budget to be lowered so that the gain is kept.
"""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest

from benchmarks.races import scripts
from benchmarks.requestpath import instructions

ROOT = Path(__file__).resolve().parents[1]
BUDGET = json.loads((ROOT / "benchmarks" / "instructions.json").read_text())


@pytest.fixture(scope="module")
def solved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The races, solved once outside valgrind (the solver would take minutes under it)."""
    assert shutil.which("valgrind"), "valgrind is not installed: scripts/install-test-deps installs it"
    saved = tmp_path_factory.mktemp("requestpath") / "scripts.pickle"
    saved.write_bytes(pickle.dumps(scripts(BUDGET["rooms"])))
    return saved


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_a_move_costs_the_instructions_of_its_budget(store: str, solved: Path) -> None:
    count = instructions(store, BUDGET["rooms"], solved)
    budget = BUDGET["per_move"][store]
    tolerance = BUDGET["tolerance"]
    assert count <= budget * (1 + tolerance), (
        f"a move on the {store} store costs {count:,.0f} instructions, over its budget of {budget:,}"
        f" (+{tolerance:.0%}): find what the move path gained, or raise the budget with a commit that says why"
    )
    assert count >= budget * (1 - 2 * tolerance), (
        f"a move on the {store} store costs {count:,.0f} instructions, well under its budget of {budget:,}:"
        " lower the budget in benchmarks/instructions.json to keep the gain"
    )
