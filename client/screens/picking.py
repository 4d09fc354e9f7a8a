"""Picking cards on a game screen: a key or a click names a source, a second one its destination;
the smart move, the run's length (up / down), drag and drop, cancel.

``Picking`` is the game screen's picking part (client/screens/game_screen.py: ``GameScreen``
derives from it): the selection (``selected``, ``limit``, ``hinted``) and what a pick plays. The
screen holds the board and draws it; what this part asks of it is declared at the top of the class.
"""

from __future__ import annotations

from i18n import _, ngettext
from i18n.rules_help import preset_title
from seahaven import COLUMN, FOUNDATION, Board, Move, Rules

from ..board.places import (
    ANY_FOUNDATION,
    Place,
    card_at,
    choose,
    key_place,
    moves_from,
    run_length,
    smart,
    source_problem,
    why_not,
    with_symbols,
)
from ..text.words import cards
from ..widgets.board_view import BoardView
from .localized import LocalScreen


def idle_hint(rules: Rules) -> str:
    """The message line's invitation, with this preset's keys."""
    cols = "1-9 0" if rules.columns == 10 else f"1-{rules.columns}"
    cells = "a" if rules.cells == 1 else f"a-{'abcdefgh'[rules.cells - 1]}"
    return _("Pick a card: {columns} columns · {cells} cells · # home · space smart move · ? help").format(
        columns=cols, cells=cells
    )


