"""Issue 22's bugs in the terminal client, each with its test: Textual's pilot driving RaceApp
(or SoloApp) against a real in-process RaceServer whose clock the test moves (tests/helpers.py)."""

from __future__ import annotations

import json
import random
import socket
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Select
from textual.widgets._footer import FooterKey

import i18n
from client.apps.app import PracticeScreen, RaceApp
from client.apps.screenshots import ShowApp, sample_histories
from client.apps.solo import SoloApp, random_deal
from client.board.places import Place, safe_moves
from client.data.stats import RaceRecord, Stats
from client.data.userdata import Settings
from client.race.controller import RaceController
from client.race.room_model import RoomModel
from client.race.room_text import Seen, racer_views
from client.race.spectating import Boards
from client.screens.game_screen import GameScreen
from client.screens.race_screen import RaceScreen
from client.screens.results import ResultRow, ResultsScreen
from client.screens.review import ReviewScreen
from client.screens.stats_screen import StatsScreen
from client.text.words import deal_code, deal_label
from client.widgets.board_view import BoardView, card_style
from client.widgets.rivals import DID_NOT_FINISH, RacerView, status_text
from protocol.enums import Phase
from protocol.messages import (
    CreateRoom,
    DailyBoard,
    DailyBoardRequest,
    DailyEntry,
    JoinRoom,
    Leave,
    Racer,
    Ready,
    Rematch,
    Resign,
    RoomState,
    Watched,
)
from seahaven import CELL, COLUMN, Board, Card, Move, encode
from seahaven.solver import solve
from seahaven.winnable import deal_list
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests.client_driver import (
    SIZE,
    connect,
    data_home,
    play,
    race_bots,
    room_of,
    shown,
    spectate,
    top,
    two_bots,
    until,
)
from tests.helpers import MakeServer, fake, url_of
from tests.racing import solution
from tests.wsclient import WsClient

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one


async def join_bobs_room(
    app: RaceApp, pilot: Pilot[None], server: RaceServer, **create: object
) -> tuple[WsClient, RaceController]:
    """Bob creates a room (``create``: its settings; deal 1 unless it says); the app joins it by code from the
    lobby; both get ready and the race starts (the servers' countdown is 0)."""
    bob = await WsClient.open(url_of(server), "bob")
    state = await bob.call(CreateRoom(**{"deal_number": 1, **create}))  # type: ignore[arg-type]
    assert isinstance(state, RoomState)
    await connect(app, pilot)
    app.lobby.query_one("#code", Input).value = state.room
    await pilot.click("#join")
    await until(pilot, lambda: app.room is not None and isinstance(top(app), RaceScreen), "the room")
    room = room_of(app)
    await until(pilot, lambda: len(room.model.racers) == 2, "both racers")
    await bob.call(Ready(ready=True))
    await pilot.press("r")
    await until(pilot, lambda: room.model.phase == Phase.RACING and not room.screen.locked, "the start")
    return bob, room


# -- bug 1 and bug 3: the clock, and "racing" after the race ------------------------------------


async def test_bug1_bug3_time_up_the_clock_shows_the_limit_and_nobody_is_still_racing(
    make_memory_server: MakeServer, data_home: Path
) -> None:
    server = await make_memory_server()
    clock = fake(server)
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        bob, room = await join_bobs_room(app, pilot, server, time_limit=120)
        first = str(solution()[0]).split(":")[0]
        room.screen.action_pick(first[0])
        room.screen.action_pick(first[-1])
        await until(pilot, lambda: room.model.racers[room.model.me].moves == 1, "ann's move judged")
        clock.advance(120_000)
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results at the time limit")
        assert room.screen.clock.elapsed_ms == 120_000, "the clock stops at the limit, not at the last move"
        assert str(room.screen.clock.render()) == "2:00.0 · 0:00.0 left"
        # Bug 3: after the race nobody is "racing": not on the panel, the results or the statistics.
        panel = [status_text(v)[0] for v in shown(room)]
        assert panel == [DID_NOT_FINISH, DID_NOT_FINISH]
        results = top(app)
        assert isinstance(results, ResultsScreen)
        assert {r.status for r in results.rows} == {DID_NOT_FINISH}
        (record,) = json.loads((data_home / "stats.json").read_text())["races"]
        assert record["status"] == DID_NOT_FINISH and record["progress"] == room.model.standings[0].progress
    await bob.close()


