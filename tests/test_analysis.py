"""The analysis of a race (seahaven/analysis.py), checked against searches of its own.

Each verdict is checked where an independent search decides the same position: a plain depth-first
search over the engine's legal moves (``decide``), which shares nothing with the solver but the
Board. Thirty races on thirty deals, each with a racer who follows a winning line with detours
taken back and a racer who plays at random with undos; and races built so that one move loses the
deal, whose loss the analysis must put at that move.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from benchmarks.analysis_backlog import wander
from seahaven import Board, Move
from seahaven.analysis import analyse
from seahaven.moves import FOUNDATION
from seahaven.solver import solve

Race = dict[str, Any]
BY_STATES: dict[str, Any] = {"max_seconds": 120.0, "race_seconds": 1200.0}
"""Budgets in time far beyond the state budget's: the verdicts are the same on a busy machine."""


def decide(board: Board, cap: int) -> bool | None:
    """Whether ``board``'s position can be won: True (a win found), False (every position reached
    and none wins), None (more than ``cap`` positions would be needed). Depth first, iterative."""
    work = board.copy(stack=False)
    if work.is_won():
        return True
    seen = {work.position()}
    # Home moves first: the search finds wins sooner; the verdict does not depend on the order.
    stack = [iter(sorted(work.legal_moves(), key=lambda m: m[2] != FOUNDATION))]
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            if stack:
                work.pop()
            continue
        work.push(move)
        if work.is_won():
            return True
        key = work.position()
        if key in seen:
            work.pop()
            continue
        seen.add(key)
        if len(seen) > cap:
            return None
        stack.append(iter(sorted(work.legal_moves(), key=lambda m: m[2] != FOUNDATION)))
    return False


def entries(moves: list[Move | None], start: int = 0) -> list[list[Any]]:
    """[ms, move] pairs, a second apart; None is an undo."""
    return [[start + 1000 * (n + 1), "undo" if m is None else str(m)] for n, m in enumerate(moves)]


def follower(deal: int, rng: random.Random) -> tuple[list[Move | None], bool]:
    """The solver's line, with a few detours taken back at once; whether it wins."""
    line = solve(Board.deal("seahaven", deal)).moves
    board, played = Board.deal("seahaven", deal), list[Move | None]()
    for n, move in enumerate(line):
        if n % 17 == 5:
            detour = rng.choice(board.legal_moves())
            played += [detour, None]
        board.push(move)
        played.append(move)
    return played, board.is_won()


def wanderer(deal: int, rng: random.Random, count: int) -> list[Move | None]:
    """Random legal moves, one in five taken back (None), as the benchmarks' backlog plays them."""
    return [None if text == "undo" else Move.parse(text) for text in wander(Board.deal("seahaven", deal), rng, count)]


def race_of(deal: int, racers: list[tuple[str, list[Move | None], bool]]) -> Race:
    return {
        "race_id": f"TEST-{deal}-abcdefgh",
        "preset": "seahaven",
        "deal": deal,
        "racers": [
            {"player": player, "status": "finished" if won else "resigned", "moves": entries(moves), "auto": []}
            for player, moves, won in racers
        ],
    }


def positions(deal: int, moves: list[Move | None]) -> list[Board]:
    board, after = Board.deal("seahaven", deal), []
    for move in moves:
        if move is None:
            board.pop()
        else:
            board.push(move)
        after.append(board.copy(stack=False))
    return after


WINNABLE = [d for d in range(1, 60) if solve(Board.deal("seahaven", d)).solved][:30]
"""Thirty deals the solver wins (some Seahaven deals cannot be won)."""


@pytest.mark.parametrize("part", [0, 1, 2])
def test_thirty_races_agree_with_an_independent_search_where_both_decide(part: int) -> None:
    checked = lost_seen = 0
    for deal in WINNABLE[part * 10 : part * 10 + 10]:
        rng = random.Random(deal)
        line, won = follower(deal, rng)
        wander = wanderer(deal, rng, 40)
        race = race_of(deal, [("ann", line, won), ("bob", wander, False)])
        report = analyse(race, **BY_STATES).as_json()
        assert report["solution"] is not None and report["shortest"]["moves"] <= report["solution"]
        for racer, moves in zip(report["racers"], (line, wander), strict=True):
            points = racer["points"]
            assert [p["index"] for p in points] == list(range(len(moves)))
            for point, board in zip(points, positions(deal, moves), strict=True):
                verdict = point["verdict"]
                if verdict == "won":
                    assert board.is_won() and point["line"] == 0
                    continue
                assert verdict != "unknown", (deal, racer["player"], point)  # these all decide in budget
                truth = decide(board, 500)
                if truth is not None:
                    assert (verdict == "winnable") is truth, (deal, racer["player"], point)
                    checked += 1
                if verdict == "winnable":  # at least one move per card not home yet
                    assert point["line"] >= 52 - board.progress, (deal, racer["player"], point)
                else:
                    assert point["line"] is None
                lost_seen += verdict == "lost"
        ann = report["racers"][0]
        assert ann["lost_at"] is None and ann["points"][-1]["verdict"] == "won"
        assert report["racers"][1]["against_winner"]["winner"] == "ann"
    assert checked >= 500 and lost_seen > 0, (checked, lost_seen)


