"""The terminal client's friends (issue 41): Textual's pilot drives RaceApp against a real loopback
server that keeps registered players and friends. Ann (the client) asks Bob by his handle, Bob
accepts; his presence on her friends screen follows him into a room; her invitation from the
screen reaches him and his decline is told; his invitation shows over her waiting room, one key
accepts it and she is seated in his room; an unknown handle is refused in words."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Input

import i18n
from client.apps.app import RaceApp
from client.net.errors import error_text
from client.screens.friends import InvitationScreen
from client.screens.friends_screen import FriendsColumn, FriendsScreen
from protocol.errors import ErrorCode
from protocol.messages import (
    AddFriend,
    AnswerInvite,
    ClaimHandle,
    CreateRoom,
    Friends,
    Identity,
    Invite,
    Invited,
    JoinRoom,
    Leave,
    Members,
    Ok,
    Ready,
    RoomState,
)
from server.app import RaceServer
from tests.client_driver import data_home, heard_notes, top, until
from tests.recording import recording_server
from tests.wsclient import registered

__all__ = ["data_home"]


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path, players=True) as race:
        yield race


def url(server: RaceServer) -> str:
    return f"ws://127.0.0.1:{server.port}/"


def shown_rows(screen: FriendsScreen) -> list[tuple[str, ...]]:
    table = screen.query_one("#people", DataTable)
    return [tuple(str(cell) for cell in table.get_row_at(row)) for row in range(table.row_count)]


async def identified(app: RaceApp, pilot: Pilot[None]) -> str:
    """The client connected as the player it registered; that player's id."""
    await until(
        pilot,
        lambda: app.conn is not None and app.conn.welcome is not None and app.conn.welcome.identified,
        "the registered player's session",
    )
    assert app.conn is not None and app.conn.welcome is not None
    return app.conn.welcome.player


async def open_friends(app: RaceApp, pilot: Pilot[None]) -> FriendsScreen:
    await pilot.press("f9")
    await until(pilot, lambda: isinstance(top(app), FriendsScreen), "the friends screen")
    screen = top(app)
    assert isinstance(screen, FriendsScreen)
    await until(pilot, lambda: not screen.busy and app.friends.listing is not None, "the list read")
    return screen