async def test_bug1_all_resigned_the_clock_stays_where_the_race_ended(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        bob, room = await join_bobs_room(app, pilot, server)
        first = str(solution()[0]).split(":")[0]
        room.screen.action_pick(first[0])
        room.screen.action_pick(first[-1])
        await until(pilot, lambda: room.model.racers[room.model.me].moves == 1, "ann's move judged")
        await pilot.pause(0.3)  # the race goes on after the last move
        await bob.call(Resign())
        before = room.screen.clock.elapsed_ms
        await pilot.press("R", "R")
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        assert not room.screen.clock_running
        last_move = max(s.time_ms or 0 for s in room.model.standings)
        assert room.screen.clock.elapsed_ms >= before > last_move, "the clock does not jump back to the last move"
    await bob.close()


# -- bug 5: auto-move at the start ----------------------------------------------------------------


def opening_moves(deal: int) -> list[str]:
    board = Board.deal("seahaven", deal)
    return [str(m) for m in safe_moves(board)]


async def test_bug5_solo_the_deals_safe_cards_go_home_at_once_without_starting_the_game(tmp_path: Path) -> None:
    assert opening_moves(2), "deal 2 opens with safe cards"
    path = tmp_path / "stats.json"
    app = SoloApp("seahaven", 2, stats_path=path, automove=True, rng=random.Random(1))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.game_screen
        assert screen.board.progress >= len(opening_moves(2)) and "home by itself" in screen.message_text
        assert not screen.clock.running and not app.in_progress(), "the player has not begun"
        await pilot.press("n")
        assert app.deal != 2, "a new deal at once: nothing to abandon"
    assert not path.exists() or json.loads(path.read_text())["presets"].get("seahaven", {}).get("played", 0) == 0


async def test_bug5_race_the_deals_safe_cards_go_home_at_the_start(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=True)
    async with app.run_test(size=SIZE) as pilot:
        bob, room = await join_bobs_room(app, pilot, server, deal_number=2)
        opening = len(opening_moves(2))
        # The server plays them (ready asked for it): cards home, no move of hers.
        await until(pilot, lambda: room.model.racers[room.model.me].progress >= opening, "the server played them")
        assert room.screen.board.progress == room.model.racers[room.model.me].progress == opening
        assert room.model.racers[room.model.me].moves == 0 == room.screen.actions
        assert not room.screen.game.pending
    await bob.close()


# -- bugs 2, 6 and 10: keys that work say so in the footer, and those that do not say why --------


def footer(screen: Screen[Any]) -> dict[str, str]:
    """The keys the screen's footer shows now, with their words."""
    return {key: b.binding.description for key, b in screen.active_bindings.items() if b.binding.show}


async def test_bug2_bug10_keys_off_in_a_room_say_so_and_the_footer_shows_only_working_keys(
    make_memory_server: MakeServer,
) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        bob, room = await join_bobs_room(app, pilot, server, undo=False, hints=False)
        keys = footer(room.screen)
        assert "u" not in keys and "H" not in keys and "r" not in keys, keys
        assert keys.get("R") == "Resign"
        await pilot.press("H")
        assert room.screen.message_text == "Hints are off in this race", "bug 2: H says why it does nothing"
        await pilot.press("u")
        assert room.screen.message_text == "Undo is off in this race"
        await bob.call(Resign())
        await pilot.press("R", "R")
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        results = top(app)
        assert footer(results).get("r") == "Rematch" and "Ready" not in footer(results).values()
        assert footer(room.screen).get("r") == "Rematch", "the race screen's r after the race is the rematch"
        await pilot.press("r")
        await until(pilot, lambda: room.asked_rematch, "the rematch asked")
        assert "r" not in footer(room.screen), "asked once: r does nothing more"
    await bob.close()


async def test_bug6_a_spectator_is_not_told_to_press_r_for_a_rematch(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    ann, ben, code = await two_bots(server)
    app = RaceApp(url_of(server), "sam", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        room = await spectate(app, pilot, code)
        await race_bots(ann, ben)
        await play(ann, *solution())
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        await ben.call(Rematch())
        await until(pilot, lambda: "ben wants a rematch" in room.screen.message_text, "ben's wish")
        assert "r to race" not in room.screen.message_text
        assert "r" not in footer(room.screen)
    for bot in (ann, ben):
        await bot.close()


async def test_bug10_the_statistics_screen_shows_its_own_keys_not_the_games(tmp_path: Path) -> None:
    app = SoloApp("seahaven", 1, stats_path=tmp_path / "s.json", automove=False)
    async with app.run_test(size=SIZE) as pilot:
        assert {"n", "S"} <= set(footer(app.screen))
        await pilot.press("S")
        assert isinstance(app.screen, StatsScreen)
        keys = footer(app.screen)
        assert "n" not in keys and "S" not in keys and keys.get("escape") == "Back", keys
        await pilot.press("n")
        assert isinstance(app.screen, StatsScreen) and app.deal == 1


# -- bug 4: a forfeited seat is said to be lost -------------------------------------------------------


async def test_bug4_back_after_the_grace_period_the_lost_seat_is_said(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(grace_ms=2000)
    clock = fake(server)
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        bob, room = await join_bobs_room(app, pilot, server)
        await pilot.press("ctrl+q", "ctrl+q")
    clock.advance(2001)
    again = RaceApp(None, None, automove=False)
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: again.room is not None and again.room.model.my_status() is not None, "back")
        room = room_of(again)
        await pilot.pause(0.2)
        assert room.model.my_status() == "forfeit", room.model.my_status()
        text = room.screen.message_text
        assert "lost your seat" in text and "Welcome back" not in text, text
    await bob.close()


# -- bug 9: the lobby keeps trying after a failed first attempt, in words ----------------------------


async def test_bug9_a_first_attempt_that_fails_is_tried_again_and_said_in_words() -> None:
    with socket.socket() as probe:  # a port nothing listens on (yet)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = RaceApp(f"ws://127.0.0.1:{port}", "ann", autoconnect=True, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        lobby = app.lobby
        await until(pilot, lambda: "Cannot connect" in lobby.status_text, "the failed first attempt")
        assert "nothing answers on that port" in lobby.status_text and "trying again every 5 s" in lobby.status_text
        assert "Errno" not in lobby.status_text and "Connect call failed" not in lobby.status_text
        later = RaceServer(Config(port=port, countdown_ms=0, rate=10_000, burst=10_000), MemoryStore())
        await later.start()
        try:
            await until(pilot, lambda: app.connected and "Connected to" in lobby.status_text, "by itself", wait=15)
        finally:
            await later.stop()


# -- bug 15 and the race statistics: won races count, with streaks and places --------------------------


async def test_bug15_won_races_count_in_the_statistics_with_streaks_and_places(data_home: Path) -> None:
    stats = Stats.load(data_home / "stats.json")
    code = encode("seahaven", 5)
    for n, (place, status) in enumerate([(1, "finished"), (2, DID_NOT_FINISH), (1, "finished"), (1, "finished")]):
        time_ms = 90_000 + n if status == "finished" else None
        stats.record_race(
            RaceRecord(f"2026-11-30T15:0{n}:00", "ABC123", "seahaven", code, place, 2, status, 9, 52, time_ms)
        )
    app = RaceApp("ws://127.0.0.1:9", "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        screen = top(app)
        assert isinstance(screen, StatsScreen)
        races: DataTable[str] = screen.query_one("#race-stats", DataTable)
        assert races.display and races.row_count == 1
        row = [str(cell) for cell in races.get_row_at(0)]
        assert row[:6] == ["Seahaven Towers", "4", "3", "75%", "2", "2"], row
        assert row[6].split() == ["3", "1", "0"] and row[7] == "1:30.0"
        solo: DataTable[str] = screen.query_one("#presets", DataTable)
        assert not solo.display and screen.query_one("#no-solo", Label).display, "no 'games 0 wins 0' beside won races"
        history: DataTable[str] = screen.query_one("#races", DataTable)
        assert str(history.get_row_at(2)[3]) == f"{DID_NOT_FINISH} 52/52"


# -- bug 16 and winnable solo deals ----------------------------------------------------------------------


async def test_bug16_an_unwinnable_deal_at_move_0_says_so_without_an_undo(tmp_path: Path) -> None:
    assert solve(Board.deal("seahaven", 21)).status == "unsolvable"
    app = SoloApp("seahaven", 21, stats_path=tmp_path / "s.json", automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("H")
        screen = app.game_screen
        await until(pilot, lambda: screen.hint_result is not None, "the solver's answer", wait=30)
        assert screen.message_text == "This position cannot be won, and there is nothing to undo: n for a new deal"


def test_solo_deals_only_winnable_ones_unless_asked() -> None:
    listed = {n for n, _ in deal_list("seahaven").deals}
    rng = random.Random(7)
    assert all(random_deal("seahaven", rng) in listed for _ in range(200))
    assert any(random_deal("seahaven", rng, any_deal=True) not in listed for _ in range(200))


# -- bug 7: a terminal too small for the board says so ------------------------------------------------


class RaceScreenApp(App[None]):
    """A race's game screen alone (its moves go nowhere): what the board shows at a terminal size."""

    def __init__(self, racers: Sequence[RacerView] = ()) -> None:
        super().__init__()
        self.game_screen = GameScreen(Board.deal("seahaven", 1), sink=NoSink(), race=True, racers=racers)

    def on_mount(self) -> None:
        self.push_screen(self.game_screen)


class NoSink:
    def submit(self, seq: int, move: Move, auto: bool = False) -> None: ...

    def undo(self, seq: int) -> None: ...

    def resign(self) -> None: ...


async def test_bug7_a_terminal_too_small_for_the_board_says_so_instead_of_cutting_it() -> None:
    small = RaceScreenApp()
    async with small.run_test(size=(36, 14)) as pilot:  # 60x20 fits a race now (issue 39, bug 5)
        await pilot.pause()
        view = small.game_screen.view
        assert view.too_small is not None
        assert "Too small for the board" in str(view.render()) and "make the terminal bigger" in str(view.render())
        await pilot.press("7", "0")
        assert small.game_screen.board.move_stack == [], "no move played on a board out of sight"
        assert "too small" in small.game_screen.message_text
    fits = RaceScreenApp()
    async with fits.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert fits.game_screen.view.too_small is None
        assert "Too small" not in str(fits.game_screen.view.render())


# -- bug 14: the labels ---------------------------------------------------------------------------------


async def test_bug14_a_full_room_a_named_bot_and_the_countdown_say_the_right_things(
    make_memory_server: MakeServer,
) -> None:
    server = await make_memory_server(countdown_ms=60_000)  # the fake clock holds the countdown
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await connect(app, pilot)
        await app.enter(CreateRoom(deal_number=1, bot="brisk"))  # what the form's "race the computer" sends
        room = room_of(app)
        await until(pilot, lambda: len(room.model.racers) == 2, "the bot seated")
        cover = " ".join(room.screen.view.cover)
        assert "Share this code" not in cover, "a full room needs nobody else"
        (bot,) = [v for v in shown(room) if not v.you]
        assert bot.bot and bot.name == "Computer (brisk)"
        assert room.screen.rivals is not None
        assert "(bot)" not in str(room.screen.rivals.render()), "not 'Computer (brisk) (bot)'"
        await pilot.press("r")
        await until(pilot, lambda: room.model.phase == Phase.COUNTDOWN, "the countdown")
        assert room.screen.locked is not None and "r when you are ready" not in room.screen.locked


async def test_bug14_moves_and_hints_at_80_columns_read_as_words() -> None:
    racers = [RacerView("ann", 30, 16, "finished", 83_000, hints=1, you=True), RacerView("bob", 20, 16, hints=1)]
    app = RaceScreenApp(racers)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.game_screen.rivals is not None
        text = str(app.game_screen.rivals.render())
        assert "16m" not in text and "1h" not in text, text
        assert "16 mv · finished" in text and "16 moves · racing" in text, text


async def test_bug2_in_a_room_with_undo_and_hints_u_and_h_work_and_show(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        bob, room = await join_bobs_room(app, pilot, server, undo=True, hints=True)
        keys = footer(room.screen)
        assert keys.get("u") == "Undo" and keys.get("H") == "Hint", keys
        first = str(solution()[0]).split(":")[0]
        room.screen.action_pick(first[0])
        room.screen.action_pick(first[-1])
        await pilot.press("u")
        assert room.screen.board.move_stack == [] and room.screen.message_text.startswith("Undid")
        await pilot.press("H")
        assert room.hint_asked_at == room.screen.actions, "H asked the server for a hint"
    await bob.close()


# -- what players expect: a rival who resigns, forfeits or leaves is said --------------------------------


async def test_a_rival_who_resigns_or_leaves_is_said(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    cid = await WsClient.open(url_of(server), "cid")
    async with app.run_test(size=SIZE) as pilot:
        bob = await WsClient.open(url_of(server), "bob")
        state = await bob.call(CreateRoom(deal_number=1, seats=3))
        assert isinstance(state, RoomState)
        await connect(app, pilot)
        app.lobby.query_one("#code", Input).value = state.room
        await pilot.click("#join")
        await until(pilot, lambda: app.room is not None, "the room")
        room = room_of(app)
        assert isinstance(await cid.call(JoinRoom(room=state.room)), RoomState)
        await until(pilot, lambda: len(room.model.racers) == 3, "three racers")
        await bob.call(Ready(ready=True))
        await cid.call(Ready(ready=True))
        await pilot.press("r")
        await until(pilot, lambda: room.model.phase == Phase.RACING, "the start")
        await bob.call(Resign())
        await until(pilot, lambda: "bob resigned" in room.screen.message_text, "bob's resignation said")
        await cid.call(Leave())
        await until(pilot, lambda: "cid" in room.screen.message_text, "cid's leaving said")
        assert "cid resigned" in room.screen.message_text or "cid left the room" in room.screen.message_text
    for client in (bob, cid):
        await client.close()


# -- what players expect: drag and drop with the mouse ---------------------------------------------------


async def test_drag_and_drop_moves_a_card_and_clicks_still_work(tmp_path: Path) -> None:
    app = SoloApp("seahaven", 1, stats_path=tmp_path / "s.json", automove=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        view = screen.view
        await pilot.mouse_down(BoardView, offset=view.point_of(Place(COLUMN, 6)))
        await pilot.hover(BoardView, offset=view.point_of(Place(COLUMN, 9)))
        await pilot.mouse_up(BoardView, offset=view.point_of(Place(COLUMN, 9)))
        await pilot.pause()
        assert screen.board.move_stack == [Move.parse("70")], "column 7's card dropped on column 10"
        assert screen.selected is None
        # A drop onto a place that does not take the card moves nothing and says why.
        await pilot.mouse_down(BoardView, offset=view.point_of(Place(COLUMN, 2)))
        await pilot.mouse_up(BoardView, offset=view.point_of(Place(COLUMN, 0)))
        await pilot.pause()
        assert screen.board.move_stack == [Move.parse("70")] and screen.selected is None
        # Clicks as before: source, then destination.
        await pilot.click(BoardView, offset=view.point_of(Place(COLUMN, 2)))
        await pilot.click(BoardView, offset=view.point_of(Place(CELL, 2)))
        assert screen.board.move_stack == [Move.parse("70"), Move.parse("3c")]


# -- what players expect: the deal written one way everywhere ----------------------------------------------


async def test_the_deal_is_written_by_its_code_in_the_room_and_in_solo(tmp_path: Path) -> None:
    big = encode("seahaven", 1032435129674)  # a daily deal's number: long, so the code is what people read
    assert big == "SH1-ST-Y1GYVQAAX"
    state = RoomState(
        room="ABCDEF", you="me", role="racer", preset="seahaven", seats=2, public=False, time_limit=None,
        undo=True, phase="waiting", racers=(), spectators=0, server_time=0, deal=big,
    )  # fmt: skip
    model = RoomModel(state)
    assert model.settings_lines()[0] == f"Seahaven Towers · deal {big}"
    asked = RoomModel(state, deal_asked=deal_label(deal_code("seahaven", 1032435129674)))
    assert asked.settings_lines()[0] == f"Seahaven Towers · deal {big}", "asked by number, written by code"
    solo = SoloApp("seahaven", 1, stats_path=tmp_path / "s.json", automove=False)
    async with solo.run_test(size=SIZE):
        assert solo.game_screen.title_text.endswith(f"deal {encode('seahaven', 1)}")


# -- what players expect: the four-colour deck and a colour-blind-safe one ----------------------------------


def colours_drawn(view: BoardView) -> set[str]:
    """The text colours the board is drawn in."""
    text = view.render()
    return {span.style.color.name for span in text.spans if isinstance(span.style, Style) and span.style.color}


async def test_C_changes_the_card_colours_and_the_choice_is_kept(data_home: Path, tmp_path: Path) -> None:
    app = SoloApp("seahaven", 1, stats_path=tmp_path / "s.json", automove=False, data=data_home)
    async with app.run_test(size=SIZE) as pilot:
        view = app.game_screen.view
        assert view.deck == "two" and "#009e73" not in colours_drawn(view)
        await pilot.press("C")
        assert view.deck == "four" and "four colours" in app.game_screen.message_text
        assert {"#0a7d2c", "#1d4ed8"} <= colours_drawn(view), "clubs green and diamonds blue, as in the browser"
        await pilot.press("C")
        assert view.deck == "safe" and "colour-blind-safe" in app.game_screen.message_text
        assert {"#009e73", "#0072b2", "#d55e00"} <= colours_drawn(view)
        assert len({card_style(Card.parse(f"A{suit}"), deck="safe").color for suit in "CDHS"}) == 4
    assert Settings.load(data_home).deck == "safe"
    again = SoloApp("seahaven", 1, stats_path=tmp_path / "s.json", automove=False, data=data_home)
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert again.game_screen.view.deck == "safe", "the choice is kept"


# -- bugs 11 and 12: the results and the lobby at 80x24 -----------------------------------------------------


async def test_bug11_bug12_at_80x24_the_results_hide_the_panel_and_the_lobby_footer_fits() -> None:
    app = RaceApp("ws://127.0.0.1:9", "ann", autoconnect=False, automove=False, resume=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        keys = list(app.lobby.query(FooterKey))
        assert keys and all(key.region.right <= 80 for key in keys), [(k.key, k.region.x, k.region.right) for k in keys]
        assert {key.key for key in keys} >= {"f2", "f3", "ctrl+q"}
        assert "(F5)" in str(app.lobby.query_one("#rooms-box").border_title)  # F5 where the rooms are
        assert app.lobby.query_one("#no-rooms", Label).region.right <= 80
        app.push_screen(ResultsScreen([ResultRow(1, "ann", "finished", 52, 90, 100_000, you=True)], "You win!"))
        await pilot.pause()
        assert app.screen.has_class("-narrow"), "at 80 columns the results cover the racers panel wholly"
        assert {key.key for key in app.screen.query(FooterKey)} >= {"r", "l"}


# -- bug 8: an arriving spectator watches the leader ---------------------------------------------------------


def test_bug8_an_arriving_spectator_watches_the_leader_the_server_names_even_if_the_boards_lag() -> None:
    opening = Board.deal("seahaven", 1)
    racers = {
        p: Racer(player=p, name=p, status="racing", connected=True, progress=n, moves=n, time_ms=None)
        for p, n in (("ann", 2), ("ben", 9), ("cid", 4))
    }
    boards = Boards()  # the spectator's boards are a delay behind: nobody has moved on them yet
    boards.reset(opening, [Watched(player=p, history=()) for p in racers], racers)
    assert boards.watched == "ben", "the leader, not the first (or last) seat"
    late = Boards()  # joined before any move reached them: the first move seen names no one
    late.add("cid", opening.copy(), racers)
    assert late.watched == "cid", "cid's board is the only one there is"
    late.add("ben", opening.copy(), racers)
    assert late.watched == "cid", "the watched board stays put once chosen"


# -- bug 13: the lobby by keyboard ---------------------------------------------------------------------------


def focused(app: RaceApp) -> object:
    """The focused widget, read afresh each time."""
    return app.focused


async def test_bug13_the_lobby_by_keyboard_one_key_to_the_rooms_and_the_focus_shows(
    make_memory_server: MakeServer,
) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await connect(app, pilot)
        await pilot.press("f5")
        rooms = app.lobby.query_one("#rooms", DataTable)
        assert focused(app) is rooms, "F5: the public rooms list, not 19 Tabs away"
        assert rooms.styles.outline_top[0] != "", "the focus is outlined"
        await pilot.press("ctrl+n")
        assert focused(app) is app.lobby.query_one("#preset", Select), "ctrl+n: the form's first field"
        await pilot.press("ctrl+j")
        assert focused(app) is app.lobby.query_one("#code", Input)


# -- the daily race solo and against a bot, the deal written one way ------------------------------------------


async def todays_deal(server: RaceServer) -> str:
    """Today's daily deal code, as the server tells any client."""
    client = await WsClient.open(url_of(server), "zoe")
    board = await client.call(DailyBoardRequest(preset="seahaven"))
    await client.close()
    assert isinstance(board, DailyBoard)
    return board.deal


async def test_the_daily_box_plays_todays_deal_solo_over_the_lobby(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    deal = await todays_deal(server)
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await connect(app, pilot)
        await pilot.click("#daily-solo")  # the deal not asked for yet: Solo asks the server first
        await until(pilot, lambda: isinstance(top(app), PracticeScreen), "today's deal in practice")
        practice = top(app)
        assert isinstance(practice, PracticeScreen)
        assert practice.board == Board.from_code(deal), "the daily deal's opening"
        assert practice.title_text == f"Practice · deal {deal}"
        assert f"deal {deal}" in app.lobby.daily_text, "the box and the practice write the deal alike"
        assert app.room is None, "alone: no room on the server"
        await pilot.press("escape")
        await until(pilot, lambda: top(app) is app.lobby, "back in the lobby")


async def test_the_daily_box_races_todays_deal_against_a_bot_in_a_private_daily_room(
    make_memory_server: MakeServer,
) -> None:
    server = await make_memory_server()
    deal = await todays_deal(server)
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await connect(app, pilot)
        await pilot.press("f3")
        await until(pilot, lambda: app.lobby.daily_deal == deal, "today's deal in the box")
        await pilot.click("#daily-bot")
        await until(pilot, lambda: app.room is not None and isinstance(top(app), RaceScreen), "the daily room")
        room = room_of(app)
        await until(pilot, lambda: len(room.model.racers) == 2, "the bot seated")
        state = room.model.state
        assert state.daily is not None and state.deal == deal and not state.public
        (bot,) = [v for v in shown(room) if not v.you]
        assert bot.bot and bot.name == "Computer (brisk)"
        assert room.model.settings_lines()[0] == f"Seahaven Towers · deal {deal}", "written as in the daily box"


async def test_the_racers_panel_and_the_results_write_the_deal_by_its_code(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        bob, room = await join_bobs_room(app, pilot, server, deal_number=7)
        code = encode("seahaven", 7)
        assert room.screen.rivals is not None and room.screen.rivals.title.endswith(f"\ndeal {code}")
        await bob.call(Resign())
        await pilot.press("R", "R")
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        results = top(app)
        assert isinstance(results, ResultsScreen)
        assert results.query_one("#results").border_subtitle == f"deal {code}", "as the racers panel wrote it"
    await bob.close()


# -- a progress sense beyond the cards home: "+N safe" -----------------------------------------------------


async def test_the_player_sees_cards_home_and_the_safe_ones_the_rival_only_cards_home(
    make_memory_server: MakeServer,
) -> None:
    safe = [str(m) for m in safe_moves(Board.deal("seahaven", 2))]
    assert safe == ["2#", "9#"], "deal 2 opens with two cards that can go home safely"
    server = await make_memory_server()
    app = RaceApp(url_of(server), "ann", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        bob, room = await join_bobs_room(app, pilot, server, deal_number=2)
        me, rival = shown(room)
        assert me.you and me.safe == 2 and rival.safe == 0, "a rival's moves never reach a racer"
        assert "0/52 home (+2 safe)" in str(room.screen.info.content)
        assert room.screen.rivals is not None and "+2 safe" in str(room.screen.rivals.render())
        room.screen.action_pick("2")
        room.screen.action_pick("#")
        await until(pilot, lambda: room.model.racers[room.model.me].progress == 1, "the card home, judged")
        me, _rival = shown(room)
        assert (me.progress, me.safe) == (1, 1)
        assert "1/52 home (+1 safe)" in str(room.screen.info.content)
    await bob.close()


def test_a_spectator_sees_every_racers_safe_cards_on_the_boards_it_holds() -> None:
    racers = tuple(
        Racer(player=p, name=p, status="racing", connected=True, progress=0, moves=0, time_ms=None)
        for p in ("ann", "ben")
    )
    state = RoomState(
        room="ABCDEF", you="zed", role="spectator", preset="seahaven", seats=2, public=True, time_limit=None,
        undo=True, phase="racing", racers=racers, spectators=1, server_time=0, deal=encode("seahaven", 8),
    )  # fmt: skip
    boards = Boards()
    watching = [Watched(player="ann", history=("5#",)), Watched(player="ben", history=())]
    boards.reset(Board.deal("seahaven", 8), watching, {})
    seen = Seen(0, 0, False, False, False)
    views = {v.name: v for v in racer_views(RoomModel(state), boards, seen)}
    assert (views["ann"].safe, views["ben"].safe) == (3, 4), "deal 8 opens with 4 safe cards; ann played one"
    over = RoomModel(replace(state, phase="finished"))
    assert all(v.safe == 0 for v in racer_views(over, boards, seen)), "after the race: cards home only"


# -- bug 12: the lobby's daily box and settings, and the review's footer, at 80x24 -------------------------------


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_bug12_at_80x24_the_daily_box_the_settings_and_the_review_footer_fit(language: str) -> None:
    i18n.use(language)
    try:
        app = RaceApp("ws://127.0.0.1:9", "ann", autoconnect=False, automove=False, resume=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            lobby = app.lobby
            daily = lobby.query_one("#daily-box")
            assert daily.region.bottom <= 24 - 1, "the daily box shows without scrolling, above the footer"
            entries = (DailyEntry(place=1, player="p1", name="marguerite-the-long", time_ms=83_400),)
            lobby.show_daily(DailyBoard(preset="seahaven", date="2026-12-02", deal="SH1-ST-Y1GYVQAAX", entries=entries))
            await pilot.pause()
            text = lobby.query_one("#daily")
            assert all(len(line) <= text.region.width for line in lobby.daily_text.splitlines()), lobby.daily_text
            assert lobby.daily_text.splitlines()[0].endswith(" SH1-ST-Y1GYVQAAX"), "the code whole, on one line"
            inner = lobby.query_one("#daily-box").content_region
            for button in ("#daily-race", "#daily-solo", "#daily-bot"):
                assert lobby.query_one(button).region.right <= inner.right, button
            for box in ("#join-box", "#create-box"):
                inner = lobby.query_one(box).content_region
                for widget in lobby.query_one(box).query("Button, Checkbox"):
                    assert widget.region.right <= inner.right, (box, widget.id, widget.region, inner)
        review = ReviewScreen(encode("seahaven", 1), sample_histories(), {"p1": "tom", "p2": "al"}, first="p2")
        shown_review = ShowApp(review)
        async with shown_review.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            keys = list(review.query(FooterKey))
            assert {key.key for key in keys} >= {"right", "left", "escape"}
            assert all(key.region.right <= 80 for key in keys), [(k.key, k.region.right) for k in keys]
    finally:
        i18n.use("en")
