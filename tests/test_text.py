"""Positions as text: the solver board format round trip, corrupt input, and the human view."""

from __future__ import annotations

import random

import pytest

from seahaven import PRESETS, Board, parse_board, render, to_board_text


def mid_game(name: str, seed: int, moves: int) -> Board:
    rng = random.Random(seed)
    board = Board.deal(name, rng.randint(1, 2**40 - 1))
    for _ in range(moves):
        legal = board.legal_moves()
        if not legal:
            break
        home = [m for m in legal if m.dst_area == 2]
        board.push(rng.choice(home or legal))
    return board


@pytest.mark.parametrize("name", list(PRESETS))
def test_round_trip_dealt_and_mid_game(name: str) -> None:
    boards = [Board.deal(name, n) for n in (1, 617, 40000)]
    boards += [mid_game(name, seed, moves) for seed in range(12) for moves in (5, 30, 200)]
    for board in boards:
        text = to_board_text(board)
        again = parse_board(text, name)
        assert again == board, text
        assert again.base == board.base
        assert to_board_text(again) == text
        assert parse_board(text, PRESETS[name]) == board


def test_freecell_1_text() -> None:
    text = to_board_text(Board.deal("freecell", 1))
    assert text.splitlines()[:3] == [
        "Foundations: H-0 C-0 D-0 S-0",
        "Freecells: - - - -",
        ": JD KD 2S 4C 3S 6D 6S",
    ]
    assert len(text.splitlines()) == 2 + 8


def test_seahaven_text_with_progress() -> None:
    board = Board.deal("seahaven", 1)
    for move in ("3c", "08", "3d", "3#", "3#"):
        board.push_text(move)
    text = to_board_text(board)
    assert text.startswith(
        "Foundations: H-A C-0 D-A S-0\nFreecells: 2H 6H 8D 3S\n: JD 9S JS 4D 6D\n: 2D 5S AS 7S 8S\n: 9H\n"
    )


def test_empty_columns_are_written_and_read() -> None:
    board = Board.deal("freecell", 1)
    for move in ("6a", "6b", "6#", "b#", "6#", "6b", "6c"):
        board.push_text(move)
    assert board.columns[5] == ()
    text = to_board_text(board)
    assert text.splitlines()[2 + 5] == ":"
    assert parse_board(text, "freecell") == board


def test_penguin_base_is_recovered() -> None:
    board = Board.deal("penguin", 1)  # base Jack: JC JH JS home
    text = to_board_text(board)
    assert text.startswith("Foundations: H-J C-J D-0 S-J\n")
    assert parse_board(text, "penguin").base == 11
    wrapped = mid_game("penguin", 3, 300)
    assert parse_board(to_board_text(wrapped), "penguin") == wrapped


def test_accepted_spellings() -> None:
    """Tens as 10 or T, lower case, 'Founds:' and 'FC:' keys, column lines with or without ':'."""
    board = Board.deal("freecell", 1)
    text = to_board_text(board).replace("TD", "10d").replace("Foundations:", "Founds:").replace("Freecells:", "FC:")
    text = "\n".join(line.removeprefix(": ") if i == 3 else line for i, line in enumerate(text.splitlines()))
    assert parse_board(text, "freecell") == board
    assert parse_board("\n\n" + to_board_text(board) + "\n\n", "freecell") == board


def test_missing_lines_mean_empty() -> None:
    """No Foundations line: nothing home; no Freecells line: empty cells; fewer columns: empty ones."""
    board = Board.deal("freecell", 1)
    columns = to_board_text(board).splitlines()[2:]
    assert parse_board("\n".join(columns), "freecell") == board


SEAHAVEN_1 = to_board_text(Board.deal("seahaven", 1))


