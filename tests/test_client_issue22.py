"""Issue 22's bugs in the terminal client, each with its test: Textual's pilot driving RaceApp
(or SoloApp) against a real in-process RaceServer whose clock the test moves (tests/helpers.py)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from client.app import RaceApp
from client.places import safe_moves
from client.race import RaceController
from client.race_screen import RaceScreen
from client.results import ResultsScreen
from client.rivals import DID_NOT_FINISH, status_text
from client.solo import SoloApp
from protocol.enums import Phase
from protocol.messages import CreateRoom, Ready, Resign, RoomState
from seahaven import Board
from server.app import RaceServer
from tests.client_driver import SIZE, connect, data_home, room_of, shown, top, until
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
        await until(pilot, lambda: room.model.racers[room.model.me].moves >= opening, "the server judged them")
        assert room.screen.board.progress == room.model.racers[room.model.me].progress >= opening
        assert not room.screen.game.pending
    await bob.close()
