"""Ghost challenges in the terminal client: ``c`` on the results makes a challenge code, and the
lobby's Ghost button races one. Textual's pilot drives RaceApp against a real RaceServer that
keeps its records in a real database; the rival is a bare protocol client."""

from __future__ import annotations

import time

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from client.apps.app import RaceApp
from client.race.controller import RaceController
from client.screens.race_screen import RaceScreen
from client.screens.results import ResultsScreen
from client.widgets.rivals import format_ms
from protocol.messages import (
    GHOST_PREFIX,
    Challenge,
    ChallengeRequest,
    JoinRoom,
    Moved,
    MoveRequest,
    Ok,
    Ready,
    Result,
    RoomState,
)
from server.app import RaceServer
from server.records.archive import Archive
from server.records.challenges import ChallengeRecords
from server.records.database import Database
from server.records.reader import Reader
from tests.client_driver import SIZE, click, connect, create_deal_1, data_home, heard_notes, room_of, shown, top, until
from tests.helpers import MakeServer, fake, url_of
from tests.racing import room_with, solution
from tests.racing import start_race as race_to_start
from tests.wsclient import WsClient

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


async def recording(make: MakeServer, database: Database) -> tuple[RaceServer, ChallengeRecords]:
    """A server that archives its races into ``database`` and keeps its challenges there."""
    archive = Archive(database, now=wall_ms)
    book = ChallengeRecords(database, archive)
    reader = Reader(database, now=wall_ms)
    server = await make(archive=archive, challenges=book, records=reader)  # its read API too
    book.live = reader.live = server.store  # the factory makes the server's store: races not yet archived are there
    return server, book


