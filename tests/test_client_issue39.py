"""What issue 39 found in the terminal client, each walked with Textual's pilot against a real
server: a focused button keeps its label (it was drawn as an empty box); back on the first server
the player is back in the race they left there; a race plays at 60x20, the racers a key away."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual.color import Color
from textual.geometry import Region
from textual.widgets import Button, Input

import i18n
from client.apps.app import RaceApp
from client.apps.solo import SoloApp
from client.board.places import Place, safe_moves
from client.screens.game_screen import GameScreen
from client.screens.review import ReviewScreen
from protocol.messages import CreateRoom, JoinRoom, Ready, RoomState
from seahaven import COLUMN, Board
from server.records.accounts import Accounts
from server.records.database import Database, open_database
from server.records.migrate import migrate
from tests.client_driver import (
    SIZE,
    OneScreen,
    connect,
    create_deal_1,
    data_home,
    keys_of,
    room_of,
    settle,
    shown,
    top,
    until,
)
from tests.helpers import MakeServer, url_of
from tests.racing import solution
from tests.wsclient import WsClient

__all__ = ["data_home"]

FOCUS = Color.parse("#fde047")


def drawn(button: Button) -> str:
    """The button's cells as drawn (its outline and border included)."""
    width, height = button.size
    return "".join(strip.text for strip in button.render_lines(Region(0, 0, width, height)))


