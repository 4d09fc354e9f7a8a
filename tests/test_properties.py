"""Hypothesis properties over random play on every preset.

- the 52 cards stay distinct and all present (Board.validate) after every move;
- pop restores the exact position (and the move stack);
- every move legal_moves() lists applies, and legal_moves() is exactly the set of all
  syntactically possible moves (every source, destination and count) that is_legal accepts;
- random illegal moves are refused with a reason and change nothing.

Derandomized (the same examples every run) and without an example database.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from seahaven import CELL, COLUMN, FOUNDATION, PRESETS, Board, GameRecord, IllegalMoveError, Move, encode
from seahaven.deals import MAX_DEAL
from seahaven.text import parse_board, to_board_text

NAMES = list(PRESETS)

PROPERTY = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

deal_numbers = st.one_of(st.integers(1, 32000), st.integers(1, MAX_DEAL))
games = st.integers(0, 2**64 - 1)
"""A random game: the seed of its choices (including how many moves to play, up to 250)."""


def choose(board: Board, rng: random.Random) -> Move | None:
    """A random legal move, biased towards foundation moves and away from the cells (so games
    get deep and columns empty out); None when there is none."""
    moves = board.legal_moves()
    if not moves:
        return None
    home = [m for m in moves if m.dst_area == FOUNDATION]
    if home and rng.random() < 0.8:
        return rng.choice(home)
    open_moves = [m for m in moves if m.dst_area != CELL]
    if open_moves and rng.random() < 0.95:
        return rng.choice(open_moves)
    return rng.choice(moves)


def play(board: Board, game: int) -> None:
    rng = random.Random(game)
    for _ in range(rng.randint(0, 250)):
        move = choose(board, rng)
        if move is None:
            return
        board.push(move)


@st.composite
def positions(draw: st.DrawFn) -> Board:
    board = Board.deal(draw(st.sampled_from(NAMES)), draw(deal_numbers))
    play(board, draw(games))
    return board


def every_syntactic_move(board: Board) -> list[Move]:
    """Every combination of source, destination and count (1 to 14) the notation can name."""
    rules = board.rules
    places = (
        [(COLUMN, i) for i in range(rules.columns)]
        + [(CELL, i) for i in range(rules.cells)]
        + [(FOUNDATION, i) for i in range(4)]
    )
    return [Move(sa, s, da, d, n) for sa, s in places for da, d in places for n in range(1, 15)]


@PROPERTY
@given(st.sampled_from(NAMES), deal_numbers, games)
def test_random_play_keeps_every_invariant(name: str, number: int, game: int) -> None:
    board = Board.deal(name, number)
    rng = random.Random(game)
    start = board.position()
    history = [start]
    for _ in range(rng.randint(0, 250)):
        board.validate()
        moves = board.legal_moves()
        assert len(set(moves)) == len(moves), "legal_moves() lists a move twice"
        assert board.has_legal_move() == bool(moves)
        if not moves:
            assert board.is_won() or board.is_stuck()
            break
        here = board.position()
        stack = board.move_stack
        for move in moves:  # every listed move applies, and pop undoes it exactly
            board.push(move)
            board.validate()
            assert board.pop() == move
            assert board.position() == here and board.move_stack == stack
        chosen = choose(board, rng)
        assert chosen is not None
        board.push(chosen)
        history.append(board.position())
    # popping everything walks back through every position to the deal
    while board.move_stack:
        history.pop()
        board.pop()
        assert board.position() == history[-1]
    assert board.position() == start


@PROPERTY
@given(positions())
def test_legal_moves_are_exactly_the_moves_is_legal_accepts(board: Board) -> None:
    accepted = {move for move in every_syntactic_move(board) if board.is_legal(move)}
    listed = board.legal_moves()
    assert set(listed) == accepted
    assert len(listed) == len(accepted)
    assert board.has_legal_move() == bool(accepted)


@PROPERTY
@given(
    positions(),
    st.lists(
        st.tuples(
            st.integers(-1, 3),
            st.integers(-2, 12),
            st.integers(-1, 3),
            st.integers(-2, 12),
            st.integers(-1, 16),
        ),
        min_size=1,
        max_size=40,
    ),
)
def test_random_moves_are_refused_with_a_reason_and_change_nothing(
    board: Board, raw: list[tuple[int, int, int, int, int]]
) -> None:
    for fields in raw:
        move = Move(*fields)
        before = (board.position(), board.move_stack)
        verdict = board.is_legal(move)
        if verdict:
            assert verdict.reason is None
            board.push(move)
            board.validate()
            board.pop()
        else:
            assert isinstance(verdict.reason, str) and verdict.reason
            try:
                board.push(move)
            except IllegalMoveError as exc:
                assert exc.reason == verdict.reason
                assert exc.move == move
            else:
                raise AssertionError(f"{move} was pushed although is_legal said {verdict.reason!r}")
        assert (board.position(), board.move_stack) == before


@PROPERTY
@given(st.sampled_from(NAMES), deal_numbers, games)
def test_records_and_board_text_reproduce_random_games(name: str, number: int, game: int) -> None:
    board = Board.deal(name, number)
    play(board, game)
    record = GameRecord.of(board, encode(name, number))
    assert GameRecord.from_json(record.to_json()).replay() == board
    assert parse_board(to_board_text(board), name) == board
    for move in board.move_stack:
        assert Move.parse(str(move)) == move