class Picking(LocalScreen[None]):
    """The selection on a game screen and what a pick plays."""

    selected: Place | None
    """The source picked (None: nothing is)."""
    limit: int | None
    """How many cards of the selected column's run move (None: as many as the move allows)."""
    hinted: Place | None
    """The destination of the hint shown, lit alone (the selection's other places are not)."""
    view: BoardView

    # -- what the screen provides -----------------------------------------------

    @property
    def board(self) -> Board:
        raise NotImplementedError

    def flash(self, text: str, kind: str = "info") -> None:
        raise NotImplementedError

    def refuse_input(self) -> bool:
        """True (and the message line says why) if the board takes no input now."""
        raise NotImplementedError

    def _redraw(self) -> None:
        raise NotImplementedError

    def _play(self, move: Move) -> None:
        """Play ``move`` as the player's (and the auto-moves after it)."""
        raise NotImplementedError

    # -- picking ----------------------------------------------------------------------

    def action_pick(self, key: str) -> None:
        place = _key_place(key, self.board)
        if isinstance(place, str):
            if not self.refuse_input():
                self.flash(place, "error")
            return
        self.pick(place)

    def on_board_view_picked(self, event: BoardView.Picked) -> None:
        event.stop()
        self.pick(event.place, event.depth, event.chain)

    def on_board_view_dropped(self, event: BoardView.Dropped) -> None:
        """Drag and drop: the source picked afresh, then the place it was dropped on."""
        event.stop()
        if self.refuse_input():
            return
        self._clear_selection()
        self._select(event.source, event.depth)
        if self.selected is not None:
            self.pick(event.target)

    def pick(self, place: Place | None, depth: int | None = None, chain: int = 1) -> None:
        """A key press or click on ``place`` (None: the bare table)."""
        if self.refuse_input():
            return
        if place is None:
            self.action_cancel()
            return
        if chain >= 2:
            self._smart(self._source(place), self._limit_for(place, depth))
            return
        selected = self.selected
        if selected is None:
            self._select(place, depth)
            return
        if selected.area == FOUNDATION and place.area == FOUNDATION:
            if place == ANY_FOUNDATION:
                self._select(self._next_foundation(selected.index), None)
            elif place == selected:
                self._smart(selected, None)
            else:
                self._select(place, None)
            return
        if place == selected:
            limit = self._limit_for(place, depth)
            if depth is not None and limit != self.limit:
                self._select(place, depth)
            else:
                self._smart(selected, self.limit)
            return
        dst = Place(FOUNDATION, 0) if place.area == FOUNDATION else place
        move = choose(self.board, selected, dst, self.limit)
        if move is None:
            reason = why_not(self.board, selected, dst, self.limit)
            self._clear_selection()
            self._redraw()
            self.flash(with_symbols(reason), "error")
            return
        self._play(move)

    def _source(self, place: Place) -> Place:
        if place == ANY_FOUNDATION:
            return self._next_foundation(-1)
        return place

    def _next_foundation(self, after: int) -> Place:
        home = self.board.home
        for step in range(1, 5):
            suit = (after + step) % 4
            if home[suit]:
                return Place(FOUNDATION, suit)
        return ANY_FOUNDATION

    def _limit_for(self, place: Place, depth: int | None) -> int | None:
        if place.area != COLUMN or depth is None:
            return None
        return max(1, len(self.board.columns[place.index]) - depth)

    def _refused_source(self, place: Place) -> bool:
        """Say why ``place`` cannot be a source, if it cannot (and drop any selection)."""
        problem = source_problem(self.board, place)
        if problem:
            self._clear_selection()
            self._redraw()
            self.flash(with_symbols(problem), "error")
        return bool(problem)

    def _select(self, place: Place, depth: int | None) -> None:
        place = self._source(place)
        if self._refused_source(place):
            return
        self.selected, self.hinted = place, None
        self.limit = self._limit_for(place, depth)
        self._redraw()
        card = card_at(self.board, place)
        what = card.symbol if card is not None else place.name()
        count = self._selected_count()
        if count > 1:
            what = _("{cards} from {card}").format(
                cards=cards(count), card=self.board.columns[place.index][-count].symbol
            )
        if self.view.dests:
            self.flash(_("{what} selected: pick a destination · space: smart move · esc: cancel").format(what=what))
        else:
            self.flash(_("{what} selected, but it has nowhere to go now").format(what=what), "error")

    def _selected_count(self) -> int:
        if self.selected is None:
            return 0
        if self.selected.area != COLUMN:
            return 1
        if self.limit is not None:
            return self.limit
        moves = moves_from(self.board, self.selected)
        return max((m.count for m in moves), default=1)

    def _clear_selection(self) -> None:
        self.selected = None
        self.limit = None
        self.hinted = None

    def action_cancel(self) -> None:
        if self.selected is not None:
            self._clear_selection()
            self._redraw()
            self.flash(idle_hint(self.board.rules))

    def action_smart(self) -> None:
        if self.refuse_input():
            return
        if self.selected is None:
            self.flash(_("Select a card first (its key or a click), then space for the smart move"), "error")
            return
        self._smart(self.selected, self.limit)

    def action_more(self) -> None:
        self._change_limit(+1)

    def action_fewer(self) -> None:
        self._change_limit(-1)

    def _change_limit(self, step: int) -> None:
        sel = self.selected
        if sel is None or sel.area != COLUMN or self.refuse_input():
            return
        col = self.board.columns[sel.index]
        current = self._selected_count()
        # Only the run at the end of the column moves together.
        new = max(1, min(run_length(self.board, sel.index), current + step))
        self._select(sel, len(col) - new)

    def _smart(self, place: Place, limit: int | None) -> None:
        if self._refused_source(place):
            return
        move = smart(self.board, place, limit)
        if move is None:
            card = card_at(self.board, place)
            self._clear_selection()
            self._redraw()
            self.flash(_("{what} has nowhere to go").format(what=card.symbol if card else place.name()), "error")
            return
        self._play(move)


def _key_place(key: str, board: Board) -> Place | str:
    """The place a key names, or why it names none under these rules."""
    place = key_place(key, board)
    if place is not None:
        return place
    rules = board.rules
    if key.isdigit():
        return ngettext("{title} has {n} column", "{title} has {n} columns", rules.columns).format(
            title=preset_title(rules.title), n=rules.columns
        )
    return ngettext("{title} has {n} cell", "{title} has {n} cells", rules.cells).format(
        title=preset_title(rules.title), n=rules.cells
    )