def losing_move(board: Board) -> Move | None:
    """A legal move after which no win is left: the solver proposes, the independent search
    must agree (a move it cannot decide is passed over)."""
    for move in board.legal_moves():
        board.push(move)
        lost = solve(board, max_states=5_000).status == "unsolvable" and decide(board, 20_000) is False
        board.pop()
        if lost:
            return move
    return None


def test_the_move_that_lost_the_deal_is_named_at_its_index() -> None:
    found = 0
    for deal in range(1, 40):
        line = solve(Board.deal("seahaven", deal)).moves
        board = Board.deal("seahaven", deal)
        for move in line[:6]:
            board.push(move)
        losing = losing_move(board)
        if losing is None:
            continue
        board.push(losing)
        after = board.legal_moves()[:1]  # one more move, lost too; then an undo of it
        played: list[Move | None] = [*line[:6], losing, *after, *([None] if after else [])]
        report = analyse(race_of(deal, [("ann", list(line), True), ("cee", played, False)]), **BY_STATES).as_json()
        cee = report["racers"][1]
        assert [p["verdict"] for p in cee["points"][:6]] == ["winnable"] * 6
        assert cee["lost_at"] is not None, (deal, cee)
        assert cee["lost_at"]["index"] == 6 and cee["lost_at"]["own"] == 7 and cee["lost_at"]["move"] == str(losing)
        assert cee["lost_at"]["ms"] == 7000 and cee["costly"][0] == cee["lost_at"]
        assert all(p["verdict"] == "lost" for p in cee["points"][6:])
        assert cee["against_winner"] == {
            "winner": "ann",
            "common": 6,
            "parted_at": 6,
            "winner_moves": len(line),
            "racer_moves": 7,
        }
        found += 1
        if found == 5:
            break
    assert found == 5


def test_moves_that_cost_time_and_length_are_named_and_times_are_the_servers() -> None:
    line = solve(Board.deal("seahaven", 2)).moves
    moves = [[1000, str(line[0])], [31000, str(line[1])], [32000, str(line[2])]]
    race = {"race_id": "X", "preset": "seahaven", "deal": 2, "racers": [{"player": "a", "moves": moves, "auto": [1]}]}
    report = analyse(race, **BY_STATES).as_json()
    points = report["racers"][0]["points"]
    assert [p["took_ms"] for p in points] == [1000, 30000, 1000]
    assert [p["line"] for p in points] == [len(line) - 1, len(line) - 2, len(line) - 3]
    slow = [c for c in report["racers"][0]["costly"] if c["kind"] == "slow"]
    # The auto-move (index 1) is the server's: never named as the racer's slow move.
    assert [c["index"] for c in slow] == [0, 2] and [c["own"] for c in slow] == [1, 2]
    assert not [c for c in report["racers"][0]["costly"] if c["kind"] == "longer"]  # the line was followed


def test_a_spent_budget_says_unknown_and_moves_that_do_not_replay_are_refused() -> None:
    line = solve(Board.deal("seahaven", 4)).moves
    race = race_of(4, [("a", [m for m in line[:3]], False)])
    report = analyse(race, race_seconds=0.0).as_json()
    assert report["solution"] is None and report["shortest"] is None
    assert {p["verdict"] for p in report["racers"][0]["points"]} == {"unknown"}
    assert report["racers"][0]["lost_at"] is None
    for bad in ("zz", "undo"):  # no move in the notation; nothing to take back
        wrong = {**race, "racers": [{"player": "a", "moves": [[5, bad]], "auto": []}]}
        with pytest.raises(ValueError, match="does not replay"):
            analyse(wrong)
