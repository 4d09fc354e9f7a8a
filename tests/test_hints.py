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
    advisor = Advisor(executor)
    board = Board.deal("seahaven", 3)
    for _ in range(200):
        advice = await advisor.advise(board)
        if advice.kind == "won":
            break
        assert advice.kind == "hint" and advice.move is not None
        board.push(advice.move)  # the engine refuses an illegal hint
    assert board.is_won()


async def test_a_lost_position_is_proven(executor: ProcessPoolExecutor) -> None:
    board = Board.deal("seahaven", 21)  # unwinnable from the deal, yet moves remain
    assert not board.is_stuck()
    before = board.position()
    advice = await Advisor(executor).advise(board)
    assert advice.kind == "lost" and advice.move is None and advice.states > 1
    assert board.position() == before


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
