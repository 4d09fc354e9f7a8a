"""A racer's cards home over their race, as one line of block characters: the review's graph.

``progress_after`` replays a track once (cards home after each step); ``sparkline`` draws those
counts in a given width, each column the highest count of the steps it covers, the step shown on
the board marked; with the race's analysis (client/records/race_analysis.py), the steps after which the
deal could not be won drawn red and dim, and the move that lost it a cross of its own (``✗``, seen
without colour too). Pure: the review (client/screens/review.py) redraws it as the player steps or plays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rich.style import Style
from rich.text import Text

from seahaven import Board

from .replay import Step, forward

BARS: Final = " ▁▂▃▄▅▆▇█"
"""Nine heights: none home, then eighths of the 52 cards."""
_BAR = Style(color="#86efac")
_HERE = Style(color="#111827", bgcolor="#fde047", bold=True)
_LOST = Style(color="#f87171", dim=True)
"""A step whose position could no longer be won (the analysis's ``lost``)."""
LOST_MARK: Final = "✗"
"""The column of the move that lost the deal: a glyph of its own, not only a colour."""
_LOST_MARK = Style(color="#fca5a5", bold=True)


def progress_after(opening: Board, steps: Sequence[Step]) -> list[int]:
    """Cards home at the opening, then after each step (``len(steps) + 1`` counts)."""
    board = opening.copy()
    counts = [board.progress]
    for step in steps:
        forward(board, step)
        counts.append(board.progress)
    return counts


def column_of(at: int, steps: int, width: int) -> int:
    """The column of the graph that shows step ``at`` (0: the opening) of ``steps``."""
    if steps <= 0 or width <= 1:
        return 0
    return min(width - 1, at * width // (steps + 1))


def sparkline(
    counts: Sequence[int],
    width: int,
    at: int,
    verdicts: Sequence[str] = (),
    lost: int | None = None,
) -> Text:
    """``counts`` (progress_after's) in ``width`` columns, the column holding step ``at`` marked;
    ``verdicts`` (the analysis's, one per count: the opening's, then after each step) draw a
    column red and dim when its last step's position was ``lost``; ``lost`` (a step, as ``at``:
    the position after the move that lost the deal) puts LOST_MARK in its column."""
    text = Text()
    if not counts or width <= 0:
        return text
    steps = len(counts) - 1
    width = min(width, len(counts))
    here = column_of(at, steps, width)
    lost_column = column_of(lost, steps, width) if lost is not None else -1
    judged = len(verdicts) == len(counts)
    for column in range(width):
        first = column * len(counts) // width
        last = max(first + 1, (column + 1) * len(counts) // width)
        height = max(counts[first:last])
        bar = BARS[min(len(BARS) - 1, -(-height * (len(BARS) - 1) // 52))]
        style = _LOST if judged and verdicts[last - 1] == "lost" else _BAR
        if column == lost_column:
            bar, style = LOST_MARK, _LOST_MARK
        text.append(bar if bar != " " else "·", _HERE if column == here else style)
    return text
