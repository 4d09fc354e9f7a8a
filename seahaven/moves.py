"""Moves: an immutable value and the compact notation of docs/notation.md.

A move names a source and a destination by one token each, plus a card count for
group moves: ``3a`` (column 3 to cell a), ``a7``, ``3#`` (column 3 home),
``#H5`` (take the hearts foundation's top card back to column 5), ``37:3`` (a run of
three cards from column 3 to column 7). Columns are ``1``-``9`` and ``0`` for the
tenth; cells are ``a``-``h``.
"""

from __future__ import annotations

import functools
from typing import Final, NamedTuple

from .cards import SUITS

COLUMN: Final = 0
CELL: Final = 1
FOUNDATION: Final = 2

COLUMN_TOKENS: Final = "1234567890"
CELL_TOKENS: Final = "abcdefgh"
HOME: Final = "#"


def place_name(area: int, index: int) -> str:
    """How messages name a place: ``column 3``, ``cell b``, ``the hearts foundation``."""
    if area == COLUMN:
        return f"column {index + 1}"
    if area == CELL:
        return f"cell {CELL_TOKENS[index]}" if 0 <= index < len(CELL_TOKENS) else f"cell {index}"
    return "the foundation"


class Move(NamedTuple):
    """Move ``count`` cards from (src_area, src) to (dst_area, dst).

    Areas are COLUMN, CELL and FOUNDATION. A foundation source's index is the suit
    (0-3); a foundation destination's index is always 0 (the card's suit decides).
    """

    src_area: int
    src: int
    dst_area: int
    dst: int
    count: int = 1  # type: ignore[assignment]  # shadows tuple.count on purpose: the card count

    def __str__(self) -> str:
        """The notation; a move the notation cannot name (out-of-range fields) prints its fields."""
        src = _token(self.src_area, self.src, source=True)
        dst = _token(self.dst_area, self.dst, source=False)
        count = self.count
        if src is None or dst is None or not isinstance(count, int) or count < 1:
            return f"Move({self.src_area!r}, {self.src!r}, {self.dst_area!r}, {self.dst!r}, {count!r})"
        return src + dst if count == 1 else f"{src}{dst}:{count}"

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read the notation; ValueError saying which part is wrong."""
        body, sep, count_text = text.strip().partition(":")
        count = 1
        if sep:
            if not count_text.isdigit() or not 1 <= int(count_text) <= 52:
                raise ValueError(f"{text!r}: the card count after ':' must be a number from 1 to 52")
            count = int(count_text)
        src_area, src, rest = _read_token(body, text, source=True)
        dst_area, dst, rest = _read_token(rest, text, source=False)
        if rest:
            raise ValueError(f"{text!r}: unexpected {rest!r} after the destination")
        if count > 1 and not (src_area == COLUMN and dst_area == COLUMN):
            raise ValueError(f"{text!r}: only column-to-column moves carry more than one card")
        return cls(src_area, src, dst_area, dst, count)


read_move = functools.lru_cache(maxsize=4096)(Move.parse)
"""``Move.parse``, remembered: the few hundred texts a game uses are read once per process, however
many layers read each move (Moves are immutable; a text that does not read raises each time)."""


def _token(area: int, index: int, *, source: bool) -> str | None:
    """The token of a place, or None when the notation has no token for it."""
    if not isinstance(index, int):
        return None
    if area == COLUMN and 0 <= index < len(COLUMN_TOKENS):
        return COLUMN_TOKENS[index]
    if area == CELL and 0 <= index < len(CELL_TOKENS):
        return CELL_TOKENS[index]
    if area == FOUNDATION:
        if source and 0 <= index < len(SUITS):
            return HOME + SUITS[index]
        if not source and index == 0:
            return HOME
    return None


def _read_token(text: str, whole: str, *, source: bool) -> tuple[int, int, str]:
    role = "source" if source else "destination"
    if not text:
        raise ValueError(f"{whole!r}: the {role} is missing")
    ch = text[0]
    if ch in COLUMN_TOKENS:
        return COLUMN, COLUMN_TOKENS.index(ch), text[1:]
    if ch in CELL_TOKENS:
        return CELL, CELL_TOKENS.index(ch), text[1:]
    if ch == HOME:
        if not source:
            return FOUNDATION, 0, text[1:]
        suit = SUITS.find(text[1:2].upper()) if len(text) > 1 else -1
        if suit < 0:
            raise ValueError(f"{whole!r}: a foundation source names its suit, like #H")
        return FOUNDATION, suit, text[2:]
    raise ValueError(f"{whole!r}: {ch!r} is not a {role}; use 1-9 and 0 for columns, a-h for cells, # for foundations")
