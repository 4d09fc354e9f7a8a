"""One player in two terminals (or a terminal and a browser): both stay connected, and the race
seat moves to whichever asks for it (docs/protocol.md, "One player, several connections"). The
terminal client here is one of them; the other is a protocol client saying hello with the same
kept key (a real server with records on a SQLite file)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.widgets import Input

from client.apps.app import RaceApp
from client.data.userdata import PlayerKeys
from protocol.messages import CreateRoom, Identity, JoinRoom, Ping, Pong, Register, RoomState, SeatTaken
from server.app import RaceServer
from server.records.accounts import Accounts
from server.records.database import open_database
from server.records.migrate import migrate
from tests.client_driver import SIZE, connect, create_deal_1, data_home, top, until
from tests.helpers import MakeServer, url_of
from tests.wsclient import WsClient

__all__ = ["data_home"]


@pytest.fixture
async def server(make_memory_server: MakeServer, tmp_path: Path) -> AsyncIterator[RaceServer]:
    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    await migrate(db)
    try:
        yield await make_memory_server(accounts=Accounts(db), deals=lambda: 1)
    finally:
        await db.close()


async def test_another_device_takes_the_seat_and_the_terminal_takes_it_back(
    server: RaceServer, data_home: Path
) -> None:
    url = url_of(server)
    app = RaceApp(url, "Ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        key = PlayerKeys.load(data_home).key_for(url)
        assert key is not None
        other = await WsClient.open(url, "Ann", key=key)  # the same player on another device
        assert other.welcome is not None and other.welcome.seat == room.code
        assert isinstance(await other.call(JoinRoom(room=room.code)), RoomState)

        await until(pilot, lambda: top(app) is app.lobby, "the lobby, the seat gone to the other device")
        assert "Playing in another terminal or device" in app.lobby.status_text
        assert app.connected and app.room is None
        code = app.lobby.query_one("#code", Input)
        assert code.value == room.code
        await until(pilot, lambda: code.has_focus, "the room's code ready for Enter")
        assert isinstance(await other.call(Ping()), Pong)

        await pilot.press("enter")  # the code is ready: the seat comes back here
        await until(pilot, lambda: app.room is not None and app.room.code == room.code, "back in the room")
        assert (await other.expect(SeatTaken)).room == room.code
        await other.close()


async def test_a_second_terminal_starts_beside_the_race_and_may_take_its_seat(
    server: RaceServer, data_home: Path
) -> None:
    url = url_of(server)
    first = await WsClient.open(url, "Ann")  # the player's first terminal, registered already
    identity_key = await _registered_key(first)
    PlayerKeys.load(data_home).with_key(url, identity_key).save(data_home)
    racing = await WsClient.open(url, "Ann", key=identity_key)
    created = await racing.call(CreateRoom())
    assert isinstance(created, RoomState)

    app = RaceApp(url, "Ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#connect")
        await until(pilot, lambda: "racing in room" in app.lobby.status_text, "told where the player races")
        assert app.connected and app.room is None
        assert app.lobby.query_one("#code", Input).value == created.room
        assert isinstance(await racing.call(Ping()), Pong)  # the first terminal stays connected

        await pilot.press("enter")
        await until(pilot, lambda: app.room is not None and app.room.code == created.room, "the seat here")
        assert (await racing.expect(SeatTaken)).room == created.room
    await racing.close()
    await first.close()


async def _registered_key(client: WsClient) -> str:
    identity = await client.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    return identity.key


async def test_the_players_name_follows_them_and_changes_on_purpose(server: RaceServer, data_home: Path) -> None:
    """Registered, the player's name is theirs on every device (a second start with another name
    shows it); typed over it in the lobby and connected again, it changes for every device."""
    url = url_of(server)
    app = RaceApp(url, "Ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        key = PlayerKeys.load(data_home).key_for(url)
        assert key is not None
        app.lobby.query_one("#name", Input).value = "Annie"
        await pilot.click("#connect")  # Reconnect, with the new name
        await until(pilot, lambda: "as Annie" in app.lobby.status_text, "connected as Annie")
    elsewhere = await WsClient.open(url, "whatever that device says", key=key)
    assert elsewhere.welcome is not None and elsewhere.welcome.name == "Annie"
    await elsewhere.close()
    again = RaceApp(url, "root", autoconnect=False, automove=False)  # the same machine, another name
    async with again.run_test(size=SIZE) as pilot:
        await connect(again, pilot)
        assert again.lobby.query_one("#name", Input).value == "Annie"
        assert again.conn is not None and again.conn.welcome is not None and again.conn.welcome.name == "Annie"