async def test_bug2_a_focused_button_keeps_its_label(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await connect(app, pilot)
        lobby = app.lobby
        await pilot.press("f3")  # the daily race's button, focused
        race = lobby.query_one("#daily-race", Button)
        await until(pilot, lambda: race.has_focus, "the daily Race focused")
        await pilot.pause()
        assert "Race" in drawn(race), drawn(race)
        for name in ("#create", "#quick", "#connect", "#join"):
            button = lobby.query_one(name, Button)
            button.focus()
            await until(pilot, lambda button=button: button.has_focus, f"{name} focused")  # type: ignore[misc]
            await pilot.pause()
            assert str(button.label) in drawn(button), (name, drawn(button))
            assert button.styles.background == FOCUS, "and the focus shows"


async def test_bug4_back_to_the_first_server_puts_the_player_back_in_their_race(
    make_memory_server: MakeServer, tmp_path: Path
) -> None:
    """Quit mid-race on server A, start on server B, then type A's address again: the player is
    back in the room they left there (it was "Welcome back" with the lobby still showing, and
    every join refused "you are in room ...: leave it first")."""
    one, other = (
        await make_memory_server(accounts=Accounts(await records(tmp_path, "a"))),
        await make_memory_server(accounts=Accounts(await records(tmp_path, "b"))),
    )
    first = RaceApp(url_of(one), "ann", autoconnect=False, automove=False)
    async with first.run_test(size=SIZE) as pilot:
        await connect(first, pilot)
        room = await create_deal_1(first, pilot)
        code = room.code
    app = RaceApp(url_of(other), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        app.lobby.query_one("#server", Input).value = url_of(one)
        await pilot.click("#connect")
        await until(pilot, lambda: app.room is not None, "back in the room on the first server", 10)
        assert app.room is not None and app.room.code == code
        assert top(app) is not app.lobby


async def records(folder: Path, name: str) -> Database:
    db = open_database(f"sqlite:///{folder / name}.db", folder)
    await migrate(db)
    return db


async def test_bug5_a_race_is_played_at_60x20_with_the_racers_a_key_away(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(deals=lambda: 1)
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=(60, 20)) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        bob = await WsClient.open(url_of(server), "bob")
        assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
        await until(pilot, lambda: len(room.model.racers) == 2, "bob in the room")
        await pilot.press("r")
        await bob.call(Ready(ready=True))
        await until(pilot, lambda: room.model.phase == "racing" and not room.screen.locked, "the race")
        screen = room.screen
        rivals = screen.rivals
        assert rivals is not None
        assert screen.view.too_small is None, screen.view.too_small  # the board first
        assert not rivals.display or rivals.size.width == 0
        await pilot.press("1")  # a move can be started: the board takes keys
        assert "too small" not in screen.message_text
        await pilot.press("escape")
        await pilot.press("v")  # the racers, in the board's place
        await until(pilot, lambda: rivals.display and rivals.size.width > 0, "the racers shown")
        await pilot.press("1")  # no move played blind meanwhile
        assert "v: back to the board" in screen.message_text and screen.selected is None
        await pilot.press("v")
        await until(pilot, lambda: not rivals.display or rivals.size.width == 0, "the racers hidden again")

        # Too small for anything, a key says so; bigger again, that line goes.
        await pilot.resize_terminal(30, 12)
        await until(pilot, lambda: screen.view.too_small is not None, "too small")
        await pilot.press("1")
        assert "too small" in screen.message_text
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: "too small" not in screen.message_text, "the stale line gone")
        assert screen.view.too_small is None and rivals.display and rivals.size.width > 0  # side by side
    await bob.close()


async def test_bug1_dragging_a_card_leaves_no_text_selection_over_the_board() -> None:
    app = OneScreen(GameScreen(Board.deal("seahaven", 1)))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.shown
        board = screen.view
        start = board.point_of(Place(COLUMN, 0))
        end = board.point_of(Place(COLUMN, 4))
        await pilot.mouse_down(board, offset=start)
        await pilot.hover(board, offset=end)
        await pilot.mouse_up(board, offset=end)
        await pilot.pause()
        assert not screen.selections, screen.selections  # no light-blue block from drag to drop
        assert board.allow_select is False


# -- bug 9: the smaller ones ---------------------------------------------------------------------------


async def test_bug9_a_move_lost_with_the_connection_is_said_and_undone(make_memory_server: MakeServer) -> None:
    """A move played as the connection dies (sent, never read by the server) is not kept on the
    board by itself: back online the board is the server's, and the player is told why."""
    server = await make_memory_server(grace_ms=10_000)
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    moves = solution()
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
        await until(pilot, lambda: len(room.model.racers) == 2, "bob in the room")
        await pilot.press("r")
        await bob.call(Ready(ready=True))
        await until(pilot, lambda: room.model.phase == "racing" and not room.screen.locked, "the race")
        await pilot.press(*keys_of(moves[0]))
        await settle(pilot, room)
        conn = server.players[room.model.me].conn
        assert conn is not None
        conn.transport.pause_reading()  # the server hears nothing more from this socket...
        await pilot.press(*keys_of(moves[1]))
        assert room.screen.board.move_stack == list(moves[:2])  # played here, and sent
        conn.transport.abort()  # ...and then the connection dies
        await until(pilot, lambda: room.reconnecting, "the drop")
        await until(pilot, lambda: not room.reconnecting, "back online", wait=8)
        assert room.screen.board.move_stack == [moves[0]]
        assert "Reconnected: 1 move never reached the server" in room.screen.message_text, room.screen.message_text
        await pilot.press(*keys_of(moves[1]))  # played again, it counts
        await settle(pilot, room)
        seat = server.rooms[room.code].room.seats[room.model.me]
        assert seat.board is not None and seat.board.move_stack == list(moves[:2])
    await bob.close()


async def test_bug9_auto_move_turned_on_plays_the_safe_cards_already_waiting(tmp_path: Path) -> None:
    app = SoloApp("seahaven", 2, stats_path=tmp_path / "s.json", automove=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        waiting = safe_moves(screen.board)
        assert len(waiting) == 2 and screen.board.progress == 0  # two aces free at the deal, left alone
        await pilot.press("A")
        await until(pilot, lambda: screen.board.progress == 2, "the waiting aces home")
        assert screen.board.move_stack[:2] == waiting
        assert "2 cards home by itself" in screen.message_text, screen.message_text
        assert not screen.clock.running, "the player has not begun: the clock waits for their first move"


# -- bug 7: the bot's name in the player's language ----------------------------------------------------


@pytest.mark.parametrize(("language", "name"), [("fr", "Ordinateur (vive)"), ("it", "Computer (svelto)")])
async def test_bug7_a_bot_is_named_in_the_players_language(
    make_memory_server: MakeServer, language: str, name: str
) -> None:
    """The server names a bot ``Computer (PACE)`` (docs/protocol.md): the panel, the results and
    their headline say it in the player's language."""
    server = await make_memory_server()
    # The bot's worker starts before Textual's test app replaces the standard streams (a process
    # spawned under it fails: "bad value(s) in fds_to_keep").
    await asyncio.get_running_loop().run_in_executor(server.worker.executor(), int)
    try:
        app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
        async with app.run_test(size=SIZE) as pilot:
            await connect(app, pilot)
            i18n.use(language)
            await app.enter(CreateRoom(deal_number=1, bot="brisk"))
            room = room_of(app)
            await until(pilot, lambda: len(room.model.racers) == 2, "the bot seated")
            (bot,) = [v for v in shown(room) if not v.you]
            assert bot.bot and bot.name == name
            await pilot.press("r")
            # The factory's bots play without pauses: this one finishes the deal by itself, at once.
            await until(pilot, lambda: room.model.phase == "finished", "the bot's win", wait=30)
            assert [s.name for s in room.model.standings if s.bot] == [name]
    finally:
        i18n.use("en")


def test_missing_a_ghost_race_says_whose_run_its_time_and_who_raced_it() -> None:
    from client.race.room_text import ghost_lines

    run = {"name": "bob", "time_ms": 192_400, "results": []}
    assert ghost_lines(run) == ("A ghost: bob's run, 3:12.4 to beat", "Nobody has raced it yet")
    raced = {**run, "results": [{"name": "ann", "time_ms": None}, {"name": "cid", "time_ms": 201_000}]}
    assert ghost_lines(raced)[1] == "Raced 2 times · fastest cid 3:21.0"
    assert ghost_lines({"name": "bob", "time_ms": None, "results": [{"name": "ann", "time_ms": None}]}) == (
        "A ghost: bob's run, which did not finish",
        "Raced 1 time",
    )


# -- found on the walk: the words after a race -----------------------------------------------------


def test_a_racer_who_did_not_finish_is_said_so_in_the_players_language() -> None:
    from client.widgets.rivals import DID_NOT_FINISH, RacerView, status_text

    i18n.use("fr")
    try:
        assert status_text(RacerView(name="Bruno", status=DID_NOT_FINISH))[0] == "pas fini"
    finally:
        i18n.use("en")


def test_a_race_nobody_finished_level_on_cards_and_time_is_a_tie() -> None:
    from client.race.room_text import headline
    from protocol.enums import EndReason
    from protocol.messages import Standing

    def standing(place: int, player: str, progress: int, time_ms: int) -> Standing:
        return Standing(
            place=place, player=player, name=player, status="resigned", progress=progress, moves=0, time_ms=time_ms
        )

    level = (standing(1, "ann", 3, 0), standing(2, "bob", 3, 0))
    assert headline(EndReason.ALL_DONE, level, "ann") == "Nobody finished: a tie at 3 cards home"
    assert headline(EndReason.TIME_LIMIT, level, "bob") == "Time is up: a tie at 3 cards home"
    one = (standing(1, "ann", 1, 0), standing(2, "bob", 1, 0))  # the opening's ace, and both resigned
    assert headline(EndReason.ALL_DONE, one, "ann") == "Nobody finished: a tie at 1 card home"
    i18n.use("it")
    try:
        assert headline(EndReason.ALL_DONE, one, "ann") == "Nessuno ha finito: pareggio a 1 carta in base"
        assert headline(EndReason.ALL_DONE, level, "ann") == "Nessuno ha finito: pareggio a 3 carte in base"
    finally:
        i18n.use("en")
    ahead = (standing(1, "ann", 3, 1200), standing(2, "bob", 3, 5000))  # the same cards, ann first
    assert headline(EndReason.ALL_DONE, ahead, "bob") == "Nobody finished: ann got furthest"
    assert headline(EndReason.ALL_DONE, (standing(1, "ann", 9, 0), standing(2, "bob", 3, 0)), "ann") == (
        "Nobody finished: you got furthest"
    )


async def test_after_the_results_the_final_board_shows_and_v_reviews_the_race(make_memory_server: MakeServer) -> None:
    """Escape on the results closes them over the final board: the cards, not a cover saying
    "v: review the race" while v hid the racers; v opens the review, as on the results."""
    from client.screens.results import ResultsScreen
    from client.screens.review import ReviewScreen
    from protocol.messages import Resign

    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
        await until(pilot, lambda: len(room.model.racers) == 2, "bob in the room")
        await pilot.press("r")
        await bob.call(Ready(ready=True))
        await until(pilot, lambda: room.model.phase == "racing" and not room.screen.locked, "the race")
        await pilot.press(*keys_of(solution()[0]))
        await settle(pilot, room)
        await bob.call(Resign())
        await pilot.press("R", "R")
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        await pilot.press("escape")
        await until(pilot, lambda: top(app) is room.screen, "the final board")
        assert room.screen.cover == (), room.screen.cover
        assert "v to review the race" in room.screen.message_text, room.screen.message_text
        shown_keys = {
            binding.key: binding.action for (_, binding, enabled, _) in app.active_bindings.values() if enabled
        }
        assert shown_keys.get("v") == "review"
        await pilot.press("v")
        await until(pilot, lambda: isinstance(top(app), ReviewScreen), "the review")
        review = top(app)
        assert isinstance(review, ReviewScreen) and review.track is not None and review.track.player == room.model.me
    await bob.close()


async def test_the_review_counts_the_racers_own_moves_and_marks_the_servers() -> None:
    """The results count a racer's own moves: the review steps through the server's auto-moves
    too, marked, and counts as the results do ("move 1 of 2", not "move 1 of 5")."""
    from typing import Any

    from client.records.replay import shown_name
    from seahaven.codes import encode

    board = Board.deal("seahaven", 1)
    moves: list[list[object]] = []
    auto: list[int] = []
    for ms, move in ((1000, solution()[0]), (2000, solution()[1])):
        board.push(move)
        moves.append([ms, str(move)])
        while (played := board.auto_move()) is not None:
            board.push(played)
            auto.append(len(moves))
            moves.append([ms, str(played)])
    assert auto, "deal 1's first moves send cards home by themselves"
    bot = {"player": "b1", "name": "Computer (brisk)", "bot": True, "moves": moves, "auto": auto}
    race: dict[str, Any] = {"deal_code": encode("seahaven", 1), "racers": [bot]}

    async def fetch() -> dict[str, Any]:
        return race

    review = ReviewScreen(None, fetch=fetch)
    i18n.use("fr")
    try:
        assert shown_name(bot) == "Ordinateur (vive)"  # not "Computer (brisk) (bot)"
    finally:
        i18n.use("en")
    async with OneScreen(review).run_test(size=SIZE) as pilot:
        await until(pilot, lambda: review.source == "server", "the race read")
        (track,) = review.tracks
        assert [step.auto for step in track.steps] == [i in auto for i in range(len(moves))]
        await pilot.press(*["right"] * (auto[0] + 1))  # to the first card home by itself
        own = auto[0] - sum(1 for i in auto if i < auto[0])  # the racer's moves before it
        assert f"move {own} of 2 " in review.line_text and "(by itself)" in review.line_text, review.line_text


def test_the_results_count_the_moves_on_the_board_and_the_undos_apart() -> None:
    """As the browser and the replay count them: an undo takes a move back ("34 moves, 1 undo"
    where the server counts 36 actions), so both clients' results of one race agree."""
    from rich.console import Console

    from client.race.room_text import result_rows
    from client.screens.results import standings_table
    from protocol.messages import Standing

    ann = Standing(place=1, player="ann", name="Ann", status="finished", progress=52, moves=36, time_ms=9000, undos=1)
    (row,) = result_rows([ann], "ann")
    assert (row.moves, row.undos) == (34, 1)
    console = Console(width=80, record=True)
    console.print(standings_table([row]))
    drawn = console.export_text()
    assert " 34 " in drawn and "1 undo" in drawn and " 36 " not in drawn, drawn
