"""The terminal client's account screen (F7 in the lobby): Textual's pilot drives RaceApp against a
real server with registered players (``Accounts`` on a real SQLite file and a PostgreSQL database
of the test's own). Claim a handle, set a password, sign in from a second data folder and be the
same player, export my data to a file, delete my account (then anonymous, no player registered by
itself); every refusal in plain words."""

from __future__ import annotations

import json
import stat
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from client.apps.app import RaceApp
from client.data.userdata import PlayerKeys
from client.net.connection import ServerError
from client.screens.account_screen import PLAIN, AccountScreen, ConfirmDelete, explain
from protocol.errors import ErrorCode
from protocol.messages import ClaimHandle, Error, Hello, Identity, Ok, Ping, Pong, Register, SetPassword
from server.app import RaceServer
from server.records.accounts import Accounts
from server.records.database import Database
from tests.client_driver import SIZE, click, connect, data_home, top, until
from tests.helpers import MakeServer, url_of
from tests.wsclient import WsClient

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one

PASSWORD = "correct horse battery"


@pytest.fixture
async def server(make_memory_server: MakeServer, database: Database) -> AsyncIterator[RaceServer]:
    yield await make_memory_server(accounts=Accounts(database))


async def registered_app(app: RaceApp, pilot: Pilot[None], folder: Path) -> str:
    """Connect from the lobby and wait for the player the client registers; its key."""
    await connect(app, pilot)
    await until(pilot, lambda: PlayerKeys.load(folder).key_for(app.server) is not None, "a player registered")
    key = PlayerKeys.load(folder).key_for(app.server)
    assert key is not None
    return key


async def open_account(app: RaceApp, pilot: Pilot[None]) -> AccountScreen:
    await pilot.press("f7")
    await until(pilot, lambda: isinstance(top(app), AccountScreen), "the account screen")
    screen = top(app)
    assert isinstance(screen, AccountScreen)
    return screen


async def identified(pilot: Pilot[None], screen: AccountScreen) -> None:
    """The screen said hello again with the kept key: the session is the registered player's."""
    await until(pilot, lambda: screen.state is not None and screen.state.identified, "the registered player's session")
    await until(pilot, lambda: not screen.busy, "the reconnection done")


async def press(pilot: Pilot[None], screen: AccountScreen, button: str, expect: str) -> None:
    """Click ``button`` and wait for the message line to say ``expect``."""
    await click(pilot, button)
    await until(pilot, lambda: expect in screen.status_text and not screen.busy, f"{expect!r} ({screen.status_text})")


def type_in(screen: AccountScreen, **fields: str) -> None:
    for widget, value in fields.items():
        screen.query_one(f"#{widget.replace('_', '-')}", Input).value = value


