"""What issue 39 found in the terminal client, each walked with Textual's pilot against a real
server: a focused button keeps its label (it was drawn as an empty box); back on the first server
the player is back in the race they left there."""

from __future__ import annotations

from pathlib import Path

from textual.color import Color
from textual.geometry import Region
from textual.widgets import Button, Input

from client.app import RaceApp
from server.records.accounts import Accounts
from server.records.database import Database, open_database
from server.records.migrate import migrate
from tests.client_driver import SIZE, connect, create_deal_1, data_home, top, until
from tests.helpers import MakeServer, url_of

__all__ = ["data_home"]

FOCUS = Color.parse("#fde047")


def drawn(button: Button) -> str:
    """The button's cells as drawn (its outline and border included)."""
    width, height = button.size
    return "".join(strip.text for strip in button.render_lines(Region(0, 0, width, height)))


async def test_bug2_a_focused_button_keeps_its_label(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await connect(app, pilot)
        lobby = app.lobby
        await pilot.press("f3")  # the daily race's button, focused
        race = lobby.query_one("#daily-race", Button)
        await until(pilot, lambda: race.has_focus, "the daily Race focused")
        await pilot.pause()
        assert "Race" in drawn(race), drawn(race)
        for name in ("#create", "#quick", "#connect", "#join"):
            button = lobby.query_one(name, Button)
            button.focus()
            await until(pilot, lambda button=button: button.has_focus, f"{name} focused")  # type: ignore[misc]
            await pilot.pause()
            assert str(button.label) in drawn(button), (name, drawn(button))
            assert button.styles.background == FOCUS, "and the focus shows"


async def test_bug4_back_to_the_first_server_puts_the_player_back_in_their_race(
    make_memory_server: MakeServer, tmp_path: Path
) -> None:
    """Quit mid-race on server A, start on server B, then type A's address again: the player is
    back in the room they left there (it was "Welcome back" with the lobby still showing, and
    every join refused "you are in room ...: leave it first")."""
    one, other = (
        await make_memory_server(accounts=Accounts(await records(tmp_path, "a"))),
        await make_memory_server(accounts=Accounts(await records(tmp_path, "b"))),
    )
    first = RaceApp(url_of(one), "ann", autoconnect=False, automove=False)
    async with first.run_test(size=SIZE) as pilot:
        await connect(first, pilot)
        room = await create_deal_1(first, pilot)
        code = room.code
    app = RaceApp(url_of(other), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        app.lobby.query_one("#server", Input).value = url_of(one)
        await pilot.click("#connect")
        await until(pilot, lambda: app.room is not None, "back in the room on the first server", 10)
        assert app.room is not None and app.room.code == code
        assert top(app) is not app.lobby


async def records(folder: Path, name: str) -> Database:
    db = open_database(f"sqlite:///{folder / name}.db", folder)
    await migrate(db)
    return db
