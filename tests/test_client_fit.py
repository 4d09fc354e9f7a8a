"""Issue 39, bug 6: at 80x24 no screen cuts a word, in any of the four languages. One walk per
language through the screens a player meets (the lobby with a public room listed, a room waiting
with its settings, a race, the results, the final board and its review, statistics, my page,
account, arena, friends, help), each checked by tests/fit.py: every word a widget is asked to show is in
what it draws."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import DataTable, Input
from textual.widgets._footer import FooterKey

import i18n
from client.apps.app import RaceApp
from client.screens.friends_screen import FriendsScreen
from client.screens.game_screen import GameScreen
from client.screens.help import HelpScreen
from client.screens.race_screen import RaceScreen
from client.screens.records_screens import PlayerScreen
from client.screens.results import ResultsScreen
from client.screens.review import ReviewScreen
from protocol.messages import CreateRoom, Invited, JoinRoom, Leave, Ok, Ready, Resign, RoomState
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.database import open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from tests.client_driver import data_home, room_of, top, until
from tests.fit import cut_words, drawn
from tests.helpers import MakeServer, url_of
from tests.wsclient import WsClient

__all__ = ["data_home"]

SIZE = (80, 24)


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_no_screen_cuts_a_word_at_80x24(make_memory_server: MakeServer, tmp_path: Path, language: str) -> None:
    # Records in a SQLite file: my page and the review's verdict have something to show.
    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    await migrate(db)
    server = await make_memory_server(
        accounts=Accounts(db), archive=Archive(db, now=wall_ms), records=Reader(db, now=wall_ms)
    )
    bob = await WsClient.open(url_of(server), "Bob")
    assert isinstance(await bob.call(CreateRoom(deal_number=7, public=True, undo=False, time_limit=600)), RoomState)
    cuts: list[str] = []

    async def look(pilot: Pilot[None], where: str) -> None:
        await pilot.pause()
        cuts.extend(f"{where}: {cut}" for cut in cut_words(top(app), SIZE[0]))

    i18n.use(language)
    try:
        app = RaceApp(url_of(server), "Ann", autoconnect=True, automove=False)
        async with app.run_test(size=SIZE) as pilot:
            rooms = app.lobby.query_one("#rooms", DataTable)
            await until(pilot, lambda: app.connected and rooms.row_count == 1, "connected, Bob's room listed")
            await look(pilot, "lobby")
            rooms.scroll_visible(animate=False)
            await look(pilot, "lobby, its public rooms")
            # Undo and hints on: the race's footer has every key it can have.
            await app.enter(CreateRoom(deal_number=1, undo=True, time_limit=600, hints=True))
            room = room_of(app)
            assert isinstance(await bob.call(Leave()), Ok)  # his public room was for the lobby's list
            assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
            await until(pilot, lambda: len(room.model.racers) == 2, "Bob seated")
            await look(pilot, "room waiting")
            await pilot.press("r")
            await bob.call(Ready(ready=True))
            await until(pilot, lambda: room.model.phase == "racing" and not room.screen.locked, "the race")
            await look(pilot, "race")
            await pilot.press("question_mark")
            await until(pilot, lambda: isinstance(top(app), HelpScreen), "the help")
            await look(pilot, "help")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(top(app), RaceScreen), "the race again")
            await bob.call(Resign())
            await pilot.press("R", "R")
            await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
            await look(pilot, "results")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(top(app), RaceScreen), "the final board")
            await look(pilot, "final board")
            await pilot.press("v")
            await until(pilot, lambda: read(top(app)), "the review, its record read")
            await look(pilot, "review")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(top(app), RaceScreen), "the final board again")
            await pilot.press("l")
            await until(pilot, lambda: top(app) is app.lobby, "the lobby")
            screens = (("f2", "statistics"), ("f4", "my page"), ("f7", "account"), ("f8", "arena"), ("f9", "friends"))
            for key, where in screens:
                await pilot.press(key)
                await until(pilot, lambda: top(app) is not app.lobby and loaded(top(app)), where)
                await look(pilot, where)
                await pilot.press("escape")
                await until(pilot, lambda: top(app) is app.lobby, "the lobby again")
    finally:
        i18n.use("en")
        await bob.close()
    assert cuts == [], "\n".join(cuts)


def wall_ms() -> int:
    return int(time.time() * 1000)


def read(screen: object) -> bool:
    """A review has read the race on record (the verdict and the server's moves are in its line)."""
    return isinstance(screen, ReviewScreen) and screen.source != "reading"


def loaded(screen: object) -> bool:
    """A records screen has its document (my page: the player's races) before it is looked at."""
    if isinstance(screen, FriendsScreen):  # its answer in (this server keeps no friends: it says so)
        return not screen.busy and screen.status_text != "Reading your friends…"
    return not isinstance(screen, PlayerScreen) or screen.document is not None


async def test_the_check_sees_a_cut_word_a_cut_cell_and_a_widget_past_the_edge() -> None:
    """tests/fit.py itself: what it must find on a screen made to cut, and what it must not."""
    from textual.app import App, ComposeResult
    from textual.widgets import Label

    class Cut(App[None]):
        CSS = "#narrow { width: 7; } #wide { width: 90; } #table { width: 20; height: 4; }"

        def compose(self) -> ComposeResult:
            yield Label("senza condizioni", id="narrow")
            yield Label("fits", id="wide")
            yield Label("fits here too", id="fits")
            yield DataTable(id="table")

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_columns("room", "phase")
            table.add_row("ABC123", "waiting for racers")

    app = Cut()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        cuts = cut_words(app.screen, SIZE[0])
    assert cuts == [
        "Label#narrow: 'condizioni' of 'senza condizioni'",
        "Label#wide: past column 80 (to 90)",
        "DataTable#table: 'racers' of 'waiting for racers'",
    ], cuts


async def test_a_long_message_wraps_in_the_message_line(tmp_path: Path) -> None:
    """The message line is one line until a message needs more (a refusal's reason in French ran
    past 80 columns and lost its end)."""
    from client.apps.solo import SoloApp

    app = SoloApp("seahaven", 1, stats_path=tmp_path / "s.json", automove=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        said = "Coup refusé : une suite de 3 cartes est trop longue, la colonne 4 ne peut en recevoir que 2 maintenant"
        screen.flash(said, "error")
        await pilot.pause()
        assert screen.message.size.height == 2
        assert cut_words(screen, SIZE[0]) == []
        assert screen.view.too_small is None, "the board still fits"


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_a_spectators_screen_cuts_no_word_at_80x24(make_memory_server: MakeServer, language: str) -> None:
    """A spectator's header (whose board, the room, the cards home, the moves, how late) and the
    racers panel keep every word at 80x24 (the Dutch header lost its move count), and so do their
    results (the Dutch note lost its end)."""
    server = await make_memory_server()
    bob = await WsClient.open(url_of(server), "Bob")
    cid = await WsClient.open(url_of(server), "Cid")
    made = await bob.call(CreateRoom(deal_number=1, public=True))
    assert isinstance(made, RoomState)
    assert isinstance(await cid.call(JoinRoom(room=made.room)), RoomState)
    for racer in (bob, cid):
        await racer.call(Ready(ready=True))
    i18n.use(language)
    try:
        app = RaceApp(url_of(server), "Ann", autoconnect=True, automove=False)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.connected, "connected")
            await app.enter(JoinRoom(room=made.room, spectate=True))
            room = room_of(app)
            await until(pilot, lambda: room.model.phase == "racing", "the race")
            await pilot.press("right_square_bracket")
            await until(pilot, lambda: room.spectate.watched is not None, "a racer's board")
            await pilot.pause()
            cuts = [f"race: {cut}" for cut in cut_words(top(app), SIZE[0])]
            for racer in (bob, cid):  # the spectator's results: their note ran past 80 in Dutch
                await racer.call(Resign())
            await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
            await pilot.pause()
            cuts += [f"results: {cut}" for cut in cut_words(top(app), SIZE[0])]
    finally:
        i18n.use("en")
        await bob.close()
        await cid.close()
    assert cuts == [], "\n".join(cuts)


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_the_statistics_with_races_cut_no_word_at_80x24(tmp_path: Path, language: str) -> None:
    """The statistics screen with solo games and races in its history (a win, a second place, a
    race not finished): every column whole at 80x24, the deal codes too (French and Italian cut
    them)."""
    from client.apps.screenshots import ShowApp, sample_stats
    from client.screens.stats_screen import StatsScreen

    i18n.use(language)
    try:
        app = ShowApp(StatsScreen(sample_stats(tmp_path / "stats.json")))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, StatsScreen), "the statistics")
            await pilot.pause()
            cuts = cut_words(app.screen, SIZE[0])
    finally:
        i18n.use("en")
    assert cuts == [], cuts


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_the_friends_screen_and_an_invitation_cut_no_word(language: str, size: tuple[int, int]) -> None:
    """The friends screen with a friend in each presence, a request either way and a block, each
    row's keys said under the list, and recent rivals (a friend, one asking, strangers), each with
    their keys; then an invitation over it, with its seconds left."""
    from client.apps.screenshots import ShowApp, sample_friends, sample_rivals
    from client.screens.friends import InvitationScreen

    desk = sample_friends()
    i18n.use(language)
    cuts: list[str] = []
    width = size[0]
    try:
        app = ShowApp(FriendsScreen(desk, live=False, rivals=sample_rivals()))
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: isinstance(app.screen, FriendsScreen), "the friends screen")
            screen = app.screen
            assert isinstance(screen, FriendsScreen)
            screen.query_one("#people", DataTable).focus()
            for row in range(len(screen.rows)):  # each kind of row: its keys line and footer
                await pilot.pause()
                cuts += [f"row {row}: {cut}" for cut in cut_words(screen, width)]
                await pilot.press("down")
            rivals = screen.query_one("#rivals", DataTable)
            rivals.focus()
            for row in range(len(screen.rivals)):  # each rival: its line of keys, the footer, the row in sight
                await pilot.pause()
                assert screen.selected_rival() is screen.rivals[row]
                cuts += [f"rival {row}: {cut}" for cut in cut_words(screen, width)]
                await pilot.press("down")
            invited = Invited(
                invite="N3K7QW2PZ8XA",
                player="p7k2m9q4",
                name="marguerite",
                room="3R12R9",
                preset="seahaven",
                expires_at=desk.clock.now() + 58_000,
            )
            desk.invited[invited.invite] = invited
            app.push_screen(InvitationScreen(invited, desk, lambda: False))
            await until(pilot, lambda: isinstance(app.screen, InvitationScreen), "the invitation")
            await pilot.pause()
            cuts += [f"invitation: {cut}" for cut in cut_words(app.screen, width)]
    finally:
        i18n.use("en")
    assert cuts == [], "\n".join(cuts)


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_the_lobby_cuts_no_word_at_60x20(make_memory_server: MakeServer, language: str) -> None:
    """At 60x20 (where a race is played, issue 39 bug 5) the lobby's address field kept one
    character ("Server 0") and the footer lost its last key ("^q St")."""
    server = await make_memory_server()
    i18n.use(language)
    try:
        app = RaceApp(url_of(server), "Cees", autoconnect=True, automove=False)
        async with app.run_test(size=(60, 20)) as pilot:
            await until(pilot, lambda: app.connected, "connected")
            await pilot.pause()
            cuts = cut_words(top(app), 60)
            address = app.lobby.query_one("#server", Input)
            assert address.content_region.width >= len("ws://127.0.0.1:8765"), address.content_region
    finally:
        i18n.use("en")
    assert cuts == [], "\n".join(cuts)


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_the_results_cut_no_name_at_60x20(language: str) -> None:
    """At 60x20 the results' four buttons ran past the box ("Lob") and cut the names ("Cees
    (ji…"): there the footer alone has their keys, and a long status wraps before a name is cut."""
    from textual.app import App

    from client.screens.results import ResultRow

    class Results(App[None]):
        def on_mount(self) -> None:
            rows = [
                ResultRow(1, "Cees", "did not finish", 2, 0, you=True),
                ResultRow(2, "Anne", "resigned", 2, 0, ghost=True),
            ]
            self.push_screen(
                ResultsScreen(rows, "Time is up", can_review=True, can_challenge=True, deal="SH1-ST-0001G")
            )

    i18n.use(language)
    try:
        app = Results()
        async with app.run_test(size=(60, 20)) as pilot:
            await pilot.pause()
            cuts = cut_words(app.screen, 60)
            standings = drawn(app.screen.query_one("#standings"))
    finally:
        i18n.use("en")
    assert cuts == [], "\n".join(cuts)
    assert "…" not in standings


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=["80x24", "60x20"])
@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_racing_again_cuts_no_word(tmp_path: Path, language: str, size: tuple[int, int]) -> None:
    """Issue 41's race again: the results offering g (with whom, and its key in the footer), the
    final board's footer and line, the new waiting room saying whom it invited, and the invitation
    to race again over it, at 80x24 and 60x20."""
    from client.screens.friends import InvitationScreen
    from tests.recording import recording_server
    from tests.wsclient import registered

    cuts: list[str] = []
    width = size[0]

    async with recording_server(tmp_path, players=True) as server:
        bob = await registered(url_of(server), "Bob")

        async def look(pilot: Pilot[None], where: str) -> None:
            await pilot.pause()
            cuts.extend(f"{where}: {cut}" for cut in cut_words(top(app), width))

        i18n.use(language)
        try:
            app = RaceApp(url_of(server), "Ann", autoconnect=True, automove=False)
            async with app.run_test(size=size) as pilot:
                await until(
                    pilot,
                    lambda: app.conn is not None and app.conn.welcome is not None and app.friends.listing is not None,
                    "registered, the friends read",
                )
                await app.enter(CreateRoom(deal_number=1))
                room = room_of(app)
                assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
                await until(pilot, lambda: len(room.model.racers) == 2, "Bob seated")
                await pilot.press("r")
                await bob.call(Ready(ready=True))
                await until(pilot, lambda: room.model.phase == "racing" and not room.screen.locked, "the race")
                await bob.call(Resign())
                await pilot.press("R", "R")
                await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
                results = top(app)
                assert isinstance(results, ResultsScreen) and results.again, "g offered"
                await look(pilot, "results")
                await pilot.press("escape")
                await until(pilot, lambda: isinstance(top(app), RaceScreen), "the final board")
                await look(pilot, "final board")
                await pilot.press("g")
                await until(pilot, lambda: app.room is not None and app.room is not room, "the new room")
                again = room_of(app)
                await until(pilot, lambda: any("Bob" in line for line in again.screen.view.cover), "whom it invited")
                await look(pilot, "the new waiting room")
                invited = Invited(
                    invite="N3K7QW2PZ8XA",
                    player="p7k2m9q4",
                    name="marguerite",
                    room="3R12R9",
                    preset="seahaven",
                    expires_at=app.friends.clock.now() + 58_000,
                    again=True,
                )
                app.friends.invited[invited.invite] = invited
                app.push_screen(InvitationScreen(invited, app.friends, lambda: False))
                await until(pilot, lambda: isinstance(top(app), InvitationScreen), "the invitation")
                await look(pilot, "invitation to race again")
        finally:
            i18n.use("en")
            await bob.close()
    assert cuts == [], "\n".join(cuts)


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_a_race_cuts_no_word_at_60x20(make_memory_server: MakeServer, language: str) -> None:
    """At 60x20 a racer's footer lost its last keys (French: "… l Quitter la salle ^", the key of
    Quit cut; Italian: "^q Esci" gone), and the status bar broke a count from its word (Italian
    "0" and "mosse" on two lines): the room waiting, the race with every key it can have (undo and
    hints on), the racers shown in the board's place, and the final board."""
    server = await make_memory_server()
    bob = await WsClient.open(url_of(server), "Bob")
    cuts: list[str] = []
    width = 60

    async def look(pilot: Pilot[None], where: str) -> None:
        await pilot.pause()
        cuts.extend(f"{where}: {cut}" for cut in cut_words(top(app), width))

    i18n.use(language)
    full = {i18n.pgettext("footer", "Leave room"), i18n.pgettext("footer", "Resign")}
    try:
        app = RaceApp(url_of(server), "Anne", autoconnect=True, automove=False)
        async with app.run_test(size=(60, 20)) as pilot:
            await until(pilot, lambda: app.connected, "connected")
            await app.enter(CreateRoom(deal_number=1, undo=True, time_limit=600, hints=True))
            room = room_of(app)
            assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
            await until(pilot, lambda: len(room.model.racers) == 2, "Bob seated")
            await look(pilot, "room waiting")
            await pilot.press("r")
            await bob.call(Ready(ready=True))
            await until(pilot, lambda: room.model.phase == "racing" and not room.screen.locked, "the race")
            await look(pilot, "race")
            # The status bar wraps between its parts (Italian broke "0" from "mosse", French "0/52"
            # from "montées"): each part whole on one of its lines.
            info = room.screen.info
            status = [strip.text for strip in info.render_lines(Region(0, 0, *info.outer_size))]
            broken = [part for part in str(info.content).split(" · ") if not any(part in line for line in status)]
            assert broken == [], status
            # Wider, the footer has its full words again; narrower, the short ones.
            await pilot.resize_terminal(80, 24)
            await until(pilot, lambda: footer_words(app) == full, "the full words at 80 columns")
            await pilot.resize_terminal(60, 20)
            await until(pilot, lambda: footer_words(app) != full, "the short words at 60 columns")
            await look(pilot, "race, narrow again")
            await pilot.press("v")
            await look(pilot, "race, the racers")
            await pilot.press("v")
            await bob.call(Resign())
            await pilot.press("R", "R")
            await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(top(app), RaceScreen), "the final board")
            await look(pilot, "final board")
    finally:
        i18n.use("en")
        await bob.close()
    assert cuts == [], "\n".join(cuts)


