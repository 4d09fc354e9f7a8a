"""A racer's cards home over their race, as one line of block characters: the review's graph.

``progress_after`` replays a track once (cards home after each step); ``sparkline`` draws those
counts in a given width, each column the highest count of the steps it covers, the step shown on
the board marked. Pure: the review (client/review.py) redraws it as the player steps or plays.
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


def sparkline(counts: Sequence[int], width: int, at: int) -> Text:
    """``counts`` (progress_after's) in ``width`` columns, the column holding step ``at`` marked."""
    text = Text()
    if not counts or width <= 0:
        return text
    steps = len(counts) - 1
    width = min(width, len(counts))
    here = column_of(at, steps, width)
    for column in range(width):
        first = column * len(counts) // width
        last = max(first + 1, (column + 1) * len(counts) // width)
        height = max(counts[first:last])
        bar = BARS[min(len(BARS) - 1, -(-height * (len(BARS) - 1) // 52))]
        text.append(bar if bar != " " else "·", _HERE if column == here else _BAR)
    return text
