"""The bot's brain: its moves, planned in a real worker process, win on seahaven.Board; its pauses
follow its pace and its seed; it plans again when its board is not the one it expected."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import pytest

from seahaven import Board
from seahaven.solver import solve
from server.play.bot import MAX_DELAY_MS, PACES, BotBrain, Step, plan_for, think


async def play_out(brain: BotBrain, board: Board, executor: ProcessPoolExecutor) -> list[Step]:
    steps = []
    for _ in range(400):
        step = await think(brain, board, executor)
        if step is None:
            break
        board.push(step.move)  # the engine judges every move
        steps.append(step)
    return steps


@pytest.mark.parametrize("pace", list(PACES))
async def test_a_bot_plays_a_deal_to_a_win(pace: str, executor: ProcessPoolExecutor) -> None:
    board = Board.deal("seahaven", 5)
    steps = await play_out(BotBrain(pace, seed=1), board, executor)
    assert board.is_won()
    assert all(50 <= s.delay_ms <= MAX_DELAY_MS for s in steps)


async def test_paces_are_ordered_and_seeds_repeat(executor: ProcessPoolExecutor) -> None:
    totals = {}
    for pace in PACES:
        runs = [await play_out(BotBrain(pace, seed=9), Board.deal("seahaven-easy", 2), executor) for _ in range(2)]
        assert runs[0] == runs[1]  # same seed, same moves, same pauses
        totals[pace] = sum(s.delay_ms for s in runs[0])
    assert totals["stroll"] > totals["brisk"] > totals["sprint"]
    other = await play_out(BotBrain("brisk", seed=10), Board.deal("seahaven-easy", 2), executor)
    assert sum(s.delay_ms for s in other) != totals["brisk"]


async def test_the_bot_replans_when_its_board_changes(executor: ProcessPoolExecutor) -> None:
    brain = BotBrain("sprint", seed=3)
    board = Board.deal("seahaven", 7)
    for _ in range(10):
        step = await think(brain, board, executor)
        assert step is not None
        board.push(step.move)
    # The room undoes the bot's last two moves (say, a replay): the plan no longer fits.
    board.pop()
    board.pop()
    assert brain.wants_plan(board)
    assert brain.next_step(board) is None  # never a move from a stale plan
    await play_out(brain, board, executor)
    assert board.is_won()


def test_the_brain_is_pure_and_follows_a_plan() -> None:
    board = Board.deal("seahaven", 1)
    brain = BotBrain("brisk", seed=4)
    assert brain.wants_plan(board) and brain.next_step(board) is None
    solution = plan_for(board)
    brain.adopt(board, solution)
    played = []
    while (step := brain.next_step(board)) is not None:
        board.push(step.move)
        played.append(step.move)
    assert tuple(played) == solution.moves and board.is_won()


def test_no_win_known_means_no_move() -> None:
    board = Board.deal("seahaven", 21)  # unwinnable
    brain = BotBrain("brisk", seed=5)
    brain.adopt(board, solve(board))
    assert not brain.wants_plan(board)
    assert brain.next_step(board) is None


def test_unknown_pace() -> None:
    with pytest.raises(ValueError, match="unknown bot pace"):
        BotBrain("medium", seed=1)
