"""A racer's analysis as the review shows it: where their deal was lost, in words and on the graph.

The server analyses each race on record once (``GET /api/v1/races/{race_id}/analysis``, docs/api.md,
"analysis"; seahaven/analysis.py): for each racer, the position after each entry of their moves
judged ``won``, ``winnable``, ``lost`` or ``unknown``, the move after which the deal was lost for
good (``lost_at``) and the costly moves. ``judged`` reads one racer's part against the track the
review steps through (the race document's moves, the same indices); ``summary`` says it in one
line, the lost move as the board shows it ("Lost at move 6 (0:04.2): 2♣ → cell a"), not in
notation. Pure: no Textual, no network.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from i18n import _
from seahaven import Board

from ..board.places import describe
from ..widgets.rivals import format_ms
from .replay import Step, forward

__all__ = ["Judged", "Mark", "judged", "summary"]

VERDICTS: Final = frozenset({"won", "winnable", "lost", "unknown"})


@dataclass(frozen=True, slots=True)
class Mark:
    """A move the analysis names: ``index`` into the racer's steps, ``own`` the racer's own moves
    and undos up to it (the results' count), ``ms`` from the start; ``by`` (a slow move) the ms it
    took."""

    index: int
    own: int
    ms: int
    by: int = 0


@dataclass(frozen=True, slots=True)
class Judged:
    """One racer's analysis: ``verdicts`` at the opening then after each step (as
    progress_after's counts: ``len(steps) + 1``); ``lost`` the move that lost the deal (None:
    never lost, or not known which); ``slow`` the longest think."""

    verdicts: tuple[str, ...]
    lost: Mark | None
    slow: Mark | None

    @property
    def end(self) -> str:
        """The verdict on the racer's last position."""
        return self.verdicts[-1]


def judged(analysis: Mapping[str, Any], player: str, steps: Sequence[Step]) -> Judged | None:
    """``player``'s part of ``analysis`` (the read API's ``analysis`` document, status done) over
    their ``steps`` (the race document's moves): None when the racer is not in it or it does not
    match the steps (one point per step), or it is not an analysis this client reads."""
    try:
        racer = next(r for r in analysis["racers"] if str(r["player"]) == player)
        points = racer["points"]
        verdicts = (str(racer["opening"]["verdict"]), *(str(p["verdict"]) for p in points))
        if len(points) != len(steps) or not VERDICTS.issuperset(verdicts):
            return None
        lost = _mark(racer.get("lost_at"), len(steps))
        slow = next((_mark(c, len(steps)) for c in racer.get("costly") or () if c.get("kind") == "slow"), None)
    except (StopIteration, KeyError, TypeError, ValueError, AttributeError):
        return None
    return Judged(verdicts, lost, slow)


def _mark(cost: Mapping[str, Any] | None, steps: int) -> Mark | None:
    if cost is None:
        return None
    index = int(cost["index"])
    if not 0 <= index < steps:
        raise ValueError(f"move {index} is not one of the racer's {steps}")
    return Mark(index, int(cost["own"]), int(cost["ms"]), int(cost.get("by") or 0))


def move_words(opening: Board, steps: Sequence[Step], index: int) -> str:
    """Step ``index`` as the review's line says it: ``2♣ → cell a`` (the card from the board before
    it), or ``undo: took back …``."""
    board = opening.copy()
    for step in steps[:index]:
        forward(board, step)
    step = steps[index]
    if step.undo:  # the move taken back is described on the board it was played on
        board.pop()
        return _("undo: took back {move}").format(move=describe(board, step.move))
    return describe(board, step.move)


def summary(judgement: Judged, opening: Board, steps: Sequence[Step], room: int | None = None) -> str:
    """What the analysis says of the racer's deal, then their longest think, in one line:
    ``Lost at move 6 (0:04.2): 2♣ → cell a · Longest think: move 2, 0:03.1``; with ``room``
    (columns), the longest think only if it fits beside the rest."""
    lost = judgement.lost
    if lost is not None:
        said = _("Lost at move {n} ({time}): {move}").format(
            n=lost.own, time=format_ms(lost.ms), move=move_words(opening, steps, lost.index)
        )
    elif judgement.end == "won":
        said = _("Won")
    elif judgement.end == "winnable":
        said = _("Still winnable at the end")
    elif judgement.end == "lost":
        said = _("Lost by the end; which move lost it is not known")
    else:
        said = _("Not known whether it could still be won")
    slow = judgement.slow
    if slow is not None:
        think = " · " + _("Longest think: move {n}, {time}").format(n=slow.own, time=format_ms(slow.by))
        if room is None or len(said) + len(think) <= room:
            said += think
    return said
