"""The group-move capacity rule, proved against a brute-force search over single-card moves.

The oracle below knows nothing of the engine's formulas: it takes the run at the end of a
column and searches every sequence of single-card moves that moves only the run's cards,
using the free cells and the empty columns that may hold a card (by the preset's
empty-column rule) as temporary room, and the destination. A group move is possible card
by card exactly when that search puts the whole run, in order, on the destination.

Like the FreeCell supermove formula, the oracle never parks a card on the card under the
run or on any other column: in alternating colours that card can sometimes take part of the
run once the head has left, which card-by-card play may exploit but no capacity rule counts.

For Capacity.SEQUENTIAL presets the engine must agree with the oracle exactly. The app's
formula (Capacity.APP) is the FreeCell formula whatever the empty columns accept, so with
King-only columns it allows more than card-by-card play can do: shown below.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from seahaven import CARDS, COLUMN, FOUNDATION, PRESETS, Board, Build, Capacity, Card, EmptyColumn, Move, Rules

SEQUENTIAL = [name for name, r in PRESETS.items() if r.capacity is Capacity.SEQUENTIAL]
APP = [name for name, r in PRESETS.items() if r.capacity is Capacity.APP]


# -- the oracle ------------------------------------------------------------------


def rel(card: Card, base: int) -> int:
    """Relative rank: 0 for the foundation base rank, 12 for the top (a King when base is Ace)."""
    return (card.rank - base) % 13


def fits(card: Card, onto: Card, rules: Rules, base: int) -> bool:
    """May ``card`` be built on ``onto`` in a column (one rank lower, by suit or alternating colour)?"""
    if rel(onto, base) != rel(card, base) + 1:
        return False
    if rules.build is Build.SUIT:
        return card.suit == onto.suit
    return card.is_red != onto.is_red


def empty_takes(card: Card, rules: Rules, base: int) -> bool:
    return rules.empty_column is EmptyColumn.ANY or rel(card, base) == 12


@dataclass(frozen=True)
class Problem:
    rules: Rules
    base: int
    run: tuple[Card, ...]  # head (deepest) first
    below: Card | None  # the card under the run in the source column, None if the run is the whole column
    target: Card | None  # the destination's exposed card, None for an empty column
    free_cells: int
    temp_columns: int  # empty columns other than the destination


def movable(p: Problem) -> bool:
    """Can the run reach the destination, in order, one card at a time? (depth-first, memoised)"""
    n = len(p.run)
    run = p.run
    goal = tuple(range(n))

    def accepts(stack: tuple[int, ...], base_card: Card | None, card: int) -> bool:
        if stack:
            return fits(run[card], run[stack[-1]], p.rules, p.base)
        if base_card is None:
            return empty_takes(run[card], p.rules, p.base)
        return fits(run[card], base_card, p.rules, p.base)

    # state: source stack, destination stack, temp stacks (sorted: they are interchangeable), cells
    State = tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...], frozenset[int]]
    start: State = (goal, (), ((),) * p.temp_columns, frozenset())
    seen: set[State] = set()
    todo = [start]
    while todo:
        state = todo.pop()
        if state in seen:
            continue
        seen.add(state)
        src, dst, temps, cells = state
        if dst == goal:
            return True
        # every place a card can be taken from, with the state left behind
        sources: list[tuple[int, str, int, State]] = []
        if src:
            sources.append((src[-1], "src", -1, (src[:-1], dst, temps, cells)))
        if dst:
            sources.append((dst[-1], "dst", -1, (src, dst[:-1], temps, cells)))
        for i, t in enumerate(temps):
            if t:
                rest = (*temps[:i], t[:-1], *temps[i + 1 :])
                sources.append((t[-1], "temp", i, (src, dst, rest, cells)))
        for c in cells:
            sources.append((c, "cell", -1, (src, dst, temps, cells - {c})))
        nexts: list[State] = []
        for card, where, index, (s2, d2, t2, c2) in sources:
            if accepts(d2, p.target, card) and where != "dst":
                nexts.append((s2, (*d2, card), t2, c2))
            # back onto the source: onto the run's own cards, or into the column once it is empty;
            # never onto the card under the run, which is no part of the temporary room
            if where != "src" and (s2 or p.below is None) and accepts(s2, None, card):
                nexts.append(((*s2, card), d2, t2, c2))
            for i, t in enumerate(t2):
                if (where != "temp" or i != index) and accepts(t, None, card):
                    nexts.append((s2, d2, tuple(sorted((*t2[:i], (*t, card), *t2[i + 1 :]))), c2))
            if where != "cell" and len(c2) < p.free_cells:
                nexts.append((s2, d2, t2, c2 | {card}))
        # depth-first: the moves onto the destination are tried first (pushed last)
        todo.extend(reversed(nexts))
    return False


# -- positions built around one group move ----------------------------------------


def build_problem(
    rules: Rules,
    rng: random.Random,
    *,
    length: int,
    free_cells: int,
    temp_columns: int,
    into_empty: bool,
    with_below: bool,
) -> tuple[Board, Move, Problem] | None:
    """A legal-looking position where the last ``length`` cards of column 1 form a run whose
    head fits the destination (column 2, or an empty column): only capacity can refuse it.
    None when the rules cannot hold such a position."""
    if 2 + temp_columns + 1 > rules.columns or free_cells > rules.cells:
        return None
    base = rng.randint(1, 13) if rules.beak else 1
    top = 12 if into_empty else 11  # a run onto a card needs a card one rank above its head
    if length - 1 > top:
        return None
    king_led = into_empty and rules.empty_column is EmptyColumn.KING
    head_rel = 12 if king_led else rng.randint(length - 1, top)

    def card_of(r: int, suit: int) -> Card:
        return Card.of((r + base - 1) % 13 + 1, suit)

    suit = rng.randrange(4)
    run = [card_of(head_rel, suit)]
    for r in range(head_rel - 1, head_rel - length, -1):
        if rules.build is Build.SUIT:
            run.append(card_of(r, suit))
        else:
            previous_red = run[-1].is_red
            run.append(card_of(r, rng.choice([s for s in range(4) if (s in (1, 2)) != previous_red])))
    used = set(run)
    target: Card | None = None
    if not into_empty:
        options = [c for c in CARDS if c not in used and fits(run[0], c, rules, base)]
        target = rng.choice(options)
        used.add(target)
    rest = [c for c in CARDS if c not in used]
    rng.shuffle(rest)
    below: Card | None = None
    if with_below:
        below = rest.pop()
    columns: list[list[Card]] = [[] for _ in range(rules.columns)]
    columns[0] = ([below] if below is not None else []) + run
    dst = 1
    if target is not None:
        columns[1] = [rest.pop(), target]
    else:
        dst = 1  # column 2 stays empty: the destination
    cells: list[Card | None] = [None] * rules.cells
    for i in range(rules.cells - free_cells):
        cells[i] = rest.pop()
    junk = list(range(2 + temp_columns, rules.columns))
    if not junk:
        return None
    for i, card in enumerate(rest):
        columns[junk[i % len(junk)]].append(card)
    if target is None and any(not columns[j] for j in junk):
        return None  # fewer cards than columns: an unplanned empty column
    if any(not columns[j] for j in junk):
        return None
    board = Board(rules, columns, cells, (0, 0, 0, 0), base)
    board.validate()
    problem = Problem(rules, base, tuple(run), below, target, free_cells, temp_columns)
    return board, Move(COLUMN, 0, COLUMN, dst, length), problem


def grid(rules: Rules) -> list[tuple[int, int, int, bool, bool]]:
    """(length, free cells, other empty columns, into an empty column, run is the whole column).

    Lengths come in increasing order for each combination. Where empty columns take any
    card, room grows as (cells + 1) x 2^columns: combinations beyond 12 move every run and
    their exhaustive search is slow, so they are left out.
    """
    out: list[tuple[int, int, int, bool, bool]] = []
    for free in range(rules.cells + 1):
        for temps in range(0, min(4, rules.columns - 3) + 1):
            if rules.empty_column is EmptyColumn.ANY and not roomy_enough_to_search(free, temps):
                continue
            for into_empty in (False, True):
                for whole in (False, True):
                    for length in range(2, 14):
                        out.append((length, free, temps, into_empty, whole))
    return out


def roomy_enough_to_search(free: int, temps: int) -> bool:
    """False where any-card columns give so much room that the exhaustive search is slow."""
    return (free + 1) << temps <= 12


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_sequential_capacity_equals_brute_force(name: str) -> None:
    """Every run length, free-cell and empty-column count, to a card and into an empty column."""
    rules = PRESETS[name]
    rng = random.Random(f"capacity-{name}")
    checked = legal = 0
    failures: dict[tuple[int, int, bool, bool], int] = {}
    for length, free, temps, into_empty, whole in grid(rules):
        key = (free, temps, into_empty, whole)
        if failures.get(key, 0) >= 2:
            continue  # two lengths in a row refused by the oracle: longer runs are hopeless, and slow to search
        built = build_problem(
            rules, rng, length=length, free_cells=free, temp_columns=temps, into_empty=into_empty, with_below=not whole
        )
        if built is None:
            continue
        board, move, problem = built
        expected = movable(problem)
        verdict = board.is_legal(move)
        assert bool(verdict) == expected, (
            f"{name}: run of {length}{' (the whole column)' if whole else ''}, {free} free cells, "
            f"{temps} other empty columns, "
            f"{'into an empty column' if into_empty else 'onto a card'}: engine says {verdict!r}, "
            f"card by card {'works' if expected else 'does not'}\n{board!r}"
        )
        if not expected:
            assert verdict.reason is not None and "too long" in verdict.reason
            failures[key] = failures.get(key, 0) + 1
        else:
            failures[key] = 0
        room = board.capacity(to_empty_column=into_empty, whole_column=whole)
        assert (length <= room) == expected
        checked += 1
        legal += expected
    # the grid must exercise both answers, or it proves nothing
    assert checked > 50 and 0 < legal < checked


def random_positions(name: str, seed: str, count: int) -> list[Board]:
    """Positions met in random play, half of them (when play finds them) with an empty column.

    The play favours foundation moves and moves that empty a column, so columns do empty out.
    """
    rng = random.Random(seed)
    with_empty: list[Board] = []
    without: list[Board] = []
    for _ in range(400):
        if len(with_empty) >= count // 2 and len(without) >= count - count // 2:
            break
        board = Board.deal(name, rng.randint(1, 2**40 - 1) if rng.random() < 0.5 else rng.randint(1, 32000))
        for _ in range(rng.randint(20, 200)):
            moves = board.legal_moves()
            if not moves:
                break
            cols = board.columns
            good = [
                m
                for m in moves
                if m.dst_area == FOUNDATION
                or (m.src_area == COLUMN and m.dst_area == COLUMN and len(cols[m.src]) == m.count and cols[m.dst])
            ]
            board.push(rng.choice(good) if good and rng.random() < 0.9 else rng.choice(moves))
        if any(not col for col in board.columns):
            with_empty.append(board)
        else:
            without.append(board)
    return with_empty[: count // 2] + without[: count - len(with_empty[: count // 2])]


@pytest.mark.parametrize("name", SEQUENTIAL)
def test_group_moves_in_play_agree_with_brute_force(name: str) -> None:
    """On positions from random play: every run whose head fits somewhere, any length >= 2."""
    rules = PRESETS[name]
    checked = 0
    for board in random_positions(name, seed=f"play-{name}", count=30):
        cols = board.columns
        free = board.cells.count(None)
        empties = [i for i, c in enumerate(cols) if not c]
        for s, col in enumerate(cols):
            for n in range(2, len(col) + 1):
                run = col[-n:]
                if not all(fits(run[i + 1], run[i], rules, board.base) for i in range(n - 1)):
                    break
                for d, dcol in enumerate(cols):
                    if d == s:
                        continue
                    if dcol and not fits(run[0], dcol[-1], rules, board.base):
                        continue
                    if not dcol and not empty_takes(run[0], rules, board.base):
                        continue
                    temps = len(empties) - (0 if dcol else 1)
                    if rules.empty_column is EmptyColumn.ANY and not roomy_enough_to_search(free, temps):
                        continue
                    problem = Problem(
                        rules,
                        board.base,
                        tuple(run),
                        col[-n - 1] if len(col) > n else None,
                        dcol[-1] if dcol else None,
                        free,
                        temps,
                    )
                    move = Move(COLUMN, s, COLUMN, d, n)
                    assert bool(board.is_legal(move)) == movable(problem), f"{name} {move}\n{board!r}"
                    assert (move in board.legal_moves()) == movable(problem)
                    checked += 1
    assert checked > 0


def test_app_formula_allows_more_than_card_by_card_play_with_king_only_columns() -> None:
    """The app (seahaven-easy): 1 free cell and 2 empty columns allow a run of (1+1) x 2^2 = 8,
    and 4 into an empty column; card by card, King-only columns hold none of the pieces: 2."""
    rules = PRESETS["seahaven-easy"]
    rng = random.Random(3)
    built = build_problem(rules, rng, length=8, free_cells=1, temp_columns=2, into_empty=False, with_below=True)
    assert built is not None
    board, move, problem = built
    assert board.capacity() == 8
    assert board.is_legal(move)
    assert not movable(problem)
    two = build_problem(rules, rng, length=2, free_cells=1, temp_columns=2, into_empty=False, with_below=True)
    three = build_problem(rules, rng, length=3, free_cells=1, temp_columns=2, into_empty=False, with_below=True)
    assert two is not None and three is not None
    assert movable(two[2]) and not movable(three[2])
    # into an empty column: the destination is not counted, (1+1) x 2^1 = 4
    kings = build_problem(rules, rng, length=4, free_cells=1, temp_columns=1, into_empty=True, with_below=False)
    assert kings is not None
    board, move, problem = kings
    assert board.capacity(to_empty_column=True) == 4
    assert board.is_legal(move)
    assert not movable(problem)
    five = build_problem(rules, rng, length=5, free_cells=1, temp_columns=1, into_empty=True, with_below=False)
    assert five is not None
    assert not five[0].is_legal(five[1])
    assert "too long" in str(five[0].is_legal(five[1]).reason)
    # the same position under the standard rules: the sequential rule agrees with card-by-card play
    standard = Board(PRESETS["seahaven"], board.columns, board.cells[:4], board.home, board.base)
    assert standard.capacity(to_empty_column=True) == 2


@pytest.mark.parametrize("name", APP)
def test_app_formula_without_empty_columns_matches_brute_force(name: str) -> None:
    """With no empty column the app formula is free cells + 1, which card-by-card play confirms."""
    rules = PRESETS[name]
    rng = random.Random(name)
    for free in range(rules.cells + 1):
        for length in range(2, 8):
            built = build_problem(
                rules, rng, length=length, free_cells=free, temp_columns=0, into_empty=False, with_below=True
            )
            assert built is not None
            board, move, problem = built
            assert bool(board.is_legal(move)) == movable(problem) == (length <= free + 1)


def test_unlimited_moves_any_run() -> None:
    rules = PRESETS["seahaven-unlimited"]
    built = build_problem(
        rules, random.Random(9), length=12, free_cells=0, temp_columns=0, into_empty=False, with_below=True
    )
    assert built is not None
    board, move, problem = built
    assert board.capacity() == 52
    assert board.is_legal(move)
    assert not movable(problem)  # beyond what card-by-card play allows, by design


def test_oracle_knows_the_freecell_table() -> None:
    """Sanity of the oracle itself: the classic table (cells + 1) x 2^empty columns for any-card columns."""
    rules = PRESETS["freecell"]
    rng = random.Random(11)
    for free, temps, longest in [(0, 0, 1), (1, 0, 2), (4, 0, 5), (0, 1, 2), (1, 1, 4), (2, 2, 12), (0, 2, 4)]:
        for length, expected in ((longest, True), (longest + 1, False)):
            if length > 12:  # onto a card: the run's head is at most a Queen
                continue
            built = build_problem(
                rules, rng, length=length, free_cells=free, temp_columns=temps, into_empty=False, with_below=True
            )
            assert built is not None
            assert movable(built[2]) is expected, (free, temps, length)
