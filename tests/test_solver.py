"""The solver: its solutions replay to a win, it leaves the board alone, its verdicts are honest."""

from __future__ import annotations

import dataclasses
import random

import pytest

from seahaven import CELL, COLUMN, FOUNDATION, PRESETS, Board, Build, Move, parse_board
from seahaven.solver import Solution, _Search, hint, solve
from tests.wins import assert_wins, replay


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5, 7, 50, 1000, 31999, 32000, 10**9])
def test_seahaven_deals_solve_and_replay(number: int) -> None:
    board = Board.deal("seahaven", number)
    assert_wins(board, solve(board))


@pytest.mark.parametrize(
    ("preset", "number"),
    [
        ("freecell", 1),
        ("freecell", 617),
        ("bakers-game", 2),
        ("eight-off", 1),
        ("seahaven-relaxed", 1),
        ("seahaven-unlimited", 1),
        ("seahaven-3cells", 3),
        ("seahaven-easy", 1),
        ("seahaven-medium", 3),
        ("penguin", 1),
    ],
)
def test_other_presets_solve_and_replay(preset: str, number: int) -> None:
    board = Board.deal(preset, number)
    assert_wins(board, solve(board))


def test_every_preset_is_searched_without_error() -> None:
    for name in PRESETS:
        board = Board.deal(name, 5)
        solution = solve(board, max_states=3000)
        assert solution.status in ("solved", "unsolvable", "gave-up")
        if solution.status == "solved":
            assert replay(board, solution.moves).is_won()


def test_input_board_is_unchanged() -> None:
    board = Board.deal("seahaven", 1)
    board.push(board.legal_moves()[0])
    before = board.position()
    stack = board.move_stack
    solve(board)
    hint(board)
    assert board.position() == before
    assert board.move_stack == stack


def test_solution_from_a_midgame_position() -> None:
    board = Board.deal("seahaven", 2)
    for move in solve(board).moves[:20]:
        board.push(move)
    assert_wins(board, solve(board))


# Two columns, one cell, King-only empty columns; only the clubs are out. Two cards cover AC
# but the one cell holds one of them, and 3C could go only on 4C, which is under eight others.
_TINY_RULES = dataclasses.replace(PRESETS["seahaven"], name="tiny", columns=2, cells=1)
_DEADLOCK = """
Foundations: H-K C-0 D-K S-K
Freecells: -
: AC 2C 3C
: KC 4C 5C 6C 7C 8C 9C TC JC QC
"""


def test_unwinnable_position_is_unsolvable() -> None:
    board = parse_board(_DEADLOCK, _TINY_RULES)
    solution = solve(board)
    assert solution.status == "unsolvable"
    assert solution.moves == ()
    assert 1 < solution.states < 100
    assert hint(board) is None


def test_stuck_seahaven_position_is_unsolvable() -> None:
    # Full-size Seahaven rules: five clubs cover AC, and 6C could go only on 7C, under five
    # more; four cells cannot hold either five, and empty columns take only Kings.
    board = parse_board(
        """
        Foundations: H-K C-0 D-K S-K
        Freecells: - - - -
        : AC 2C 3C 4C 5C 6C
        : KC 7C 8C 9C TC JC QC
        """,
        "seahaven",
    )
    solution = solve(board)
    assert solution.status == "unsolvable"
    assert solution.states > 10


@pytest.mark.parametrize("number", [21, 100])
def test_unwinnable_seahaven_deals_are_unsolvable(number: int) -> None:
    # Whole deals whose reachable positions are all examined (a few hundred after pruning).
    solution = solve(Board.deal("seahaven", number))
    assert solution.status == "unsolvable"
    assert solution.moves == ()
    assert solve(Board.deal("seahaven", number), max_states=solution.states).status == "unsolvable"
    assert solve(Board.deal("seahaven", number), max_states=solution.states - 1).status == "gave-up"


def test_won_position_needs_no_moves() -> None:
    board = Board.deal("seahaven", 1)
    for move in solve(board).moves:
        board.push(move)
    assert solve(board) == Solution("solved", (), 1)
    assert hint(board) is None


def test_tiny_limit_gives_up() -> None:
    board = Board.deal("seahaven", 1)
    solution = solve(board, max_states=10)
    assert solution.status == "gave-up"
    assert solution.moves == ()
    assert solution.states == 10
    with pytest.raises(ValueError):
        solve(board, max_states=0)


def test_hint_is_the_first_move_of_a_solution() -> None:
    board = Board.deal("seahaven", 3)
    move = hint(board)
    assert move is not None
    assert board.is_legal(move)
    assert move == solve(board).moves[0]


def _on_its_parent(board: Board, column: int) -> bool:
    """Whether the exposed card of ``column`` lies on the card one rank higher of its suit."""
    col = board.columns[column]
    if len(col) < 2:
        return False
    card, under = col[-1], col[-2]
    return card.suit == under.suit and (under.rank - board.base) % 13 == (card.rank - board.base) % 13 + 1


def _pruned(board: Board, move: Move) -> bool:
    """Legal moves the solver may leave out without losing any win."""
    sa, s, da, d, n = move
    cells = board.cells
    cols = board.columns
    by_suit = board.rules.build is Build.SUIT
    if sa == FOUNDATION and by_suit:
        return True  # nothing can go on a card that comes back
    if da == CELL:
        if d != cells.index(None):
            return True  # any free cell is as good as the first
        # Building by suit, a card taken off its only possible parent would be put back at once.
        return by_suit and sa == COLUMN and _on_its_parent(board, s)
    if da == COLUMN and not cols[d]:
        first_empty = next(i for i, col in enumerate(cols) if not col)
        if d != first_empty:
            return True  # any empty column is as good as the first
        return sa == COLUMN and n == len(cols[s])  # a whole column into an empty one
    return False


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_search_moves_are_the_legal_moves_less_the_pointless(preset: str) -> None:
    """The solver's move generator against the engine's, along random games."""
    rng = random.Random(preset)
    for number in (1, 2, 3):
        board = Board.deal(preset, number)
        search = _Search(board, 1)
        played: list[tuple[int, int, int, int, int]] = []
        search.autoplay(list(search.cols), list(search.cells), list(search.home), played)
        for m in played:
            board.push(Move(*m))
        for _ in range(60):
            search = _Search(board, 1)
            raw = search.moves(search.cols, search.cells, search.home)
            # A run sent to the cells whole starts with its exposed card.
            firsts = {Move(sa, s, da, d, 1 if da == CELL else n) for sa, s, da, d, n in raw}
            legal = set(board.legal_moves())
            assert firsts <= legal
            assert all(_pruned(board, m) for m in legal - firsts), legal - firsts
            if not raw:
                break
            # The solver's position after a move and what autoplay adds is the engine's.
            cols, cells, home, played = search.apply(search.cols, search.cells, search.home, rng.choice(sorted(raw)))
            for m in played:
                board.push(Move(*m))
            after = _Search(board, 1)
            assert (tuple(cols), tuple(cells), tuple(home)) == (after.cols, after.cells, after.home)
