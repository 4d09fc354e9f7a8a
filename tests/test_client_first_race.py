"""A new user of the terminal client is a player from the first race: the client registers before
its first session opens, so the race is filed under the player its kept key names, and F4 after
that one race shows it (a real server with records on a SQLite file)."""

from __future__ import annotations

import time
from pathlib import Path

from textual.widgets import DataTable

from client.apps.app import RaceApp
from client.data.userdata import PlayerKeys
from client.screens.race_screen import RaceScreen
from client.screens.records_screens import PlayerScreen
from client.screens.results import ResultsScreen
from protocol.messages import JoinRoom, Ready, Resign, RoomState
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.database import open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from tests.client_driver import SIZE, connect, create_deal_1, data_home, top, until
from tests.fit import cut_words
from tests.helpers import MakeServer, url_of, wait_until
from tests.wsclient import WsClient

__all__ = ["data_home"]


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


async def test_a_fresh_clients_first_race_is_on_its_players_page(
    make_memory_server: MakeServer, tmp_path: Path, data_home: Path
) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    await migrate(db)
    reader = Reader(db, now=wall_ms)
    try:
        server = await make_memory_server(
            accounts=Accounts(db), archive=Archive(db, now=wall_ms), records=reader, deals=lambda: 1
        )
        url = url_of(server)
        app = RaceApp(url, "Ann", autoconnect=False, automove=False)
        async with app.run_test(size=SIZE) as pilot:
            await connect(app, pilot)
            key = PlayerKeys.load(data_home).key_for(url)
            assert key is not None, "registered at the first start, without a question"
            player = key.partition(".")[0]
            assert app.conn is not None and app.conn.welcome is not None
            assert app.conn.welcome.identified and app.conn.welcome.player == player

            room = await create_deal_1(app, pilot)
            bob = await WsClient.open(url, "Bob")
            assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
            await until(pilot, lambda: len(room.model.racers) == 2, "Bob in the racers panel")
            await pilot.press("r")
            await bob.call(Ready(ready=True))
            await until(pilot, lambda: room.model.phase == "racing", "the race (the server's countdown is 0)")
            await bob.call(Resign())
            await pilot.press("R", "R")
            await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")

            async def on_record() -> bool:
                return len((await reader.player_races(player))["races"]) == 1

            await wait_until(on_record, 20, what="the race on the player's record")
            await pilot.press("escape")  # the results close over the final board: the room stays
            await until(pilot, lambda: isinstance(top(app), RaceScreen), "the final board")
            assert app.room is room and "l to leave the room" in room.screen.message_text
            await pilot.press("l")
            await until(pilot, lambda: top(app) is app.lobby, "the lobby")
            await pilot.press("f4")
            await until(pilot, lambda: isinstance(top(app), PlayerScreen), "my page")
            page = top(app)
            assert isinstance(page, PlayerScreen)
            await until(pilot, lambda: page.document is not None, "the page read", 15)
            races: DataTable[str] = page.query_one("#player-races", DataTable)
            await until(pilot, lambda: races.row_count == 1, "the race on my page", 15)
            assert page.document is not None and page.document["player"] == player
            await pilot.resize_terminal(80, 24)  # issue 39: the time column was cut at 80 columns
            await pilot.pause()
            assert cut_words(page, 80) == []
        await bob.close()
    finally:
        await db.close()
