"""The shipped winnable-deal lists: well formed, graded on their own scale, and spot-checked by
solving a sample again to a win that replays in the engine."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from seahaven import PRESETS, Board
from seahaven.solver import solve
from seahaven.winnable import GRADES, DealList, deal_list, grade_of
from tests.wins import assert_wins

SHIPPED = sorted(PRESETS)


@pytest.mark.parametrize("preset", SHIPPED)
def test_list_is_well_formed(preset: str) -> None:
    book = deal_list(preset)
    numbers = [n for n, _ in book.deals]
    assert book.preset == preset
    assert len(numbers) >= 200
    assert numbers == sorted(set(numbers))
    assert book.bounds[0] <= book.bounds[1]
    for grade in GRADES:  # terciles: no grade is empty or swallows the list
        assert len(book.by_grade(grade)) >= len(numbers) // 5, grade
    assert DealList.from_text(book.to_text()) == book


@pytest.mark.parametrize("preset", SHIPPED)
def test_a_sample_solves_again_with_its_grade(preset: str) -> None:
    book = deal_list(preset)
    rng = random.Random(f"spot-check {preset}")
    for grade in GRADES:
        for number in rng.sample(book.by_grade(grade), 2):
            board = Board.deal(preset, number)
            solution = solve(board, max_states=book.max_states)
            assert_wins(board, solution)
            assert grade_of(preset, solution.states) == grade


def test_grade_names_are_not_the_app_preset_names() -> None:
    assert not {"easy", "medium", "hard"} & set(GRADES)


def test_grade_scale() -> None:
    book = DealList("seahaven", (100, 300), (), 200_000)
    assert [book.grade(s) for s in (1, 100, 101, 300, 301)] == ["gentle", "gentle", "tricky", "tricky", "fiendish"]


@pytest.mark.parametrize(
    "text",
    [
        "preset seahaven\nmax_states 10\nbounds 1 2\n5 x\n",
        "preset seahaven\nmax_states 10\n5 g\n",
        "preset seahaven\nmax_states 10\nbounds 1 two\n",
        "what\n",
    ],
)
def test_malformed_list_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="deal list"):
        DealList.from_text(text)


def test_unknown_preset() -> None:
    with pytest.raises(ValueError, match="unknown preset"):
        deal_list("spider")


def test_the_script_reproduces_the_shipped_list(tmp_path: Path) -> None:
    """scripts/deal_lists.py, run again with a smaller count, finds the same first deals."""
    script = Path(__file__).resolve().parent.parent / "scripts" / "deal_lists.py"
    argv = [sys.executable, str(script), "--count", "20", "--out", str(tmp_path), "seahaven-medium"]
    subprocess.run(argv, check=True, capture_output=True)
    again = DealList.from_text((tmp_path / "seahaven-medium.txt").read_text())
    shipped = deal_list("seahaven-medium")
    assert [n for n, _ in again.deals] == [n for n, _ in shipped.deals[:20]]
    assert again.max_states == shipped.max_states
    assert "--count 20 --max-states 200000" in again.comments[0]