async def test_claim_a_handle_set_a_password_sign_in_elsewhere_export_and_delete(
    server: RaceServer, tmp_path: Path
) -> None:
    url = url_of(server)
    one, two = tmp_path / "one", tmp_path / "two"
    bob = await WsClient.open(url, "Bob")
    bob_identity = await bob.call(Register())
    assert isinstance(bob_identity, Identity) and bob_identity.key is not None
    bob_keyed = await WsClient.open(url, "Bob", key=bob_identity.key)
    assert isinstance(await bob_keyed.call(ClaimHandle(handle="Bob")), Identity)

    app = RaceApp(url, "ann", autoconnect=False, data=one)
    async with app.run_test(size=SIZE) as pilot:
        key = await registered_app(app, pilot, one)
        ann = key.partition(".")[0]
        # Registered before its first session opened: that session is the player's already.
        assert app.conn is not None and app.conn.welcome is not None and app.conn.welcome.identified
        assert app.conn.welcome.player == ann
        screen = await open_account(app, pilot)
        await identified(pilot, screen)
        assert app.conn is not None and app.conn.welcome is not None and app.conn.welcome.player == ann
        assert f"You are player {ann}" in screen.who_text and "no handle yet" in screen.who_text
        assert screen.focused is screen.query_one("#handle", Input), "the handle is what a new player types first"
        assert "Connected to" in app.lobby.status_text, "the lobby says so too"

        # A handle: the rule checked here, a look-alike of Bob's refused by the server, then Ann.
        type_in(screen, handle="ab")
        await press(pilot, screen, "#claim", "That handle will not do: a handle has 3 to 24 characters")
        type_in(screen, handle="B0b")
        await press(pilot, screen, "#claim", "Someone already holds the handle 'B0b', or one that looks just like it")
        assert "handle-taken" not in screen.status_text
        type_in(screen, handle="Ann")
        await press(pilot, screen, "#claim", "Your handle is @Ann")
        assert "handle @Ann" in screen.who_text

        # A password: typed twice, 8 characters or more.
        type_in(screen, password=PASSWORD, password_again=PASSWORD + "!")
        await press(pilot, screen, "#set-password", "The two passwords differ")
        type_in(screen, password="short", password_again="short")
        await press(pilot, screen, "#set-password", "A password has 8 to 128 characters")
        type_in(screen, password=PASSWORD, password_again=PASSWORD)
        await press(pilot, screen, "#set-password", "Password set: sign in on another machine with @Ann")
        assert screen.query_one("#password", Input).value == "", "no password stays on the screen"

        # The export: a JSON file in the data folder, readable by the user only; the line says where.
        await press(pilot, screen, "#export", "Your data (0 races on record) is in ")
        path = screen.exported
        assert path is not None and path.parent == one and str(path) in screen.status_text
        exported = json.loads(path.read_text(encoding="utf-8"))
        assert exported["player"]["player"] == ann and exported["player"]["handle"] == "Ann"
        assert exported["races"] == [] and exported["truncated"] is False
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert key not in path.read_text(encoding="utf-8")

    # Another machine (a second data folder): its own player first, then Ann by handle and password.
    app = RaceApp(url, "ann on the laptop", autoconnect=False, data=two)
    async with app.run_test(size=SIZE) as pilot:
        own = await registered_app(app, pilot, two)
        assert not own.startswith(ann)
        screen = await open_account(app, pilot)
        await identified(pilot, screen)
        assert screen.state is not None and screen.state.player == own.partition(".")[0]
        type_in(screen, sign_in_handle="ANN", sign_in_password="wrong password")
        await press(pilot, screen, "#sign-in", "No player has that handle, or the password is wrong")
        type_in(screen, sign_in_handle="ANN", sign_in_password=PASSWORD)
        await press(pilot, screen, "#sign-in", f"Signed in: this machine is player {ann} (@Ann) here now")
        assert screen.state is not None and screen.state.identified and screen.state.player == ann
        assert app.conn is not None and app.conn.welcome is not None and app.conn.welcome.player == ann
        assert f"You are player {ann}" in screen.who_text and "handle @Ann" in screen.who_text
        second = PlayerKeys.load(two).key_for(url)
        assert second is not None and second.startswith(ann + ".") and second != key, "this machine's own key"

        # Delete: a confirm step (Keep is the default), then the key forgotten and anonymous.
        await click(pilot, "#delete")
        await until(pilot, lambda: isinstance(top(app), ConfirmDelete), "are you sure?")
        await click(pilot, "#keep")
        await until(pilot, lambda: top(app) is screen and "Your account is kept" in screen.status_text, "kept")
        assert PlayerKeys.load(two).key_for(url) == second
        await click(pilot, "#delete")
        await until(pilot, lambda: isinstance(top(app), ConfirmDelete), "are you sure? again")
        await click(pilot, "#confirm")
        await until(pilot, lambda: "Your account is deleted" in screen.status_text and not screen.busy, "the deletion")
        kept = PlayerKeys.load(two)
        assert kept.key_for(url) is None and kept.stays_anonymous(url)
        assert app.conn is not None and app.conn.welcome is not None
        assert not app.conn.welcome.identified and app.conn.welcome.player != ann
        assert "deleted your account here" in screen.who_text
        assert screen.query_one("#register").display and screen.query_one("#data-box").disabled

        # Ann is gone: her handle signs nobody in, and the first machine's key is refused.
        type_in(screen, sign_in_handle="Ann", sign_in_password=PASSWORD)
        await press(pilot, screen, "#sign-in", "No player has that handle, or the password is wrong")
        stale = await WsClient.open(url)
        refused = await stale.call(Hello(name="ann", key=key))
        assert isinstance(refused, Error) and refused.code == ErrorCode.BAD_KEY
        await stale.close()

    # Started again, the client stays anonymous there: it registers no new player by itself.
    app = RaceApp(url, "ann on the laptop", autoconnect=False, data=two)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        assert app.conn is not None and app.conn.on_key is None
        assert isinstance(await app.conn.request(Ping()), Pong)  # after any register it could have sent
        assert PlayerKeys.load(two).key_for(url) is None
        assert app.conn.welcome is not None and not app.conn.welcome.identified

        # Register (on the screen) makes a new player, and the client is that player at once.
        screen = await open_account(app, pilot)
        await press(pilot, screen, "#register", "You are registered")
        fresh = PlayerKeys.load(two)
        new_key = fresh.key_for(url)
        assert new_key is not None and not fresh.stays_anonymous(url)
        assert screen.state is not None and screen.state.identified
        assert screen.state.player == new_key.partition(".")[0] != ann
    for client in (bob, bob_keyed):
        await client.close()


