"""Issue 10 in the terminal client, with Textual's pilot driving RaceApp against a real in-process
RaceServer: the create form's fair-race options, the daily race, server hints and lost notices, and
bots and hint counts in the racers panel and the results."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from rich.console import Console
from textual.widgets import Checkbox, Select

from client.apps.app import RaceApp
from client.screens.lobby import LobbyScreen, room_tags
from client.screens.results import ResultRow, standings_table
from protocol.enums import Status
from protocol.messages import CreateRoom, Moved, MoveRequest, RoomSummary
from seahaven import Board
from seahaven.daily import today
from server.app import RaceServer
from server.config import Config
from server.play.daily import DailyTime
from server.store.stores import MemoryStore
from tests.client_driver import (
    SIZE,
    connect,
    create_deal_1,
    data_home,
    room_of,
    shown,
    start_race,
    top,
    until,
)
from tests.helpers import url_of
from tests.wsclient import WsClient

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one

UNWINNABLE = 21
"""A seahaven deal the solver proves unwinnable (tests/test_hints.py)."""
SLOW = 60.0
"""Seconds to wait for answers a solver worker process gives (slow to start on a busy machine)."""


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    config = Config(port=0, countdown_ms=100, rate=10000, burst=10000, grace_ms=10_000, spectator_delay_ms=0)
    race = RaceServer(
        config,
        MemoryStore(),
        hint_seconds=20.0,  # the deal pool and daily board in the store
    )
    await race.start()
    # The solver worker starts before Textual's test app replaces the standard streams (a worker
    # process spawned under it fails: "bad value(s) in fds_to_keep").
    await asyncio.get_running_loop().run_in_executor(race.worker.executor(), int)
    yield race
    await race.stop()


async def test_the_create_form_sends_grade_bot_hints_and_lost_notice(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        lobby = app.lobby
        lobby.query_one("#any-deal", Checkbox).value = True
        await pilot.pause()
        assert lobby.query_one("#deal-grade", Select).disabled, "a grade is only for winnable deals"
        request = lobby.create_request()
        assert isinstance(request, CreateRoom) and request.any_deal and request.deal_grade is None
        lobby.query_one("#any-deal", Checkbox).value = False
        lobby.query_one("#deal-grade", Select).value = "tricky"
        lobby.query_one("#bot", Select).value = "stroll"
        await pilot.pause()
        for box in ("#hints", "#lost-notice"):
            await pilot.click(box)
        await pilot.click("#create")
        await until(pilot, lambda: app.room is not None, "the room")
        room = room_of(app)
        settings = server.rooms[room.code].room.settings
        assert (settings.deal_grade, settings.any_deal, settings.hints, settings.lost_notice) == (
            "tricky",
            False,
            True,
            True,
        )
        await until(pilot, lambda: any(view.bot for view in shown(room)), "the bot in the racers panel")
        cover = " ".join(room.screen.view.cover)
        assert "a winnable tricky deal" in cover and "hints on · told when lost" in cover


async def test_a_hint_highlights_a_move_the_server_counts(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        await pilot.click("#hints")
        room = await create_deal_1(app, pilot)
        await start_race(app, pilot, bob, room)
        await pilot.press("H")
        await until(pilot, lambda: room.screen.message_text.startswith("Hint: "), "the hint", SLOW)
        assert room.screen.selected is not None, "the hinted cards are selected"
        await until(pilot, lambda: shown(room)[0].hints == 1, "the hint counted in the racers panel")
    await bob.close()


async def test_without_hints_H_asks_nothing(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        await start_race(app, pilot, bob, room)
        assert not room.screen.check_action("hint", ())
        await pilot.press("H")
        await pilot.pause()
        assert room.outbox.idle and not room.screen.message_text.startswith("Hint:")
        assert room.screen.message_text == "Hints are off in this race", "issue 22, bug 2: H says why"
        assert shown(room)[0].hints == 0
    await bob.close()


async def test_a_lost_position_is_said_plainly(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        lobby = app.lobby
        lobby.query_one("#deal-kind", Select).value = "number"
        await pilot.pause()
        await pilot.click("#deal")
        await pilot.press(*str(UNWINNABLE))
        await pilot.click("#lost-notice")
        await pilot.click("#create")
        await until(pilot, lambda: app.room is not None, "the room")
        room = room_of(app)
        await start_race(app, pilot, bob, room)
        first = Board.deal("seahaven", UNWINNABLE).legal_moves()[0]
        assert app.conn is not None
        reply = await app.conn.request(MoveRequest(move=str(first)))  # the server judges the position it holds
        assert isinstance(reply, Moved)
        await until(pilot, lambda: "position is lost" in room.screen.message_text, "the lost notice", SLOW)
        assert "u to undo" in room.screen.message_text
    await bob.close()


async def test_the_daily_race_shows_todays_best_times_and_races_its_deal(server: RaceServer) -> None:
    board = server.daily_board
    await board.record("seahaven", today(), DailyTime(player="p1", name="zoe", time_ms=83_400))
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await connect(app, pilot)
        lobby = app.lobby
        await pilot.press("f3")
        assert lobby.query_one("#daily-race").has_focus
        await until(pilot, lambda: today().isoformat() in lobby.daily_text, "today's deal", SLOW)
        assert "1. zoe" in lobby.daily_text and "1:23.4" in lobby.daily_text
        await pilot.press("enter")
        await until(pilot, lambda: app.room is not None, "the daily room", SLOW)
        room = room_of(app)
        assert room.model.state.daily == today().isoformat()
        assert f"the daily deal of {today().isoformat()}" in " ".join(room.screen.view.cover)
        assert not isinstance(top(app), LobbyScreen)


def test_results_mark_bots_and_hint_counts() -> None:
    rows = [
        ResultRow(1, "pacer", Status.FINISHED, 52, 90, 60_000, bot=True),
        ResultRow(2, "alice", Status.RESIGNED, 30, 70, None, you=True, hints=2),
    ]
    console = Console(width=80, record=True)
    console.print(standings_table(rows))
    text = console.export_text()
    assert "pacer (bot)" in text and "alice (you)" in text and "resigned · 2 hints" in text


def test_public_rooms_name_what_they_race() -> None:
    plain = RoomSummary(
        room="ABC123", preset="seahaven", seats=2, racers=1, spectators=0, phase="waiting", time_limit=None, undo=True
    )
    assert room_tags(plain) == ""
    assert room_tags(replace(plain, deal_grade="gentle", hints=True)) == " · gentle · hints"
    assert room_tags(replace(plain, rated=True, deal_grade="gentle")) == " · rated · gentle"
    assert room_tags(replace(plain, daily="2026-11-30", any_deal=True)) == " · daily · any deal"
