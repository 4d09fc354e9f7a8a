"""The terminal client and the server's records: the review reads the race on record (every
racer's moves, undos and times), my page and the leaderboards from the lobby; Textual's pilot
drives RaceApp against a real server with records (tests/recording.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from client.apps.app import RaceApp
from client.records.records_api import Records, RecordsError, http_base
from client.screens.lobby import LobbyScreen
from client.screens.race_screen import RaceScreen
from client.screens.records_screens import BoardsScreen, PlayerScreen
from client.screens.results import ResultsScreen
from client.screens.review import ReviewScreen
from client.widgets.rivals import DID_NOT_FINISH
from protocol.messages import JoinRoom, MoveRequest, Ready, Result, RoomState, Undo
from seahaven import Board, Move, encode
from server.app import RaceServer
from tests.client_driver import SIZE, connect, data_home, settle, top, until
from tests.helpers import url_of, wait_until
from tests.racing import solution
from tests.recording import archived, recording_server
from tests.wsclient import WsClient

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path) as race:
        yield race


def after(actions: list[str]) -> Board:
    board = Board.deal("seahaven", 1)
    for action in actions:
        if action == "undo":
            board.pop()
        else:
            board.push(Move.parse(action))
    return board


def ben_actions() -> list[str]:
    moves = [str(m) for m in solution()]
    return [moves[0], "undo", *moves]


async def race_ben(app: RaceApp, pilot: Pilot[None], server: RaceServer) -> tuple[WsClient, str]:
    """alice (the app) creates a room on a deal the server picks (deal 1), plays two moves and an
    undo; ben (a protocol client) wins it, an undo among his first moves. Ben and the race id."""
    await connect(app, pilot)
    await pilot.click("#create")
    await until(pilot, lambda: app.room is not None and app.room.model.phase == "waiting", "the room")
    room = app.room
    assert room is not None
    ben = await WsClient.open(url_of(server), "ben")
    assert isinstance(await ben.call(JoinRoom(room=room.code)), RoomState)
    await until(pilot, lambda: len(room.model.racers) == 2, "ben in the room")
    await pilot.press("r")
    await ben.call(Ready())
    await until(pilot, lambda: room.model.phase == "racing" and not room.screen.locked, "the race")
    moves = [str(m) for m in solution()]
    for move in moves[:2]:
        await pilot.press(move[0], move[1])
    await settle(pilot, room)
    await pilot.press("u")
    await settle(pilot, room)
    assert room.screen.board.move_stack == [Move.parse(moves[0])]
    for n, action in enumerate(ben_actions()):
        if n < 3:
            await asyncio.sleep(0.1)
        await ben.call(Undo() if action == "undo" else MoveRequest(move=action))
    result = await ben.expect(Result)
    assert result.race_id is not None
    await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
    return ben, result.race_id


def rows(screen: PlayerScreen | BoardsScreen, table: str) -> list[list[str]]:
    found: DataTable[str] = screen.query_one(table, DataTable)
    return [[str(cell) for cell in found.get_row_at(i)] for i in range(found.row_count)]


async def test_the_review_reads_the_race_on_record_then_my_page_and_the_boards(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        ben, race_id = await race_ben(app, pilot, server)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(top(app), ReviewScreen), "the review")
        review = top(app)
        assert isinstance(review, ReviewScreen)
        await until(pilot, lambda: review.source == "server", "the race read from the server")
        assert [t.name for t in review.tracks] == ["ben", "alice"], "the final standings' order"
        assert app.room is not None and review.player == app.room.model.me
        moves = [str(m) for m in solution()]
        mine = [moves[0], moves[1], "undo"]
        assert len(review.tracks[1].steps) == len(mine), "the server's record has the undo (seen here: one move)"
        await pilot.press("right", "right")
        assert review.board == after(mine[:2])
        await pilot.press("right")
        assert review.board == after(mine) and "move 3 of 3 at 0:" in review.line_text
        assert "undo: took back" in review.line_text and "on record" in review.line_text
        await pilot.press("left")
        assert review.board == after(mine[:2])
        await pilot.press("]")  # ben at the same step
        assert review.player == ben.player and review.board == after(ben_actions()[:2])
        times = [step.ms if step.ms is not None else -1 for step in review.tracks[0].steps]
        assert times[0] >= 0 and times == sorted(times), "the server's times, from the start"
        await pilot.press("end")
        assert review.board.is_won() and f"move {len(ben_actions())} of {len(ben_actions())}" in review.line_text
        await pilot.press("escape")
        assert isinstance(top(app), RaceScreen)
        await pilot.press("l")
        await until(pilot, lambda: isinstance(top(app), LobbyScreen), "the lobby")
        await wait_until(lambda: archived(server, race_id), what="the race archived")

        # My page (f4): my race, lost; no best time (no finish).
        await pilot.press("f4")
        await until(pilot, lambda: isinstance(top(app), PlayerScreen), "my page")
        page = top(app)
        assert isinstance(page, PlayerScreen)
        await until(pilot, lambda: page.document is not None, "my page read")
        assert str(page.summary.content).startswith("1 race · 0 wins (0%) · 0 finished · win streak 0")
        assert rows(page, "#bests") == []
        assert str(page.ratings.content) == "No rated race yet"
        assert rows(page, "#rating-history") == [] and rows(page, "#player-arenas") == []
        [race] = rows(page, "#player-races")
        assert race[1:5] == ["Seahaven Towers", encode("seahaven", 1), "2 of 2", DID_NOT_FINISH], race  # issue 22
        assert page.status_text == "1 race shown"
        await pilot.press("escape")

        # The boards (f6): ben's proven win, all time and this week, not the daily deal's.
        await pilot.press("f6")
        await until(pilot, lambda: isinstance(top(app), BoardsScreen), "the boards")
        boards = top(app)
        assert isinstance(boards, BoardsScreen)
        await until(pilot, lambda: boards.board is not None, "the board read")
        [entry] = rows(boards, "#board-entries")
        assert entry[:2] == ["1", "ben"] and entry[3] == encode("seahaven", 1), entry
        assert "Seahaven Towers · all time" in str(boards.heading.content)
        await pilot.press("w")
        await until(pilot, lambda: boards.board is not None and boards.board["period"] == "week", "this week")
        assert len(rows(boards, "#board-entries")) == 1
        await pilot.press("d")
        await until(pilot, lambda: boards.board is not None and boards.board["period"] == "day", "the daily deal")
        assert rows(boards, "#board-entries") == [] and "No proven win here yet" in boards.status_text
        await pilot.press("]")
        await until(pilot, lambda: boards.board is not None and boards.board["preset"] != "seahaven", "other rules")
        await pilot.press("[", "a")
        await until(pilot, lambda: boards.board is not None and boards.board["period"] == "all", "all time again")
        assert boards.board is not None and boards.board["preset"] == "seahaven"

        # Enter on the entry: its replay, from the record alone.
        boards.query_one("#board-entries", DataTable).focus()
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(top(app), ReviewScreen), "the entry's replay")
        replay = top(app)
        assert isinstance(replay, ReviewScreen)
        await until(pilot, lambda: replay.source == "server", "the record read")
        assert replay.player == ben.player and replay.board == Board.deal("seahaven", 1)
        # The race's signed record, checked here as `seahaven verify` checks it (docs/fairness.md).
        await until(pilot, lambda: replay.verdict != "", "the record verified")
        assert replay.verdict == "signed and verified" and replay.line_text.startswith("signed and verified · Review: ")
    await ben.close()


async def test_without_records_the_review_shows_the_moves_seen_here(tmp_path: Path) -> None:
    async with recording_server(tmp_path, records=False) as server:
        app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
        async with app.run_test(size=SIZE) as pilot:
            ben, _ = await race_ben(app, pilot, server)
            await pilot.press("v")
            await until(pilot, lambda: isinstance(top(app), ReviewScreen), "the review")
            review = top(app)
            assert isinstance(review, ReviewScreen)
            await until(pilot, lambda: review.source == "failed", "the record not read")
            assert "records are off" in review.line_text and "the moves seen here" in review.line_text
            mine = next(t for t in review.tracks if t.name == "alice")
            assert len(review.tracks) == 2 and len(mine.steps) == 1, "my move in effect at the end"
            assert review.player == mine.player
            await pilot.press("end")
            assert review.board == after([str(solution()[0])])
        await ben.close()


def test_the_api_is_the_servers_ws_address_over_http() -> None:
    assert http_base("ws://127.0.0.1:8765") == "http://127.0.0.1:8765"
    assert http_base("wss://race.example.org/") == "https://race.example.org"
    assert http_base("WS://[::1]:9/x?y") == "http://[::1]:9"
    for bad in ("http://example.org", "ws://", "example.org:8765"):
        with pytest.raises(ValueError, match="not a race server's address"):
            http_base(bad)


async def test_the_apis_refusals_and_an_unreachable_server_are_records_errors(server: RaceServer) -> None:
    records = Records(http_base(url_of(server)))
    with pytest.raises(RecordsError) as missing:
        await records.race("ZZZZZZ-1-aaaaaaaa")
    assert (missing.value.status, missing.value.code) == (404, "not-found")
    with pytest.raises(RecordsError) as bad:
        await records.leaderboard("seahaven", "fortnight")
    assert bad.value.status == 400 and "period" in bad.value.message
    gone = Records("http://127.0.0.1:9", timeout=2)
    with pytest.raises(RecordsError) as unreachable:
        await gone.player("p0123456789")
    assert unreachable.value.status == 0 and "cannot be read" in unreachable.value.message
