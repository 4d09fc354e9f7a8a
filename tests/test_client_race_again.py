"""The terminal client's "race again" (issue 41, items 3 and 4): Textual's pilot drives two RaceApps,
Ann's and Bob's, against a real loopback server that keeps registered players and friends. After
their race Ann presses g on the results: she is in a new waiting room that says whom it invited, Bob
sees "Ann asks you to race again", y seats him there and Ann is told. After a race against the
computer g is not offered, and pressed all the same it says why. Ann's friends screen (F9) lists Bob
among her recent rivals with the head-to-head the read API gives, and a key asks him as a friend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable

import i18n
from client.apps.app import RaceApp
from client.race.controller import RaceController
from client.screens.friends import InvitationScreen
from client.screens.friends_screen import FriendsScreen, Rival, rival_cells
from client.screens.results import ResultsScreen
from protocol.enums import Phase, Role
from protocol.messages import CreateRoom, Friends, JoinRoom
from server.app import RaceServer
from tests.client_driver import data_home, heard_notes, top, until
from tests.recording import recording_server

__all__ = ["data_home"]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path, players=True) as race:
        yield race


def url(server: RaceServer) -> str:
    return f"ws://127.0.0.1:{server.port}/"


def racer_app(server: RaceServer, name: str, folder: Path) -> RaceApp:
    """A client of its own data folder: its own registered player on the server."""
    return RaceApp(url(server), name, autoconnect=True, automove=False, data=folder / name)


async def identified(app: RaceApp, pilot: Pilot[None]) -> str:
    await until(
        pilot,
        lambda: (
            app.conn is not None
            and app.conn.welcome is not None
            and app.conn.welcome.identified
            and app.friends.listing is not None
        ),
        "the registered player's session, its friends read",
    )
    assert app.conn is not None and app.conn.welcome is not None
    return app.conn.welcome.player


def footer_keys(screen: Screen[Any]) -> set[str]:
    """The keys the screen's footer shows now."""
    return {key for key, active in screen.active_bindings.items() if active.enabled and active.binding.show}


def room(app: RaceApp) -> RaceController:
    assert app.room is not None
    return app.room


def racing(app: RaceApp) -> bool:
    return room(app).model.racing_now() and not room(app).screen.locked


def resigned(app: RaceApp) -> bool:
    return room(app).model.my_status() == "resigned"


def on_results(app: RaceApp) -> bool:
    return isinstance(top(app), ResultsScreen)


def in_the_lobby(app: RaceApp) -> bool:
    return app.room is None and top(app) is app.lobby


async def race_to_the_results(ann: RaceApp, ann_pilot: Pilot[None], bob: RaceApp, bob_pilot: Pilot[None]) -> str:
    """Ann makes a room, Bob joins it, both get ready and resign: both see the results. The room's code."""
    await ann.enter(CreateRoom(deal_number=1))
    code = room(ann).code
    await bob.enter(JoinRoom(room=code))
    await until(ann_pilot, lambda: len(room(ann).model.racers) == 2, "Bob seated in Ann's room")
    await ann_pilot.press("r")
    await until(ann_pilot, lambda: room(ann).model.my_status() == "ready", "Ann ready")
    await bob_pilot.press("r")
    both = ((ann, ann_pilot), (bob, bob_pilot))
    for app, pilot in both:
        await until(pilot, partial(racing, app), "racing")
    for app, pilot in both:
        await pilot.press("R", "R")
        await until(pilot, partial(resigned, app), "resigned")
    for app, pilot in both:
        await until(pilot, partial(on_results, app), "the results")
    return code


