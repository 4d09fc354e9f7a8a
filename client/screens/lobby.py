"""The lobby: connect to a server, create a room, list public rooms, join by code, quick match,
race a friend's ghost by its challenge code.

``LobbyScreen`` only collects what the player wants and shows what happened; the App
(``LobbyHost``: ``client.apps.app.RaceApp``) talks to the server and opens the race screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final, Protocol, cast
from urllib.parse import urlsplit

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Button, Checkbox, DataTable, Input, Label, Select, Static

from i18n import N_, NP_, _, formats
from i18n.rules_help import preset_title as rules_title
from protocol.errors import ErrorCode
from protocol.messages import (
    BOT_PACES,
    CHALLENGE_LEN,
    DEAL_GRADES,
    MAX_RACERS,
    PRESET_NAMES,
    AcceptChallenge,
    CreateRoom,
    DailyBoard,
    JoinRoom,
    QuickMatch,
    RoomSummary,
)
from protocol.schema import Message
from seahaven import decode, preset
from seahaven.deals import MAX_DEAL

from ..net.connection import ConnectError, ConnectionLost, ServerError
from ..net.errors import error_text, problem
from ..text.words import grade_word, minutes, pace_word, racers, status_word
from ..widgets.keys_footer import KeysFooter
from ..widgets.rivals import format_ms
from ..widgets.tickbox import TickBox
from .friends_screen import FriendsColumn
from .localized import LocalScreen

DEAL_KINDS: Final = ((N_("random"), "random"), (N_("number"), "number"), (N_("deal code"), "code"))
TIME_LIMITS: Final = (None, 2, 3, 5, 10, 15, 20, 30, 60)
"""Minutes (None: no limit); the server takes 30 s to 2 h."""
GRADE_CHOICES: Final = ("", *DEAL_GRADES)
"""How hard the server's winnable deal is (the solver's effort), not the presets' cell counts."""
BOT_CHOICES: Final = ("", *BOT_PACES)
"""Nobody (people only), or a bot at this pace."""
DAILY_PRESET: Final = "seahaven"
"""The daily race's rules (the browser client races the same daily deal)."""
DAILY_SHOWN: Final = 5
"""The best daily times the lobby lists."""
DAILY_BOT: Final = "brisk"
"""The pace of the bot racing the daily deal against you (the pace quick match's waiting bot has)."""
REFRESH_SECONDS: Final = 5.0
RETRY_SECONDS: Final = 5.0
"""After the connection gave up, the lobby tries to connect again this often."""

FRIENDLY: Final[dict[str, str]] = {
    ErrorCode.ROOM_NOT_FOUND: N_("No room {code}: check the code (letters and digits, as your friend sent it)"),
    ErrorCode.ROOM_FULL: N_("Room {code} is full. Ask for a bigger room, or spectate"),
    ErrorCode.RACE_IN_PROGRESS: N_("The race in room {code} has already begun: spectate it, or wait for the rematch"),
    ErrorCode.CHALLENGE_NOT_FOUND: N_(
        "No challenge {code}: check the code (8 letters and digits, as your friend sent it)"
    ),
    ErrorCode.RECORDS_UNAVAILABLE: N_("No ghost races now: the server's records cannot be reached"),
}
"""The lobby's own words for the refusals a code typed there explains best; the others are
client/net/errors.py's (the server's English ``message`` is for clients that do not know a code)."""


def explain(error: ServerError, code: str = "") -> str:
    """A refusal in words for the lobby's message line."""
    template = FRIENDLY.get(error.code)  # a StrEnum key matches its text: an unknown code has none
    if template is None:
        return error_text(error.code, error.message)
    return _(template).format(code=code or "?")


def preset_select(widget_id: str) -> Select[str]:
    """A compact choice of every preset, Seahaven Towers first."""
    return Select(
        [(preset_title(p), p) for p in PRESET_NAMES],  # each title in the language in use
        value=PRESET_NAMES[0],
        allow_blank=False,
        id=widget_id,
        compact=True,
    )


def preset_title(name: str) -> str:
    try:
        return rules_title(preset(name).title)
    except ValueError:
        return name


