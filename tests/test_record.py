"""Game records: a deal code and a move list; replay, JSON round trip, bad JSON refused."""

from __future__ import annotations

import json

import pytest

from seahaven import Board, GameRecord, IllegalMoveError, Move, encode

# A win of Seahaven Towers #1 (found once by seahaven.solver, frozen here).
WIN_TEXT = (
    "3c 08 3d 3# 3# a# 5a d5 78 73 7d 75 a7 10 1a d1 14:2 21 21 2# 5# 5# 5# 2# 2# 6# 9# a# 1# 1# "
    "1# 4# 4# 4# 1a 69 67 6# b6 63:2 57 5b 5# 0# 0# 0# c# a0 9a 9c 9# 9# 4# 0# 0# 9# 47 40 40 b1 "
    "80:3 8# c8 7# 7# 7# 7# 7# 0# 0# 0# 0# 0# 0# a8 81:3 8# 8# 3# 3# 3# 3# 1# 1# 1# 1#"
)
SEAHAVEN_1_WIN = WIN_TEXT.split()


def test_replay_wins_seahaven_1() -> None:
    record = GameRecord("SH1-ST-0001G", tuple(Move.parse(t) for t in SEAHAVEN_1_WIN))
    board = record.replay()
    assert board.is_won()
    assert board.move_stack == list(record.moves)


def test_replay_reproduces_the_final_position() -> None:
    board = Board.deal("freecell", 617)
    for text in ("1a", "58", "3b", "2c"):
        board.push_text(text)
    record = GameRecord.of(board, encode("freecell", 617))
    again = record.replay()
    assert again == board
    assert again.move_stack == board.move_stack


def test_json_round_trip() -> None:
    record = GameRecord("SH1-ST-0001G", tuple(Move.parse(t) for t in SEAHAVEN_1_WIN[:20]))
    text = record.to_json()
    data = json.loads(text)
    assert data["code"] == "SH1-ST-0001G"
    assert data["preset"] == "seahaven" and data["deal"] == 1
    assert data["moves"] == SEAHAVEN_1_WIN[:20]
    assert GameRecord.from_json(text) == record
    assert GameRecord.from_json(text).replay() == record.replay()


def test_json_needs_only_code_and_moves() -> None:
    assert GameRecord.from_json('{"code": "SH1-ST-0001G", "moves": ["3c"]}') == GameRecord(
        "SH1-ST-0001G", (Move.parse("3c"),)
    )
    assert GameRecord.from_json('{"code": "SH1-ST-0001G", "moves": []}').replay() == Board.deal("seahaven", 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not a game record"),
        ("{", "not a game record"),
        ("[]", "not a game record"),
        ('"SH1-ST-0001G"', "not a game record"),
        ("17", "not a game record"),
        ('{"moves": []}', "not a game record"),
        ('{"code": "SH1-ST-0001G"}', "not a game record"),
        ('{"code": 1, "moves": []}', "a game record has a string 'code' and a list of move strings 'moves'"),
        ('{"code": "SH1-ST-0001G", "moves": "3c 08"}', "a list of move strings"),
        ('{"code": "SH1-ST-0001G", "moves": [3]}', "a list of move strings"),
        ('{"code": "SH1-ST-0001H", "moves": []}', "the check character does not match"),
        ('{"code": "SH1-ST-0001G", "moves": ["3c", "zz"]}', "'zz': 'z' is not a source"),
    ],
)
def test_bad_json_is_refused(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        GameRecord.from_json(text)
    assert message in str(info.value)


def test_replay_names_the_first_illegal_move() -> None:
    record = GameRecord.from_json('{"code": "SH1-ST-0001G", "moves": ["3c", "3#"]}')
    with pytest.raises(IllegalMoveError) as info:
        record.replay()
    assert info.value.move == Move.parse("3#")
    assert "3S cannot go home yet" in info.value.reason
