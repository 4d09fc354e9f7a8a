"""``seahaven solve``, ``seahaven solvability`` and ``seahaven deal PRESET daily``."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from seahaven import Board, Move, encode
from seahaven.daily import daily_deal
from seahaven.survey import DealResult, survey, tally
from tests.cli_runner import run


def test_solve_prints_a_solution_that_wins() -> None:
    status, out, err = run("solve", "seahaven", "7")
    assert status == 0 and err == ""
    head, *lines = out.splitlines()
    assert head.startswith("Seahaven Towers  SH1-ST-") and ": winnable in " in head
    board = Board.deal("seahaven", 7)
    for token in " ".join(lines).split():
        board.push(Move.parse(token))
    assert board.is_won()


@pytest.mark.parametrize("argv", [["SH1-M2-00032"], ["seahaven-medium", "3"], ["seahaven-medium", "SH1-M2-00032"]])
def test_solve_json_by_number_or_code(argv: list[str]) -> None:
    assert encode("seahaven-medium", 3) == "SH1-M2-00032"
    status, out, _ = run("solve", *argv, "--json")
    assert status == 0
    data = json.loads(out)
    assert data["verdict"] == "winnable" and data["preset"] == "seahaven-medium" and data["deal"] == 3
    board = Board.deal("seahaven-medium", 3)
    for token in data["moves"]:
        board.push(Move.parse(token))
    assert board.is_won()


def test_unwinnable_only_after_an_exhaustive_search() -> None:
    status, out, _ = run("solve", "seahaven-hard", "1", "--json")
    data = json.loads(out)
    assert status == 0 and data["verdict"] == "unwinnable" and data["moves"] == []
    # The same deal with too small a budget is undecided, not unwinnable.
    _, out, _ = run("solve", "seahaven-hard", "1", "--max-states", "3")
    assert ": undecided: no win in 3 positions" in out


def test_time_budget_is_honest() -> None:
    status, out, _ = run("solve", "bakers-game", "1", "--max-seconds", "0.000001", "--max-states", "100000000")
    assert status == 0 and "undecided" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "seahaven", "SH1-M2-00032"], "is a seahaven-medium deal, not seahaven"),
        (["solve", "seahaven", "x"], "is not a deal number"),
        (["solve", "SH1-ST-0001H"], "check character"),
        (["solve", "seahaven", "1", "--max-states", "0"], "must be at least 1"),
        (["solve", "seahaven", "1", "--max-seconds", "-1"], "must be positive"),
        (["solve", "seahaven", "1", "--date", "2026-01-01"], "--date goes with daily"),
        (["solvability", "seahaven", "--from", "5", "--to", "2"], "--from must not be after --to"),
        (["deal", "seahaven", "daily", "--date", "yesterday"], "is not a date"),
    ],
)
def test_errors(argv: list[str], message: str) -> None:
    status, out, err = run(*argv)
    assert status == 2 and out == "" and message in err


def test_deal_daily_is_the_daily_deal() -> None:
    day = datetime.date(2026, 11, 30)
    status, out, _ = run("deal", "seahaven", "daily", "--date", "2026-11-30")
    assert status == 0
    assert out.splitlines()[0] == "Daily deal for 2026-11-30 (UTC)"
    assert encode("seahaven", daily_deal("seahaven", day)) in out.splitlines()[1]
    _, out, _ = run("deal", "seahaven", "daily", "--format", "json")
    assert json.loads(out)["deal"] == daily_deal("seahaven", datetime.datetime.now(datetime.UTC).date())


def test_solvability_counts_and_checkpoint(tmp_path: Path) -> None:
    checkpoint = tmp_path / "seahaven.txt"
    status, out, _ = run(
        "solvability", "seahaven", "--from", "1", "--to", "12", "--json", "--checkpoint", str(checkpoint)
    )
    assert status == 0
    data = json.loads(out)
    counts = tally([DealResult.parse(line) for line in checkpoint.read_text().splitlines()[1:]])
    assert data["winnable"] == counts["solved"] and data["unwinnable"] == counts["unsolvable"]
    assert data["winnable"] + data["unwinnable"] + data["undecided"] == 12
    # A run cut short mid-line resumes: the partial line is dropped and that deal solved again.
    lines = checkpoint.read_text().splitlines(keepends=True)
    checkpoint.write_text("".join(lines[:6]) + lines[6][:3])
    again = survey("seahaven", 1, 12, checkpoint=checkpoint)
    assert [r.number for r in again] == list(range(1, 13))
    assert tally(again) == counts
    assert len(checkpoint.read_text().splitlines()) == 13


def test_checkpoint_of_another_survey_is_refused(tmp_path: Path) -> None:
    checkpoint = tmp_path / "c.txt"
    survey("seahaven", 1, 2, checkpoint=checkpoint)
    status, _, err = run("solvability", "freecell", "--from", "1", "--to", "2", "--checkpoint", str(checkpoint))
    assert status == 2 and "checkpoint of another survey" in err


def test_solvability_text() -> None:
    status, out, _ = run("solvability", "seahaven-hard", "--from", "1", "--to", "5")
    assert status == 0
    assert "winnable" in out and "unwinnable" in out and "undecided" in out and "solving time" in out
