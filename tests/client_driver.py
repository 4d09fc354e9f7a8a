"""Driving the terminal client in tests: Textual's pilot on a RaceApp, waiting for what it shows,
bare rivals on the server, and a scripted connection for corner cases.

``data_home`` is an autouse fixture: a test module that imports it (and names it in ``__all__``)
gets a temporary data directory for every test.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar, cast

import pytest
from textual.app import App
from textual.css.query import NoMatches
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Button, Input, Select

from client.apps.app import ConnectionFactory, RaceApp
from client.net.clock import now_ms
from client.race.controller import RaceController
from client.screens.race_screen import RaceScreen
from client.widgets.rivals import RacerView
from protocol.messages import (
    CreateRoom,
    DailyBoard,
    JoinRoom,
    Limits,
    Moved,
    MoveRequest,
    Racer,
    Ready,
    Rooms,
    RoomState,
    Started,
    Welcome,
)
from protocol.schema import Message
from seahaven import Board, Move, encode
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests.helpers import url_of
from tests.wsclient import WsClient

SIZE = (110, 34)


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    """A race server on loopback for the client to play on: the memory store, a 0.1 s countdown, a
    10 s grace period, live spectators."""
    config = Config(port=0, countdown_ms=100, rate=10000, burst=10000, grace_ms=10_000, spectator_delay_ms=0)
    race = RaceServer(config, MemoryStore())
    await race.start()
    yield race
    await race.stop()


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's data directory (settings, session, statistics) points at a temporary one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SEAHAVEN_STATS", raising=False)
    return tmp_path / "data" / "seahaven"


def top(app: RaceApp) -> Screen[object]:
    return app.screen


def app_status(pilot: Pilot[None]) -> str:
    app = pilot.app
    if not isinstance(app, RaceApp):
        return "?"
    # Where the app is, besides what the lobby last said: a failure says which step did not come.
    room = app.room.code if app.room is not None else None
    return f"{app.lobby.status_text}; screen {type(app.screen).__name__}, room {room}, connected {app.connected}"


def _holds(check: Callable[[], object]) -> bool:
    """``check()``, where a widget not composed yet (a screen just pushed) is "not yet"."""
    try:
        return bool(check())
    except NoMatches:
        return False


def _under_the_pointer(pilot: Pilot[None], selector: str) -> bool:
    """Whether the widget ``selector`` names on the screen on top is laid out and is what a click
    at its top left corner reaches, where the pilot clicks (a screen just pushed has its widgets
    before their places)."""
    widget = pilot.app.screen.query_one(selector)
    region = widget.region
    if region.area == 0:
        return False
    at, _ = pilot.app.screen.get_widget_at(region.x, region.y)
    return at is widget or widget in at.ancestors


async def click(pilot: Pilot[None], selector: str) -> None:
    """Click the widget ``selector`` names once it can be clicked: laid out, under the pointer and
    taking clicks (a Textual button ignores them a moment after a press: its "-active" effect).
    A click before then landed on what was there before, or nowhere."""

    def ready() -> bool:
        return _under_the_pointer(pilot, selector) and not pilot.app.screen.query_one(selector).has_class("-active")

    await until(pilot, ready, f"{selector} to click")
    # What was typed or said just before may still lay the screen out again (a message line that
    # grows moves the buttons under it): let the app handle what is queued, then look again.
    await pilot.pause()
    await until(pilot, ready, f"{selector} to click, the screen laid out")
    assert await pilot.click(selector), f"the click on {selector} landed elsewhere"


STUCK_AFTER = 12
"""A wait's clock-time bound, in multiples of its CPU-time budget: for an app stuck idle."""