def corrupt(old: str, new: str) -> str:
    assert old in SEAHAVEN_1
    return SEAHAVEN_1.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (corrupt(": JD 9S JS 4D 6D", ": JD 9S JS 4D"), "missing cards: 6D"),
        (corrupt(": JD 9S JS 4D 6D", ": JD 9S JS 4D 6D 6D"), "6D appears twice (column 1 and column 1)"),
        (corrupt(": JD 9S JS 4D 6D", ": JD 9S JS 4D 2H"), "2H appears twice (column 1 and cell a)"),
        (corrupt(": JD 9S JS 4D 6D", ": JD 9S JS 4D 6D XX"), "line 3: 'XX' is not a card"),
        (corrupt(": JD 9S JS 4D 6D", ": JD 9S JS 4D 6D 1H"), "line 3: '1H' is not a card"),
        (corrupt("Freecells: 2H 6H - -", "Freecells: 2H 6H - - -"), "line 2: 5 cells given but seahaven has 4"),
        (corrupt("Freecells: 2H 6H - -", "Freecells: 2H 6Q - -"), "line 2: '6Q' is not a card"),
        (corrupt("H-0", "H-X"), "line 1: 'H-X' is not a foundation (write like H-5 or S-0)"),
        (corrupt("H-0", "H-"), "line 1: 'H-' is not a foundation"),
        (corrupt("H-0", "-5"), "line 1: '-5' is not a foundation"),
        (corrupt("H-0", "X-0"), "line 1: 'X-0' is not a foundation"),
        (corrupt("H-0", "H0"), "line 1: 'H0' is not a foundation"),
        (corrupt("H-0 C-0", "H-0 H-0"), "line 1: the H foundation is given twice"),
        (corrupt("S-0", "S-A"), "AS appears twice (column 2 and the spades foundation)"),
        (SEAHAVEN_1 + "Freecells: - - - -\n", "line 13: a second Freecells line"),
        (SEAHAVEN_1 + ": \n: AC\n", "12 columns given but seahaven has 10"),
        (SEAHAVEN_1 + "KH\n", "11 columns given but seahaven has 10"),
    ],
)
def test_corrupt_input_is_refused_precisely(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_board(text, "seahaven")
    assert message in str(info.value)


def test_too_many_cells_for_a_one_cell_preset() -> None:
    text = to_board_text(Board.deal("seahaven-hard", 1))
    assert text.splitlines()[1].count(" ") == 1
    with pytest.raises(ValueError, match="line 2: 2 cells given but seahaven-hard has 1"):
        parse_board(text.replace("Freecells: ", "Freecells: - "), "seahaven-hard")


def test_penguin_without_foundations_is_refused() -> None:
    with pytest.raises(ValueError, match="a Penguin position needs at least one foundation card"):
        parse_board(SEAHAVEN_1.splitlines()[2], "penguin")


def test_unknown_preset() -> None:
    with pytest.raises(ValueError, match="unknown preset 'nope'; presets: seahaven, "):
        parse_board(SEAHAVEN_1, "nope")


def test_render_for_people() -> None:
    board = Board.deal("seahaven", 1)
    board.push_text("3c")
    view = render(board)
    lines = view.splitlines()
    assert lines[0] == "cells  a:2♥  b:6♥  c:8♦  d:--"
    assert lines[1] == "home   ♣:--  ♦:--  ♥:--  ♠:--   (0/52)"
    assert lines[3].split() == list("1234567890")
    assert lines[4].split() == ["J♦", "2♦", "9♥", "J♣", "5♦", "7♥", "7♣", "5♥", "K♦", "K♣"]
    assert lines[-1].split() == ["6♦", "8♠", "Q♠", "6♣", "3♦", "8♣", "10♣", "6♠", "9♣"]
    assert "10♠" in view
    board.push_text("08")
    board.push_text("3d")
    board.push_text("3#")
    assert "♥:A♥" in render(board) and "(1/52)" in render(board)


def test_repr_shows_the_position() -> None:
    board = Board.deal("freecell", 617)
    assert repr(board) == f"<Board freecell progress=0 position={board.position()!r}>"
    board.push(board.legal_moves()[0])
    assert repr(board) != repr(Board.deal("freecell", 617))