async def test_friends_presence_and_invitations_both_ways(server: RaceServer, monkeypatch: pytest.MonkeyPatch) -> None:
    bob = await registered(url(server), "Bob")
    assert isinstance(await bob.call(ClaimHandle(handle="bobby")), Identity)
    app = RaceApp(url(server), "Ann", autoconnect=True, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = heard_notes(app, monkeypatch)
        ann = await identified(app, pilot)
        screen = await open_friends(app, pilot)
        assert "No friends yet" in screen.row_keys_text

        # An unknown handle: refused in words, not by its code.
        handle = screen.query_one("#friend-handle", Input)
        handle.focus()
        handle.value = "nobody-here"
        await pilot.press("enter")
        await until(pilot, lambda: "no registered player" in screen.status_text.lower(), "the refusal")
        assert "player-not-found" not in screen.status_text

        # Asked by handle (as typed, with its @), then accepted by Bob: friends on both sides.
        handle.value = "@BOBBY"
        await pilot.press("enter")
        await until(pilot, lambda: "Asked @BOBBY" in screen.status_text, "asked")
        assert shown_rows(screen) == [("…", "Bob (@bobby)", "asked: no answer yet")]
        asked = await bob.expect(Friends, where=lambda f: bool(f.incoming))
        assert [r.player for r in asked.incoming] == [ann]
        assert isinstance(await bob.call(AddFriend(player=ann)), Friends)
        await until(pilot, lambda: [r[1] for r in shown_rows(screen)] == ["Bob (@bobby)"], "Bob a friend")
        await until(pilot, lambda: shown_rows(screen)[0][2] == "in the lobby", "Bob in the lobby")
        assert shown_rows(screen)[0][0] == "●"
        assert ("Friends", "Bob (@bobby) accepted: you are friends now") in notes

        # His presence follows him into a room, and back out.
        made = await bob.call(CreateRoom(deal_number=1))
        assert isinstance(made, RoomState)
        await until(pilot, lambda: shown_rows(screen)[0][2] == f"waiting in room {made.room}", "Bob waiting")
        assert shown_rows(screen)[0][0] == "◐"
        assert isinstance(await bob.call(Leave()), Ok)
        await until(pilot, lambda: shown_rows(screen)[0][2] == "in the lobby", "Bob back in the lobby")

        # Ann invites him from the screen (from no room: the server makes hers); he declines.
        screen.query_one("#people", DataTable).focus()
        await pilot.press("i")
        await until(pilot, lambda: app.room is not None, "Ann's new room")
        assert app.room is not None
        mine = app.room.code
        invited = await bob.expect(Invited)
        assert (invited.name, invited.room) == ("Ann", mine)
        await until(pilot, lambda: ("Friends", "Invitation sent to Bob") in notes, "the invitation said")
        assert isinstance(await bob.call(AnswerInvite(invite=invited.invite, accept=False)), Ok)
        await until(pilot, lambda: ("Friends", "Bob declined your invitation") in notes, "the decline told")

        # Bob invites Ann to a room of his: the note shows over her waiting room; y accepts, and she
        # leaves her room for his.
        theirs = await bob.call(Invite(player=ann))
        assert isinstance(theirs, RoomState)
        await until(pilot, lambda: isinstance(top(app), InvitationScreen), "the invitation over her room")
        note = top(app)
        assert isinstance(note, InvitationScreen)
        assert "Bob invites you to race (Seahaven Towers" in note.text and " s" in note.text
        await pilot.press("y")
        await until(pilot, lambda: app.room is not None and app.room.code == theirs.room, "seated in Bob's room")
        assert app.room is not None and app.room.role == "racer"
        await bob.expect(Members, where=lambda m: ann in [r.player for r in m.racers])
        assert not isinstance(top(app), InvitationScreen)
    await bob.close()


async def test_an_invitation_from_my_waiting_room_seats_the_friend_there(
    server: RaceServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    bob = await registered(url(server), "Bob")
    app = RaceApp(url(server), "Ann", autoconnect=True, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = heard_notes(app, monkeypatch)
        ann = await identified(app, pilot)
        assert isinstance(await bob.call(AddFriend(player=ann)), Friends)
        await app.friends_request(AddFriend(player=bob.player))
        await app.enter(CreateRoom(deal_number=1, seats=3))
        assert app.room is not None
        mine = app.room.code
        screen = await open_friends(app, pilot)  # F9 over the waiting room
        await until(pilot, lambda: [r[1] for r in shown_rows(screen)] == ["Bob"], "Bob listed")
        await pilot.press("enter")  # Enter on a friend invites
        invited = await bob.expect(Invited)
        assert invited.room == mine
        await until(pilot, lambda: ("Friends", "Invitation sent to Bob") in notes, "the invitation said")
        assert isinstance(await bob.call(AnswerInvite(invite=invited.invite, accept=True)), RoomState)
        await until(pilot, lambda: ("Friends", "Bob accepted your invitation") in notes, "the acceptance told")
        await until(pilot, lambda: app.room is not None and len(app.room.model.racers) == 2, "Bob seated")
    await bob.close()


async def test_over_a_running_race_accepting_asks_first(server: RaceServer) -> None:
    """Enter and Escape stay the race's keys under the invitation; y asks again, as accepting
    resigns the race; the second y leaves it for the friend's room."""
    bob, cid = await registered(url(server), "Bob"), await registered(url(server), "Cid")
    app = RaceApp(url(server), "Ann", autoconnect=True, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        ann = await identified(app, pilot)
        assert isinstance(await cid.call(AddFriend(player=ann)), Friends)
        await app.friends_request(AddFriend(player=cid.player))
        await app.enter(CreateRoom(deal_number=1))
        assert app.room is not None
        race = app.room
        assert isinstance(await bob.call(JoinRoom(room=race.code)), RoomState)
        await until(pilot, lambda: len(race.model.racers) == 2, "Bob seated")
        await pilot.press("r")
        assert isinstance(await bob.call(Ready(ready=True)), Ok)
        await until(pilot, lambda: race.model.racing_now(), "the race")
        theirs = await cid.call(Invite(player=ann))
        assert isinstance(theirs, RoomState)
        await until(pilot, lambda: isinstance(top(app), InvitationScreen), "the invitation over the race")
        shown = top(app)
        assert isinstance(shown, InvitationScreen)
        note: InvitationScreen = shown
        assert "You are racing" in note.note
        await pilot.press("enter", "escape")
        await pilot.pause()
        assert top(app) is note and app.room is race, "Enter and Escape answer nothing over a race"
        await pilot.press("y")
        await until(pilot, lambda: "y again" in note.note, "asked again")
        assert top(app) is note and app.room is race
        await pilot.press("y")
        await until(pilot, lambda: app.room is not None and app.room.code == theirs.room, "in Cid's room")
    for client in (bob, cid):
        await client.close()


async def test_the_lobby_has_a_friends_column_from_160_columns(server: RaceServer) -> None:
    bob = await registered(url(server), "Bob")
    app = RaceApp(url(server), "Ann", autoconnect=True, automove=False)
    async with app.run_test(size=(160, 50)) as pilot:
        ann = await identified(app, pilot)
        column = app.lobby.query_one(FriendsColumn)
        await until(pilot, lambda: column.display and column.region.width > 0, "the column")
        assert isinstance(await bob.call(AddFriend(player=ann)), Friends)
        assert app.conn is not None
        await app.friends_request(AddFriend(player=bob.player))
        await until(pilot, lambda: column.players == [bob.player], "Bob in the column")
        await app.lobby.run_action("list")  # away from the column, then to it
        column.query_one(DataTable).focus()
        await pilot.press("enter")
        await until(pilot, lambda: app.room is not None, "the room made for the invitation")
        assert (await bob.expect(Invited)).name == "Ann"
    await bob.close()
    narrow = RaceApp(url(server), "Cid", autoconnect=True, automove=False)
    async with narrow.run_test(size=(120, 40)) as pilot:
        await identified(narrow, pilot)
        await pilot.pause()
        assert narrow.lobby.query_one(FriendsColumn).region.width == 0, "narrower: the screen alone"


def test_the_new_refusals_are_said_in_words() -> None:
    i18n.use("fr")
    try:
        for code in (
            ErrorCode.PLAYER_NOT_FOUND,
            ErrorCode.NOT_FRIENDS,
            ErrorCode.BLOCKED,
            ErrorCode.FRIENDS_LIMIT,
            ErrorCode.INVITE_NOT_FOUND,
        ):
            said = error_text(code, "english")
            assert said != "english" and code not in said, said
    finally:
        i18n.use("en")


async def test_a_request_that_comes_while_the_screen_waits_is_accepted_with_a(server: RaceServer) -> None:
    """The screen opened empty (its field focused, to ask someone); a request comes: its keys work
    at once (a accepts), not typed into the field."""
    app = RaceApp(url(server), "Bob", autoconnect=True, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bob = await identified(app, pilot)
        screen = await open_friends(app, pilot)
        assert screen.query_one("#friend-handle", Input).has_focus
        ann = await registered(url(server), "Ann")
        assert isinstance(await ann.call(AddFriend(player=bob)), Friends)
        await until(pilot, lambda: [r[2] for r in shown_rows(screen)] == ["asks to be your friend"], "the request")
        await pilot.press("a")
        await until(pilot, lambda: [r[2] for r in shown_rows(screen)] == ["in the lobby"], "Ann a friend")
        assert screen.query_one("#friend-handle", Input).value == ""
        await ann.close()


async def test_a_friend_request_is_said_wherever_the_player_is(
    server: RaceServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked while in the lobby (not on F9), the player hears it, and where to answer it."""
    bob = await registered(url(server), "Bob")
    app = RaceApp(url(server), "Ann", autoconnect=True, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        notes = heard_notes(app, monkeypatch)
        ann = await identified(app, pilot)
        await until(pilot, lambda: app.friends.listing is not None, "the first list read")
        assert isinstance(await bob.call(AddFriend(player=ann)), Friends)
        await until(pilot, lambda: ("Friends", "Bob asks to be your friend: F9 to answer") in notes, "the request said")
        screen = await open_friends(app, pilot)
        assert [r[1] for r in shown_rows(screen)] == ["Bob"]
    await bob.close()