async def until(pilot: Pilot[None], check: Callable[[], object], what: str, wait: float = 5.0) -> None:
    """Let the app run until ``check()`` is true, within ``wait`` seconds of this process's CPU time.

    CPU time, not the clock: the app, its server and this test share one process, and on a busy
    machine (the suite's 4 workers on 2 cores, beside whatever else runs) that process waits its
    turn for a CPU. By the clock, a test failed whose app had simply not been given the time to do
    the step (a race screen mounted 5 s after the room frame under two busy loops, in 0.5 s
    quietly). An app stuck waiting on nothing still fails, after ``STUCK_AFTER`` times ``wait``.
    """
    loop = asyncio.get_running_loop()
    spent, stuck = time.process_time() + wait, loop.time() + STUCK_AFTER * wait
    while not _holds(check):
        if time.process_time() > spent or loop.time() > stuck:
            raise AssertionError(f"timed out waiting for: {what} (lobby: {app_status(pilot)})")
        await pilot.pause(0.02)


def shown(room: RaceController) -> tuple[RacerView, ...]:
    """The racers as the rivals panel shows them."""
    assert room.screen.rivals is not None
    return room.screen.rivals.racers


def room_of(app: RaceApp) -> RaceController:
    assert app.room is not None
    return app.room


async def connect(app: RaceApp, pilot: Pilot[None]) -> None:
    """Press Connect in the lobby (address and name prefilled as from the command line)."""
    await click(pilot, "#connect")
    await until(pilot, lambda: app.connected and "Connected to" in app.lobby.status_text, "connected")


async def create_deal_1(app: RaceApp, pilot: Pilot[None], *, public: bool = True) -> RaceController:
    """Create a room on deal 1 from the lobby's form."""
    lobby = app.lobby
    lobby.query_one("#deal-kind", Select).value = "number"
    deal = lobby.query_one("#deal", Input)
    await until(pilot, lambda: not deal.disabled, "the deal field open")  # the select's change enables it
    deal.value = "1"  # typed in place of clicks: at 60x20 the field may be scrolled out of reach
    if not public:
        await pilot.click("#public")
    lobby.query_one("#create", Button).press()  # as a click, wherever the form is scrolled to
    await until(pilot, lambda: app.room is not None and isinstance(top(app), RaceScreen), "the room screen")
    return room_of(app)


async def start_race(app: RaceApp, pilot: Pilot[None], other: WsClient, room: RaceController) -> None:
    """The rival joins by code, both say ready; waits through the countdown to the cards."""
    state = await other.call(JoinRoom(room=room.code))
    assert isinstance(state, RoomState) and state.role == "racer"
    await until(pilot, lambda: len(room.model.racers) == 2, "the rival in the racers panel")
    await pilot.press("r")
    await until(pilot, lambda: room.model.my_status() == "ready", "ready")
    assert "You are ready" in " ".join(room.screen.view.cover)
    seen: list[int | None] = []

    def started() -> bool:
        seen.append(room.screen.countdown.seconds)
        return room.model.phase == "racing"

    await other.call(Ready(ready=True))
    await until(pilot, started, "the race to start")
    assert any(seen), "the countdown never showed"
    await until(pilot, lambda: not room.screen.locked, "the board to unlock")


async def settle(pilot: Pilot[None], room: RaceController) -> None:
    await until(pilot, lambda: not room.screen.game.pending and room.outbox.idle, "the server's answers")