async def test_a_server_without_players_says_so_in_plain_words(make_memory_server: MakeServer, tmp_path: Path) -> None:
    server = await make_memory_server()  # no records: every account request is refused
    app = RaceApp(url_of(server), "ann", autoconnect=False, data=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_account(app, pilot)
        assert "Not connected" in screen.who_text and "Connect in the lobby first" in screen.status_text
        assert screen.query_one("#sign-in-box").disabled and screen.query_one("#handle-box").disabled
        await pilot.press("escape")
        await until(pilot, lambda: top(app) is app.lobby, "the lobby")

        await connect(app, pilot)
        assert app.conn is not None and isinstance(await app.conn.request(Ping()), Pong)
        assert PlayerKeys.load(tmp_path).key_for(app.server) is None  # register was refused
        screen = await open_account(app, pilot)
        assert "the server registered no player for you" in screen.who_text
        assert screen.query_one("#handle-box").disabled and screen.query_one("#data-box").disabled
        unavailable = "The server's player records are unavailable (down for now, or this server keeps none)"
        await press(pilot, screen, "#register", unavailable)
        type_in(screen, sign_in_handle="Ann", sign_in_password=PASSWORD)
        await press(pilot, screen, "#sign-in", unavailable)
        assert "records-unavailable" not in screen.status_text
        type_in(screen, sign_in_handle="  ", sign_in_password=PASSWORD)
        await press(pilot, screen, "#sign-in", "Type the handle you signed up with")


def test_every_account_refusal_reads_in_plain_words() -> None:
    codes = {
        ErrorCode.BAD_KEY,
        ErrorCode.HANDLE_TAKEN,
        ErrorCode.BAD_HANDLE,
        ErrorCode.BAD_CREDENTIALS,
        ErrorCode.NOT_IDENTIFIED,
        ErrorCode.RECORDS_UNAVAILABLE,
        ErrorCode.RATE_LIMITED,
    }
    assert codes <= PLAIN.keys()
    for code in codes:
        words = explain(ServerError(code, "the server's words"), "Ann")
        assert code not in words and words[0].isupper(), words
    assert explain(ServerError(ErrorCode.BAD_HANDLE, "a handle is not digits only")) == (
        "That handle will not do: a handle is not digits only"
    )
    assert "'Ann'" in explain(ServerError(ErrorCode.HANDLE_TAKEN, "taken"), "Ann")
    assert "wait 5 minutes" in explain(ServerError(ErrorCode.RATE_LIMITED, "too many sign-in attempts: wait 5 minutes"))
    assert explain(ServerError("something-new", "why")) == "The server refused it (something-new): why"


async def test_sign_in_at_the_first_start_makes_no_new_player(server: RaceServer, data_home: Path) -> None:
    """A player made on another machine: "Sign in" beside Connect connects without registering,
    opens the account screen at the handle, and its sign-in makes this machine that player."""
    url = url_of(server)
    elsewhere = await WsClient.open(url, "Ann")
    made = await elsewhere.call(Register())
    assert isinstance(made, Identity) and made.key is not None
    ann = await WsClient.open(url, "Ann", key=made.key)
    assert isinstance(await ann.call(ClaimHandle(handle="Ann")), Identity)
    assert isinstance(await ann.call(SetPassword(password=PASSWORD)), Ok)

    app = RaceApp(url, "Ann at home", autoconnect=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#sign-in-first")
        await until(pilot, lambda: isinstance(top(app), AccountScreen), "the account screen")
        screen = top(app)
        assert isinstance(screen, AccountScreen)
        await until(pilot, lambda: screen.query_one("#sign-in-handle", Input).has_focus, "the handle first")
        assert app.conn is not None and app.conn.welcome is not None and not app.conn.welcome.identified
        assert PlayerKeys.load(data_home).key_for(url) is None  # no throwaway player made meanwhile
        type_in(screen, sign_in_handle="ann", sign_in_password=PASSWORD)
        await press(pilot, screen, "#sign-in", f"Signed in: this machine is player {made.player} (@Ann) here now")
        await identified(pilot, screen)
        kept = PlayerKeys.load(data_home).key_for(url)
        assert kept is not None and kept.startswith(f"{made.player}.") and kept != made.key
        assert app.conn.welcome is not None and app.conn.welcome.player == made.player
    for client in (elsewhere, ann):
        await client.close()
