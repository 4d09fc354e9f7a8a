"""What issue 39 found in the terminal client, each walked with Textual's pilot against a real
server: a focused button keeps its label (it was drawn as an empty box)."""

from __future__ import annotations

from textual.color import Color
from textual.geometry import Region
from textual.widgets import Button

from client.app import RaceApp
from tests.client_driver import connect, data_home, until
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
