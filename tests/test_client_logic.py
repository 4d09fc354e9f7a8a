"""The client's pure parts: picks to moves, optimistic rollback, stats file, layout, formats."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import pytest

import client.__main__ as client_main
from client.board.optimistic import OptimisticBoard
from client.board.places import (
    ANY_FOUNDATION,
    Place,
    choose,
    destinations,
    key_place,
    run_length,
    smart,
    source_problem,
    why_not,
)
from client.data.stats import Stats, default_stats_path
from client.race import room_text
from client.race.room_model import RoomModel
from client.race.room_text import Seen
from client.race.spectating import Boards
from client.text.rating_text import rating_line, with_change
from client.widgets.board_view import card_face, geometry
from client.widgets.rivals import RacerView, format_ms, status_text
from protocol.enums import Status
from protocol.messages import Matching, Members, Racer, RatingNotice, RoomState, Standing
from seahaven import CELL, COLUMN, FOUNDATION, Board, Card, Move

# Seahaven deal 1: cells 2H 6H - -; column 7 ends 8H 8C, column 10 ends 7D 9C, column 2 ends 8S.


def deal1() -> Board:
    return Board.deal("seahaven", 1)


def test_keys_name_places_within_the_rules() -> None:
    board = deal1()
    assert key_place("1", board) == Place(COLUMN, 0)
    assert key_place("0", board) == Place(COLUMN, 9)
    assert key_place("d", board) == Place(CELL, 3)
    assert key_place("e", board) is None  # Seahaven has 4 cells
    assert key_place("#", board) == ANY_FOUNDATION
    assert key_place(".", board) == ANY_FOUNDATION
    freecell = Board.deal("freecell", 1)
    assert key_place("9", freecell) is None
    assert key_place("0", freecell) is None
    hard = Board.deal("seahaven-hard", 1)
    assert key_place("a", hard) == Place(CELL, 0)
    assert key_place("b", hard) is None


def test_destinations_are_the_legal_ones() -> None:
    board = deal1()
    assert destinations(board, Place(COLUMN, 6)) == {Place(COLUMN, 9), Place(CELL, 2), Place(CELL, 3)}
    # 6D (column 1) can only go to a free cell.
    assert destinations(board, Place(COLUMN, 0)) == {Place(CELL, 2), Place(CELL, 3)}


def test_choose_and_why_not() -> None:
    board = deal1()
    assert choose(board, Place(COLUMN, 6), Place(COLUMN, 9)) == Move(COLUMN, 6, COLUMN, 9)
    assert choose(board, Place(COLUMN, 0), Place(COLUMN, 1)) is None
    assert why_not(board, Place(COLUMN, 0), Place(COLUMN, 1)) == "6D cannot go on 8S: columns build down by suit"
    assert why_not(board, Place(CELL, 0), Place(CELL, 2)) == "a card does not move from cell to cell"
    assert "needs AH" in why_not(board, Place(CELL, 0), Place(FOUNDATION, 0))
    assert why_not(board, Place(CELL, 2), Place(COLUMN, 0)) == "cell c is empty"


def test_group_moves_take_the_whole_run_unless_limited() -> None:
    board = deal1()
    board.push_text("70")  # 8C onto 9C: column 10 ends with a two-card run
    assert run_length(board, 9) == 2
    board.push_text("3c")  # 8D to a cell
    board.push_text("3d")  # 3S to a cell: column 3 ends AD AH
    board.push_text("3#")
    board.push_text("3#")  # column 3 is now 9H alone
    board.push_text("a#")  # 2H home: cell a is free
    # Moving to a cell carries one card; with a limit of 1 the smart move is a cell.
    assert smart(board, Place(COLUMN, 9), 1) == Move(COLUMN, 9, CELL, 0)
    assert destinations(board, Place(COLUMN, 9), 1) == {Place(CELL, 0)}
    assert why_not(board, Place(COLUMN, 9), Place(CELL, 1)) == "cell b is occupied"
    assert choose(board, Place(COLUMN, 9), Place(COLUMN, 2)) is None
    assert why_not(board, Place(COLUMN, 9), Place(COLUMN, 2)) == "8C cannot go on 9H: columns build down by suit"


def test_smart_move_follows_the_app_priority() -> None:
    board = deal1()
    # 8C: no foundation, column 10 (9C) takes it before any cell.
    assert smart(board, Place(COLUMN, 6)) == Move(COLUMN, 6, COLUMN, 9)
    # 6D: nothing but a cell, the first free one.
    assert smart(board, Place(COLUMN, 0)) == Move(COLUMN, 0, CELL, 2)


def test_foundation_sources_follow_the_rules() -> None:
    board = deal1()
    assert source_problem(board, ANY_FOUNDATION) == "cards on a foundation stay there in these rules"
    easy = Board.deal("seahaven-easy", 1)
    assert source_problem(easy, ANY_FOUNDATION) == "the foundations are empty"
    assert source_problem(easy, Place(COLUMN, 0)) is None


def test_optimistic_reject_rolls_back_later_actions_too() -> None:
    start = deal1()
    game = OptimisticBoard(deal1())
    s1 = game.play(Move.parse("70"))
    s2 = game.play(Move.parse("3c"))
    s3, undone = game.undo()
    assert undone == Move.parse("3c")
    s4 = game.play(Move.parse("1c"))
    assert (s1, s2, s3, s4) == (1, 2, 3, 4)
    assert game.confirm(s1)
    assert [p.seq for p in game.pending] == [2, 3, 4]
    dropped = game.reject(s2)
    assert [p.seq for p in dropped] == [4, 3, 2]
    assert game.pending == ()
    after_first = deal1()
    after_first.push_text("70")
    assert game.board == after_first
    assert game.board != start
    assert game.reject(s2) == []  # unknown now: nothing changes
    assert game.board == after_first


def test_optimistic_reject_of_an_undo_replays_the_move() -> None:
    game = OptimisticBoard(deal1())
    game.play(Move.parse("70"))
    game.confirm(1)
    seq, _ = game.undo()
    assert game.board == deal1()
    game.reject(seq)
    assert game.board.move_stack == [Move.parse("70")]


def test_stats_round_trip_and_paths(tmp_path: Path) -> None:
    assert default_stats_path({"SEAHAVEN_STATS": "/x/s.json"}) == Path("/x/s.json")
    assert default_stats_path({"XDG_DATA_HOME": "/data"}) == Path("/data/seahaven/stats.json")
    path = tmp_path / "deep" / "stats.json"
    stats = Stats.load(path)
    assert stats.of("seahaven").won == 0
    stats.record_start("seahaven")
    stats.record_win("seahaven", 90_000, 100)
    stats.record_win("seahaven", 80_000, 120)
    again = Stats.load(path)
    entry = again.of("seahaven")
    assert (entry.played, entry.won, entry.best_ms, entry.best_moves) == (1, 2, 80_000, 100)
    assert json.loads(path.read_text())["presets"]["seahaven"]["won"] == 2


def test_corrupt_stats_are_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    path.write_text("{not json")
    stats = Stats.load(path)
    assert stats.total_wins == 0
    assert (tmp_path / "stats.json.bad").read_text() == "{not json"


@pytest.mark.parametrize(("width", "face"), [(54, 4), (80, 7), (30, 3), (200, 9)])
def test_cards_widen_with_the_terminal(width: int, face: int) -> None:
    geo = geometry(10, 4, width, 21, 5)
    assert geo.face == face
    assert geo.col_x[9] + geo.face <= max(width, 10 * 4)


def test_whole_cards_are_tall_only_when_columns_fit() -> None:
    assert geometry(10, 4, 60, 21, 5).card_h == 3
    short = geometry(10, 4, 60, 21, 15)
    assert short.card_h == 1
    assert short.rows >= 15


def test_card_faces() -> None:
    ten = Card.parse("TH")
    king = Card.parse("KS")
    assert card_face(ten, 4) == " 10♥"
    assert card_face(king, 4) == "  K♠"
    assert card_face(king, 3) == " K♠"
    assert card_face(ten, 6, 2) == "  10♥ "
    assert len(card_face(ten, 9, 1)) == 9


def test_time_and_status_formats() -> None:
    assert format_ms(192_400) == "3:12.4"
    assert format_ms(3_723_000) == "1:02:03"
    assert format_ms(None) == "—"
    assert status_text(RacerView("a", status=Status.FINISHED, time_ms=61_000))[0] == "finished 1:01.0"
    assert status_text(RacerView("a", connected=False))[0] == "disconnected"
    assert status_text(RacerView("a", status="resigned", connected=False))[0] == "resigned"


def test_cli_hands_races_to_the_lobby_app(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def fake_run(args: argparse.Namespace) -> int:
        seen.append(args.server)
        return 0

    import client.apps.app

    monkeypatch.setattr(client.apps.app, "run", fake_run)
    assert client_main.main(["ws://example.org:1"]) == 0
    assert seen == ["ws://example.org:1"]


def test_cli_refuses_bad_solo_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert client_main.main(["--solo", "--deal", "0"]) == 2
    assert client_main.main(["--solo", "--code", "SH1-ST-0001X"]) == 2
    assert "check character" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        client_main.main(["--solo", "--preset", "klondike"])


# -- the room as the frames describe it, and what its screen says ---------------------------------------


def room_state(**changes: object) -> RoomState:
    racers = tuple(
        Racer(player=p, name=p, status="waiting", connected=True, progress=0, moves=0, time_ms=None)
        for p in ("me", "bob")
    )
    state = RoomState(
        room="ABC123",
        you="me",
        role="racer",
        preset="seahaven",
        seats=3,
        public=False,
        time_limit=300,
        undo=False,
        phase="waiting",
        racers=racers,
        spectators=0,
        server_time=0,
    )
    return replace(state, **changes)  # type: ignore[arg-type]


def test_waiting_room_says_the_settings_and_only_the_creator_shares_the_code() -> None:
    seen = Seen(progress=0, actions=0, won=False, results_open=False, asked_rematch=False)
    created = RoomModel(room_state(), created=True, deal_asked="deal #7")
    lines = room_text.cover(created, Boards(), seen)
    assert lines is not None and lines[:3] == (
        "Room ABC123",
        "Seahaven Towers · deal #7",
        "time limit 5 min · undo off · hints off · private · unrated",
    )
    assert "Share this code: your friend joins with it" in lines
    joined = room_text.cover(RoomModel(room_state()), Boards(), seen)
    assert joined is not None and "Seahaven Towers · deal chosen at start" in joined
    assert not any("Share" in line for line in joined)
    assert room_text.lock_reason(created, reconnecting=False) == "The race has not started: r when you are ready"
    assert room_text.lock_reason(created, reconnecting=True) == "Connection lost: reconnecting…"


def test_a_quick_match_wait_shows_its_window_widening_until_anyone_goes() -> None:
    alone = (Racer(player="me", name="me", status="waiting", connected=True, progress=0, moves=0, time_ms=None),)
    model = RoomModel(room_state(racers=alone, seats=2))
    model.apply_matching(
        Matching(preset="seahaven", rating=1523, window=150, widens=50, anyone_after_ms=9000, waited_ms=1000)
    )
    since = model.matching_at

    def cover(after_ms: int) -> tuple[str, ...]:
        seen = Seen(progress=0, actions=0, won=False, results_open=False, asked_rematch=False, now=since + after_ms)
        lines = room_text.cover(model, Boards(), seen)
        assert lines is not None
        return lines

    assert cover(0)[-3:-1] == ("Looking for a racer near 1523 ±150", "waited 1 s · anyone from 9 s")
    assert cover(3000)[-3:-1] == ("Looking for a racer near 1523 ±300", "waited 4 s · anyone from 9 s")
    assert cover(8000)[-3:-1] == ("Looking for a racer: anyone now", "waited 9 s")
    # A partner joined: the wait is over, nothing more about it.
    model.apply_members(Members(racers=room_state().racers, spectators=0))
    assert model.match_wait(since) is None and not any("Looking" in line for line in cover(0))
    # Moved into a partner's room: a new room, no wait either.
    model.apply_matching(
        Matching(preset="seahaven", rating=1523, window=150, widens=50, anyone_after_ms=9000, waited_ms=0)
    )
    model.apply_state(room_state(room="XYZ789", racers=alone, seats=2))
    assert model.matching is None


def test_a_rated_room_says_so_with_my_rating_on_its_rules_once_the_server_gave_one() -> None:
    seen = Seen(progress=0, actions=0, won=False, results_open=False, asked_rematch=False)
    rated = room_state(rated=True)
    lines = room_text.cover(RoomModel(rated), Boards(), seen)
    assert lines is not None and lines[3] == "time limit 5 min · undo off · hints off · private · rated"
    assert not any("your rating" in line for line in lines)  # none heard yet
    notice = RatingNotice(preset="seahaven", rating=1579, change=79, provisional=True, race_id="ABC123-1-aaaaaaaa")
    other = replace(notice, preset="freecell", rating=1400, change=-100)
    lines = room_text.cover(RoomModel(rated, ratings={"seahaven": notice, "freecell": other}), Boards(), seen)
    assert lines is not None and lines[4] == "your rating here: 1579? +79"
    assert with_change(replace(notice, rating=1486, change=-9, provisional=False)) == "1486 -9"
    assert rating_line(other) == "Your FreeCell rating: 1400? -100"
    assert rating_line(replace(notice, preset="chess")) == "Your chess rating: 1579? +79"


def test_finished_race_time_and_rematch_wishes() -> None:
    standings = (
        Standing(place=1, player="bob", name="bob", status="finished", progress=52, moves=90, time_ms=80_000),
        Standing(place=2, player="me", name="me", status="racing", progress=10, moves=40, time_ms=None),
    )
    model = RoomModel(room_state(phase="finished", standings=standings, rematch=("bob",), deal="SH1-ST-0001G"))
    assert model.final_ms() == 80_000 and model.rematch_wanted_by() == ["bob"]
    rows = room_text.result_rows(model.standings, "me")
    assert [(r.name, r.status, r.time_ms, r.you) for r in rows] == [
        ("bob", "finished", 80_000, False),
        ("me", "did not finish", None, True),
    ]
    assert room_text.headline(model.reason, model.standings, "me") == "bob wins"
