"""The terminal client as a registered player: it registers on its first connection to a server
that keeps players, keeps the key in ``player.json`` (mode 0600), says it at the next connection,
forgets a key the server refuses, and races on anonymous when the server cannot check it."""

from __future__ import annotations

import asyncio
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from client.apps.app import RaceApp
from client.data.userdata import PLAYER_FILE, PlayerKeys
from client.net.connection import RaceConnection
from protocol.messages import Identity, Ping, Pong, Register
from server.app import RaceServer
from server.players.identities import MARK
from server.records.accounts import Accounts
from server.records.database import Database, open_database
from server.records.migrate import migrate
from tests.client_driver import data_home, until
from tests.helpers import MakeServer, url_of
from tests.pg_proc import PgProcess
from tests.wsclient import WsClient

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one


class Keys:
    """What ``on_key`` was told, and a way to wait for it."""

    def __init__(self) -> None:
        self.told: list[str | None] = []
        self.changed = asyncio.Event()

    def __call__(self, key: str | None) -> None:
        self.told.append(key)
        self.changed.set()

    async def next(self) -> str | None:
        await asyncio.wait_for(self.changed.wait(), 10)
        self.changed.clear()
        return self.told[-1]


@pytest.fixture
async def server(make_memory_server: MakeServer, database: Database) -> AsyncIterator[RaceServer]:
    yield await make_memory_server(accounts=Accounts(database))


async def test_the_first_connection_registers_before_its_session_and_the_next_says_the_key(
    server: RaceServer,
) -> None:
    keys = Keys()
    first = RaceConnection(url_of(server), "Ann", lambda m: None, on_key=keys)
    welcome = await first.connect()
    assert len(keys.told) == 1, "the key is kept before the session opens"
    key = keys.told[0]
    assert key is not None and key.startswith("u") and first.key == key
    # The session is the player's from the first race on: nothing is filed under a session id.
    assert welcome.identified and welcome.player == key.partition(".")[0] and welcome.name == "Ann"
    assert isinstance(await first.request(Ping()), Pong)
    assert keys.told == [key], "registered once"
    await first.close()

    again = Keys()
    second = RaceConnection(url_of(server), "Ann", lambda m: None, key=key, on_key=again)
    back = await second.connect()
    assert back.identified and back.player == key.partition(".")[0]
    assert isinstance(await second.request(Ping()), Pong)
    assert again.told == []  # a keyed connection registers nothing
    await second.close()


async def test_a_refused_key_is_forgotten_and_a_new_player_registered(server: RaceServer) -> None:
    keys = Keys()
    owner = await WsClient.open(url_of(server), "Ann")
    made = await owner.call(Register())
    assert isinstance(made, Identity)
    await owner.close()
    # A wrong secret of a player the server knows (in its cache since it registered): refused as
    # bad-key without asking the database, which a loaded machine could not answer in the hello's
    # 0.5 s (then records-unavailable: the client rightly keeps a key it could not check).
    forged = f"{made.player}.{'A' * 43}"
    conn = RaceConnection(url_of(server), "Ann", lambda m: None, key=forged, on_key=keys)
    welcome = await conn.connect()
    forgotten, fresh = keys.told  # forget it, and here is a key of our own (before the session opened)
    assert forgotten is None and fresh is not None and fresh != forged
    assert welcome.identified and welcome.player == fresh.partition(".")[0]  # the session is that player's
    await conn.close()


async def test_a_key_the_server_cannot_check_now_is_kept(
    make_memory_server: MakeServer, private_postgres: PgProcess, tmp_path: Path
) -> None:
    db = open_database(private_postgres.url, tmp_path)
    await migrate(db)
    try:
        server = await make_memory_server(accounts=Accounts(db))
        keys = Keys()
        first = RaceConnection(url_of(server), "Ann", lambda m: None, on_key=keys)
        await first.connect()
        key = await keys.next()
        assert key is not None
        await first.close()
        await server.store.mark_player(key.partition(".")[0], MARK, 60)  # the server must ask the database...
        private_postgres.stop()  # ...which is down
        later = Keys()
        conn = RaceConnection(url_of(server), "Ann", lambda m: None, key=key, on_key=later)
        welcome = await conn.connect()
        assert not welcome.identified and conn.key == key and later.told == []
        await conn.close()
    finally:
        await db.close()


async def test_a_first_visit_while_the_database_is_down_is_the_players_once_it_is_back(
    make_memory_server: MakeServer, private_postgres: PgProcess, tmp_path: Path, data_home: Path
) -> None:
    """A new player's first registration meets a database that is down: the terminal races on
    anonymously and asks again, and once the database is back the session is the registered
    player's (the key kept), without the account screen being opened."""
    db = open_database(private_postgres.url, tmp_path)
    await migrate(db)
    try:
        server = await make_memory_server(accounts=Accounts(db))
        url = url_of(server)
        private_postgres.stop()
        app = RaceApp(url, "Ann", autoconnect=True, automove=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.conn is not None and app.conn.welcome is not None, "the session")
            assert app.conn is not None and app.conn.welcome is not None and not app.conn.welcome.identified
            assert PlayerKeys.load(data_home).key_for(url) is None
            private_postgres.start()
            await until(
                pilot,
                lambda: app.conn is not None and app.conn.welcome is not None and app.conn.welcome.identified,
                "the registered player's session",
            )
            key = PlayerKeys.load(data_home).key_for(url)
            assert key is not None and key.partition(".")[0] == app.conn.welcome.player
    finally:
        await db.close()


async def test_a_server_without_players_is_raced_anonymously(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    keys = Keys()
    conn = RaceConnection(url_of(server), "Ann", lambda m: None, on_key=keys)
    welcome = await conn.connect()
    assert not welcome.identified and isinstance(await conn.request(Ping()), Pong)  # register was refused
    assert keys.told == [] and conn.key is None
    await conn.close()


def test_keys_are_kept_per_server_readable_by_the_user_only(tmp_path: Path) -> None:
    assert PlayerKeys.load(tmp_path).key_for("ws://a") is None
    PlayerKeys.load(tmp_path).with_key("ws://a", "uA.x").with_key("ws://b", "uB.y").save(tmp_path)
    path = tmp_path / PLAYER_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    kept = PlayerKeys.load(tmp_path)
    assert kept.key_for("ws://a") == "uA.x" and kept.key_for("ws://b") == "uB.y"
    kept.with_key("ws://a", None).save(tmp_path)
    assert PlayerKeys.load(tmp_path).keys == {"ws://b": "uB.y"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("{not json")
    assert PlayerKeys.load(tmp_path).keys == {}
    path.write_text('{"keys": {"ws://a": 3, "ws://b": "uB.y"}}')
    assert PlayerKeys.load(tmp_path).keys == {"ws://b": "uB.y"}
