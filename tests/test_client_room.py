"""Issue 11 in a room, with Textual's pilot driving RaceApp against a real in-process RaceServer:
the waiting room, results, review, rematch, statistics, coming back to a race, restarts, and the
race-side bugs (each test names its bug)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input

from client.apps.app import RaceApp
from client.data.userdata import SavedSession
from client.race.controller import RaceController
from client.screens.lobby import LobbyScreen
from client.screens.race_screen import RaceScreen
from client.screens.results import ResultsScreen
from client.screens.review import ReviewScreen
from client.widgets.rivals import status_text
from protocol.enums import Phase, Status
from protocol.messages import CreateRoom, Leave, Ok, Progress, Racer, Rematch, RoomState, Watched
from seahaven import FOUNDATION, Board, Move
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests.client_driver import (
    SIZE,
    ScriptedConnection,
    board_after,
    connect,
    create_deal_1,
    data_home,
    enter_room,
    play,
    race_bots,
    racing_state,
    room_of,
    room_requests,
    scripted_app,
    settle,
    shown,
    spectate,
    start_race,
    top,
    two_bots,
    until,
)
from tests.helpers import url_of
from tests.racing import solution
from tests.wsclient import WsClient

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one


def config(*, port: int = 0, countdown_ms: int = 100) -> Config:
    # The product's grace (30 s): a client restarted beside two busy loops took over 10 s to say
    # hello again, and its seat was rightly given up by then.
    return Config(port=port, countdown_ms=countdown_ms, rate=10000, burst=10000, spectator_delay_ms=0)


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    race = RaceServer(config(), MemoryStore())
    await race.start()
    yield race
    await race.stop()


async def finish(pilot: Pilot[None], room: RaceController) -> None:
    """Play the whole solution of deal 1 through the screen's key action."""
    for move in solution():
        text = str(move).split(":")[0]
        room.screen.action_pick(text[0])
        room.screen.action_pick(text[-1])
    await until(pilot, lambda: room.model.phase == Phase.FINISHED, "the end of the race")


# -- results, review, rematch, statistics -------------------------------------------------------


