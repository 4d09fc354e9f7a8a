"""The review's graph of cards home and its autoplay (issue 40, item 2, in the terminal): a racer's
race at a glance, and played back at its own pace without holding a key."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from client.progress_graph import BARS, column_of, progress_after, sparkline
from client.replay import Step
from client.review import SPEEDS, ReviewScreen
from seahaven import Board
from seahaven.codes import encode
from tests.client_driver import SIZE, OneScreen, until
from tests.racing import solution


def won_track() -> tuple[Board, list[Step]]:
    """Deal 1 won, each of the line's moves a step 400 ms after the last."""
    board = Board.deal("seahaven", 1)
    return board, [Step(move, ms=400 * (n + 1)) for n, move in enumerate(solution())]


def test_the_counts_follow_the_cards_home_and_the_graph_ends_full() -> None:
    opening, steps = won_track()
    counts = progress_after(opening, steps)
    assert len(counts) == len(steps) + 1 and counts[0] == opening.progress and counts[-1] == 52
    assert all(b >= a for a, b in pairwise(counts)), "a won line never takes a card back"
    line = sparkline(counts, 40, len(steps))
    assert len(line.plain) == 40 and line.plain[-1] == BARS[-1]
    assert line.plain[0] != BARS[-1]
    # The step shown is marked: its column alone has the marker's style.
    marked = [span for span in line.spans if span.style and "on" in str(span.style)]
    assert [(s.start, s.end) for s in marked] == [(39, 40)]
    assert column_of(0, len(steps), 40) == 0


def test_a_short_race_is_drawn_a_column_a_step() -> None:
    assert sparkline([0, 4, 4, 52], 20, 1).plain == "·" + BARS[1] + BARS[1] + BARS[-1]
    assert sparkline([], 20, 0).plain == ""


async def test_space_plays_the_race_to_its_end_and_plus_speeds_it_up() -> None:
    moves = [[400 * (n + 1), str(move)] for n, move in enumerate(solution()[:6])]
    race: dict[str, Any] = {
        "deal_code": encode("seahaven", 1),
        "racers": [{"player": "p1", "name": "Ann", "moves": moves, "auto": []}],
    }

    async def fetch() -> dict[str, Any]:
        return race

    review = ReviewScreen(None, fetch=fetch)
    async with OneScreen(review).run_test(size=SIZE) as pilot:
        await until(pilot, lambda: review.source == "server", "the race read")
        await pilot.press("space")  # at x1: 400 ms a step
        assert "⏸" in str(review.graph.content)
        await pilot.press("plus", "plus", "plus")  # x8 meanwhile: 50 ms a step
        assert SPEEDS[review.speed] == 8 and "×8" in str(review.graph.content)
        await until(pilot, lambda: review.at == len(moves), "played to the end")
        await until(pilot, lambda: review.player_timer is None, "stopped at the end")
        assert "▶" in str(review.graph.content)
        assert review.board.move_stack == list(solution()[:6])
        await pilot.press("minus", "minus", "minus", "space")  # at x1 again, from the start
        await until(pilot, lambda: 0 < review.at < len(moves), "playing again")
        await pilot.press("space")
        stopped = review.at
        await pilot.pause(0.3)
        assert review.at == stopped, "space stopped it"
