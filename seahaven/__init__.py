"""Seahaven Towers and its FreeCell-family cousins: cards, rules, deals, moves, positions.

    >>> from seahaven import Board, Move
    >>> board = Board.deal("seahaven", 1)
    >>> move = board.legal_moves()[0]
    >>> board.push(move); board.pop() == move
    True

No network, no global state; every value type is immutable except the Board.
"""

from .board import Board, IllegalMoveError, Verdict
from .cards import CARDS, Card
from .codes import DealCode, decode, encode
from .moves import CELL, COLUMN, FOUNDATION, Move
from .record import GameRecord
from .rules import PRESETS, Build, Capacity, EmptyColumn, Rules, preset
from .text import parse_board, render, to_board_text

__all__ = [
    "CARDS",
    "CELL",
    "COLUMN",
    "FOUNDATION",
    "PRESETS",
    "Board",
    "Build",
    "Capacity",
    "Card",
    "DealCode",
    "EmptyColumn",
    "GameRecord",
    "IllegalMoveError",
    "Move",
    "Rules",
    "Verdict",
    "decode",
    "encode",
    "parse_board",
    "preset",
    "render",
    "to_board_text",
]
