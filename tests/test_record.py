"""Game records: a deal code and a move list; replay, JSON round trip, bad JSON refused."""

from __future__ import annotations

import json

import pytest

from seahaven import Board, GameRecord, IllegalMoveError, Move, encode
from tests.wins import SEAHAVEN_1_WIN


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
