"""Places on the table, the keys that name them, and how two picks become a move.

Pure engine helpers (no Textual): the game screen asks them which destinations to
highlight, which move a source/destination pair means, and why a pair is refused.

A *limit* caps the number of cards picked up from a column (clicking a card deep in a
column, or the up/down keys); ``None`` means "as many as the move needs".
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from i18n import _
from seahaven import CELL, COLUMN, FOUNDATION, Board, Build, Card, EmptyColumn, Move
from seahaven.moves import CELL_TOKENS, COLUMN_TOKENS

from ..text.words import cards, place_name, reason

FOUNDATION_KEYS: Final = "#."
"""Either key names the foundations (``.`` needs no shift key)."""


@dataclass(frozen=True, slots=True)
class Place:
    """A spot on the table: a column, a cell or one suit's foundation (index = suit)."""

    area: int
    index: int

    def name(self) -> str:
        return place_name(self.area, self.index)

    def key(self) -> str:
        """The key that picks this place."""
        if self.area == COLUMN:
            return COLUMN_TOKENS[self.index]
        if self.area == CELL:
            return CELL_TOKENS[self.index]
        return "#"


ANY_FOUNDATION: Final = Place(FOUNDATION, -1)
"""What the ``#`` key names before a suit is known."""


def key_place(char: str, board: Board) -> Place | None:
    """The place a key names under the board's rules, or None."""
    rules = board.rules
    if char in FOUNDATION_KEYS:
        return ANY_FOUNDATION
    i = COLUMN_TOKENS.find(char)
    if i >= 0 and char:
        return Place(COLUMN, i) if i < rules.columns else None
    i = CELL_TOKENS.find(char)
    if i >= 0 and char:
        return Place(CELL, i) if i < rules.cells else None
    return None


def card_at(board: Board, place: Place) -> Card | None:
    """The card a pick of ``place`` would lift first (a column's exposed card)."""
    if place.area == COLUMN:
        col = board.columns[place.index]
        return col[-1] if col else None
    if place.area == CELL:
        return board.cells[place.index]
    if 0 <= place.index < 4:
        return board.foundation_top(place.index)
    return None


def _rel(board: Board, card: Card) -> int:
    return (card.rank - board.base) % 13


def fits(board: Board, card: Card, target: Card) -> bool:
    """May ``card`` go on ``target`` in a column under these rules?"""
    if _rel(board, target) != _rel(board, card) + 1:
        return False
    if board.rules.build is Build.SUIT:
        return card.suit == target.suit
    return card.is_red != target.is_red


def run_length(board: Board, column: int) -> int:
    """How many cards at the end of the column form a run (1 for a lone card, 0 if empty)."""
    col = board.columns[column]
    if not col:
        return 0
    n = 1
    while n < len(col) and fits(board, col[-n], col[-n - 1]):
        n += 1
    return n


def moves_from(board: Board, src: Place, limit: int | None = None) -> list[Move]:
    """The legal moves from ``src`` carrying at most ``limit`` cards."""
    return [
        m
        for m in board.legal_moves()
        if m.src_area == src.area and m.src == src.index and (limit is None or m.count <= limit)
    ]


def destination_of(board: Board, move: Move) -> Place:
    """Where a move lands, a foundation destination named by the moving card's suit."""
    if move.dst_area != FOUNDATION:
        return Place(move.dst_area, move.dst)
    card = card_at(board, Place(move.src_area, move.src))
    return Place(FOUNDATION, card.suit if card is not None else 0)


def destinations(board: Board, src: Place, limit: int | None = None) -> set[Place]:
    """Every place the selection at ``src`` may go to now (what the screen highlights)."""
    return {destination_of(board, m) for m in moves_from(board, src, limit)}


def _matches(move: Move, dst: Place) -> bool:
    if dst.area == FOUNDATION:
        return move.dst_area == FOUNDATION
    return move.dst_area == dst.area and move.dst == dst.index


def choose(board: Board, src: Place, dst: Place, limit: int | None = None) -> Move | None:
    """The move from ``src`` to ``dst``: the largest legal card count within ``limit``."""
    candidates = [m for m in moves_from(board, src, limit) if _matches(m, dst)]
    return max(candidates, key=lambda m: m.count) if candidates else None