def footer_words(app: RaceApp) -> set[str]:
    """Which of a racer's longest footer words (Leave room, Resign) the footer shows."""
    shown = {key.description for key in top(app).query(FooterKey)}
    return shown & {i18n.pgettext("footer", "Leave room"), i18n.pgettext("footer", "Resign")}


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_the_account_screen_cuts_no_word_at_60x20(
    make_memory_server: MakeServer, tmp_path: Path, language: str
) -> None:
    """At 60x20 the account screen's two columns cut their boxes' titles and fields' hints (French
    "Pseudo : 3 à 24 cara…", "Se connecter sur cet…", "nouveau mot de passe (8"): there the
    boxes stand in one column."""
    from client.screens.account_screen import AccountScreen

    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    await migrate(db)
    server = await make_memory_server(accounts=Accounts(db))
    i18n.use(language)
    try:
        app = RaceApp(url_of(server), "Anne", autoconnect=True, automove=False)
        async with app.run_test(size=(60, 20)) as pilot:
            await until(pilot, lambda: app.connected, "connected")
            await pilot.press("f7")
            await until(pilot, lambda: isinstance(top(app), AccountScreen), "the account screen")
            await pilot.pause()
            cuts = cut_words(top(app), 60)
    finally:
        i18n.use("en")
    assert cuts == [], "\n".join(cuts)