async def test_results_review_rematch_and_the_race_in_the_statistics(data_home: Path) -> None:
    # A countdown long enough to be seen on a busy machine: the test looks at the screen during it.
    race = RaceServer(config(countdown_ms=3000), MemoryStore())
    await race.start()
    app = RaceApp(url_of(race), "alice", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(race), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        cover = " ".join(room.screen.view.cover)
        assert "Seahaven Towers · deal SH1-ST-0001G" in cover, (
            "feature 5: the room's settings (issue 22: the deal by its code)"
        )
        assert "no time limit · undo on · hints off · public" in cover
        assert "Share this code" in cover, "the creator passes the code on"
        await start_race(app, pilot, bob, room)
        await play(bob, *solution()[:3])
        await finish(pilot, room)
        # Bug 3: the winner's own panel has the finishing time straight away.
        me = shown(room)[0]
        assert me.you and me.status == Status.FINISHED and me.time_ms is not None
        assert status_text(me)[0].startswith("finished 0:")
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        results = top(app)
        assert isinstance(results, ResultsScreen) and results.can_rematch and results.can_review
        # Feature 7: the review steps through the moves on the deal.
        await pilot.press("v")
        await until(pilot, lambda: isinstance(top(app), ReviewScreen), "the review")
        review = top(app)
        assert isinstance(review, ReviewScreen)
        assert review.board == Board.deal("seahaven", 1)
        await pilot.press("right", "right")
        assert review.board == board_after(solution()[:2]) and "move 2 of" in review.line_text
        await pilot.press("end")
        assert review.board.is_won()
        await pilot.press("left")
        assert not review.board.is_won()
        await pilot.press("escape")
        assert isinstance(top(app), RaceScreen)
        assert room.screen.view.cover == ()  # the final board, its keys in the message line
        assert "r for a rematch" in room.screen.message_text, room.screen.message_text
        # Feature 6: the race is in the statistics.
        stats = json.loads((data_home / "stats.json").read_text())
        (record,) = stats["races"]
        assert (record["room"], record["place"], record["status"], record["racers"]) == (room.code, 1, "finished", 2)
        assert record["deal"] == room.model.deal and record["time_ms"] == me.time_ms
        # Feature 5: the others see who wants a rematch.
        await bob.call(Rematch())
        await until(pilot, lambda: "bob wants a rematch" in room.screen.message_text, "bob's wish")
        # Bug 9: during the rematch's countdown the status line shows no old progress.
        await pilot.press("r")
        await until(pilot, lambda: room.model.phase == Phase.COUNTDOWN, "the rematch countdown")
        info = str(room.screen.info.content)
        assert "/52 home" not in info and "moves" not in info
        await until(pilot, lambda: room.model.phase == Phase.RACING, "the rematch", wait=8)
        assert "0/52 home" in str(room.screen.info.content)
    await bob.close()
    await race.stop()


async def test_bug12_a_spectators_results_offer_no_rematch_and_keep_the_time(server: RaceServer) -> None:
    ann, ben, code = await two_bots(server)
    app = RaceApp(url_of(server), "sam", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        room = await spectate(app, pilot, code)
        await race_bots(ann, ben)
        await until(pilot, lambda: room.model.phase == Phase.RACING, "the start")
        await play(ann, solution()[0])
        await until(pilot, lambda: str(room.screen.info.content).endswith(" · live"), "feature 8: how late")
        await play(ann, *solution()[1:])
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        results = top(app)
        assert isinstance(results, ResultsScreen)
        assert not results.can_rematch and "rematch" not in {str(b.id) for b in results.query("Button")}
        await pilot.press("r")
        assert isinstance(top(app), ResultsScreen), "r does nothing for a spectator"
        winner = room.model.standings[0].time_ms
        assert winner is not None and room.screen.clock.elapsed_ms == winner
        assert str(room.screen.clock.render()) != "0:00.0"
    # Joining the finished room afterwards: the clock shows the race's time, not 0:00.0.
    late = RaceApp(url_of(server), "tom", autoconnect=False, automove=False)
    async with late.run_test(size=SIZE) as pilot:
        room = await spectate(late, pilot, code)
        await until(pilot, lambda: isinstance(top(late), ResultsScreen), "the results")
        assert room.screen.clock.elapsed_ms == winner
    for bot in (ann, ben):
        await bot.close()


# -- the waiting room and the lobby ----------------------------------------------------------------


async def test_bug11_undo_off_says_so_and_bug14_boxes_show_their_state(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        undo = app.lobby.query_one("#undo", Checkbox)
        on = str(undo.render())
        await pilot.click("#undo")
        assert not undo.value and str(undo.render()) != on, "bug 14: on and off draw differently"
        assert "✓" in on and "✓" not in str(undo.render())
        room = await create_deal_1(app, pilot)
        assert "undo off" in " ".join(room.screen.view.cover)
        await start_race(app, pilot, bob, room)
        await pilot.press("7", "0")
        await settle(pilot, room)
        await pilot.press("u")
        assert room.screen.message_text == "Undo is off in this race"
        assert room.screen.board.move_stack == [Move.parse("70")]
    await bob.close()


async def test_bug5_the_code_field_is_empty_after_a_join(server: RaceServer) -> None:
    host = await WsClient.open(url_of(server), "host")
    created = await host.call(CreateRoom())
    assert isinstance(created, RoomState)
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        code = app.lobby.query_one("#code", Input)
        code.value = created.room
        await pilot.click("#join")
        await until(pilot, lambda: app.room is not None, "the room")
        room = room_of(app)
        cover = " ".join(room.screen.view.cover)
        assert "Share this code" not in cover, "feature 5: the joiner is not asked to share it"
        assert "deal chosen at start" in cover
        await pilot.press("l")
        await until(pilot, lambda: isinstance(top(app), LobbyScreen), "the lobby")
        await pilot.press("ctrl+j")
        assert code.value == "" and code.has_focus
    await host.close()


async def test_bug15_a_long_lobby_message_does_not_move_the_lobby(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        lobby = app.lobby
        await connect(app, pilot)
        before = lobby.query_one("#columns").region
        lobby.show_status("a long message " * 12, "error")
        await pilot.pause()
        assert lobby.query_one("#columns").region == before
        lobby.show_status("short")
        await pilot.pause()
        assert lobby.query_one("#columns").region == before


async def test_bug16_a_burst_of_typing_and_backspaces_keeps_every_key(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=True, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.connected, "connected")
        code = app.lobby.query_one("#code", Input)
        await pilot.click("#code")
        for _ in range(5):  # the rooms list refreshes meanwhile (at once too: F5's refresh; F5 also moves the focus)
            await pilot.press(*"QWE123", *["backspace"] * 6)
            app.lobby.action_refresh()
            assert code.value == ""
        await pilot.press(*"ABC123", "backspace", "backspace", "X")
        assert code.value == "ABC1X"


async def test_bug6_names_show_as_the_server_sends_them() -> None:
    racers = tuple(
        Racer(player=p, name=n, status="racing", connected=True, progress=0, moves=0, time_ms=None)
        for p, n in (("me", "Ann"), ("bob", "Ann (2)"))
    )
    ScriptedConnection.replies = {"join_room": lambda m: replace(racing_state(True), racers=racers)}
    app = scripted_app()
    async with app.run_test(size=SIZE) as pilot:
        await enter_room(app, pilot, "#join")
        assert [v.name for v in shown(room_of(app))] == ["Ann", "Ann (2)"]


# -- spectators resync from what the server sends ------------------------------------------------


def spectator_state(played: int, history: int) -> RoomState:
    """ann has played ``played`` moves; the frame's ``watching`` holds ``history`` of them."""
    moves = solution()
    racer = Racer(
        player="ann",
        name="ann",
        status="racing",
        connected=True,
        progress=board_after(moves[:played]).progress,
        moves=played,
        time_ms=None,
    )
    watched = (Watched(player="ann", history=tuple(map(str, moves[:history])), actions=history),)
    return replace(racing_state(True), role="spectator", racers=(racer,), watching=watched)


def anns_move(n: int) -> Progress:
    """ann's ``n``-th move reaching a spectator."""
    moves = solution()
    home = board_after(moves[:n]).progress
    return Progress(player="ann", progress=home, moves=n, status="racing", elapsed_ms=1, move=str(moves[n - 1]))


async def test_bug8_a_spectator_board_out_of_step_waits_and_resyncs() -> None:
    moves = solution()
    # The first room frame lost the history (a restarted server); the resync gets all of it.
    answers = iter([spectator_state(9, 0), spectator_state(10, 10)])
    ScriptedConnection.replies = {"join_room": lambda m: next(answers), "leave": lambda m: Ok()}
    app = scripted_app()
    async with app.run_test(size=SIZE) as pilot:
        room = await enter_room(app, pilot, "#spectate")
        conn = ScriptedConnection.last
        conn.on_event(anns_move(10))
        await until(pilot, lambda: room.screen.board.move_stack == list(moves[:10]), "the resync")
        assert room_requests(conn) == ["join_room", "leave", "join_room"]
        assert not room.spectate.stale and not room.screen.view.cover
        assert isinstance(conn.sent[-2], Leave)


async def test_bug8_a_board_that_cannot_follow_stays_covered_without_asking_again() -> None:
    # The resync's room frame lacks the history too: the board waits, covered, and the client
    # does not ask again at every move.
    answers = iter([spectator_state(9, 0), spectator_state(10, 0)])
    ScriptedConnection.replies = {"join_room": lambda m: next(answers), "leave": lambda m: Ok()}
    app = scripted_app()
    async with app.run_test(size=SIZE) as pilot:
        room = await enter_room(app, pilot, "#spectate")
        conn = ScriptedConnection.last
        conn.on_event(anns_move(10))
        await until(pilot, lambda: len(conn.sent) >= 4 and room.model.racers["ann"].moves == 10, "the resync")
        conn.on_event(anns_move(11))
        conn.on_event(anns_move(12))
        await until(pilot, lambda: room.model.racers["ann"].moves == 12, "the later moves")
        assert "ann's board is out of step" in room.screen.view.cover
        assert room_requests(conn) == ["join_room", "leave", "join_room"]


# -- coming back: restarts, resumed sessions -------------------------------------------------------


async def test_bug7_server_restarted_without_its_store_the_client_carries_on(data_home: Path) -> None:
    first = RaceServer(config(), MemoryStore())
    await first.start()
    port = first.port
    app = RaceApp(url_of(first), "alice", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(first), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        await start_race(app, pilot, bob, room)
        await first.stop()
        # Feature 3: the attempts and the seat's time left show while the server is away.
        await until(pilot, lambda: "attempt 2" in str(room.screen.info.content), "a second attempt")
        assert "seat kept" in str(room.screen.info.content)
        again = RaceServer(config(port=port), MemoryStore())
        await again.start()
        await until(pilot, lambda: isinstance(top(app), LobbyScreen), "the lobby", wait=10)
        assert "no longer knows it" in app.lobby.status_text
        assert app.connected
        assert not app.lobby.query_one("#columns").disabled, "the lobby works at once"
        room = await create_deal_1(app, pilot)
        assert room.model.phase == Phase.WAITING
        await again.stop()
    await bob.close()


async def test_a_restarted_client_comes_back_to_its_race(server: RaceServer, data_home: Path) -> None:
    bob = await WsClient.open(url_of(server), "bob")
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        code = room.code
        await start_race(app, pilot, bob, room)
        await pilot.press("7", "0")
        await settle(pilot, room)
        # Quitting a live race asks first.
        await pilot.press("ctrl+q")
        assert app.is_running and "Press ctrl+q again" in room.screen.message_text
        await pilot.press("ctrl+q")
    saved = SavedSession.load()
    assert saved is not None and saved.room == code and saved.server == url_of(server)
    again = RaceApp(None, None, automove=False)  # no address: the saved session's
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: again.room is not None, "back in the room")
        room = room_of(again)
        assert room.code == code and room.model.phase == Phase.RACING
        assert room.screen.board.move_stack == [Move.parse("70")], "the board as the server has it"
        assert "Welcome back" in room.screen.message_text
        await pilot.press("3", "c")
        await settle(pilot, room)
        assert room.screen.board.move_stack == [Move.parse("70"), Move.parse("3c")]
    await bob.close()


# -- auto-move in a race ----------------------------------------------------------------------------


async def test_auto_moves_in_a_race_come_with_the_move_the_server_judges(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=True)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        await start_race(app, pilot, bob, room)
        screen = room.screen
        auto = 0
        for move in solution()[:30]:
            if not screen.board.is_legal(move):
                continue  # auto-move already sent that card home
            before, home = screen.actions, screen.board.progress
            text = str(move).split(":")[0]
            screen.action_pick(text[0])
            screen.action_pick(text[-1])
            assert screen.actions == before + 1, "one move of hers, whatever went home with it"
            auto += screen.board.progress - home - (move.dst_area == FOUNDATION)
        await settle(pilot, room)
        assert auto > 0, "some cards went home by themselves"
        me = room.model.racers[room.model.me]
        assert (me.progress, me.moves) == (screen.board.progress, screen.actions), "the server agrees"
        # Bug 2: after an undo the status line and the panels count the same moves.
        await pilot.press("u")
        await settle(pilot, room)
        me = room.model.racers[room.model.me]
        assert me.moves == screen.actions == shown(room)[0].moves
        assert f"{screen.actions} moves" in str(screen.info.content)
    await bob.close()


async def test_lobby_statistics_replay_a_races_deal(data_home: Path) -> None:
    from client.apps.app import PracticeScreen
    from client.data.stats import RaceRecord, Stats
    from client.screens.stats_screen import StatsScreen
    from seahaven import encode

    stats = Stats.load(data_home / "stats.json")
    code = encode("seahaven", 5)
    stats.record_race(RaceRecord("2026-11-30T15:00:00", "ABC123", "seahaven", code, 1, 2, "finished", 90, 52, 99_000))
    app = RaceApp("ws://127.0.0.1:9", "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(top(app), StatsScreen)
        await pilot.click("#races", offset=(2, 1))
        await pilot.press("enter")
        await pilot.pause()
        practice = top(app)
        assert isinstance(practice, PracticeScreen) and practice.board == Board.from_code(code)
        assert practice.hints and code in practice.title_text
        await pilot.press("A")  # auto-move back on (the app started with it off), kept for races too
        await pilot.pause()
        assert practice.automove and app.settings.automove
        assert json.loads((data_home / "settings.json").read_text())["automove"] is True
        await pilot.press("escape")
        assert isinstance(top(app), LobbyScreen)


async def test_bug7_the_lobby_connects_again_by_itself_after_giving_up() -> None:
    import functools

    from client.net.connection import RaceConnection

    first = RaceServer(config(), MemoryStore())
    await first.start()
    port = first.port
    factory = functools.partial(RaceConnection, give_up_after=0.5)
    app = RaceApp(url_of(first), "alice", autoconnect=True, automove=False, connection_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        lobby = app.lobby
        await until(pilot, lambda: app.connected, "connected")
        await first.stop()
        await until(pilot, lambda: "trying again every 5 s" in lobby.status_text, "the give-up", wait=8)
        again = RaceServer(config(port=port), MemoryStore())
        await again.start()
        await until(pilot, lambda: app.connected and "Connected to" in lobby.status_text, "back by itself", wait=15)
        assert not lobby.query_one("#columns").disabled
        await again.stop()


def status_width(room: RaceController) -> int:
    """Columns the status line needs: the title and info, the clock and their padding."""
    return len(str(room.screen.info.content)) + len(str(room.screen.clock.render())) + 4


async def test_the_status_line_fits_80_columns_for_racers_and_spectators(server: RaceServer) -> None:
    from textual.widgets import Select

    app = RaceApp(url_of(server), "alexandrina", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=(80, 24)) as pilot:
        await connect(app, pilot)
        app.lobby.query_one("#time-limit", Select).value = 15
        room = await create_deal_1(app, pilot)
        await start_race(app, pilot, bob, room)
        await pilot.press("7", "0", "3", "c")
        await settle(pilot, room)
        assert "left" in str(room.screen.clock.render()) and "2 moves" in str(room.screen.info.content)
        assert status_width(room) <= 80
        assert room.model.deal is not None and room.model.deal in room.screen.racers[1], "the deal code shows"
    await bob.close()
    ann, ben, code = await two_bots(server)
    watcher = RaceApp(url_of(server), "sam", autoconnect=False, automove=False)
    async with watcher.run_test(size=(80, 24)) as pilot:
        room = await spectate(watcher, pilot, code)
        await race_bots(ann, ben)
        await play(ann, *solution()[:4])
        await until(pilot, lambda: room.screen.board.move_stack == list(solution()[:4]), "ann's moves")
        assert str(room.screen.info.content).startswith("Watching ann · Room ")
        assert status_width(room) <= 80
    for bot in (ann, ben):
        await bot.close()


async def test_the_review_steps_through_every_racer_from_result_histories() -> None:
    """The server's ``result.histories`` (built here from the engine) give every racer's moves."""
    from protocol.messages import Result, Standing

    moves = [str(m) for m in solution()]
    histories = (
        Watched(player="me", history=tuple(moves[:20]), actions=20),
        Watched(player="bob", history=tuple(moves), actions=len(moves)),
    )
    standings = (
        Standing(place=1, player="bob", name="bob", status="finished", progress=52, moves=len(moves), time_ms=90_000),
        Standing(place=2, player="me", name="me", status="racing", progress=3, moves=20, time_ms=None),
    )
    ScriptedConnection.replies = {"join_room": lambda m: racing_state(True)}
    app = scripted_app()
    async with app.run_test(size=SIZE) as pilot:
        await enter_room(app, pilot, "#join")
        ScriptedConnection.last.on_event(Result(reason="won", standings=standings, histories=histories))
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        await pilot.press("v")
        await until(pilot, lambda: isinstance(top(app), ReviewScreen), "the review")
        review = top(app)
        assert isinstance(review, ReviewScreen) and review.player == "me"
        await pilot.press("end")
        assert review.board == board_after(solution()[:20])
        await pilot.press("]")
        assert review.player == "bob" and "bob · move 20 of" in review.line_text
        await pilot.press("end")
        assert review.board.is_won()