def room_tags(room: RoomSummary) -> str:
    """What a public room races besides its rules: rated, the daily deal, a grade, any deal, hints."""
    tags = [
        _("rated") if room.rated else "",
        _("daily") if room.daily else "",
        grade_word(room.deal_grade) if room.deal_grade else "",
        _("any deal") if room.any_deal else "",
        _("hints") if room.hints else "",
    ]
    return "".join(f" · {tag}" for tag in tags if tag)


class LobbyHost(Protocol):
    """What the lobby needs of the App."""

    @property
    def connected(self) -> bool: ...

    async def connect(self, url: str, name: str, *, register: bool = True) -> str:
        """Connect (replacing any earlier session); a line saying who we are where. ``register``
        False: no new player is made meanwhile (the player is about to sign in)."""

    async def list_rooms(self) -> tuple[RoomSummary, ...]: ...

    async def daily_board(self, preset: str) -> DailyBoard:
        """Today's deal of ``preset`` and its best times (ServerError / ConnectionLost)."""

    async def enter(self, request: Message) -> None:
        """Create, join or quick-match a room and show it (ServerError / ConnectionLost)."""

    def practise(self, code: str) -> None:
        """Play the deal ``code`` alone, over the lobby (no server: nothing goes on a board)."""

    def show_stats(self) -> None:
        """The statistics screen."""

    def show_my_page(self) -> None:
        """My page on the server's records (races, wins, streaks, best times)."""

    def show_boards(self) -> None:
        """The server's leaderboards."""

    def show_account(self, *, signing_in: bool = False) -> None:
        """My account: my player id and handle, and what I may do with them (``signing_in``: opened
        to sign in, the handle first)."""

    def show_arena(self, code: str | None = None) -> None:
        """The arena screen: join one by its code, open one, its standings."""

    def show_friends(self) -> None:
        """The friends screen (client/screens/friends_screen.py)."""

    async def is_arena(self, code: str) -> bool:
        """An arena of this code is live or on record (False when the records cannot say)."""


