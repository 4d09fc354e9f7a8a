"""The Board: a position under a set of rules, with legal moves, push and pop."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import NamedTuple

from .cards import CARDS, SUIT_NAMES, Card
from .codes import decode
from .deals import deal_order, lay_out
from .moves import CELL, COLUMN, FOUNDATION, Move, place_name
from .rules import Build, Capacity, EmptyColumn, Rules, preset

TOP_REL = 12
"""Relative rank of a King (Penguin: the rank below the beak): what King-only columns take."""


class IllegalMoveError(ValueError):
    """A move the rules refuse; ``reason`` says why in words for the player."""

    def __init__(self, move: Move, reason: str) -> None:
        super().__init__(f"illegal move {move}: {reason}")
        self.move = move
        self.reason = reason


class Verdict(tuple[str | None]):
    """The answer of ``Board.is_legal``: truthy when legal, else ``reason`` says why."""

    __slots__ = ()

    def __new__(cls, reason: str | None) -> Verdict:
        return tuple.__new__(cls, (reason,))

    @property
    def reason(self) -> str | None:
        return self[0]

    def __bool__(self) -> bool:
        return self[0] is None

    def __repr__(self) -> str:
        return "Verdict(legal)" if self[0] is None else f"Verdict({self[0]!r})"


_LEGAL = Verdict(None)


@cache
def _tables(build: Build, base: int) -> tuple[tuple[int, ...], bytes]:
    """Relative ranks (0 for the foundation base) and the 52x52 'may go on' table."""
    rel = tuple((c.rank - base) % 13 for c in CARDS)
    fits = bytearray(52 * 52)
    for c in CARDS:
        for t in CARDS:
            if rel[t] != rel[c] + 1:
                continue
            if (build is Build.SUIT and c.suit == t.suit) or (build is Build.ALTERNATE and c.is_red != t.is_red):
                fits[c * 52 + t] = 1
    return rel, bytes(fits)


@cache
def _onto(build: Build, base: int) -> tuple[tuple[Card, ...], ...]:
    """For each card, the cards it may be built on in a column (one by suit, two in colours)."""
    _, fits = _tables(build, base)
    return tuple(tuple(t for t in CARDS if fits[c * 52 + t]) for c in CARDS)


class _MoveTable(NamedTuple):
    """Every Move value a board of this size can list, built once (tuples are slow to make)."""

    col_col: tuple[tuple[tuple[Move, ...], ...], ...]  # [s][d][n], n from 0 (unused) to 13
    col_cell: tuple[tuple[Move, ...], ...]
    col_home: tuple[Move, ...]
    cell_col: tuple[tuple[Move, ...], ...]
    cell_home: tuple[Move, ...]
    home_col: tuple[tuple[Move, ...], ...]
    home_cell: tuple[tuple[Move, ...], ...]


@cache
def _move_table(columns: int, cells: int) -> _MoveTable:
    cols, cels = range(columns), range(cells)
    return _MoveTable(
        tuple(tuple(tuple(Move(COLUMN, s, COLUMN, d, n) for n in range(14)) for d in cols) for s in cols),
        tuple(tuple(Move(COLUMN, s, CELL, d) for d in cels) for s in cols),
        tuple(Move(COLUMN, s, FOUNDATION, 0) for s in cols),
        tuple(tuple(Move(CELL, s, COLUMN, d) for d in cols) for s in cels),
        tuple(Move(CELL, s, FOUNDATION, 0) for s in cels),
        tuple(tuple(Move(FOUNDATION, suit, COLUMN, d) for d in cols) for suit in range(4)),
        tuple(tuple(Move(FOUNDATION, suit, CELL, d) for d in cels) for suit in range(4)),
    )


class Board:
    """A position and the moves that led to it (for ``pop``).

    Columns list their cards deepest first, so ``columns[i][-1]`` is the exposed card.
    """

    __slots__ = (
        "_cells",
        "_cols",
        "_fits",
        "_home",
        "_king_only",
        "_moves",
        "_onto",
        "_progress",
        "_rel",
        "_stack",
        "base",
        "rules",
    )

    def __init__(
        self,
        rules: Rules,
        columns: Sequence[Sequence[Card]],
        cells: Sequence[Card | None],
        home: Sequence[int] = (0, 0, 0, 0),
        base: int = 1,
    ) -> None:
        """A board in the given position; ``home[s]`` counts the cards of suit s on foundations.

        Structural sizes are checked here; the card inventory is checked by ``validate``.
        """
        if len(columns) != rules.columns:
            raise ValueError(f"{rules.name} has {rules.columns} columns, not {len(columns)}")
        if len(cells) != rules.cells:
            raise ValueError(f"{rules.name} has {rules.cells} cells, not {len(cells)}")
        if len(home) != 4 or not all(0 <= h <= 13 for h in home):
            raise ValueError("foundations hold 0 to 13 cards for each of the 4 suits")
        self.rules = rules
        self.base = base
        self._cols = [[CARDS[c] for c in col] for col in columns]
        self._cells: list[Card | None] = [None if c is None else CARDS[c] for c in cells]
        self._home = list(home)
        self._progress = sum(home)
        """``sum(_home)``, kept as cards come and go: a race asks for it several times a move."""
        self._rel, self._fits = _tables(rules.build, base)
        self._onto = _onto(rules.build, base)
        self._moves = _move_table(rules.columns, rules.cells)
        self._king_only = rules.empty_column is EmptyColumn.KING
        self._stack: list[tuple[Move, Card]] = []

    # -- construction ---------------------------------------------------------

    @classmethod
    def deal(cls, rules: Rules | str, number: int) -> Board:
        """The opening position of deal ``number`` (see docs/deals.md)."""
        r = preset(rules) if isinstance(rules, str) else rules
        columns, cells, home, base = lay_out(r, deal_order(r, number))
        return cls(r, columns, cells, home, base)

    @classmethod
    def from_code(cls, code: str) -> Board:
        """The opening position a deal code names."""
        name, number = decode(code)
        return cls.deal(name, number)

    def copy(self, *, stack: bool = True) -> Board:
        """An independent board in the same position (with the move stack unless told not)."""
        board = Board(self.rules, self._cols, self._cells, self._home, self.base)
        if stack:
            board._stack = list(self._stack)
        return board

    # -- reading --------------------------------------------------------------

    @property
    def columns(self) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(col) for col in self._cols)

    @property
    def cells(self) -> tuple[Card | None, ...]:
        return tuple(self._cells)

    @property
    def home(self) -> tuple[int, ...]:
        """Cards on each suit's foundation (clubs, diamonds, hearts, spades)."""
        return tuple(self._home)

    def foundation_top(self, suit: int) -> Card | None:
        """The top card of ``suit``'s foundation, or None while it is empty."""
        count = self._home[suit]
        if not count:
            return None
        return CARDS[((self.base - 1 + count - 1) % 13) * 4 + suit]

    @property
    def progress(self) -> int:
        """Cards on the foundations, 0 to 52: what a race is scored by."""
        return self._progress

    @property
    def move_stack(self) -> list[Move]:
        return [m for m, _ in self._stack]

    @property
    def last_move(self) -> Move | None:
        """The move ``pop`` would take back (None before the first), without copying the stack."""
        return self._stack[-1][0] if self._stack else None

    def is_won(self) -> bool:
        return self._progress == 52

    def is_stuck(self) -> bool:
        """No legal move is left and the game is not won."""
        return not self.is_won() and not self.has_legal_move()

    def has_legal_move(self) -> bool:
        """True if any move is legal here: ``bool(legal_moves())``, without listing them when
        an easy one exists (a card into a free cell, a card that can go home, or a top or cell
        card that can go onto a column's top card)."""
        cols, cells, home, rel = self._cols, self._cells, self._home, self._rel
        if None in cells and any(cols):
            return True
        tops = [col[-1] for col in cols if col]
        loose = tops + [c for c in cells if c is not None]
        for card in loose:
            if rel[card] == home[card & 3]:
                return True
        onto, on_top = self._onto, set(tops)
        for card in loose:
            for target in onto[card]:
                if target in on_top:  # one card always fits the capacity
                    return True
        return bool(self.legal_moves())

    def position(self) -> tuple[object, ...]:
        """A hashable value equal for equal positions."""
        return (self.rules.name, self.base, self.columns, self.cells, self.home)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.position() == other.position()

    def __hash__(self) -> int:
        return hash(self.position())

    def __repr__(self) -> str:
        # The whole position as text is ``seahaven.text.to_board_text``, which builds on Board:
        # it is not called here, so the two modules do not import each other.
        return f"<Board {self.rules.name} progress={self.progress} position={self.position()!r}>"

    def validate(self) -> None:
        """Raise ValueError unless the position holds each of the 52 cards exactly once."""
        where: dict[int, str] = {}
        problems: list[str] = []

        def see(card: int, place: str) -> None:
            if card in where:
                problems.append(f"{CARDS[card]} appears twice ({where[card]} and {place})")
            else:
                where[card] = place

        for i, col in enumerate(self._cols):
            for card in col:
                see(card, place_name(COLUMN, i))
        for i, cell in enumerate(self._cells):
            if cell is not None:
                see(cell, place_name(CELL, i))
        for suit in range(4):
            for k in range(self._home[suit]):
                see(((self.base - 1 + k) % 13) * 4 + suit, f"the {SUIT_NAMES[suit]} foundation")
        missing = [str(CARDS[c]) for c in range(52) if c not in where]
        if missing:
            problems.append(f"missing cards: {' '.join(missing)}")
        if problems:
            raise ValueError("; ".join(problems))

    # -- rules ----------------------------------------------------------------

    def capacity(self, *, to_empty_column: bool = False, whole_column: bool = False) -> int:
        """The most cards one group move may carry now.

        ``whole_column``: the run is all of its column. Card by card, the run's head may
        then park in a cell or another column, and where empty columns take any card the
        column it left helps rebuild the run. Into an empty column, with f free cells and
        e other empty columns, that moves f + 1 + f // 2 + (f + 1) x (2^(e+1) - 2) cards
        instead of (f + 1) x 2^e: found by the brute-force search of tests/test_capacity.py
        and exact for every run a deck holds (13 cards at most). Onto a card it changes
        nothing: storing the pieces before the head can leave is the bottleneck there.
        """
        kind = self.rules.capacity
        if kind is Capacity.UNLIMITED:
            return 52
        free = self._cells.count(None)
        if kind is Capacity.SEQUENTIAL and self._king_only:
            # Pieces of a run are never King-led, so empty columns cannot hold them.
            return free + 1
        empties = max(sum(1 for col in self._cols if not col) - to_empty_column, 0)
        if kind is Capacity.SEQUENTIAL and whole_column and to_empty_column:
            return free + 1 + free // 2 + (free + 1) * ((2 << empties) - 2)
        return (free + 1) << empties

    def _reason(self, move: Move) -> str | None:
        """Why ``move`` is illegal here, or None when it is legal."""
        try:
            sa, s, da, d, n = move
        except (TypeError, ValueError):
            return "not a move"
        cols = self._cols
        rel = self._rel
        fits = self._fits
        if n < 1:
            return "a move carries at least one card"
        if sa == COLUMN:
            if not 0 <= s < len(cols):
                return f"there is no column {s + 1}"
            col = cols[s]
            if len(col) < n:
                return (
                    f"{place_name(COLUMN, s)} has only {len(col)} card(s)"
                    if col
                    else f"{place_name(COLUMN, s)} is empty"
                )
            card = col[-n]
            if n > 1:
                if da != COLUMN:
                    return "only single cards go to a cell or a foundation"
                for i in range(len(col) - n, len(col) - 1):
                    if not fits[col[i + 1] * 52 + col[i]]:
                        return f"the last {n} cards of {place_name(COLUMN, s)} are not a run"
        elif sa == CELL:
            if not 0 <= s < len(self._cells):
                return f"there is no {place_name(CELL, s)}"
            cell = self._cells[s]
            if cell is None:
                return f"{place_name(CELL, s)} is empty"
            if n != 1:
                return "a cell holds a single card"
            card = cell
        elif sa == FOUNDATION:
            if not self.rules.foundation_takeback:
                return "cards on a foundation stay there in these rules"
            if not 0 <= s < 4:
                return "there are four foundations"
            top = self.foundation_top(s)
            if top is None:
                return f"the {SUIT_NAMES[s]} foundation is empty"
            if n != 1:
                return "cards come back from a foundation one at a time"
            card = top
        else:
            return "unknown source"

        if da == COLUMN:
            if not 0 <= d < len(cols):
                return f"there is no column {d + 1}"
            if sa == COLUMN and s == d:
                return "source and destination are the same column"
            dcol = cols[d]
            if dcol:
                target = dcol[-1]
                if not fits[card * 52 + target]:
                    build = "down by suit" if self.rules.build is Build.SUIT else "down in alternating colours"
                    return f"{card} cannot go on {target}: columns build {build}"
            elif self._king_only and rel[card] != TOP_REL:
                return "an empty column takes only a King or a King-led run"
            if n > 1:
                room = self.capacity(to_empty_column=not dcol, whole_column=n == len(cols[s]))
                if n > room:
                    return f"a run of {n} cards is too long: {room} can move now"
        elif da == CELL:
            if not 0 <= d < len(self._cells):
                return f"there is no {place_name(CELL, d)}"
            if sa == CELL:
                return "a card does not move from cell to cell"
            if self._cells[d] is not None:
                return f"{place_name(CELL, d)} is occupied"
        elif da == FOUNDATION:
            if sa == FOUNDATION:
                return "the card is already on its foundation"
            if d != 0:
                return "a foundation destination is written with index 0 (the card's suit picks the foundation)"
            suit = card & 3
            if rel[card] != self._home[suit]:
                need = self._home[suit]
                wanted = CARDS[((self.base - 1 + need) % 13) * 4 + suit] if need < 13 else None
                return f"{card} cannot go home yet: the {SUIT_NAMES[suit]} foundation needs {wanted}"
        else:
            return "unknown destination"
        return None

    def is_legal(self, move: Move) -> Verdict:
        """A Verdict: truthy if ``move`` is legal here, else carrying the reason."""
        reason = self._reason(move)
        return _LEGAL if reason is None else Verdict(reason)

    why_illegal = _reason
    """Why ``move`` is illegal here, or None when it is legal: ``is_legal`` without the Verdict,
    in one call (the server asks it of every move; the Verdict and its ``__bool__`` were two more)."""

    def legal_moves(self) -> list[Move]:
        """Every legal move in this position.

        The order is fixed: column sources first (each: home, onto cards, into empty columns,
        into cells), then cells (home, then columns), then foundation take-backs; destinations
        in increasing index.
        """
        cols = self._cols
        cells = self._cells
        home = self._home
        rel = self._rel
        fits = self._fits
        onto = self._onto
        table = self._moves
        king_only = self._king_only
        tops: dict[int, int] = {}
        empties: list[int] = []
        for i, col in enumerate(cols):
            if col:
                tops[col[-1]] = i
            else:
                empties.append(i)
        free = [i for i, c in enumerate(cells) if c is None]
        cap = self.capacity()
        cap_empty = cap_whole = 0
        if empties:
            cap_empty = self.capacity(to_empty_column=True)
            cap_whole = self.capacity(to_empty_column=True, whole_column=True)
        moves: list[Move] = []
        add = moves.append
        col_home = table.col_home
        col_cell = table.col_cell
        for s, col in enumerate(cols):
            if not col:
                continue
            cc = table.col_col[s]
            top = col[-1]
            if rel[top] == home[top & 3]:
                add(col_home[s])
            depth = len(col)
            run = 1
            i = depth - 1
            while i > 0 and fits[col[i] * 52 + col[i - 1]]:
                run += 1
                i -= 1
            found: list[tuple[int, int]] = []
            for n in range(1, (run if run < cap else cap) + 1):
                for target in onto[col[-n]]:
                    d = tops.get(target)
                    if d is not None:
                        found.append((d, n))
            if found:
                if len(found) > 1:
                    found.sort()
                for d, n in found:
                    add(cc[d][n])
            if empties:
                if king_only:
                    n = TOP_REL + 1 - rel[top]
                    if n <= run and n <= cap_empty:
                        for d in empties:
                            add(cc[d][n])
                else:
                    for n in range(1, (run if run < cap_empty else cap_empty) + 1):
                        for d in empties:
                            add(cc[d][n])
                    if run == depth and cap_empty < run <= cap_whole:
                        for d in empties:
                            add(cc[d][run])
            if free:
                to_cell = col_cell[s]
                for d in free:
                    add(to_cell[d])
        for s, card in enumerate(cells):
            if card is None:
                continue
            if rel[card] == home[card & 3]:
                add(table.cell_home[s])
            dests = [tops[t] for t in onto[card] if t in tops]
            if empties and (not king_only or rel[card] == TOP_REL):
                dests += empties
            if dests:
                dests.sort()
                to_col = table.cell_col[s]
                for d in dests:
                    add(to_col[d])
        if self.rules.foundation_takeback:
            for suit in range(4):
                top_card = self.foundation_top(suit)
                if top_card is None:
                    continue
                dests = [tops[t] for t in onto[top_card] if t in tops]
                if empties and (not king_only or rel[top_card] == TOP_REL):
                    dests += empties
                dests.sort()
                for d in dests:
                    add(table.home_col[suit][d])
                for d in free:
                    add(table.home_cell[suit][d])
        return moves

    # -- playing --------------------------------------------------------------

    def push(self, move: Move) -> None:
        """Play ``move``; IllegalMoveError (nothing changes) when the rules refuse it."""
        reason = self._reason(move)
        if reason is not None:
            raise IllegalMoveError(move, reason)
        self._play(move)

    def push_legal(self, move: Move) -> None:
        """Play ``move`` that ``is_legal`` has just accepted here, without judging it again."""
        self._play(move)

    def push_text(self, text: str) -> Move:
        """Parse and play a move in notation; returns the move."""
        move = Move.parse(text)
        self.push(move)
        return move

    def _play(self, move: Move) -> None:
        sa, s, da, d, n = move
        cols = self._cols
        moved: list[Card] = []
        if sa == COLUMN:
            col = cols[s]
            if n == 1:
                card = col.pop()
            else:
                moved = col[-n:]
                del col[-n:]
                card = moved[0]
        elif sa == CELL:
            card = self._cells[s]  # type: ignore[assignment]
            self._cells[s] = None
        else:
            card = self.foundation_top(s)  # type: ignore[assignment]
            self._home[s] -= 1
            self._progress -= 1
        if da == COLUMN:
            if n == 1:
                cols[d].append(card)
            else:
                cols[d].extend(moved)
        elif da == CELL:
            self._cells[d] = card
        else:
            self._home[card & 3] += 1
            self._progress += 1
        self._stack.append((move, card))

    def pop(self) -> Move:
        """Take back the last move and return it; IndexError when there is none."""
        move, card = self._stack.pop()
        sa, s, da, d, n = move
        cols = self._cols
        moved: list[Card] = []
        if da == COLUMN:
            if n == 1:
                cols[d].pop()
            else:
                moved = cols[d][-n:]
                del cols[d][-n:]
        elif da == CELL:
            self._cells[d] = None
        else:
            self._home[card & 3] -= 1
            self._progress -= 1
        if sa == COLUMN:
            if n == 1:
                cols[s].append(card)
            else:
                cols[s].extend(moved)
        elif sa == CELL:
            self._cells[s] = card
        else:
            self._home[s] += 1
            self._progress += 1
        return move

    def smart_move(self, area: int, index: int) -> Move | None:
        """The app's double-tap destination for the card(s) at (area, index).

        A foundation first, then the longest column that accepts a run from there,
        then an empty column (a King or King-led run; the longest run where any card
        may go), then the first free cell. None when nothing fits.
        """
        candidates = [m for m in self.legal_moves() if m.src_area == area and m.src == index]
        if not candidates:
            return None
        for m in candidates:
            if m.dst_area == FOUNDATION:
                return m
        onto = [m for m in candidates if m.dst_area == COLUMN and self._cols[m.dst]]
        if onto:
            return max(onto, key=lambda m: (len(self._cols[m.dst]), -m.dst))
        into_empty = [m for m in candidates if m.dst_area == COLUMN]
        if into_empty:
            return max(into_empty, key=lambda m: (m.count, -m.dst))
        return candidates[0] if candidates[0].dst_area == CELL else None

    def safe_home_moves(self) -> list[Move]:
        """Foundation moves no later play can regret.

        Building by suit, every foundation move is safe. In alternating colours, Aces,
        2s and any card whose two lower cards of the other colour are home are safe.
        """
        rel = self._rel
        home = self._home
        alternate = self.rules.build is Build.ALTERNATE
        moves: list[Move] = []
        sources: list[tuple[int, int, Card | None]] = [
            (COLUMN, i, col[-1] if col else None) for i, col in enumerate(self._cols)
        ]
        sources += [(CELL, i, c) for i, c in enumerate(self._cells)]
        for area, index, card in sources:
            if card is None or rel[card] != home[card & 3]:
                continue
            if alternate and rel[card] > 1:
                others = (0, 3) if card.is_red else (1, 2)
                if min(home[others[0]], home[others[1]]) < rel[card]:
                    continue
            moves.append(Move(area, index, FOUNDATION, 0, 1))
        return moves

    def auto_move(self) -> Move | None:
        """The next move auto-move plays (the server's, for a racer who asks it to; both
        clients' and the rules port's the same): the first safe foundation move; else, when
        nothing but foundation moves is left to win, the first foundation move; else None.

        Building by suit every foundation move is safe, so the second case is only for
        alternating colours, where a board can need its last cards home in an unsafe order.
        """
        safe = self.safe_home_moves()
        if safe:
            return safe[0]
        if self.rules.build is not Build.ALTERNATE or not self._home_moves():
            return None
        copy = self.copy(stack=False)
        while moves := copy._home_moves():
            copy._play(moves[0])
        return self._home_moves()[0] if copy.is_won() else None

    def _home_moves(self) -> list[Move]:
        """Every foundation move from a column or a cell, safe or not."""
        rel, home = self._rel, self._home
        moves: list[Move] = []
        for i, col in enumerate(self._cols):
            if col and rel[col[-1]] == home[col[-1] & 3]:
                moves.append(Move(COLUMN, i, FOUNDATION, 0, 1))
        for i, card in enumerate(self._cells):
            if card is not None and rel[card] == home[card & 3]:
                moves.append(Move(CELL, i, FOUNDATION, 0, 1))
        return moves

    def autoplay(self) -> list[Move]:
        """Push ``auto_move`` until it gives none; return the moves in order."""
        played: list[Move] = []
        while (move := self.auto_move()) is not None:
            self._play(move)
            played.append(move)
        return played
