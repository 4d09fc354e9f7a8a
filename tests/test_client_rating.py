"""Ratings after a rated race in the terminal client (docs/ratings.md, "In the clients"), driven by
Textual's pilot against a real server with records (a SQLite file): Carla (the client) quick-matches
with Anne (a bare protocol client), Anne wins, and the ``rating`` message comes a moment after the
results. Found on a journey walk: the results never showed it (its line went to the message bar
under them), and the change ("-79") then stayed beside Carla's name in later, unrated rooms."""

from __future__ import annotations

import io
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import Static

from client.apps.app import RaceApp
from client.race.controller import RaceController
from client.screens.race_screen import RaceScreen
from client.screens.results import ResultsScreen
from client.text.rating_text import shown, with_change
from protocol.enums import Phase, Status
from protocol.messages import JoinRoom, Leave, MoveRequest, Ok, QuickMatch, RatingNotice, Ready, RoomState, Started
from seahaven import Board
from seahaven.solver import solve
from server.app import RaceServer
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.database import open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from tests.client_driver import SIZE, connect, create_deal_1, data_home, room_of, top, until
from tests.client_driver import shown as panel
from tests.helpers import MakeServer, url_of
from tests.wsclient import WsClient, registered

__all__ = ["data_home"]


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


@pytest.fixture
async def server(make_memory_server: MakeServer, tmp_path: Path) -> AsyncIterator[RaceServer]:
    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    await migrate(db)
    try:
        yield await make_memory_server(
            accounts=Accounts(db), archive=Archive(db, now=wall_ms), records=Reader(db, now=wall_ms), deals=lambda: 1
        )
    finally:
        await db.close()


def standings_text(results: ResultsScreen) -> str:
    """The standings as the results window draws them now."""
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(results.query_one("#standings", Static).content)
    return console.export_text()


async def win(anne: WsClient) -> None:
    """Anne, ready, plays her race's deal to the end."""
    assert isinstance(await anne.call(Ready(ready=True)), Ok)
    started = await anne.expect(Started, wait=10)
    for move in solve(Board.from_code(started.deal)).moves:
        await anne.call(MoveRequest(move=str(move)))


async def lose_a_rated_quick_match(
    app: RaceApp, pilot: Pilot[None], anne: WsClient
) -> tuple[RaceController, ResultsScreen]:
    """Carla quick-matches from the lobby, Anne joins her rated room and wins: Carla's results."""
    await connect(app, pilot)
    await pilot.click("#quick")
    await until(pilot, lambda: app.room is not None, "the quick match")
    room = room_of(app)
    joined = await anne.call(QuickMatch())
    assert isinstance(joined, RoomState) and joined.room == room.code and joined.rated
    await until(pilot, lambda: room.model.my_status() == Status.READY, "Carla ready by herself")
    await win(anne)
    await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results", 15)
    results = top(app)
    assert isinstance(results, ResultsScreen)
    await until(pilot, lambda: results.query("#standings"), "the standings drawn")
    return room, results


async def test_the_results_show_the_new_ratings_as_the_rating_message_comes(
    server: RaceServer, data_home: Path
) -> None:
    """The ``rating`` message comes after the results are up: they show it in place, Carla's new
    number with its change and Anne's new number (read again from her player page)."""
    app = RaceApp(url_of(server), "Carla", autoconnect=False, automove=False)
    anne = await registered(url_of(server), "Anne")
    async with app.run_test(size=SIZE) as pilot:
        room, results = await lose_a_rated_quick_match(app, pilot, anne)
        hers = await anne.expect(RatingNotice, wait=20)  # archived and rated
        await until(pilot, lambda: "seahaven" in app.ratings, "Carla's rating message", 20)
        mine = app.ratings["seahaven"]
        assert mine.race_id == hers.race_id == room.model.race_id and mine.change < 0 < hers.change
        want = (f"Carla (you) {with_change(mine)}", f"Anne {shown(hers.rating, hers.provisional)}")
        await until(pilot, lambda: all(w in standings_text(results) for w in want), f"{want} in the results", 10)
        assert top(app) is results, "updated in place: the same window, still on top"
    await anne.close()


async def test_a_ratings_change_is_shown_only_beside_its_own_race(server: RaceServer, data_home: Path) -> None:
    """After the rated race, a room of friends (unrated) shows Carla's rating without the rated
    race's change, in its racers panel and in its own results."""
    app = RaceApp(url_of(server), "Carla", autoconnect=False, automove=False)
    anne = await registered(url_of(server), "Anne")
    async with app.run_test(size=SIZE) as pilot:
        rated, _ = await lose_a_rated_quick_match(app, pilot, anne)
        await until(pilot, lambda: "seahaven" in app.ratings, "Carla's rating message", 20)
        mine = app.ratings["seahaven"]
        await pilot.press("escape")  # over the final board, the rated race's change beside her name
        await until(pilot, lambda: isinstance(top(app), RaceScreen), "the final board")
        assert panel(rated)[0].rating == with_change(mine)
        await pilot.press("l")
        await until(pilot, lambda: top(app) is app.lobby, "the lobby")
        assert isinstance(await anne.call(Leave()), Ok)

        room = await create_deal_1(app, pilot)
        assert not room.model.state.rated
        assert isinstance(await anne.call(JoinRoom(room=room.code)), RoomState)
        await until(pilot, lambda: len(room.model.racers) == 2, "Anne in the racers panel")
        assert panel(room)[0].rating == shown(mine.rating, mine.provisional), "no stale change"
        await pilot.press("r")
        await win(anne)
        await until(pilot, lambda: room.model.phase == Phase.FINISHED, "the unrated race over", 15)
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "its results")
        results = top(app)
        assert isinstance(results, ResultsScreen)
        await until(pilot, lambda: results.query("#standings"), "its standings drawn")
        drawn = standings_text(results)
        assert f"Carla (you) {shown(mine.rating, mine.provisional)}" in drawn, drawn
        assert f"{mine.change:+d}" not in drawn, drawn
    await anne.close()