class LobbyScreen(LocalScreen[None]):
    """Server and name at the top; a new room on the left; joining on the right."""

    CSS_PATH = Path(__file__).with_name("lobby.tcss")

    # From 160 columns the friends have a column of their own (client/screens/friends_screen.py).
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (78, "-wide"), (160, "-roomy")]  # noqa: RUF012 (Textual declares it so)

    BINDINGS: ClassVar[list[BindingType]] = [
        # Short words: every key fits the footer at 80 columns (the help and README say more).
        # Said in the public rooms' title, as F3 in the daily box's: the footer fits 60 columns.
        Binding("f5", "list", NP_("footer", "List"), show=False),
        # Focus keys for the forms in sight (the help says them): their footer room went to F8.
        Binding("ctrl+n", "focus_create", NP_("footer", "New"), show=False),
        Binding("ctrl+j", "focus_code", NP_("footer", "Join"), show=False),
        Binding("f2", "stats", NP_("footer", "Stats")),
        Binding("f3", "daily", NP_("footer", "Daily")),
        # The server's records (client/screens/records_screens.py).
        Binding("f4", "my_page", NP_("footer", "Me")),
        Binding("f6", "boards", NP_("footer", "Best")),
        # My player on the server (client/screens/account_screen.py).
        Binding("f7", "account", NP_("footer", "Acct")),
        # Arenas (client/screens/arena_screen.py); over a race F8 shows the standings (the App's binding).
        Binding("f8", "arena", NP_("footer", "Arena")),
        # Friends (client/screens/friends_screen.py): in the footer from 78 columns (at 60 it had no room);
        # narrower, the App's own F9 opens them all the same.
        Binding("f9", "friends", NP_("footer", "Friends")),
    ]

    def __init__(self, server: str, name: str, *, autoconnect: bool = True) -> None:
        super().__init__()
        self.server = server
        self.player_name = name
        self.autoconnect = autoconnect
        self.rooms: tuple[RoomSummary, ...] = ()
        self.busy = False
        self._seat_offered = False
        self.reconnecting = False
        self._refresh_timer: Timer | None = None
        self._retry_timer: Timer | None = None
        self.attempts = 0
        self.daily_deal: str | None = None
        """Today's daily deal code, once the server said it."""

    @property
    def host(self) -> LobbyHost:
        return cast(LobbyHost, self.app)

    def compose(self) -> ComposeResult:
        yield Static("♠ ♥  " + _("Seahaven Towers · race a friend") + "  ♦ ♣", id="banner")
        with Horizontal(id="connect-row"):
            yield Label(_("Server"), classes="label")
            yield Input(self.server, placeholder="ws://host:8765", id="server", compact=True)
            yield Label(_("Name"), classes="label")
            yield Input(self.player_name, placeholder=_("your name"), id="name", max_length=24, compact=True)
            yield Button(_("Connect"), id="connect", variant="primary", compact=True)
            yield Button(_("Sign in"), id="sign-in-first", compact=True)
        yield Static(_("Not connected: check the server address and your name, then Connect"), id="status")
        with VerticalScroll(id="body"):
            with Horizontal(id="columns", disabled=True):  # until connected (set_connected)
                with Vertical(id="create-box", classes="box") as create:
                    create.border_title = _("New room")
                    with Horizontal(classes="row"):
                        yield Label(_("Rules"), classes="label")
                        yield preset_select("preset")
                    with Horizontal(classes="row"):
                        yield Label(_("Deal"), classes="label")
                        yield Select(
                            [(_(label), kind) for label, kind in DEAL_KINDS],
                            value="random",
                            allow_blank=False,
                            id="deal-kind",
                            compact=True,
                        )
                        yield Input(placeholder="", id="deal", compact=True, disabled=True)
                    with Horizontal(classes="row"):
                        yield Label(_("Difficulty"), classes="label")
                        yield Select(
                            [
                                (_("winnable, {grade}").format(grade=grade_word(g)) if g else _("winnable, any"), g)
                                for g in GRADE_CHOICES
                            ],
                            value="",
                            allow_blank=False,
                            id="deal-grade",
                            compact=True,
                        )
                    with Horizontal(classes="row"):
                        yield TickBox(_("Any deal (may be unwinnable)"), False, id="any-deal", compact=True)
                    with Horizontal(classes="row"):
                        yield Label(_("Racers"), classes="label")
                        yield Select(
                            [(racers(n), n) for n in range(2, MAX_RACERS + 1)],
                            value=2,
                            allow_blank=False,
                            id="seats",
                            compact=True,
                        )
                    with Horizontal(classes="row"):
                        yield Label(_("Time limit"), classes="label")
                        yield Select(
                            [(_("none"), 0)] + [(minutes(m), m) for m in TIME_LIMITS if m],
                            value=0,
                            allow_blank=False,
                            id="time-limit",
                            compact=True,
                        )
                    with Horizontal(classes="row"):
                        yield Label(_("Computer"), classes="label")
                        yield Select(
                            [
                                (_("bot, {pace} pace").format(pace=pace_word(p)) if p else _("no: people"), p)
                                for p in BOT_CHOICES
                            ],
                            value="",
                            allow_blank=False,
                            id="bot",
                            compact=True,
                        )
                    with Horizontal(classes="row"):
                        yield TickBox(_("Public"), True, id="public", compact=True)
                        yield TickBox(_("Undo"), True, id="undo", compact=True)
                    with Horizontal(classes="row"):
                        yield TickBox(_("Allow hints"), False, id="hints", compact=True)
                        yield TickBox(_("Tell if lost"), False, id="lost-notice", compact=True)
                    with Horizontal(classes="buttons"):
                        yield Button(_("Create room"), id="create", variant="success", compact=True)
                with Vertical(id="join-side"):
                    with Vertical(id="join-box", classes="box") as join:
                        join.border_title = _("Join a friend")
                        with Horizontal(classes="buttons"):
                            # Long enough for a web link pasted whole (typed_code reads the code out of it).
                            yield Input(placeholder=_("room code"), id="code", max_length=200, compact=True)
                            yield Button(_("Join"), id="join", variant="success", compact=True)
                            yield Button(_("Spectate"), id="spectate", compact=True)
                        # A row of their own: past Spectate they ran out of the box at 80 columns.
                        with Horizontal(classes="buttons"):
                            yield Button(_("Ghost"), id="ghost", compact=True)
                            yield Button(_("Arena"), id="arena", compact=True)
                    with Vertical(id="quick-box", classes="box") as quick:
                        quick.border_title = _("Quick match")
                        with Horizontal(classes="buttons"):
                            yield preset_select("quick-preset")
                            yield Button(_("Quick match"), id="quick", variant="warning", compact=True)
                    with Vertical(id="daily-box", classes="box") as daily:
                        # Above the public rooms: at 80x24 it shows without scrolling (issue 22, bug 12).
                        daily.border_title = _("Daily race (F3)")
                        yield Static(_("F3: today's deal and its best times"), id="daily")
                        with Horizontal(classes="buttons"):
                            yield Button(_("Race"), id="daily-race", variant="warning", compact=True)
                            yield Button(_("Solo"), id="daily-solo", compact=True)
                            yield Button(_("vs bot"), id="daily-bot", compact=True)
                yield FriendsColumn(id="friends-column")
            # Across the whole width: at 80 columns a column's third cut the table's rules and phase.
            with Vertical(id="rooms-box", classes="box") as rooms:
                rooms.border_title = _("Public rooms (F5)")
                table: DataTable[str] = DataTable(id="rooms", cursor_type="row", zebra_stripes=True)
                yield table
                yield Label(_("none yet: create one"), id="no-rooms")
                with Horizontal(classes="buttons"):
                    yield Button(_("Join"), id="join-selected", variant="success", compact=True)
                    yield Button(_("Spectate"), id="watch-selected", compact=True)
                    yield Button(_("Refresh"), id="refresh", compact=True)
        yield KeysFooter(compact=True)  # its keys fit 60 columns too

    def on_mount(self) -> None:
        table = self.query_one("#rooms", DataTable)
        table.add_columns(_("code"), _("racers"), _("watch"), _("phase"), _("rules"))
        table.display = False
        self.set_connected(False)
        if self.autoconnect and self.server:
            self.do_connect()
        else:
            self.query_one("#server", Input).focus()

    # -- state ----------------------------------------------------------------

    def show_status(self, text: str, kind: str = "info") -> None:
        """The message line (``kind``: info, error, good)."""
        status = self.query_one("#status", Static)
        status.update(Content(text))
        status.set_class(kind == "error", "error")
        status.set_class(kind == "good", "good")

    def show_name(self, name: str) -> None:
        """The name the server knows us by (a registered player's is theirs on every device)."""
        self.query_one("#name", Input).value = name
        self.player_name = name

    def offer_seat(self, room: str) -> None:
        """Another connection of the player races in ``room``: its code is ready to join (which
        takes the seat here)."""
        code = self.query_one("#code", Input)
        code.value = room
        code.focus()
        self._seat_offered = True  # focused again once the room's screens are gone (they give focus back)

    def offer_deal(self, code: str) -> None:
        """A room that is gone raced deal ``code``: the New room form holds it, and Enter there (or
        Create room) races it again, the rest of the form as the player left it."""
        self.query_one("#deal-kind", Select).value = "code"  # which focuses the deal's field
        self.query_one("#deal", Input).value = code

    @property
    def status_text(self) -> str:
        return str(self.query_one("#status", Static).content)

    def set_connected(self, connected: bool) -> None:
        """Enable the room controls only with a live session."""
        self.query_one("#columns").disabled = not connected
        button = self.query_one("#connect", Button)
        button.label = _("Reconnect") if connected else _("Connect")
        button.refresh(layout=True)  # its width is its label's
        if connected and self._refresh_timer is None:
            self._refresh_timer = self.set_interval(REFRESH_SECONDS, self._refresh_rooms_now)
        elif not connected and self._refresh_timer is not None:
            self._refresh_timer.stop()
            self._refresh_timer = None

    def on_screen_resume(self) -> None:
        if self._seat_offered:
            self._seat_offered = False
            self.query_one("#code", Input).focus()
        if self.host.connected:
            self.action_refresh()

    def _refresh_rooms_now(self) -> None:
        if self.app.screen is self and self.host.connected and not self.busy:
            self.action_refresh()

    # -- connecting -----------------------------------------------------------

    @on(Button.Pressed, "#sign-in-first")
    def _sign_in_first(self) -> None:
        """A player made elsewhere: connect without making a new one, then sign in (F7's screen)."""
        if self.host.connected:
            self.host.show_account(signing_in=True)
            return
        self.do_connect(register=False)

    @on(Button.Pressed, "#connect")
    @on(Input.Submitted, "#server")
    @on(Input.Submitted, "#name")
    def do_connect(self, event: object = None, *, register: bool = True) -> None:
        url = self.query_one("#server", Input).value.strip()
        name = self.query_one("#name", Input).value.strip()
        if not url:
            self.show_status(_("Type the server's address, like ws://127.0.0.1:8765"), "error")
            return
        if not name:
            self.show_status(_("Type a name: the other racers see it"), "error")
            self.query_one("#name", Input).focus()
            return
        if "://" not in url:
            url = "ws://" + url
            self.query_one("#server", Input).value = url
        self.server, self.player_name = url, name
        self.show_status(_("Connecting to {url}…").format(url=url))
        self.run_worker(self._connect(url, name, register), group="lobby", exclusive=True, exit_on_error=False)

    async def _connect(self, url: str, name: str, register: bool = True) -> None:
        try:
            who = await self.host.connect(url, name, register=register)
        except ConnectError as error:
            self.set_connected(False)
            if not error.unreachable:
                self.show_status(_("Cannot connect: {error}").format(error=error), "error")
                return
            # Nothing answered: the server may be starting; try again as after a lost connection.
            self.show_status(
                _("Cannot connect: {error}. Is the server running there? trying again every {seconds} s").format(
                    error=error, seconds=f"{RETRY_SECONDS:.0f}"
                ),
                "error",
            )
            self._retry_later()
            return
        except ServerError as error:
            self.set_connected(False)
            self.show_status(
                _("The server refused us: {reason}").format(reason=error_text(error.code, error.message)), "error"
            )
            return
        self.set_connected(True)
        self.show_status(who, "good")
        self.query_one("#code", Input).focus()
        if not register:
            self.host.show_account(signing_in=True)  # its sign-in makes this machine that player
        await self._load_rooms()

    def connection_status(self, status: str) -> None:
        """The App forwards the connection's state while the lobby shows."""
        if status == "reconnecting":
            self.reconnecting = True
            self.attempts = 1
            self.set_connected(False)
            self.show_status(_("Connection lost: reconnecting…"), "error")
        elif status == "retrying":
            self.attempts += 1
            self.show_status(_("Connection lost: reconnecting (attempt {n})…").format(n=self.attempts), "error")
        elif status == "connected" and self.host.connected and self.reconnecting:
            self.reconnecting = False
            self.set_connected(True)
            self.show_status(_("Connected again"), "good")
        elif status == "new-session":
            self.reconnecting = False
            self.set_connected(True)
            self.show_status(
                _("Connected again: the server restarted, so this is a new session (its rooms are gone)"), "good"
            )
            self.action_refresh()
        elif status in ("closed", "replaced", "removed"):
            self.reconnecting = False
            self.set_connected(False)
            if status == "removed":
                self.show_status(_("The server's moderators closed this session: Connect to try again"), "error")
            elif status == "replaced":
                self.show_status(_("This session was opened in another window: Connect to start a new one"), "error")
            else:
                self.show_status(
                    _("Disconnected from the server: trying again every {seconds} s").format(
                        seconds=f"{RETRY_SECONDS:.0f}"
                    ),
                    "error",
                )
                self._retry_later()

    def _retry_later(self) -> None:
        if self._retry_timer is None:
            self._retry_timer = self.set_timer(RETRY_SECONDS, self._retry)

    def _retry(self) -> None:
        """The connection gave up: try again by itself until it works or the player acts."""
        self._retry_timer = None
        if self.host.connected or self.busy:
            return
        self.run_worker(self._connect_again(), group="lobby", exclusive=True, exit_on_error=False)

    async def _connect_again(self) -> None:
        try:
            who = await self.host.connect(self.server, self.player_name)
        except (ConnectError, ServerError) as error:
            self.show_status(
                _("Still cannot connect ({error}): trying again every {seconds} s").format(
                    error=error, seconds=f"{RETRY_SECONDS:.0f}"
                ),
                "error",
            )
            self._retry_later()
            return
        self.set_connected(True)
        self.show_status(who, "good")
        await self._load_rooms()

    # -- rooms ------------------------------------------------------------------

    def action_refresh(self) -> None:
        if not self.host.connected:
            self.show_status(_("Connect first"), "error")
            return
        self.run_worker(self._load_rooms(), group="rooms", exclusive=True, exit_on_error=False)

    def action_list(self) -> None:
        """F5: the public rooms, fresh, with the focus on them (the form's fields come first in
        the tab order: many Tabs away)."""
        self.query_one("#rooms", DataTable).focus()
        self.action_refresh()

    @on(Button.Pressed, "#refresh")
    def _refresh_pressed(self) -> None:
        self.action_refresh()

    async def _load_rooms(self) -> None:
        try:
            rooms = await self.host.list_rooms()
        except (ServerError, ConnectionLost, TimeoutError) as error:
            self.show_status(_("Could not list the rooms: {error}").format(error=problem(error)), "error")
            return
        self.show_rooms(rooms)

    def show_rooms(self, rooms: tuple[RoomSummary, ...]) -> None:
        table: DataTable[str] = self.query_one("#rooms", DataTable)
        selected = self.selected_room()
        self.rooms = rooms
        table.clear()
        for room in rooms:
            limit = " · " + _("{n} min").format(n=room.time_limit // 60) if room.time_limit else ""
            # The rules, and what the room races with them on a line of its own: on one line they
            # ran past 80 columns in French, Italian and Dutch.
            more = (limit + ("" if room.undo else " · " + _("no undo")) + room_tags(room)).removeprefix(" · ")
            table.add_row(
                room.room,
                f"{room.racers}/{room.seats}",
                str(room.spectators),
                status_word(room.phase),
                preset_title(room.preset) + ("\n" + more if more else ""),
                key=room.room,
                height=2 if more else 1,
            )
        if selected is not None:
            codes = [r.room for r in rooms]
            if selected.room in codes:
                table.move_cursor(row=codes.index(selected.room))
        table.display = bool(rooms)
        self.query_one("#no-rooms").display = not rooms

    def selected_room(self) -> RoomSummary | None:
        table = self.query_one("#rooms", DataTable)
        row = table.cursor_row
        if not self.rooms or not 0 <= row < len(self.rooms):
            return None
        return self.rooms[row]

    @on(DataTable.RowSelected, "#rooms")
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        room = self.selected_room()
        if room is not None:
            self._enter(JoinRoom(room=room.room, spectate=room.phase != "waiting"), room.room)

    @on(Button.Pressed, "#join-selected")
    @on(Button.Pressed, "#watch-selected")
    def _join_selected(self, event: Button.Pressed) -> None:
        room = self.selected_room()
        if room is None:
            self.show_status(_("Pick a room in the list first (or refresh it with F5)"), "error")
            return
        self._enter(JoinRoom(room=room.room, spectate=event.button.id == "watch-selected"), room.room)

    # -- joining --------------------------------------------------------------------

    @on(Button.Pressed, "#join")
    @on(Button.Pressed, "#spectate")
    @on(Input.Submitted, "#code")
    def _join_code(self, event: Button.Pressed | Input.Submitted) -> None:
        kind, code = typed_code(self.query_one("#code", Input).value)
        if not code:
            self.show_status(_("Type the room code your friend gave you"), "error")
            self.query_one("#code", Input).focus()
            return
        if not 4 <= len(code) <= 12 or not code.isalnum():
            self.show_status(
                _("'{code}' is not a room code: codes are 6 letters and digits").format(code=code), "error"
            )
            return
        spectate = isinstance(event, Button.Pressed) and event.button.id == "spectate"
        if kind == "a":
            self.host.show_arena(code)
        elif kind == "c" or (kind is None and len(code) == CHALLENGE_LEN and not spectate):
            self.race_ghost(code)  # a challenge's code (8 characters, rooms' have 6): race its ghost
        else:
            self._enter(JoinRoom(room=code, spectate=spectate), code)

    @on(Button.Pressed, "#ghost")
    def _race_ghost(self) -> None:
        """The code is a ghost challenge's: race the run it names."""
        code = typed_code(self.query_one("#code", Input).value)[1]
        if len(code) != CHALLENGE_LEN or not code.isalnum():
            self.show_status(
                _("Type the {n}-character challenge code your friend sent, then Ghost").format(n=CHALLENGE_LEN), "error"
            )
            self.query_one("#code", Input).focus()
            return
        self.race_ghost(code)

    def race_ghost(self, code: str) -> None:
        """Race the run of the ghost challenge ``code`` (the Ghost button, or a ghost race's rematch)."""
        self._enter(AcceptChallenge(challenge=code), code)

    @on(Button.Pressed, "#quick")
    def _quick(self) -> None:
        name = str(self.query_one("#quick-preset", Select).value)
        self._enter(QuickMatch(preset=name), "")

    @on(Select.Changed, "#deal-kind")
    def _deal_kind(self, event: Select.Changed) -> None:
        deal = self.query_one("#deal", Input)
        deal.disabled = event.value == "random"
        self._fairness_choices()
        deal.placeholder = {"number": _("1 to {max}").format(max=formats.number(MAX_DEAL)), "code": "SH1-ST-0001K"}.get(
            str(event.value), ""
        )
        if not deal.disabled:
            deal.focus()

    @on(Checkbox.Changed, "#any-deal")
    def _fairness_choices(self) -> None:
        """A grade is for the server's winnable deals: not with a chosen deal nor with any deal."""
        random = self.query_one("#deal-kind", Select).value == "random"
        any_deal = self.query_one("#any-deal", Checkbox)
        any_deal.disabled = not random
        self.query_one("#deal-grade", Select).disabled = not random or any_deal.value

    @on(Button.Pressed, "#create")
    @on(Input.Submitted, "#deal")
    def _create(self) -> None:
        request = self.create_request()
        if isinstance(request, str):
            self.show_status(request, "error")
            return
        self._enter(request, "")

    def create_request(self) -> CreateRoom | str:
        """The form as a CreateRoom, or what is wrong with it."""
        name = str(self.query_one("#preset", Select).value)
        kind = self.query_one("#deal-kind", Select).value
        text = self.query_one("#deal", Input).value.strip()
        number: int | None = None
        code: str | None = None
        if kind == "number":
            if not text.isdigit() or not 1 <= int(text) <= MAX_DEAL:
                return _("The deal number is a whole number from 1 to {max}").format(max=formats.number(MAX_DEAL))
            number = int(text)
        elif kind == "code":
            try:
                name, _number = decode(text)
            except ValueError as error:
                return _("That deal code is not valid: {error}").format(error=error)
            code = text.upper()
        minutes = cast(int, self.query_one("#time-limit", Select).value)
        any_deal = kind == "random" and self.query_one("#any-deal", Checkbox).value
        grade = str(self.query_one("#deal-grade", Select).value) if kind == "random" and not any_deal else ""
        bot = str(self.query_one("#bot", Select).value)
        return CreateRoom(
            preset=name,
            deal_number=number,
            deal_code=code,
            seats=cast(int, self.query_one("#seats", Select).value),
            public=self.query_one("#public", Checkbox).value,
            time_limit=minutes * 60 if minutes else None,
            undo=self.query_one("#undo", Checkbox).value,
            any_deal=any_deal,
            deal_grade=grade or None,
            bot=bot or None,
            hints=self.query_one("#hints", Checkbox).value,
            lost_notice=self.query_one("#lost-notice", Checkbox).value,
        )

    def _enter(self, request: Message, code: str) -> None:
        if not self.host.connected:
            self.show_status(_("Not connected: Connect first"), "error")
            return
        if self.busy:
            return
        doing = {
            "create_room": _("Creating a room…"),
            "quick_match": _("Finding a race…"),
            "accept_challenge": _("Seating the ghost…"),
        }
        self.show_status(doing.get(request.TYPE, _("Joining {code}…").format(code=code)))
        self.run_worker(self._do_enter(request, code), group="lobby", exclusive=True, exit_on_error=False)

    async def _do_enter(self, request: Message, code: str) -> None:
        self.busy = True
        try:
            await self.host.enter(request)
            self.query_one("#code", Input).value = ""  # the next join starts from an empty field
        except ServerError as error:
            missing = error.code == ErrorCode.ROOM_NOT_FOUND and isinstance(request, JoinRoom)
            if missing and await self.host.is_arena(code):
                # An arena's code typed where a friend's room's goes (both are 6 characters): open it.
                self.query_one("#code", Input).value = ""
                self.show_status(_("{code} is an arena: joining it").format(code=code))
                self.host.show_arena(code)
                return
            self.show_status(explain(error, code), "error")
        except ConnectionLost:
            self.show_status(_("The connection dropped before the server answered: try again"), "error")
        except TimeoutError:
            self.show_status(_("The server did not answer in time: try again"), "error")
        finally:
            self.busy = False

    # -- the daily race ---------------------------------------------------------------

    def action_daily(self) -> None:
        """Show today's deal and best times again, and put the focus on racing it."""
        if not self.host.connected:
            self.show_status(_("Connect first"), "error")
            return
        self.query_one("#daily-race", Button).focus()
        self.run_worker(self._load_daily(), group="daily", exclusive=True, exit_on_error=False)

    async def _load_daily(self) -> None:
        try:
            board = await self.host.daily_board(DAILY_PRESET)
        except (ServerError, ConnectionLost, TimeoutError) as error:
            self.query_one("#daily", Static).update(
                Content(_("today's deal is not known: {error}").format(error=problem(error)))
            )
            return
        self.show_daily(board)

    def show_daily(self, board: DailyBoard) -> None:
        """Today's deal and the best times, fastest first. The deal is written by its code, as
        the room, the racers panel and the results write it; every line fits the box at 80x24."""
        self.daily_deal = board.deal
        lines = [
            _("deal {code}").format(code=board.deal),
            _("{date} UTC, for everyone").format(date=board.date),  # the deal code names its rules
        ]
        lines += [f"{e.place:>2}. {e.name[:16]:<16} {format_ms(e.time_ms)}" for e in board.entries[:DAILY_SHOWN]]
        if not board.entries:
            lines.append(_("no finish yet today: be the first"))
        self.query_one("#daily", Static).update(Content("\n".join(lines)))

    @property
    def daily_text(self) -> str:
        return str(self.query_one("#daily", Static).content)

    @on(Button.Pressed, "#daily-race")
    def _race_daily(self) -> None:
        self._enter(QuickMatch(preset=DAILY_PRESET, daily=True), "")

    @on(Button.Pressed, "#daily-bot")
    def _daily_bot(self) -> None:
        """A private daily room with a bot rival: the server deals the day's deal, and a human
        finishing it goes on the daily board as from any daily room (docs/protocol.md, create_room)."""
        self._enter(CreateRoom(preset=DAILY_PRESET, daily=True, bot=DAILY_BOT, public=False), "")

    @on(Button.Pressed, "#daily-solo")
    def _daily_solo(self) -> None:
        """Today's deal alone, on this machine: the server only says which deal it is."""
        if self.daily_deal is not None:
            self.host.practise(self.daily_deal)
            return
        if not self.host.connected:
            self.show_status(_("Connect first"), "error")
            return
        self.run_worker(self._solo_when_known(), group="daily", exclusive=True, exit_on_error=False)

    async def _solo_when_known(self) -> None:
        await self._load_daily()
        if self.daily_deal is not None:
            self.host.practise(self.daily_deal)

    def action_focus_create(self) -> None:
        """ctrl+n: the new-room form, from its first field (Create room is Tabs away, in order)."""
        self.query_one("#preset", Select).focus()

    def action_focus_code(self) -> None:
        self.query_one("#code", Input).focus()

    def action_stats(self) -> None:
        self.host.show_stats()

    def action_my_page(self) -> None:
        self.host.show_my_page()

    def action_boards(self) -> None:
        self.host.show_boards()

    def action_account(self) -> None:
        self.host.show_account()

    def action_friends(self) -> None:
        self.host.show_friends()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action != "friends" or self.size.width >= 78

    def on_resize(self) -> None:
        self.refresh_bindings()  # F9 in the footer or not

    @on(Button.Pressed, "#arena")
    def action_arena(self) -> None:
        self.host.show_arena()


def typed_code(text: str) -> tuple[str | None, str]:
    """What the Join field holds: a code, or a web link pasted whole (``http://host/r/CODE``, ``/c/``
    a challenge, ``/a/`` an arena), as (the link's kind letter or None, the code in capitals)."""
    kind = None
    if "/" in text:
        parts = [part for part in urlsplit(text.strip()).path.split("/") if part]
        if len(parts) >= 2 and parts[-2] in ("r", "c", "a"):
            kind, text = parts[-2], parts[-1]
    return kind, "".join(text.split()).upper()
