"""The terminal client and the server's operators: a notice is shown as a notification wherever the
player is, and a room a moderator closed takes the player back to the lobby saying so."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from textual.pilot import Pilot

from client.apps.app import RaceApp
from client.screens.lobby import LobbyScreen
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests.client_driver import SIZE, connect, create_deal_1, data_home, top, until
from tests.helpers import url_of

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    race = RaceServer(Config(port=0, countdown_ms=100, rate=10000, burst=10000), MemoryStore())
    await race.start()
    yield race
    await race.stop()


def toasts(pilot: Pilot[None]) -> str:
    """The text of every notification on the screen."""
    return " ".join(str(toast.render()) for toast in pilot.app.screen.query("Toast"))


async def test_a_notice_shows_in_the_lobby_and_a_closed_room_sends_the_player_back(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await connect(app, pilot)
        await server.moderation.notice("Restarting in 5 minutes")
        await until(pilot, lambda: "Restarting in 5 minutes" in toasts(pilot), "the notice")

        room = await create_deal_1(app, pilot)
        code = room.model.code
        await server.moderation.close_room(code, "cheating")
        await until(pilot, lambda: isinstance(top(app), LobbyScreen), "back in the lobby")
        await until(pilot, lambda: f"room {code} was closed by a moderator" in toasts(pilot), "the closed room")
        assert "cheating" in toasts(pilot)
