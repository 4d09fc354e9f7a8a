"""The post-race review: step through any racer's moves on the deal.

``ReviewScreen`` replays each racer's moves in effect at the end (``result.histories``, or a
finished room's ``watching``) on the opening position: left / right step one move, home / end
jump, ``[`` / ``]`` switch racer at the same move number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Static

from protocol.messages import Watched
from seahaven import Board, Move

from .board_view import BoardView
from .places import describe


class ReviewScreen(Screen[None]):
    """One racer's game at a time, move by move, read-only."""

    CSS_PATH = Path(__file__).with_name("review.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", "Next move"),
        Binding("left", "step(-1)", "Previous move"),
        Binding("end", "step(100000)", "Last"),
        Binding("home", "step(-100000)", "First"),
        Binding("right_square_bracket", "racer(1)", "Next racer", key_display="]"),
        Binding("left_square_bracket", "racer(-1)", "Previous racer", key_display="["),
        Binding("escape", "close", "Back"),
    ]

    at: reactive[int] = reactive(0)
    """How many of the racer's moves are played on the board shown."""
    racer: reactive[int] = reactive(0)
    """Which history (index into ``histories``) is shown."""

    def __init__(
        self, deal: str, histories: Sequence[Watched], names: Mapping[str, str], *, first: str | None = None
    ) -> None:
        super().__init__()
        self.opening = Board.from_code(deal)
        self.histories = tuple(histories)
        self.names = dict(names)
        self.moves = [tuple(Move.parse(text) for text in w.history) for w in self.histories]
        self.board = self.opening.copy()
        self.view = BoardView(self.board, id="review-board")
        self.line = Static(id="review-line")
        players = [w.player for w in self.histories]
        self.set_reactive(ReviewScreen.racer, players.index(first) if first in players else 0)

    def compose(self) -> ComposeResult:
        yield self.line
        yield self.view
        yield Footer()

    def on_mount(self) -> None:
        self._show()

    @property
    def player(self) -> str:
        return self.histories[self.racer].player if self.histories else ""

    def watch_at(self, old: int, new: int) -> None:
        moves = self.moves[self.racer] if self.histories else ()
        if new > old:
            for move in moves[old:new]:
                self.board.push(move)
        else:
            for _ in range(old - new):
                self.board.pop()
        self._show()

    def watch_racer(self) -> None:
        self.board = self.opening.copy()
        moves = self.moves[self.racer] if self.histories else ()
        at = min(self.at, len(moves))
        for move in moves[:at]:
            self.board.push(move)
        self.set_reactive(ReviewScreen.at, at)
        self._show()

    def action_step(self, by: int) -> None:
        moves = self.moves[self.racer] if self.histories else ()
        self.at = max(0, min(len(moves), self.at + by))

    def action_racer(self, by: int) -> None:
        if self.histories:
            self.racer = (self.racer + by) % len(self.histories)

    def action_close(self) -> None:
        self.dismiss(None)

    def _show(self) -> None:
        self.view.show(self.board)
        moves = self.moves[self.racer] if self.histories else ()
        name = self.names.get(self.player, self.player) or "nobody"
        last = ""
        if self.at:
            before = self.board.copy()
            before.pop()
            last = f" · {describe(before, moves[self.at - 1])}"
        self.line.update(
            Content(
                f"Review: {name} · move {self.at} of {len(moves)}{last} · {self.board.progress}/52 home"
                f" · racer {self.racer + 1} of {max(1, len(self.histories))}"
            )
        )

    @property
    def line_text(self) -> str:
        return str(self.line.content)
