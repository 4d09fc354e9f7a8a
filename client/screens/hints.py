"""Hints and the "lost" notice on a game screen: the solver asked in a thread (the screen never
freezes), its move selected and named, or the position said lost.

``Hints`` is the game screen's hints part (client/screens/game_screen.py: ``GameScreen`` derives
from it), over its picking part: a hint selects its cards as a pick does.
"""

from __future__ import annotations

from textual import work

from i18n import _
from seahaven import COLUMN, Board, Move
from seahaven.solver import Solution, solve

from ..board.places import Place, describe, destination_of
from .picking import Picking

HINT_STATES = 200_000
"""Positions the solver may look at for a hint (a few seconds at most, in a thread)."""
LOST_STATES = 20_000
"""A smaller budget for the check after each solo move: "lost" only when it is sure."""


class Hints(Picking):
    """The solver's help on the position on screen."""

    hints: bool
    """``H`` asks the solver (solo; in a race only where the room allows it)."""
    hint_result: Solution | None
    """The solver's last answer about the position on screen (hints, the "lost" notice)."""
    new_deal_key: str | None
    """The key that deals a new game here, if any (solo's ``n``), for the "cannot be won" notice."""

    # -- hints ------------------------------------------------------------------------

    def action_hint(self) -> None:
        if self.refuse_input() or not self.hints:
            return
        if self.board.is_won():
            return
        self.flash(_("Looking for a winning move…"))
        self._search(self.board.copy(), ask=True)

    def check_lost(self) -> None:
        """Look (in a thread) whether the position can still be won; say so if not."""
        if self.hints and not self.board.is_won() and not self.board.is_stuck():
            self._search(self.board.copy(), ask=False)

    @work(thread=True, exclusive=True, group="hint")
    def _search(self, board: Board, *, ask: bool) -> None:
        """The solver runs in a thread so the screen never freezes; its answer is dropped if
        the position changed meanwhile."""
        found = solve(board, max_states=HINT_STATES if ask else LOST_STATES)
        self.app.call_from_thread(self._searched, board, found, ask)

    def _searched(self, board: Board, found: Solution, ask: bool) -> None:
        if board.position() != self.board.position():
            return  # the player moved on
        self.hint_result = found
        if found.status == "unsolvable":
            self.flash(self._unwinnable_text(), "error")
        elif not ask:
            return
        elif found.moves:
            self.show_hint(found.moves[0])
        else:
            self.flash(_("No hint: the search gave up on this position"))

    def _unwinnable_text(self) -> str:
        """What to do about a position the solver proved lost: before any move, the deal itself."""
        new_deal = (
            _("{key} for a new deal").format(key=self.new_deal_key) if self.new_deal_key else _("try another deal")
        )
        if not self.board.move_stack:
            return _("This position cannot be won, and there is nothing to undo: {new_deal}").format(new_deal=new_deal)
        return _("This position can no longer be won: u to undo, or {new_deal}").format(new_deal=new_deal)

    def show_hint(self, move: Move) -> None:
        """Select the cards ``move`` plays and name it; a move that does not fit the board on
        screen (it changed since the hint was asked) is only named."""
        if not self.board.is_legal(move):
            self.flash(_("Hint: {move} (the board changed since you asked)").format(move=move))
            return
        src = Place(move.src_area, move.src)
        depth = len(self.board.columns[move.src]) - move.count if move.src_area == COLUMN else None
        self._select(src, depth)
        if self.selected == src:
            self.hinted = destination_of(self.board, move)
            self._redraw()
        self.flash(_("Hint: {move}").format(move=describe(self.board, move)), "good")