def smart(board: Board, src: Place, limit: int | None = None) -> Move | None:
    """The double-tap move (Board.smart_move), honouring a card-count limit."""
    if limit is None:
        return board.smart_move(src.area, src.index)
    candidates = moves_from(board, src, limit)
    return _prefer(board, candidates)


def _prefer(board: Board, candidates: Iterable[Move]) -> Move | None:
    """The app's priority: foundation, longest accepting column, empty column, cell."""
    moves = list(candidates)
    cols = board.columns
    for m in moves:
        if m.dst_area == FOUNDATION:
            return m
    onto = [m for m in moves if m.dst_area == COLUMN and cols[m.dst]]
    if onto:
        return max(onto, key=lambda m: (len(cols[m.dst]), -m.dst))
    into_empty = [m for m in moves if m.dst_area == COLUMN]
    if into_empty:
        return max(into_empty, key=lambda m: (m.count, -m.dst))
    cells = [m for m in moves if m.dst_area == CELL]
    return cells[0] if cells else None


def source_problem(board: Board, src: Place) -> str | None:
    """Why ``src`` cannot be picked up at all, or None when it holds a card to move."""
    if src.area == FOUNDATION:
        if not board.rules.foundation_takeback:
            return _("cards on a foundation stay there in these rules")
        if src.index < 0:
            return None if any(board.home) else _("the foundations are empty")
    if card_at(board, src) is None:
        return _("{place} is empty").format(place=src.name())
    return None


def why_not(board: Board, src: Place, dst: Place, limit: int | None = None) -> str:
    """Why no legal move takes the selection at ``src`` to ``dst``, in words for the player."""
    problem = source_problem(board, src)
    if problem:
        return problem
    if src == dst or (src.area == dst.area == FOUNDATION):
        return _("pick a different destination")
    card = card_at(board, src)
    assert card is not None
    count = 1
    if src.area == COLUMN and dst.area == COLUMN:
        col = board.columns[src.index]
        target = board.columns[dst.index]
        if target:
            need = _rel(board, target[-1]) - _rel(board, card)
            if 1 <= need <= run_length(board, src.index):
                count = need
        else:
            run = run_length(board, src.index)
            count = run if limit is None else max(1, min(run, limit))
            if board.rules.empty_column is EmptyColumn.KING:
                # The King-led part of the run, if it has one.
                for n in range(1, run + 1):
                    if _rel(board, col[-n]) == 12:
                        count = n
    dst_index = 0 if dst.area == FOUNDATION else dst.index
    verdict = board.is_legal(Move(src.area, src.index, dst.area, dst_index, count))
    if verdict.reason:
        return reason(verdict.reason)
    if limit is not None and count > limit:
        return _("that takes {count} and you picked up {limit}").format(count=cards(count), limit=limit)
    return _("that move is not possible here")


_CARD_TOKEN: Final = re.compile(r"\b(10|[2-9TJQKA])([CDHS])\b")


def with_symbols(text: str) -> str:
    """``text`` with the engine's card tokens (``4S``, ``TH``) spelled as the board draws them
    (``4♠``, ``10♥``): the server's and the engine's reasons use the tokens."""
    return _CARD_TOKEN.sub(lambda m: Card.parse(m.group(0)).symbol, text)


def describe(board: Board, move: Move) -> str:
    """``move`` for people, on ``board`` before it is played: ``3 cards from 10♥ → column 4``."""
    src = Place(move.src_area, move.src)
    if move.src_area == COLUMN and len(board.columns[move.src]) >= move.count >= 1:
        lead: Card | None = board.columns[move.src][-move.count]
    else:
        lead = card_at(board, src)
    what = lead.symbol if lead is not None else str(move)
    if move.count > 1:
        what = _("{cards} from {card}").format(cards=cards(move.count), card=what)
    return f"{what} → {destination_of(board, move).name()}"


def safe_moves(board: Board) -> list[Move]:
    """The foundation moves no later play can regret, played in turn on a copy until none is
    left (auto-move): the engine's ``safe_home_moves`` one after the other."""
    copy = board.copy(stack=False)
    played: list[Move] = []
    while moves := copy.safe_home_moves():
        copy.push(moves[0])
        played.append(moves[0])
    return played


def safe_count(board: Board) -> int:
    """How many cards could go home now, one safe move after another: a progress sense beyond
    the cards home (0 on a won board, and with auto-move on, which plays them)."""
    return len(safe_moves(board))
