"""Racers' actions to step through on a board: the post-race review's tracks.

From the server's record (``GET /api/v1/races/{race_id}``: each racer's moves and undos with their
times from the start, in the order applied) or, without it, from what the client saw (each racer's
moves in effect at the end). Stepping back over an undo plays again the move it took back, so
each step keeps its move.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from i18n import _
from protocol.messages import Watched
from seahaven import Board, Move

from ..text.words import bot_name
from ..widgets.rivals import says_what

__all__ = ["Step", "Track", "back", "forward", "tracks_from_histories", "tracks_from_race"]

UNDO = "undo"


@dataclass(frozen=True, slots=True)
class Step:
    """One action: ``move`` played, or (``undo``) taken back; ``ms`` from the race's start (None:
    not known, a move the client saw)."""

    move: Move
    undo: bool = False
    ms: int | None = None
    auto: bool = False
    """Played (or taken back) by the server for the racer: an auto-move, not one of the racer's own."""


@dataclass(frozen=True, slots=True)
class Track:
    """One racer's actions: ``name`` as shown (bots and ghosts marked)."""

    player: str
    name: str
    steps: tuple[Step, ...]


def forward(board: Board, step: Step) -> None:
    """Play ``step`` on ``board`` (after the steps before it)."""
    if step.undo:
        board.pop()
    else:
        board.push(step.move)


def back(board: Board, step: Step) -> None:
    """Take ``step`` back (``board`` is just after it)."""
    if step.undo:
        board.push(step.move)
    else:
        board.pop()


def steps_of(opening: Board, actions: Iterable[tuple[int | None, str]], auto: Collection[int] = ()) -> tuple[Step, ...]:
    """The steps of ``actions`` (``(ms, move or "undo")``) from ``opening``, those at the indices
    ``auto`` the server's; ValueError naming the step that does not apply."""
    board = opening.copy()
    steps: list[Step] = []
    for n, (ms, text) in enumerate(actions, start=1):
        try:
            if text == UNDO:
                if not board.move_stack:
                    raise ValueError("there is no move to take back")
                steps.append(Step(board.pop(), undo=True, ms=ms, auto=n - 1 in auto))
            else:
                steps.append(Step(board.push_text(text), ms=ms, auto=n - 1 in auto))
        except ValueError as error:  # a bad move text, or an illegal move (IllegalMoveError)
            raise ValueError(f"step {n} ({text}): {error}") from None
    return tuple(steps)


def shown_name(racer: Mapping[str, Any]) -> str:
    """A racer of a race document by name, in the player's language; a bot or a ghost marked
    unless the name says so already ("Ordinateur (vive)", not "Computer (brisk) (bot)")."""
    bot, ghost = bool(racer.get("bot")), bool(racer.get("ghost"))
    name = bot_name(str(racer["name"])) if bot else str(racer["name"])
    if (bot or ghost) and not says_what(name, bot=bot):
        name += " " + (_("(bot)") if bot else _("(ghost)"))
    return name


def tracks_from_race(race: Mapping[str, Any]) -> tuple[Board, tuple[Track, ...]]:
    """The opening board and every racer's track (in the final standings' order) of a race
    document; ValueError when it does not replay (KeyError, TypeError: not a race document)."""
    opening = Board.from_code(str(race["deal_code"]))
    tracks = tuple(
        Track(
            str(r["player"]),
            shown_name(r),
            steps_of(opening, ((int(ms), str(m)) for ms, m in r["moves"]), {int(i) for i in r.get("auto", ())}),
        )
        for r in race["racers"]
    )
    return opening, tracks


def tracks_from_histories(opening: Board, histories: Sequence[Watched], names: Mapping[str, str]) -> tuple[Track, ...]:
    """Each racer's moves in effect at the end, as the client saw them (no undos, no times)."""
    return tuple(
        Track(w.player, names.get(w.player, w.player), steps_of(opening, ((None, m) for m in w.history)))
        for w in histories
    )