async def test_c_on_the_results_makes_a_challenge_of_my_run(
    make_memory_server: MakeServer, database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    server, book = await recording(make_memory_server, database)
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    notes = heard_notes(app, monkeypatch)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
        await until(pilot, lambda: len(room.model.racers) == 2, "the rival in the racers panel")
        await pilot.press("r")
        await until(pilot, lambda: room.model.my_status() == "ready", "ready")
        assert isinstance(await bob.call(Ready()), Ok)  # no countdown on this server: the race is on
        await until(pilot, lambda: room.model.phase == "racing", "the race to start")
        for move in solution():  # bob wins: alice's run did not finish, and may be challenged too
            assert isinstance(await bob.call(MoveRequest(move=str(move))), Moved)
        result = await bob.expect(Result)
        await until(
            pilot, lambda: isinstance(top(app), ResultsScreen) and bool(top(app).query("#challenge")), "Challenge"
        )
        await pilot.press("c")
        await until(pilot, lambda: room.challenge_code is not None, "the challenge code")
        code = room.challenge_code
        assert code is not None and f"Challenge {code}" in room.screen.message_text
        # The whole web link, to paste in a browser, in a note that wraps (the message line keeps to 80 columns).
        assert any(f"{url_of(server).replace('ws://', 'http://')}/c/{code}" in note for _title, note in notes), notes
        made = await book.get(code)
        assert made is not None and app.conn is not None
        alice = app.conn.player
        assert (made.race.race_id, made.player, made.created_by, made.run.name) == (
            result.race_id,
            alice,
            alice,
            "alice",
        )


async def ghost_from_the_lobby(app: RaceApp, pilot: Pilot[None], code: str) -> RaceController:
    """Connect, type the challenge ``code``, press Ghost: the ghost's room, the ghost seated."""
    await connect(app, pilot)
    app.lobby.query_one("#code", Input).value = code
    await pilot.click("#ghost")
    await until(pilot, lambda: app.room is not None and isinstance(top(app), RaceScreen), "the ghost's room")
    room = room_of(app)
    await until(pilot, lambda: len(room.model.racers) == 2, "the ghost seated")
    return room


async def test_the_lobbys_ghost_button_races_a_challenge(make_memory_server: MakeServer, database: Database) -> None:
    server, _ = await recording(make_memory_server, database)
    clock = fake(server)
    code, ghost = await _bobs_win_challenged(server)
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        room = await ghost_from_the_lobby(app, pilot, code.lower())
        (view,) = [v for v in shown(room) if not v.you]
        assert (view.name, view.ghost, view.bot) == ("bob", True, False)
        # Before the race, what the run is: whose, its time to beat, who raced it.
        await until(pilot, lambda: room.ghost_lines != (), "the run said")
        bobs_time = len(solution()) * 100  # a move every 100 ms of the fake clock
        run = f"A ghost: bob's run, {format_ms(bobs_time)} to beat"
        assert room.ghost_lines == (run, "Nobody has raced it yet"), room.ghost_lines
        assert run in room.screen.view.cover
        await pilot.press("r")
        await until(pilot, lambda: room.model.phase == "racing", "the race to start")
        clock.advance(5 * 100)
        await until(pilot, lambda: room.model.racers[ghost].moves == 5, "the ghost's first five moves")


@pytest.mark.parametrize("typed", ["{code}", "{web}/c/{code}"])
async def test_join_takes_a_challenge_code_or_its_web_link(
    make_memory_server: MakeServer, database: Database, typed: str
) -> None:
    """A challenge's code (8 characters; rooms' have 6), or its link pasted whole, typed into Join
    races the ghost, as the Ghost button does."""
    server, _ = await recording(make_memory_server, database)
    code, ghost = await _bobs_win_challenged(server)
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        web = url_of(server).replace("ws://", "http://")
        app.lobby.query_one("#code", Input).value = typed.format(code=code, web=web)
        await pilot.click("#join")
        await until(pilot, lambda: app.room is not None and isinstance(top(app), RaceScreen), "the ghost's room")
        room = room_of(app)
        await until(pilot, lambda: ghost in room.model.racers, "the ghost seated")


async def test_rematch_after_a_ghost_race_races_the_ghost_again(
    make_memory_server: MakeServer, database: Database
) -> None:
    """A ghost never votes for a rematch: r on the results waited for it for ever ("1 of 2 racers
    want one"). It races the run again, from its challenge, in a new room."""
    server, _ = await recording(make_memory_server, database)
    clock = fake(server)
    code, ghost = await _bobs_win_challenged(server)
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        first = await ghost_from_the_lobby(app, pilot, code)
        await pilot.press("r")
        await until(pilot, lambda: first.model.phase == "racing", "the race to start")
        await pilot.press("R", "R")  # resign: the ghost plays on to its finish
        clock.advance(len(solution()) * 100 + 1000)
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results", 10)
        await pilot.press("r")
        await until(
            pilot,
            lambda: app.room is not None and app.room.code != first.code and isinstance(top(app), RaceScreen),
            "a new room with the ghost",
            10,
        )
        again = room_of(app)
        await until(pilot, lambda: ghost in again.model.racers, "the ghost seated again")
        assert again.model.racers[ghost].ghost and again.model.phase != "finished"


async def test_a_wrong_challenge_code_is_explained_in_the_lobby(
    make_memory_server: MakeServer, database: Database
) -> None:
    server, _ = await recording(make_memory_server, database)
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        app.lobby.query_one("#code", Input).value = "ZZZZ"
        await click(pilot, "#ghost")
        assert "8-character challenge code" in app.lobby.status_text
        app.lobby.query_one("#code", Input).value = "ZZZZZZZZ"
        await click(pilot, "#ghost")  # once the button takes clicks again, after its press
        await until(pilot, lambda: "No challenge ZZZZZZZZ" in app.lobby.status_text, "the refusal explained")
        assert app.room is None


async def _bobs_win_challenged(server: RaceServer) -> tuple[str, str]:
    """Bob beats Ann playing one move every 100 ms, then challenges his run: its code and ghost."""
    clock = fake(server)
    (bob, ann), _ = await room_with(server, "bob", "ann")
    await race_to_start([bob, ann])
    for move in solution():
        clock.advance(100)
        assert isinstance(await bob.call(MoveRequest(move=str(move))), Moved)
    result = await bob.expect(Result)
    assert result.race_id is not None
    made = await bob.call(ChallengeRequest(race_id=result.race_id))
    assert isinstance(made, Challenge)
    for client in (bob, ann):
        await client.close()
    return made.challenge, GHOST_PREFIX + made.challenge
