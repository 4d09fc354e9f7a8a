"""Positions as text: the solver board format (import/export) and a view for people.

The board format is the one common solitaire solvers read::

    Foundations: H-0 C-2 D-A S-0
    Freecells: 8H - - -
    : 4C 2C 9C 8C QS 4S 2H
    ...

one line per column, deepest card first. Ranks: A 2-9 T J Q K (``10`` is accepted).
"""

from __future__ import annotations

from .board import Board
from .cards import RANKS, SUIT_SYMBOLS, SUITS, Card
from .moves import CELL_TOKENS, COLUMN_TOKENS
from .rules import Rules, preset

_FOUNDATION_ORDER = (2, 0, 1, 3)  # H C D S, as the solvers print them


def to_board_text(board: Board) -> str:
    """The position in the solver board format (round-trips through ``parse_board``)."""
    founds = []
    for suit in _FOUNDATION_ORDER:
        top = board.foundation_top(suit)
        founds.append(f"{SUITS[suit]}-{RANKS[top.rank - 1] if top is not None else '0'}")
    cells = " ".join("-" if c is None else str(c) for c in board.cells)
    lines = [f"Foundations: {' '.join(founds)}", f"Freecells: {cells}".rstrip()]
    lines += [(": " + " ".join(str(c) for c in col)).rstrip() for col in board.columns]
    return "\n".join(lines) + "\n"


def parse_board(text: str, rules: Rules | str) -> Board:
    """Read the solver board format; ValueError with the line and the reason when corrupt."""
    r = preset(rules) if isinstance(rules, str) else rules
    tops: dict[int, int] = {}
    cells: list[Card | None] = []
    columns: list[list[Card]] = []
    seen_cells = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        head, sep, rest = line.partition(":")
        key = head.strip().lower()
        if sep and key in ("foundations", "founds"):
            for token in rest.split():
                suit_ch, dash, rank_ch = token.partition("-")
                suit = SUITS.find(suit_ch.upper()) if len(suit_ch) == 1 else -1
                rank_ch = "T" if rank_ch == "10" else rank_ch.upper()
                if rank_ch == "0":
                    rank = 0
                elif len(rank_ch) == 1 and rank_ch in RANKS:
                    rank = RANKS.index(rank_ch) + 1
                else:
                    rank = -1
                if suit < 0 or not dash or rank < 0:
                    raise ValueError(f"line {number}: {token!r} is not a foundation (write like H-5 or S-0)")
                if suit in tops:
                    raise ValueError(f"line {number}: the {SUITS[suit]} foundation is given twice")
                tops[suit] = rank
        elif sep and key in ("freecells", "fc"):
            if seen_cells:
                raise ValueError(f"line {number}: a second Freecells line")
            seen_cells = True
            for token in rest.split():
                cells.append(None if token == "-" else _card(token, number))
            if len(cells) > r.cells:
                raise ValueError(f"line {number}: {len(cells)} cells given but {r.name} has {r.cells}")
        else:
            body = rest if sep and not head.strip() else line
            columns.append([_card(token, number) for token in body.split()])
    if len(columns) > r.columns:
        raise ValueError(f"{len(columns)} columns given but {r.name} has {r.columns}")
    columns += [[] for _ in range(r.columns - len(columns))]
    cells += [None] * (r.cells - len(cells))
    present = {c for col in columns for c in col} | {c for c in cells if c is not None}
    base = _base(r, tops, present)
    home = [0, 0, 0, 0]
    for suit, rank in tops.items():
        if rank:
            home[suit] = (rank - base) % 13 + 1
    board = Board(r, columns, cells, home, base)
    board.validate()
    return board


def _card(token: str, line: int) -> Card:
    try:
        return Card.parse(token)
    except ValueError as exc:
        raise ValueError(f"line {line}: {exc}") from None


def _base(rules: Rules, tops: dict[int, int], present: set[Card]) -> int:
    """The foundation base rank: Ace, or for Penguin the rank the foundations started from."""
    if not rules.beak:
        return 1
    for suit, rank in tops.items():
        if rank:
            home_count = 13 - sum(1 for c in present if c.suit == suit)
            return (rank - home_count) % 13 + 1
    raise ValueError("a Penguin position needs at least one foundation card to fix the base rank")


def render(board: Board) -> str:
    """A view for people: cells, foundations and columns with suit symbols."""
    cells = "  ".join(f"{CELL_TOKENS[i]}:{_face(c)}" for i, c in enumerate(board.cells))
    founds = "  ".join(f"{SUIT_SYMBOLS[s]}:{_face(board.foundation_top(s))}" for s in range(4))
    lines = [f"cells  {cells}", f"home   {founds}   ({board.progress}/52)", ""]
    cols = board.columns
    lines.append("  ".join(f"{COLUMN_TOKENS[i]:>3}" for i in range(len(cols))))
    depth = max((len(c) for c in cols), default=0)
    for row in range(depth):
        lines.append("  ".join(f"{c[row].symbol:>3}" if row < len(c) else "   " for c in cols).rstrip())
    return "\n".join(lines) + "\n"


def _face(card: Card | None) -> str:
    return "--" if card is None else card.symbol
