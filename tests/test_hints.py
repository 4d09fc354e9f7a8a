"""Hints and lost detection, solved in real worker processes: following the hints wins, "lost" is
a proof, and a spent budget says "unknown"."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from seahaven import Board
from seahaven.solver import solve
from server.play.dealpool import worker_executor
from server.play.hints import Advisor, advise_now


async def test_following_hints_wins(executor: ProcessPoolExecutor) -> None:
    advisor = Advisor(executor, max_seconds=30.0)  # the state budget decides, not a loaded machine's speed
    board = Board.deal("seahaven", 3)
    for _ in range(200):
        advice = await advisor.advise(board)
        if advice.kind == "won":
            break
        assert advice.kind == "hint" and advice.move is not None
        board.push(advice.move)  # the engine refuses an illegal hint
    assert board.is_won()


async def test_following_hints_from_deal_1_wins_without_going_in_circles(executor: ProcessPoolExecutor) -> None:
    """Issue 18, found from outside: from deal 1 of the default preset the hints once cycled
    (``a0, 9a, a9, 9a, a9 ...`` at 24 cards home). A racer who trusts the hints must get home,
    never passing through a position of this race twice."""
    advisor = Advisor(executor, max_seconds=30.0)  # the state budget decides, not the machine's speed
    board = Board.deal("seahaven", 1)
    been = {board.position()}
    for _ in range(300):
        advice = await advisor.advise(board)
        if advice.kind == "won":
            break
        assert advice.kind == "hint" and advice.move is not None, advice
        board.push(advice.move)
        assert board.position() not in been, f"the hint {advice.move} returns to a position after {board.move_stack}"
        been.add(board.position())
    assert board.is_won()


@pytest.mark.parametrize("deals", [range(1, 6), range(6, 11), range(11, 16), range(16, 21)])
def test_following_hints_from_the_opening_of_deals_1_to_20_wins_each(deals: range) -> None:
    """Issue 40: a racer who follows every hint walks one winning line home, on every deal (the
    worker's own function, run here: the state budget decides, not the machine's speed)."""
    for deal in deals:
        board = Board.deal("seahaven", deal)
        for _ in range(300):
            advice = advise_now(board, 30.0, 1_000_000)
            if advice.kind == "won":
                break
            assert advice.kind == "hint" and advice.move is not None, (deal, advice)
            board.push(advice.move)
        assert board.is_won(), deal


async def test_a_lost_position_is_proven(executor: ProcessPoolExecutor) -> None:
    board = Board.deal("seahaven", 21)  # unwinnable from the deal, yet moves remain
    assert not board.is_stuck()
    before = board.position()
    advice = await Advisor(executor).advise(board)
    assert advice.kind == "lost" and advice.move is None and advice.states > 1
    assert board.position() == before


def test_a_hint_goes_back_when_every_win_does() -> None:
    """The last move put a card in a cell from which every win takes it back out: no win keeps
    clear of the positions the board passed through, yet the position is not lost."""
    board = Board.deal("seahaven", 1)
    for move in ["3c", "3d", "08", "10", "3#", "3#", "78", "73", "a#", "3a"]:
        board.push_text(move)
    assert not solve(board, max_states=10**6, avoid=_earlier(board)).solved
    advice = advise_now(board, 60.0, 10**6)
    assert advice.kind == "hint" and advice.move is not None
    board.push(advice.move)
    assert board.position() in {b.position() for b in _earlier(board)}


def test_lost_is_still_proven_with_a_line_behind_the_board() -> None:
    """Clear of where the board has been no win exists; "lost" needs the search without that
    fence too, and gets it."""
    board = Board.deal("seahaven", 21)
    board.push(board.legal_moves()[0])
    advice = advise_now(board, 60.0, 10**6)
    assert advice.kind == "lost" and advice.states > 1


def _earlier(board: Board) -> list[Board]:
    """The positions before ``board``'s along its move stack."""
    earlier, back = board.copy(), []
    while earlier.last_move is not None:
        earlier.pop()
        back.append(earlier.copy(stack=False))
    return back


async def test_no_win_within_budget_is_unknown(executor: ProcessPoolExecutor) -> None:
    board = Board.deal("seahaven", 1)
    assert (await Advisor(executor, max_states=2).advise(board)).kind == "unknown"
    assert advise_now(Board.deal("seahaven", 21), 10.0, 2).kind == "unknown"  # not "lost": not exhaustive
    # Deal 73 takes 32880 positions to prove unwinnable: a microsecond budget cannot prove it.
    assert advise_now(Board.deal("seahaven", 73), 1e-6, 10**6).kind == "unknown"
    assert advise_now(Board.deal("seahaven", 73), 60.0, 10**6).kind == "lost"


async def test_a_busy_worker_answers_unknown_in_time() -> None:
    pool = worker_executor(1)
    try:
        blocker = asyncio.get_running_loop().run_in_executor(pool, time.sleep, 5)
        advice = await Advisor(pool, max_seconds=0.2).advise(Board.deal("seahaven", 1))
        assert advice.kind == "unknown"
        await blocker
    finally:
        pool.shutdown(cancel_futures=True)


def test_won_position() -> None:
    board = Board.deal("seahaven", 1)
    for move in solve(board).moves:
        board.push(move)
    assert advise_now(board, 1.0, 10).kind == "won"


def test_bad_budget(executor: ProcessPoolExecutor) -> None:
    with pytest.raises(ValueError, match="max_seconds must be positive"):
        Advisor(executor, max_seconds=0)