async def test_race_again_invites_the_other_racer_to_a_new_room(
    server: RaceServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = racer_app(server, "Ann", tmp_path), racer_app(server, "Bob", tmp_path)
    async with ann.run_test(size=(80, 24)) as ann_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        notes = heard_notes(ann, monkeypatch)
        await identified(ann, ann_pilot)
        bob_id = await identified(bob, bob_pilot)
        assert ann.friends.friends == () and bob.friends.friends == (), "not friends: having raced is enough"
        old = await race_to_the_results(ann, ann_pilot, bob, bob_pilot)

        results = top(ann)
        assert isinstance(results, ResultsScreen)
        assert results.again_text == "g: race Bob again in a new room, on a new deal"
        assert "g" in footer_keys(results), "g in the results' footer"
        await ann_pilot.press("g")
        await until(ann_pilot, lambda: ann.room is not None and ann.room.code != old, "Ann in a new room")
        new = room(ann)
        assert new.model.phase == Phase.WAITING and new.role == Role.RACER
        assert new.model.seats == 2 and list(new.model.racers) == [ann.conn.player if ann.conn else ""]
        await until(ann_pilot, lambda: "Invitation sent to Bob" in new.screen.message_text, "the room says so")
        await until(ann_pilot, lambda: ("Friends", "Invitation sent to Bob") in notes, "the note too")
        assert any("Invitation sent to Bob" in line for line in new.screen.view.cover), "the waiting room's text"

        # Bob, still on his results, is asked: y leaves the finished room for the new one.
        await until(bob_pilot, lambda: isinstance(top(bob), InvitationScreen), "the invitation over Bob's results")
        note = top(bob)
        assert isinstance(note, InvitationScreen)
        assert note.text.startswith("Ann asks you to race again (new deal) · "), note.text
        await bob_pilot.press("y")
        await until(bob_pilot, lambda: bob.room is not None and bob.room.code == new.code, "Bob in the new room")
        assert room(bob).role == Role.RACER and room(bob).model.phase == Phase.WAITING
        await until(ann_pilot, lambda: ("Friends", "Bob accepted your invitation") in notes, "Ann told")
        await until(ann_pilot, lambda: bob_id in new.model.racers, "Bob seated beside Ann")
        await until(ann_pilot, lambda: new.screen.message_text == "Bob accepted your invitation", "said in the room")
        assert not any("Invitation sent" in line for line in new.screen.view.cover), "nobody waited for now"


async def test_after_a_race_against_the_computer_g_is_not_offered(server: RaceServer, tmp_path: Path) -> None:
    ann = racer_app(server, "Ann", tmp_path)
    async with ann.run_test(size=(80, 24)) as pilot:
        await identified(ann, pilot)
        await ann.enter(CreateRoom(deal_number=1, bot="sprint"))
        race = room(ann)
        await until(pilot, lambda: len(race.model.racers) == 2, "the bot seated")
        await pilot.press("r")
        await until(pilot, lambda: race.model.racing_now() and not race.screen.locked, "racing")
        await pilot.press("R", "R")
        await until(pilot, lambda: isinstance(top(ann), ResultsScreen), "the results")
        results = top(ann)
        assert isinstance(results, ResultsScreen)
        assert not results.query_one("#again").display
        assert "g" not in footer_keys(results) and "r" in footer_keys(results), "no g in the footer"
        await pilot.press("g")
        await until(pilot, lambda: results.again_text != "", "the reason")
        assert results.again_text == "Nobody else raced: start a new room instead"
        assert top(ann) is results and ann.room is race, "still on the results of the same room"


async def test_recent_rivals_with_their_head_to_head_and_a_key_to_ask_one(
    server: RaceServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = racer_app(server, "Ann", tmp_path), racer_app(server, "Bob", tmp_path)
    async with ann.run_test(size=(80, 24)) as ann_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        ann_id = await identified(ann, ann_pilot)
        bob_id = await identified(bob, bob_pilot)
        await race_to_the_results(ann, ann_pilot, bob, bob_pilot)
        for app, pilot in ((ann, ann_pilot), (bob, bob_pilot)):
            await pilot.press("l")
            await until(pilot, partial(in_the_lobby, app), "back in the lobby")
        document = await ann.records().player_rivals(ann_id)
        assert [r["player"] for r in document["rivals"]] == [bob_id], "the race is on record"
        them = document["rivals"][0]

        await ann_pilot.press("f9")
        await until(ann_pilot, lambda: isinstance(top(ann), FriendsScreen), "the friends screen")
        screen = top(ann)
        assert isinstance(screen, FriendsScreen)
        await until(ann_pilot, lambda: screen.rivals_rows() != [], "the rivals read")
        wins, losses = them["wins"], them["losses"]
        assert (them["races"], wins + losses, them["deals"]["shared"]) == (1, 1, 0), "one race, nobody finished"
        assert screen.rivals_rows() == [("Bob", f"{wins}–{losses}", "no shared deal")]
        table = screen.query_one("#rivals", DataTable)
        table.focus()
        await ann_pilot.pause()
        assert "a asks Bob to be your friend" in screen.row_keys_text
        await ann_pilot.press("a")
        await until(ann_pilot, lambda: "Asked Bob to be your friend" in screen.status_text, "asked")
        await until(bob_pilot, lambda: bob.friends.listing is not None and bob.friends.listing.incoming != (), "heard")
        listing = bob.friends.listing
        assert isinstance(listing, Friends) and [r.player for r in listing.incoming] == [ann_id]
        await until(ann_pilot, lambda: "asked" in screen.row_keys_text, "the row says it is asked")
        await ann_pilot.press("a")  # asked already: nothing sent again
        await ann_pilot.pause()
        assert "Asked Bob" in screen.status_text


def test_a_rivals_row_says_the_head_to_head_in_words() -> None:
    """The read API's entry as the list shows it: wins–losses and the shared deals in words (short
    at 60 columns), in English and in French."""
    entry = {
        "player": "p7k2m9q4",
        "name": "Bob",
        "handle": "bobby",
        "races": 7,
        "wins": 4,
        "losses": 3,
        "last_race": "3R12R9-1-abcdefgh",
        "last_raced_at": 1765000000000,
        "deals": {"shared": 5, "faster": 3, "slower": 2, "latest": []},
    }
    bob = Rival.from_json(entry)
    assert rival_cells(bob) == ("Bob (@bobby)", "4–3", "faster on 3 of 5 shared deals")
    assert rival_cells(bob, narrow=True) == ("Bob", "4–3", "3/5 faster")
    alone = Rival.from_json({**entry, "handle": None, "deals": {"shared": 1, "faster": 0}})
    assert rival_cells(alone)[::2] == ("Bob", "faster on 0 of 1 shared deal")
    assert rival_cells(Rival.from_json({**entry, "deals": {"shared": 0}}))[2] == "no shared deal"
    i18n.use("fr")
    try:
        assert rival_cells(bob)[2] == "plus rapide sur 3 des 5 donnes communes"
    finally:
        i18n.use("en")
