"""The ``seahaven`` command line, driven through main(argv, stdin=..., stdout=..., stderr=...)
and once through a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from seahaven import Board, GameRecord, Move, encode, to_board_text
from tests.cli_runner import run
from tests.wins import SEAHAVEN_1_WIN

# -- deal and code -----------------------------------------------------------------------------


def test_deal_text() -> None:
    status, out, err = run("deal", "seahaven", "1")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "Seahaven Towers  SH1-ST-0001G"
    assert lines[1] == "cells  a:2♥  b:6♥  c:--  d:--"
    assert lines[5].split() == ["J♦", "2♦", "9♥", "J♣", "5♦", "7♥", "7♣", "5♥", "K♦", "K♣"]


def test_deal_board_format_is_the_solver_format() -> None:
    status, out, _ = run("deal", "freecell", "11982", "--format", "board")
    assert status == 0
    assert out == to_board_text(Board.deal("freecell", 11982))


def test_deal_json() -> None:
    status, out, _ = run("deal", "penguin", "1", "--format", "json")
    assert status == 0
    data = json.loads(out)
    board = Board.deal("penguin", 1)
    assert data["code"] == encode("penguin", 1)
    assert data["preset"] == "penguin" and data["deal"] == 1
    assert data["columns"] == [[str(c) for c in col] for col in board.columns]
    assert data["cells"] == [None] * 7
    assert data["foundations"] == {"C": 1, "D": 0, "H": 1, "S": 1}
    assert data["base_rank"] == 11 and data["progress"] == 3
    assert data["board"] == to_board_text(board)


def test_deal_by_code_matches_deal_by_number() -> None:
    by_number = run("deal", "seahaven-hard", "77", "--format", "board")
    by_code = run("deal", "--code", encode("seahaven-hard", 77), "--format", "board")
    assert by_number == by_code
    assert by_code[0] == 0


def test_code() -> None:
    assert run("code", "seahaven", "1") == (0, "SH1-ST-0001G\n", "")
    assert run("code", "freecell", "11982") == (0, "SH1-FC-0BPEH\n", "")


def test_presets() -> None:
    status, out, _ = run("presets")
    assert status == 0
    assert out.splitlines()[0].split()[:2] == ["seahaven", "ST"]
    assert len(out.splitlines()) == 11


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["deal", "nope", "1"], "unknown preset 'nope'"),
        (["deal", "seahaven"], "give PRESET N"),
        (["deal"], "give PRESET N"),
        (["deal", "seahaven", "x"], "'x' is not a deal number"),
        (["deal", "seahaven", "0"], "deal numbers run from 1 to"),
        (["deal", "seahaven", "1", "--code", "SH1-ST-0001G"], "give either PRESET N or --code, not both"),
        (["deal", "--code", "SH1-ST-0001H"], "the check character does not match"),
        (["deal", "seahaven", "1", "--format", "yaml"], "invalid choice: 'yaml'"),
        (["code", "seahaven"], "the following arguments are required: N"),
        (["code", "nope", "1"], "unknown preset 'nope'"),
        (["bogus"], "invalid choice: 'bogus'"),
        (["moves", "x.txt"], "the following arguments are required: --preset"),
        (["play", "seahaven"], "give PRESET N"),
    ],
)
def test_errors_go_to_stderr_with_status_2(argv: list[str], message: str) -> None:
    status, out, err = run(*argv)
    assert status == 2
    assert out == ""
    assert message in err


@pytest.mark.parametrize(
    "command", [[], ["deal"], ["code"], ["play"], ["replay"], ["moves"], ["presets"], ["solve"], ["solvability"]]
)
def test_help_on_every_command(command: list[str]) -> None:
    status, out, err = run(*command, "--help")
    assert status == 0 and err == ""
    assert out.startswith("usage: seahaven" + (f" {command[0]}" if command else ""))


def test_no_command_prints_help() -> None:
    status, out, _ = run()
    assert status == 0 and "deal" in out and "replay" in out


# -- replay and moves -------------------------------------------------------------------------------


def test_replay_a_won_game(tmp_path: Path) -> None:
    record = GameRecord("SH1-ST-0001G", tuple(Move.parse(t) for t in SEAHAVEN_1_WIN))
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    status, out, err = run("replay", str(path))
    assert status == 0 and err == ""
    assert out.splitlines()[-1] == f"{len(SEAHAVEN_1_WIN)} moves replayed: won, 52/52 cards home"
    status, out, _ = run("replay", str(path), "--format", "board")
    assert out.startswith("Foundations: H-K C-K D-K S-K\n")


def test_replay_from_stdin() -> None:
    text = json.dumps({"code": "SH1-ST-0001G", "moves": ["3c", "08"]})
    status, out, _ = run("replay", "-", stdin=text)
    assert status == 0
    assert out.splitlines()[-1] == "2 moves replayed: in play, 0/52 cards home"


def test_replay_errors(tmp_path: Path) -> None:
    status, _, err = run("replay", str(tmp_path / "missing.json"))
    assert status == 2 and "No such file" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"code": "SH1-ST-0001G", "moves": ["3c", "3#"]}', encoding="utf-8")
    status, _, err = run("replay", str(bad))
    assert status == 2 and "illegal move 3#: 3S cannot go home yet" in err
    bad.write_text("not json", encoding="utf-8")
    assert run("replay", str(bad))[0] == 2


def test_moves_of_a_position(tmp_path: Path) -> None:
    board = Board.deal("freecell", 1)
    path = tmp_path / "position.txt"
    path.write_text(to_board_text(board), encoding="utf-8")
    status, out, _ = run("moves", str(path), "--preset", "freecell")
    assert status == 0
    assert out.split() == [str(m) for m in board.legal_moves()]
    assert run("moves", "-", "--preset", "freecell", stdin=to_board_text(board))[1] == out
    # the same text read under other rules gives other moves
    assert run("moves", str(path), "--preset", "bakers-game")[1] != out


def test_moves_refuses_a_corrupt_position(tmp_path: Path) -> None:
    path = tmp_path / "position.txt"
    path.write_text(to_board_text(Board.deal("freecell", 1)).replace("JD", "JH"), encoding="utf-8")
    status, out, err = run("moves", str(path), "--preset", "freecell")
    assert status == 2 and out == ""
    assert "JH appears twice" in err and "missing cards: JD" in err


# -- play ---------------------------------------------------------------------------------------------


def test_play_a_whole_game_by_hand() -> None:
    status, out, err = run("play", "seahaven", "1", stdin="\n".join(SEAHAVEN_1_WIN) + "\n")
    assert status == 0 and err == ""
    assert out.startswith("Seahaven Towers, deal code SH1-ST-0001G. Type ? for help, q to quit.\n")
    assert out.rstrip().endswith(f"You won! All 52 cards home in {len(SEAHAVEN_1_WIN)} moves.")


def test_play_commands() -> None:
    script = ["?", "3c", "zz", "3#", "08", "1", "u", "u", "u", "u", "moves", "code", "q"]
    status, out, _ = run("play", "--code", "SH1-ST-0001G", stdin="\n".join(script) + "\n")
    assert status == 0
    assert "Moves (docs/notation.md)" in out  # help
    assert "Played 3c." in out
    assert "'zz': 'z' is not a source" in out
    assert "illegal move 3#: 3S cannot go home yet: the spades foundation needs AS" in out
    assert "Played 10." in out  # the smart move from column 1: 6D onto 7D
    assert "Undid 10." in out and "Undid 08." in out and "Undid 3c." in out
    assert "Nothing to undo." in out
    assert " ".join(str(m) for m in Board.deal("seahaven", 1).legal_moves()) in out
    assert "move> SH1-ST-0001G\n" in out
    assert out.rstrip().endswith("Bye: 0/52 cards home after 0 moves.")


def test_play_upper_case_cells_and_autoplay() -> None:
    status, out, _ = run("play", "freecell", "1", stdin="6A\n6B\nauto\nauto\n")
    assert status == 0
    assert "Played 6a." in out and "Played 6b." in out
    assert "Played 6# 6# b#." in out  # AC, AS, then 2C from its cell: all safe
    assert "No card can go home safely." in out


def test_play_reports_a_stuck_game_and_ends_at_end_of_input() -> None:
    status, out, _ = run("play", "seahaven-hard", "1", stdin="08\n78\n10\n61\n")
    assert status == 0
    assert "No legal move left: 0/52 cards home. Type u to undo or q to quit." in out


def test_play_smart_move_with_nothing_to_do() -> None:
    status, out, _ = run("play", "seahaven", "1", stdin="c\n")
    assert status == 0
    assert "Nothing can move from c." in out


def test_console_script_in_a_subprocess() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "seahaven", "code", "seahaven", "1"], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "SH1-ST-0001G\n", "")
    done = subprocess.run(
        [sys.executable, "-m", "seahaven", "deal", "nope", "1"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2 and done.stdout == "" and "unknown preset 'nope'" in done.stderr