def heard_notes(app: RaceApp, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every note (toast) the app shows from now on, as (title, text): a note outlives the
    screen it was raised over, so a test reads them from this list rather than the screen."""
    notes: list[tuple[str, str]] = []
    notify = app.notify

    def heard(message: str, **how: Any) -> None:
        notes.append((str(how.get("title", "")), message))
        notify(message, **how)

    monkeypatch.setattr(app, "notify", heard)
    return notes


def keys_of(move: Move) -> list[str]:
    """The two keys that play ``move`` (source, destination)."""
    text = str(move).split(":")[0]
    return [text[0], text[-1]]


def board_after(moves: Iterable[Move]) -> Board:
    """The engine's board after ``moves`` on deal 1: what a racer who played them has."""
    board = Board.deal("seahaven", 1)
    for move in moves:
        board.push(move)
    return board


async def two_bots(server: RaceServer) -> tuple[WsClient, WsClient, str]:
    """Two bare racers, ann and ben, in a room on deal 1 (not started yet); the room's code."""
    ann, ben = await WsClient.open(url_of(server), "ann"), await WsClient.open(url_of(server), "ben")
    state = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    assert isinstance(await ben.call(JoinRoom(room=state.room)), RoomState)
    return ann, ben, state.room


async def race_bots(ann: WsClient, ben: WsClient) -> None:
    await ann.call(Ready())
    await ben.call(Ready())
    await ann.expect(Started)


async def play(bot: WsClient, *moves: Move) -> None:
    for move in moves:
        assert isinstance(await bot.call(MoveRequest(move=str(move))), Moved)


async def spectate(app: RaceApp, pilot: Pilot[None], code: str) -> RaceController:
    """Connect from the lobby and watch room ``code``."""
    await connect(app, pilot)
    app.lobby.query_one("#code", Input).value = code
    await pilot.click("#spectate")
    await until(pilot, lambda: app.room is not None, "spectating")
    room = room_of(app)
    assert room.role == "spectator"
    return room


class ScriptedConnection:
    """A RaceConnection stand-in: answers requests from ``replies``, records what was sent."""

    replies: ClassVar[dict[str, Callable[[Message], Message]]] = {}
    lobby: ClassVar[dict[str, Callable[[Message], Message]]] = {
        "list_rooms": lambda m: Rooms(rooms=()),
        "daily_board": lambda m: DailyBoard(preset="seahaven", date="2026-01-01", deal="SH1-ST-0001K", entries=()),
    }

    def __init__(
        self,
        url: str,
        name: str,
        on_event: Callable[[Message], None],
        on_status: Callable[[str], None],
        token: str | None = None,
        key: str | None = None,
        on_key: Callable[[str | None], None] | None = None,
    ):
        self.on_event, self.on_status = on_event, on_status
        self.sent: list[Message] = []
        self.welcome: Welcome | None = None
        self.connected = False
        ScriptedConnection.last = self

    last: ClassVar[ScriptedConnection]

    @property
    def player(self) -> str | None:
        return self.welcome.player if self.welcome else None

    async def connect(self) -> Welcome:
        limits = Limits(max_frame=4096, rate=30, burst=60, grace_ms=30_000)
        self.welcome = Welcome(token="t" * 20, player="me", name="alice", server_time=0, limits=limits)
        self.connected = True
        return self.welcome

    async def request(self, message: Message) -> Message:
        self.sent.append(message)
        return {**self.lobby, **self.replies}[message.TYPE](message)

    async def close(self) -> None:
        self.connected = False


def room_requests(conn: ScriptedConnection) -> list[str]:
    """The types of the requests a scripted session sent, without the lobby's own."""
    return [m.TYPE for m in conn.sent if m.TYPE not in ScriptedConnection.lobby]


def scripted_app() -> RaceApp:
    return RaceApp(
        "ws://scripted", "alice", connection_factory=cast(ConnectionFactory, ScriptedConnection), automove=False
    )


async def enter_room(app: RaceApp, pilot: Pilot[None], button: str) -> RaceController:
    """In a scripted session: type room ABCDEF in the lobby, press ``button`` (#join or #spectate), and
    return the room once it opens."""
    await until(pilot, lambda: app.connected, "the scripted session")
    app.lobby.query_one("#code", Input).value = "ABCDEF"
    await pilot.click(button)
    await until(pilot, lambda: app.room is not None, "the room")
    return room_of(app)


def racing_state(undo: bool) -> RoomState:
    racers = tuple(
        Racer(player=p, name=p, status="racing", connected=True, progress=0, moves=0, time_ms=None)
        for p in ("me", "bob")
    )
    return RoomState(
        room="ABCDEF",
        you="me",
        role="racer",
        preset="seahaven",
        seats=2,
        public=False,
        time_limit=None,
        undo=undo,
        phase="racing",
        racers=racers,
        spectators=0,
        server_time=now_ms(),
        deal=encode("seahaven", 1),
        history=(),
    )


S = TypeVar("S", bound=Screen[Any])


class OneScreen(App[None], Generic[S]):
    """An app that shows ``shown`` and nothing else: a screen tried on its own."""

    def __init__(self, shown: S) -> None:
        super().__init__()
        self.shown = shown

    def on_mount(self) -> None:
        self.push_screen(self.shown)
