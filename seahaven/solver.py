"""A solver: finds a winning move list for a position, or shows that there is none.

    >>> from seahaven import Board
    >>> from seahaven.solver import solve
    >>> board = Board.deal("seahaven", 1)
    >>> solution = solve(board)
    >>> solution.status
    'solved'
    >>> for move in solution.moves:
    ...     board.push(move)
    >>> board.is_won()
    True

Works under every preset's rules (and any other ``Rules`` value); tuned for Seahaven Towers.
Positions that differ only by the order of their columns or of their cells count as one.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from .board import Board
from .moves import CELL, COLUMN, FOUNDATION, Move
from .rules import Build, Capacity, EmptyColumn, Rules

Status = Literal["solved", "unsolvable", "gave-up"]

_TOP = 12
"""Relative rank of a King: in Penguin, of the rank just below the beak's."""

_NO_CARD = -1

_Cols = tuple[bytes, ...]
_Cells = tuple[int, ...]
_Home = tuple[int, int, int, int]
_RawMove = tuple[int, int, int, int, int]
"""A Move's fields; the search's own column-to-cell moves may carry several cards (see ``_Search.apply``)."""
_Path = tuple["_Path | None", tuple[_RawMove, ...]] | None


@dataclass(frozen=True)
class Solution:
    """The outcome of a search.

    ``moves`` wins the game when pushed one by one onto the searched position (empty unless
    ``status`` is "solved"); ``states`` counts the distinct positions the search examined.
    """

    status: Status
    moves: tuple[Move, ...]
    states: int

    @property
    def solved(self) -> bool:
        """Whether a win was found."""
        return self.status == "solved"


def solve(
    board: Board, *, max_states: int = 200_000, max_seconds: float | None = None, avoid: Iterable[Board] = ()
) -> Solution:
    """Search for a win from ``board``'s position without changing ``board``.

    "unsolvable" means every reachable position was examined; "gave-up" means more than
    ``max_states`` positions, or more than ``max_seconds`` of search, would have been needed
    to decide. Only the state budget makes the outcome the same on every machine.

    ``avoid``: positions the line must not pass through (a hint's line keeps clear of where the
    racer has been, or following hints could go in circles). "unsolvable" then means no win
    avoids them; one through them may still exist.
    """
    if max_states < 1:
        raise ValueError("max_states must be at least 1")
    if max_seconds is not None and not max_seconds > 0:
        raise ValueError("max_seconds must be positive")
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    search = _Search(board.copy(stack=False), max_states, deadline)
    return search.run(avoid)


def hint(board: Board, *, max_states: int = 200_000, max_seconds: float | None = None) -> Move | None:
    """The first move of a winning line from ``board``, or None (won, lost, or not found in time)."""
    solution = solve(board, max_states=max_states, max_seconds=max_seconds)
    return solution.moves[0] if solution.moves else None


def _card_id(rank: int, suit: int, base: int) -> int:
    """The solver's card number: relative rank (0 for the foundation base) times 4 plus suit."""
    return ((rank - base) % 13) * 4 + suit


def _onto_table(build: Build) -> tuple[tuple[int, ...], ...]:
    """For each solver card number, the card numbers it may be placed on in a column."""
    table: list[tuple[int, ...]] = []
    for card in range(52):
        rel, suit = card >> 2, card & 3
        if rel == _TOP:
            table.append(())
        elif build is Build.SUIT:
            table.append((card + 4,))
        else:
            red = suit in (1, 2)
            table.append(tuple((rel + 1) * 4 + s for s in range(4) if (s in (1, 2)) != red))
    return tuple(table)


