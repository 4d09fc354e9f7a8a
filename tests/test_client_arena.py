"""The terminal client's arena (client/screens/arena_screen.py) and ratings beside names
(client/text/rating_text.py), driven by Textual's pilot against a real server on loopback: Ann (the
client) opens an arena from the lobby's Arena entry, Bob (a bare protocol client) joins it by its
code, the server seats them in a race by itself, Bob wins it, Ann's arena screen shows the
standings with her line marked, the next race opens by itself, and at the end the podium shows.
The server's clock is the tests' fake one, so the arena ends when the test says."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select
from textual.widgets._select import SelectOverlay

from client.apps.app import RaceApp
from client.screens.arena_screen import ArenaScreen, clock_line, place_line, streak_text
from client.screens.race_screen import RaceScreen
from client.text.rating_text import RatingBook, beside_my_name, shown, with_change
from protocol.enums import Phase
from protocol.messages import (
    Arena,
    ArenaStanding,
    CreateArena,
    CreateRoom,
    JoinArena,
    JoinRoom,
    Leave,
    MoveRequest,
    Ok,
    RatingNotice,
    Resign,
    RoomState,
    Started,
)
from seahaven import Board
from seahaven.solver import solve
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.database import open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from tests.client_driver import SIZE, connect, create_deal_1, data_home, heard_notes, room_of, until
from tests.client_driver import shown as panel
from tests.helpers import MakeServer, fake, url_of
from tests.racing import start_race
from tests.wsclient import WsClient, registered

__all__ = ["data_home"]

SOLUTION = [str(m) for m in solve(Board.deal("seahaven", 1)).moves]


def standing(rank: int, player: str, points: int, wins: int, streak: int) -> ArenaStanding:
    return ArenaStanding(rank, player, player.title(), points, 3, wins, streak, True)


def test_the_arena_lines_and_the_rating_beside_my_name() -> None:
    arena = Arena(
        "7KQ2M9",
        "seahaven",
        None,
        1000,
        301_000,
        "running",
        "/a/7KQ2M9",
        (
            standing(1, "ann", 8, 3, 3),
            standing(2, "bob", 1, 0, 0),
        ),
    )
    assert place_line(arena, "bob") == "You are 2nd of 2 · 1 point"
    assert place_line(arena, "zed") == ""
    assert clock_line(arena, 500) == "starts in 0:00"
    assert clock_line(arena, 1000) == "5:00 left"
    assert clock_line(arena, 301_000) == "the arena is over"
    assert [streak_text(n) for n in (0, 1, 2, 5)] == ["", "1", "🔥2", "🔥5"]
    assert shown(1500, True) == "1500?" and shown(1712, False) == "1712"
    notice = RatingNotice(preset="seahaven", rating=1486, change=-9, provisional=True, race_id="r1")
    assert with_change(notice) == "1486? -9"
    assert with_change(RatingNotice("seahaven", 1523, 14, False, "r2")) == "1523 +14"
    assert beside_my_name({"seahaven": notice}, "seahaven", "r1") == "1486? -9"
    assert beside_my_name({"seahaven": notice}, "seahaven") == "1486?", "the change beside its race only"
    assert beside_my_name({"seahaven": notice}, "seahaven", "r2") == "1486?"
    assert beside_my_name({"seahaven": notice}, "freecell") == ""
    book = RatingBook()
    assert book.to_ask(["bob", "cid"]) == ["bob", "cid"] and book.to_ask(["bob"]) == []
    book.learn("bob", {"ratings": [{"preset": "seahaven", "rating": 1421, "provisional": True, "races": 1}]})
    assert book.text("bob", "seahaven") == "1421?" and book.text("bob", "freecell") == ""
    assert book.text("cid", "seahaven") == ""
    book.forget(["bob"])
    assert book.text("bob", "seahaven") == "1421?", "shown until the new number comes"
    assert book.to_ask(["bob", "cid"]) == ["bob"]


async def test_an_arena_from_the_lobby_races_by_itself_and_ends_on_its_podium(
    make_memory_server: MakeServer, data_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = await make_memory_server(deals=lambda: 1)
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    notes = heard_notes(app, monkeypatch)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        # The lobby's Arena entry: a code prompt, or a new arena's rules and minutes.
        await pilot.click("#arena")
        await until(pilot, lambda: isinstance(app.screen, ArenaScreen), "the arena screen")
        top = app.screen
        assert isinstance(top, ArenaScreen)
        screen: ArenaScreen = top
        # Focus is given once the screen is mounted, a message after it is on top.
        await until(pilot, lambda: screen.query_one("#arena-code", Input).has_focus, "the code field focused")
        minutes = screen.query_one("#arena-minutes", Select)
        await until(pilot, lambda: minutes.query_one(SelectOverlay), "the minutes' list composed")
        minutes.value = 5
        await pilot.click("#arena-create")
        await until(pilot, lambda: app.arena_desk.arena is not None, "the arena opened")
        arena = app.arena_desk.arena
        assert arena is not None and arena.phase == "running"
        assert screen.standings_text == "1. ann (you) 0 0 0"
        assert "In arena" in screen.status_text

        # Bob joins by the code; nobody asks for a race: the server seats both and it starts.
        joined = await bob.call(JoinArena(arena=arena.arena.lower()))
        assert isinstance(joined, Arena) and len(joined.standings) == 2
        state = await bob.expect(RoomState, wait=10)
        await until(pilot, lambda: app.room is not None and app.room.model.phase == Phase.RACING, "seated", 10)
        first = room_of(app)
        assert first.code == state.room and isinstance(app.screen, RaceScreen)
        assert app.screen_stack[-2] is screen, "the race opens over the arena's screen"

        # Bob wins; the standings reach Ann's arena screen (her line marked) between races.
        if state.phase != Phase.RACING:
            await bob.expect(Started)
        for move in SOLUTION:
            await bob.call(MoveRequest(move=move))

        def bob_scored() -> bool:
            a = app.arena_desk.arena
            return a is not None and a.standings[0].player == bob.player and a.standings[0].points == 2

        await until(pilot, bob_scored, "Bob's win scored", 10)
        assert screen.standings_text.splitlines() == ["1. bob 2 1 1 1", "2. ann (you) 0 0 1"]
        # ...and the next race opens by itself, over the arena's screen again.
        await until(pilot, lambda: app.room is not None and app.room.code != first.code, "the next race", 10)
        await until(pilot, lambda: isinstance(app.screen, RaceScreen), "the next race's screen")
        assert app.screen_stack[-2] is screen and first.closed
        # The last race's result stays in sight a while, as the next one begins at once.
        code = app.arena_desk.arena.arena if app.arena_desk.arena else ""
        assert (f"Arena {code}: the last race", "bob wins · you: 2nd of 2") in notes, notes
        # F8 over the race: the standings in a note, the race screen stays.
        await pilot.press("f8")
        await until(pilot, lambda: notes[-1][0] == f"Arena {code}", "the standings' note")
        assert notes[-1][1].splitlines()[0] == "You are 2nd of 2 · 0 points", notes[-1]
        assert "1. bob · 2 points" in notes[-1][1] and isinstance(app.screen, RaceScreen)

        # My rating beside my name once the server tells it (as after a rated race elsewhere: the
        # change belongs to that race, not this one).
        notice = RatingNotice(preset="seahaven", rating=1579, change=79, provisional=True, race_id="r1")
        app.post_message(RaceApp.NetEvent(notice, app.conn))
        await until(pilot, lambda: panel(room_of(app))[0].rating == "1579?", "my rating in the rivals panel")

        # Time is up: the podium, on the arena's screen under the race.
        fake(server).advance(5 * 60_000 + 1000)
        await until(pilot, lambda: app.arena_desk.podium is not None, "the podium", 10)
        assert screen.podium_text.splitlines()[1:3] == [
            "1st  bob · 2 points · 1 win",
            "2nd  ann (you) · 0 points · 0 wins",
        ]
        assert not app.arena_desk.active
        # Back from the race (leaving it) to the arena's screen, then close the arena there.
        app.back_to_lobby()
        await until(pilot, lambda: app.screen is screen, "the arena's screen")
        await pilot.press("ctrl+l")  # (the Close button may be under the podium's toast)
        await until(pilot, lambda: app.arena_desk.arena is None, "the arena closed")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.lobby, "the lobby")
    await bob.close()


async def test_a_rated_rivals_number_shows_beside_their_name_from_the_records(
    make_memory_server: MakeServer, tmp_path: Path, data_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob's rating on the server's records (after a rated race he lost to Ann) beside his name in
    Cid's rivals panel, as ``1421?`` (provisional); the first read of his page meets the records
    out of reach for a moment (a 503 with Retry-After), and the client asks again."""
    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    await migrate(db)
    try:
        reader = Reader(db, now=wall_ms)
        server = await make_memory_server(
            accounts=Accounts(db), archive=Archive(db, now=wall_ms), records=reader, deals=lambda: 1
        )
        ann, bob = await registered(url_of(server), "Ann"), await registered(url_of(server), "Bob")
        opened = await ann.call(CreateRoom(rated=True))
        assert isinstance(opened, RoomState) and opened.rated
        assert isinstance(await bob.call(JoinRoom(room=opened.room)), RoomState)
        await start_race([ann, bob])
        assert isinstance(await bob.call(Resign()), Ok)
        for move in SOLUTION:
            await ann.call(MoveRequest(move=move))
        told = await bob.expect(RatingNotice, wait=20)  # archived and rated
        assert told.provisional and told.change < 0
        assert isinstance(await bob.call(Leave()), Ok)

        asked: list[str] = []
        read_page = reader.player

        async def out_of_reach_once(player: str) -> dict[str, Any] | None:
            asked.append(player)
            if asked.count(bob.player) == 1 and player == bob.player:
                raise ConnectionResetError("the database went away for a moment")
            return await read_page(player)

        monkeypatch.setattr(reader, "player", out_of_reach_once)
        app = RaceApp(url_of(server), "cid", autoconnect=False, automove=False)
        async with app.run_test(size=SIZE) as pilot:
            await connect(app, pilot)
            room = await create_deal_1(app, pilot)
            assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
            want = f"{told.rating}?"
            await until(pilot, lambda: [v.rating for v in panel(room)] == ["", want], f"Bob's {want}", 10)
        assert asked.count(bob.player) == 2, asked
        for client in (ann, bob):
            await client.close()
    finally:
        await db.close()


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


async def test_an_arenas_code_typed_into_join_opens_the_arena(make_memory_server: MakeServer, data_home: Path) -> None:
    """Found on a walk: a friend's arena code (6 characters, as a room's) typed into the lobby's
    Join said "No room ME32GS: check the code". It is an arena: the lobby opens it and joins."""
    server = await make_memory_server()
    bob = await WsClient.open(url_of(server), "bob")
    opened = await bob.call(CreateArena(minutes=5, starts_in=600))  # no race seats them meanwhile
    assert isinstance(opened, Arena)
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        field = app.lobby.query_one("#code", Input)
        field.value = opened.arena
        await field.action_submit()
        await until(pilot, lambda: isinstance(app.screen, ArenaScreen), "the arena screen")
        await until(pilot, lambda: app.arena_desk.arena is not None, "joined")
        arena = app.arena_desk.arena
        assert arena is not None and arena.arena == opened.arena and len(arena.standings) == 2
        # A code that is neither a room nor an arena still says there is no such room.
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.lobby, "the lobby")
        field.value = "ZZZZZZ"
        await field.action_submit()
        await until(pilot, lambda: "ZZZZZZ" in app.lobby.status_text, "the refusal")
        assert isinstance(app.screen, type(app.lobby))
    await bob.close()
