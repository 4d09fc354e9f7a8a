"""Move notation (docs/notation.md): round trip on every legal move, and precise parse errors."""

from __future__ import annotations

import random

import pytest

from seahaven import CELL, COLUMN, FOUNDATION, PRESETS, Board, Move
from seahaven.moves import place_name


def positions(name: str, seed: int, count: int) -> list[Board]:
    """Positions met in random play from assorted deals, each with at least one legal move."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        board = Board.deal(name, rng.randint(1, 2**40 - 1))
        seen = [board.copy()]
        for _ in range(rng.randint(0, 80)):
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
            if board.legal_moves():
                seen.append(board.copy())
        out.append(rng.choice(seen))
    return out


KINDS: set[tuple[int, int, bool]] = set()


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_legal_move_round_trips(name: str) -> None:
    seen = 0
    for board in positions(name, seed=len(name), count=60):
        for move in board.legal_moves():
            text = str(move)
            assert Move.parse(text) == move, text
            assert str(Move.parse(text)) == text
            KINDS.add((move.src_area, move.dst_area, move.count > 1))
            seen += 1
    assert seen > 30


def test_round_trips_met_every_kind_of_move() -> None:
    """The round trip above saw group moves, foundation moves and take-backs, not just the easy ones."""
    if len(KINDS) < 2:
        for name in PRESETS:
            test_every_legal_move_round_trips(name)
    assert {
        (COLUMN, COLUMN, True),
        (COLUMN, COLUMN, False),
        (COLUMN, CELL, False),
        (COLUMN, FOUNDATION, False),
        (CELL, COLUMN, False),
        (CELL, FOUNDATION, False),
        (FOUNDATION, COLUMN, False),
        (FOUNDATION, CELL, False),
    } <= KINDS


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("3a", Move(COLUMN, 2, CELL, 0)),
        ("a7", Move(CELL, 0, COLUMN, 6)),
        ("3#", Move(COLUMN, 2, FOUNDATION, 0)),
        ("h#", Move(CELL, 7, FOUNDATION, 0)),
        ("#H5", Move(FOUNDATION, 2, COLUMN, 4)),
        ("#Cb", Move(FOUNDATION, 0, CELL, 1)),
        ("#S0", Move(FOUNDATION, 3, COLUMN, 9)),
        ("37:3", Move(COLUMN, 2, COLUMN, 6, 3)),
        ("01", Move(COLUMN, 9, COLUMN, 0)),
        ("90:13", Move(COLUMN, 8, COLUMN, 9, 13)),
        ("12", Move(COLUMN, 0, COLUMN, 1)),
    ],
)
def test_canonical_texts(text: str, move: Move) -> None:
    assert Move.parse(text) == move
    assert str(move) == text


@pytest.mark.parametrize(
    ("text", "move"),
    [
        (" 3a ", Move(COLUMN, 2, CELL, 0)),
        ("#h5", Move(FOUNDATION, 2, COLUMN, 4)),
        ("12:1", Move(COLUMN, 0, COLUMN, 1)),
        ("12:01", Move(COLUMN, 0, COLUMN, 1)),
    ],
)
def test_accepted_variants(text: str, move: Move) -> None:
    assert Move.parse(text) == move


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the source is missing"),
        ("3", "the destination is missing"),
        ("x3", "'x' is not a source; use 1-9 and 0 for columns, a-h for cells, # for foundations"),
        ("3x", "'x' is not a destination"),
        ("3A", "'A' is not a destination"),
        ("i3", "'i' is not a source"),
        ("#X3", "a foundation source names its suit, like #H"),
        ("#", "a foundation source names its suit"),
        ("34a", "unexpected 'a' after the destination"),
        ("3##", "unexpected '#' after the destination"),
        ("37:", "the card count after ':' must be a number from 1 to 52"),
        ("37:0", "the card count after ':' must be a number from 1 to 52"),
        ("37:53", "must be a number from 1 to 52"),
        ("37:x", "must be a number from 1 to 52"),
        ("37:-2", "must be a number from 1 to 52"),
        ("3a:2", "only column-to-column moves carry more than one card"),
        ("#H5:2", "only column-to-column moves carry more than one card"),
    ],
)
def test_parse_errors_say_which_part_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        Move.parse(text)
    assert message in str(info.value)
    assert repr(text) in str(info.value)


def test_move_is_a_value() -> None:
    move = Move.parse("37:3")
    assert move == Move(COLUMN, 2, COLUMN, 6, 3)
    assert hash(move) == hash(Move(COLUMN, 2, COLUMN, 6, 3))
    assert move.count == 3
    assert Move(COLUMN, 0, CELL, 0).count == 1
    sa, s, da, d, n = move
    assert (sa, s, da, d, n) == (COLUMN, 2, COLUMN, 6, 3)


def test_place_names() -> None:
    assert place_name(COLUMN, 0) == "column 1"
    assert place_name(COLUMN, 9) == "column 10"
    assert place_name(CELL, 2) == "cell c"
    assert place_name(CELL, 12) == "cell 12"
    assert place_name(FOUNDATION, 0) == "the foundation"


def test_push_text() -> None:
    board = Board.deal("freecell", 1)
    assert board.push_text("6a") == Move(COLUMN, 5, CELL, 0)
    assert str(board.cells[0]) == "3D"
    with pytest.raises(ValueError, match="is not a source"):
        board.push_text("zz")


@pytest.mark.parametrize(
    ("move", "text"),
    [
        (Move(-1, 4, COLUMN, 0), "Move(-1, 4, 0, 0, 1)"),
        (Move(COLUMN, 10, CELL, 0), "Move(0, 10, 1, 0, 1)"),
        (Move(COLUMN, 0, CELL, 8), "Move(0, 0, 1, 8, 1)"),
        (Move(FOUNDATION, 4, COLUMN, 0), "Move(2, 4, 0, 0, 1)"),
        (Move(COLUMN, 0, FOUNDATION, 2), "Move(0, 0, 2, 2, 1)"),
        (Move(COLUMN, 0, COLUMN, 1, 0), "Move(0, 0, 0, 1, 0)"),
    ],
)
def test_moves_the_notation_cannot_name_print_their_fields(move: Move, text: str) -> None:
    """So that refusing a malformed move (IllegalMoveError's message) never crashes."""
    assert str(move) == text
    board = Board.deal("seahaven", 1)
    with pytest.raises(ValueError, match=r"illegal move Move\("):
        board.push(move)