class _Search:
    """One best-first search over positions in the solver's own compact form."""

    def __init__(self, board: Board, max_states: int, deadline: float | None = None) -> None:
        rules: Rules = board.rules
        self.max_states = max_states
        self.deadline = deadline
        self.by_suit = rules.build is Build.SUIT
        self.king_only = rules.empty_column is EmptyColumn.KING
        self.capacity_kind = rules.capacity
        # Taking a card back from a foundation never helps when building by suit: the only
        # card that could then go on it is already home.
        self.takeback = rules.foundation_takeback and not self.by_suit
        self.onto = _onto_table(rules.build)
        fits = bytearray(52 * 52)
        for card, targets in enumerate(self.onto):
            for target in targets:
                fits[card * 52 + target] = 1
        self.fits = bytes(fits)
        self.cols, self.cells = _compact(board)
        h = board.home
        self.home: _Home = (h[0], h[1], h[2], h[3])

    # -- rules ----------------------------------------------------------------

    def capacity(self, cols: _Cols, free: int, *, to_empty_column: bool) -> int:
        """The engine's group-move limit."""
        kind = self.capacity_kind
        if kind is Capacity.UNLIMITED:
            return 52
        if kind is Capacity.SEQUENTIAL and self.king_only:
            return free + 1
        empties = sum(1 for col in cols if not col) - to_empty_column
        return (free + 1) << max(empties, 0)

    def is_safe_home(self, card: int, home: Sequence[int]) -> bool:
        """Whether ``card`` may go home now and nothing later could want it elsewhere."""
        rel = card >> 2
        if rel != home[card & 3]:
            return False
        if self.by_suit or rel <= 1:
            return True
        if card & 3 in (1, 2):
            return home[0] >= rel and home[3] >= rel
        return home[1] >= rel and home[2] >= rel

    def autoplay(self, cols: list[bytes], cells: list[int], home: list[int], played: list[_RawMove]) -> None:
        """Play, in place, the moves no later play can regret, until none is left.

        Those are the safe home moves and, building by suit, a cell's card onto the one card
        it may go on when that card is exposed. The moves played are appended to ``played``.
        """
        if not self.by_suit:
            self._autoplay_alternate(cols, cells, home, played)
            return
        progress = True
        while progress:
            progress = False
            for i, col in enumerate(cols):
                if col and col[-1] >> 2 == home[col[-1] & 3]:
                    while col and col[-1] >> 2 == home[col[-1] & 3]:
                        home[col[-1] & 3] += 1
                        col = col[:-1]
                        played.append((COLUMN, i, FOUNDATION, 0, 1))
                    cols[i] = col
                    progress = True
            busy = False
            for i, card in enumerate(cells):
                if card != _NO_CARD:
                    if card >> 2 == home[card & 3]:
                        home[card & 3] += 1
                        cells[i] = _NO_CARD
                        played.append((CELL, i, FOUNDATION, 0, 1))
                        progress = True
                    else:
                        busy = True
            if busy:
                # A card is as free on its only possible parent as in a cell, and the cell is freed.
                tops = {col[-1]: d for d, col in enumerate(cols) if col}
                for i, card in enumerate(cells):
                    d = tops.pop(card + 4, -1) if card != _NO_CARD else -1
                    if d >= 0:
                        cols[d] += bytes((card,))
                        tops[card] = d
                        cells[i] = _NO_CARD
                        played.append((CELL, i, COLUMN, d, 1))
                        progress = True

    def _autoplay_alternate(self, cols: list[bytes], cells: list[int], home: list[int], played: list[_RawMove]) -> None:
        """``autoplay`` for alternating colours: safe home moves only."""
        safe = self.is_safe_home
        progress = True
        while progress:
            progress = False
            for i, col in enumerate(cols):
                if col and safe(col[-1], home):
                    while col and safe(col[-1], home):
                        home[col[-1] & 3] += 1
                        col = col[:-1]
                        played.append((COLUMN, i, FOUNDATION, 0, 1))
                    cols[i] = col
                    progress = True
            for i, card in enumerate(cells):
                if card != _NO_CARD and safe(card, home):
                    home[card & 3] += 1
                    cells[i] = _NO_CARD
                    played.append((CELL, i, FOUNDATION, 0, 1))
                    progress = True

    def moves(self, cols: _Cols, cells: _Cells, home: _Home) -> list[_RawMove]:
        """The moves worth trying here: legal, not a safe home move, not pointless."""
        fits = self.fits
        onto = self.onto
        king_only = self.king_only
        by_suit = self.by_suit
        free = cells.count(_NO_CARD)
        first_free = cells.index(_NO_CARD) if free else -1
        first_empty = next((i for i, col in enumerate(cols) if not col), -1)
        cap = self.capacity(cols, free, to_empty_column=False)
        cap_empty = self.capacity(cols, free, to_empty_column=True)
        tops = {col[-1]: i for i, col in enumerate(cols) if col}
        out: list[_RawMove] = []
        add = out.append
        for s, col in enumerate(cols):
            if not col:
                continue
            top = col[-1]
            size = len(col)
            if top >> 2 == home[top & 3]:
                add((COLUMN, s, FOUNDATION, 0, 1))
            run = 1
            while run < size and fits[col[-run] * 52 + col[-run - 1]]:
                run += 1
            for n in range(1, min(run, cap) + 1):
                for target in onto[col[-n]]:
                    d = tops.get(target, -1)
                    if d >= 0:
                        add((COLUMN, s, COLUMN, d, n))
            if first_empty >= 0:
                if king_only:
                    n = _TOP + 1 - (top >> 2)
                    # A whole column moved into an empty one changes nothing.
                    if n <= run and n <= cap_empty and n < size:
                        add((COLUMN, s, COLUMN, first_empty, n))
                else:
                    for n in range(1, min(run, cap_empty, size - 1) + 1):
                        add((COLUMN, s, COLUMN, first_empty, n))
            if not by_suit:
                if first_free >= 0:
                    add((COLUMN, s, CELL, first_free, 1))
            elif run <= free:
                # Building by suit, a card taken off the one card it may go on would be put
                # straight back (see autoplay): a run goes to the cells whole or not at all.
                add((COLUMN, s, CELL, first_free, run))
        for s, card in enumerate(cells):
            if card == _NO_CARD:
                continue
            if card >> 2 == home[card & 3]:
                add((CELL, s, FOUNDATION, 0, 1))
            for target in onto[card]:
                d = tops.get(target, -1)
                if d >= 0:
                    add((CELL, s, COLUMN, d, 1))
            if first_empty >= 0 and (not king_only or card >> 2 == _TOP):
                add((CELL, s, COLUMN, first_empty, 1))
        if self.takeback:
            for suit in range(4):
                if not home[suit]:
                    continue
                card = (home[suit] - 1) * 4 + suit
                for target in onto[card]:
                    d = tops.get(target, -1)
                    if d >= 0:
                        add((FOUNDATION, suit, COLUMN, d, 1))
                if first_empty >= 0 and (not king_only or card >> 2 == _TOP):
                    add((FOUNDATION, suit, COLUMN, first_empty, 1))
                if first_free >= 0:
                    add((FOUNDATION, suit, CELL, first_free, 1))
        return out

    def apply(
        self, cols: _Cols, cells: _Cells, home: _Home, move: _RawMove
    ) -> tuple[list[bytes], list[int], list[int], list[_RawMove]]:
        """The position after ``move`` and the moves autoplay adds, with the engine moves played.

        A move of several cards into a cell (only the search makes those) puts them one by one
        into the free cells from the ``dst``-th on.
        """
        sa, s, da, d, n = move
        new_cols = list(cols)
        new_cells = list(cells)
        new_home = list(home)
        if da == CELL and n > 1:
            col = cols[s]
            new_cols[s] = col[:-n]
            played: list[_RawMove] = []
            for card in reversed(col[-n:]):
                d = new_cells.index(_NO_CARD, d)
                new_cells[d] = card
                played.append((COLUMN, s, CELL, d, 1))
            self.autoplay(new_cols, new_cells, new_home, played)
            return new_cols, new_cells, new_home, played
        if sa == COLUMN:
            col = cols[s]
            moved = col[-n:]
            new_cols[s] = col[:-n]
        elif sa == CELL:
            moved = bytes((cells[s],))
            new_cells[s] = _NO_CARD
        else:
            new_home[s] -= 1
            moved = bytes((new_home[s] * 4 + s,))
        if da == COLUMN:
            new_cols[d] = cols[d] + moved
        elif da == CELL:
            new_cells[d] = moved[0]
        else:
            new_home[moved[0] & 3] += 1
        played = [move]
        self.autoplay(new_cols, new_cells, new_home, played)
        return new_cols, new_cells, new_home, played

    def first_step(self, cols: _Cols, cells: _Cells, home: _Home, move: _RawMove) -> bytes:
        """The key of the position after ``move``'s first engine move alone (a run into the
        cells goes card by card; autoplay comes after): where a racer who plays it stands."""
        sa, s, da, d, n = move
        new_cols, new_cells = list(cols), list(cells)
        if sa == COLUMN:
            n = 1 if da == CELL else n
            moved = cols[s][-n:]
            new_cols[s] = cols[s][:-n]
        elif sa == CELL:
            moved = bytes((cells[s],))
            new_cells[s] = _NO_CARD
        else:
            moved = bytes(((home[s] - 1) * 4 + s,))
        if da == COLUMN:
            new_cols[d] = cols[d] + moved
        elif da == CELL:
            new_cells[d] = moved[0]
        return self.key(new_cols, new_cells)

    # -- search ---------------------------------------------------------------

    @staticmethod
    def key(cols: Sequence[bytes], cells: Sequence[int]) -> bytes:
        """Equal for positions equal up to the order of columns and of cells."""
        return b"\xff".join(sorted(cols)) + b"\xfe" + bytes(sorted(c for c in cells if c != _NO_CARD))

    def score(self, cols: list[bytes], cells: list[int], home: list[int]) -> int:
        """How far the position looks from a win: lower is more promising."""
        cost = 0
        for col in cols:
            size = len(col)
            if not size:
                cost -= 6
                continue
            lows = [99, 99, 99, 99]
            for i, card in enumerate(col):
                rel = card >> 2
                suit = card & 3
                if rel > lows[suit]:
                    cost += 3  # covers a lower card of its suit: must move before that one goes home
                else:
                    lows[suit] = rel
                if rel == home[suit]:
                    cost += 2 * (size - 1 - i)  # cards covering the next card its foundation needs
        for card in cells:
            if card != _NO_CARD:
                cost += 3
        return cost - 5 * sum(home)

    def run(self, avoid: Iterable[Board] = ()) -> Solution:
        """Search from the position given at construction, never through a position in ``avoid``."""
        avoided = frozenset(self.key(*_compact(board)) for board in avoid)
        cols = list(self.cols)
        cells = list(self.cells)
        home = list(self.home)
        start_moves: list[_RawMove] = []
        if not avoided:
            self.autoplay(cols, cells, home, start_moves)
        # Else every engine move of the line's start matters (a racer plays them one by one as
        # hints): autoplay could put straight back a card the racer's last move took off its
        # parent (the first card of a run moved to the cells). The position is searched as it
        # is, its safe home moves among the moves tried; and the first engine move of the line,
        # which one step of the search (a run into the cells, a move and its autoplay) can hide,
        # is kept clear of ``avoided`` as the line's positions are (they are marked seen).
        root: _Path = (None, tuple(start_moves))
        if sum(home) == 52:
            return Solution("solved", _moves(root), 1)
        seen = set(avoided)
        seen.add(self.key(cols, cells))
        fenced = len(seen) - 1  # the positions avoided: never examined, not counted as states
        counter = itertools.count()
        queue: list[tuple[int, int, _Cols, _Cells, _Home, _Path]] = [
            (0, 0, tuple(cols), tuple(cells), (home[0], home[1], home[2], home[3]), root)
        ]
        deadline = self.deadline
        popped = 0
        while queue:
            popped += 1
            # The clock is read once every 256 positions: cheap, and at most ~10 ms late.
            if deadline is not None and not popped & 255 and time.monotonic() > deadline:
                return Solution("gave-up", (), len(seen) - fenced)
            _, _, pcols, pcells, phome, path = heapq.heappop(queue)
            for move in self.moves(pcols, pcells, phome):
                if avoided and path is root and self.first_step(pcols, pcells, phome, move) in avoided:
                    continue
                ncols, ncells, nhome, played = self.apply(pcols, pcells, phome, move)
                k = self.key(ncols, ncells)
                if k in seen:
                    continue
                child: _Path = (path, tuple(played))
                if sum(nhome) == 52:
                    return Solution("solved", _moves(child), len(seen) - fenced + 1)
                if len(seen) - fenced >= self.max_states:
                    return Solution("gave-up", (), len(seen) - fenced)
                seen.add(k)
                entry = (
                    self.score(ncols, ncells, nhome),
                    next(counter),
                    tuple(ncols),
                    tuple(ncells),
                    (nhome[0], nhome[1], nhome[2], nhome[3]),
                    child,
                )
                heapq.heappush(queue, entry)
        return Solution("unsolvable", (), len(seen) - fenced)


def _compact(board: Board) -> tuple[_Cols, _Cells]:
    """``board``'s columns and cells in the solver's card numbers."""
    base = board.base
    cols = tuple(bytes(_card_id(c.rank, c.suit, base) for c in col) for col in board.columns)
    cells = tuple(_NO_CARD if c is None else _card_id(c.rank, c.suit, base) for c in board.cells)
    return cols, cells


def _moves(path: _Path) -> tuple[Move, ...]:
    """The engine moves along a search path, first move first."""
    pieces: list[tuple[_RawMove, ...]] = []
    while path is not None:
        path, played = path
        pieces.append(played)
    return tuple(Move(*raw) for piece in reversed(pieces) for raw in piece)
