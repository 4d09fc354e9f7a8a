"""The daily deal: a pure function of (preset, UTC date), always a deal the solver wins."""

from __future__ import annotations

import datetime
import hashlib
import subprocess
import sys

import pytest

from seahaven import Board
from seahaven.daily import candidates, daily_deal
from seahaven.deals import MAX_DEAL
from seahaven.solver import solve
from tests.wins import assert_wins

DAY = datetime.date(2026, 11, 30)


def test_candidates_follow_the_documented_hash() -> None:
    digest = hashlib.sha256(b"seahaven-daily/1/seahaven/2026-11-30/0").digest()
    first = next(candidates("seahaven", DAY))
    assert first == int.from_bytes(digest[:8], "big") % (2**40 - 1) + 1
    assert 1 <= first <= MAX_DEAL


@pytest.mark.parametrize("preset", ["seahaven", "seahaven-3cells", "seahaven-medium", "seahaven-hard", "freecell"])
def test_daily_deal_is_the_first_winnable_candidate(preset: str) -> None:
    number = daily_deal(preset, DAY)
    board = Board.deal(preset, number)
    assert_wins(board, solve(board))
    for earlier in candidates(preset, DAY):
        if earlier == number:
            break
        assert not solve(Board.deal(preset, earlier)).solved


def test_daily_deal_differs_by_day_and_by_preset() -> None:
    days = {daily_deal("seahaven", DAY + datetime.timedelta(days=i)) for i in range(5)}
    assert len(days) == 5
    assert daily_deal("seahaven", DAY) != daily_deal("seahaven-relaxed", DAY)


def test_the_same_in_another_process() -> None:
    """No state is shared: a fresh interpreter (another node) computes the same number."""
    code = (
        "import datetime; from seahaven.daily import daily_deal; "
        "print(daily_deal('seahaven-hard', datetime.date(2026, 11, 30)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert int(out) == daily_deal("seahaven-hard", DAY)


def test_unknown_preset() -> None:
    with pytest.raises(ValueError, match="unknown preset"):
        daily_deal("spider", DAY)
