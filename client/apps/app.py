"""The networked client: the lobby, then a room's race screen, on one server session.

``RaceApp`` owns the ``RaceConnection``. Its events and status changes come back as
Textual messages (so they are handled in order on the App's queue) and go to the room's
``RaceController`` (client/race/controller.py) or, between rooms, to the ``LobbyScreen``. A spectator's
drop takes them out of the room on the server: back online, the App joins it again to watch on.

The session (server, token, room) is kept in the user's data directory (client/data/userdata.py):
a client restarted within the server's grace period says hello with the token and is put
back in its seat. So is the key of the registered player the user is on each server
(``player.json``): the first connection to a server registers, and every later one says hello
with the key, so the user's history on that server follows them (F7: the account screen, which
signs in, deletes and exports through the App). Races are kept in the statistics.

    seahaven-client [ws://host:port] [--name NAME]
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import logging
import os
import ssl
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, ClassVar, Final

from textual.app import App
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.message import Message as TextualMessage
from textual.worker import Worker, WorkerState

from i18n import N_, NP_, _
from protocol.enums import Role
from protocol.errors import ErrorCode
from protocol.messages import (
    AcceptChallenge,
    AnswerInvite,
    Arena,
    CreateRoom,
    DailyBoard,
    DailyBoardRequest,
    Friends,
    FriendsRequest,
    Invitation,
    Invite,
    InviteClosed,
    Invited,
    JoinRoom,
    Leave,
    ListRooms,
    Notice,
    Podium,
    Presence,
    QuickMatch,
    RaceAgain,
    RatingNotice,
    Rooms,
    RoomState,
    RoomSummary,
    SeatTaken,
    SetName,
)
from protocol.schema import Message
from seahaven import Board

from ..data.stats import RaceRecord, Stats
from ..data.userdata import PlayerKeys, SavedSession, Settings, data_dir
from ..net.clock import now_ms
from ..net.connection import ConnectError, ConnectionLost, RaceConnection, ServerError
from ..net.errors import ERROR_TEXTS, problem
from ..race import room_text
from ..race.controller import RaceController
from ..race.host import AgainRoom
from ..records.records_api import Records, RecordsError, http_base
from ..screens import STYLESHEETS
from ..screens.account_screen import Account, AccountScreen
from ..screens.arena_screen import ArenaDesk, ArenaScreen
from ..screens.friends import ACCEPT, FriendsDesk, InvitationScreen
from ..screens.friends_screen import FriendsColumn, FriendsScreen
from ..screens.game_screen import GameScreen
from ..screens.lobby import LobbyScreen
from ..screens.race_screen import RaceScreen
from ..screens.records_screens import BoardsScreen, PlayerScreen
from ..screens.stats_screen import StatsScreen
from ..text.rating_text import rating_line
from ..text.words import deal_code, deal_label

DEFAULT_SERVER: Final = "ws://127.0.0.1:8765"

log = logging.getLogger("seahaven.client")

ConnectionFactory = Callable[..., RaceConnection]


def default_name() -> str:
    """The login name, cut to the protocol's 24 characters ("racer" when there is none)."""
    try:
        name = os.environ.get("SEAHAVEN_NAME") or getpass.getuser()
    except (OSError, KeyError):
        name = ""
    return (name.strip() or "racer")[:24]


class RaceApp(App[None]):
    """Race a friend: lobby, rooms, races, results, rematches."""

    TITLE = N_("Seahaven Towers: race a friend")
    ENABLE_COMMAND_PALETTE = False
    CSS_PATH = STYLESHEETS  # each screen keeps its own CSS_PATH too, for the other apps
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", NP_("footer", "Quit"), priority=True),
        # The lobby shows F8 in its footer; over a race it shows the standings (action_arena).
        Binding("f8", "arena", NP_("footer", "Arena"), show=False),
        # Friends (client/screens/friends_screen.py) from anywhere: from a waiting room, invite to it.
        Binding("f9", "friends", NP_("footer", "Friends"), show=False),
    ]
    QUIT_SECONDS = 3.0

    class NetEvent(TextualMessage):
        """A server event (not a reply) arrived on connection ``conn``, its ``at``-th frame."""

        def __init__(self, message: Message, conn: object, at: int = 0) -> None:
            super().__init__()
            self.message = message
            self.conn = conn
            self.at = at

    class NetStatus(TextualMessage):
        """Connection ``conn`` changed state: connecting, connected, reconnecting, closed, replaced."""

        def __init__(self, status: str, conn: object) -> None:
            super().__init__()
            self.status = status
            self.conn = conn

    def __init__(
        self,
        server: str | None = DEFAULT_SERVER,
        name: str | None = None,
        *,
        autoconnect: bool = True,
        connection_factory: ConnectionFactory = RaceConnection,
        data: Path | None = None,
        automove: bool | None = None,
        resume: bool = True,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        """``server`` None: the saved session's server, else the default one. ``data``: the
        directory of the settings, session and statistics (default: the user's data directory);
        ``automove`` overrides the saved setting; ``resume``: come back to a saved session;
        ``tls``: how ``wss://`` servers (and their records over https) are checked."""
        super().__init__()
        self.title = _(self.TITLE)
        self.tls = tls
        self.data = data
        self.saved = SavedSession.load(data) if resume else None
        if self.saved is not None and (server not in (None, self.saved.server) or name not in (None, self.saved.name)):
            self.saved = None  # another server or another name: a new session
        self.server = server or (self.saved.server if self.saved else DEFAULT_SERVER)
        self.player_name = name or (self.saved.name if self.saved else default_name())
        self.connection_factory = connection_factory
        self.settings = Settings.load(data)
        if automove is not None:
            self.settings.automove = automove
        self.stats = Stats.load((data / "stats.json") if data is not None else None)
        self._resuming = False
        self._quit_asked_at: float | None = None
        self.conn: RaceConnection | None = None
        self.room: RaceController | None = None
        self.ratings: dict[str, RatingNotice] = {}
        """My ratings by preset, as the server's last ``rating`` said (docs/ratings.md)."""
        self.arena_desk = ArenaDesk()
        """The arena I am in (client/screens/arena_screen.py)."""
        self.friends = FriendsDesk()
        """My friends, their presence, invitations either way (client/screens/friends.py)."""
        self.lobby = LobbyScreen(self.server, self.player_name, autoconnect=autoconnect)
        self._entering = False
        self._held: list[Message] = []
        self._reconnecting = False
        self._rejoin_held: list[Message] | None = None
        """Room events held while a spectator joins their room again (None: not rejoining)."""
        self._again_held: list[tuple[int, Message]] | None = None
        """Room events held, with their frame numbers, while ``race_again`` waits for its reply
        (None: not asked): those before the reply are the finished room's, those after the new one's."""
        self._left_below: tuple[object, int] | None = None
        """After a race again: the connection, and the frame of its reply; room events numbered
        below it are the finished room's, left (they may be handled after the new room opened)."""

    def on_mount(self) -> None:
        # Pushed, not the default screen: Textual loads a pushed screen's CSS file.
        self.push_screen(self.lobby)

    # -- the session ----------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.conn is not None and self.conn.connected

    async def connect(self, url: str, name: str, *, register: bool = True) -> str:
        """Open a new session (closing the old one); who we are, for the lobby. ``register`` False:
        no new player is made now if none is kept (the player is about to sign in)."""
        # A registered player's name is theirs on every device (the server says it at hello): one
        # typed here over the one this server gave us is a change on purpose (set_name).
        before = self.conn.welcome if self.conn is not None and self.server == url else None
        known_name = before.name if before is not None and before.identified else None
        await self._close_connection()
        # The callbacks name their connection: news from an older one is ignored.
        box: list[RaceConnection] = []

        def on_event(message: Message) -> None:
            self.post_message(self.NetEvent(message, box[0], getattr(box[0], "received", 0)))

        def on_status(status: str) -> None:
            self.post_message(self.NetStatus(status, box[0]))

        saved, self.saved = self.saved, None  # resumed at most once
        keys = PlayerKeys.load(self.data)
        key = keys.key_for(url)
        # A player's key says who we are: the server gives back a seat this client left in a room,
        # and a session beside the one another terminal or device races in (not that one's token,
        # which would take it over). A guest comes back to its race by the token.
        token = saved.token if key is None and saved is not None and (saved.server, saved.name) == (url, name) else None
        # A user who deleted their player on this server races on anonymously: none registered by itself.
        on_key = None if keys.stays_anonymous(url) or not register else (lambda new: self._keep_key(url, new))
        extra = {"tls": self.tls} if self.tls is not None else {}  # test factories take no tls
        conn = self.connection_factory(url, name, on_event, on_status, token=token, key=key, on_key=on_key, **extra)
        box.append(conn)
        # A resumed session's room frame may come before connect() returns: be ready for it.
        self._resuming = token is not None or key is not None
        self.conn = conn
        try:
            welcome = await conn.connect()
        except BaseException:
            self._resuming, self.conn = False, None
            raise
        if welcome.identified and known_name is not None and name not in (known_name, welcome.name):
            await conn.request(SetName(name=name))
        elif welcome.identified:
            name = welcome.name
        self.lobby.show_name(name)
        self.server, self.player_name = url, name
        self.arena_desk.me = welcome.player
        self.friends.clock.sync(welcome.server_time)
        self._ask_friends()
        self._remember(welcome.room)
        if welcome.room is not None:
            return _("Welcome back, {name}: returning to room {room}…").format(name=welcome.name, room=welcome.room)
        self._resuming = False
        if welcome.seat is not None:  # racing in another terminal or device: Enter takes the seat here
            self.lobby.offer_seat(welcome.seat)
            return _("You are racing in room {room} in another terminal or device: press Enter to race it here").format(
                room=welcome.seat
            )
        if token is not None and welcome.token != token:
            return _("Connected to {url} as {name} (your earlier session had ended): create or join a room").format(
                url=url, name=name
            )
        return _("Connected to {url} as {name}: create a room, join one, or quick match").format(url=url, name=name)

    def _keep_key(self, server: str, key: str | None) -> None:
        """Keep (None: forget) the registered player's key for ``server``. A key made after the
        session opened (the first registration went unanswered) is the player's: their session
        takes this anonymous one's place at once, from the lobby (a room's seat is not given up)."""
        try:
            PlayerKeys.load(self.data).with_key(server, key).save(self.data)
        except OSError as error:
            log.warning("cannot save the player's key: %s", error)
        if key is not None and self._in_lobby_anonymous():
            self.start_task(self._become_player(), "become-player")

    def _in_lobby_anonymous(self) -> bool:
        """An anonymous session in no room: not one resumed into its room (its frame may not
        have come yet), nor one entering a room."""
        welcome = self.conn.welcome if self.conn is not None else None
        in_room = self.room is not None or self._entering or self._resuming
        return welcome is not None and not welcome.identified and welcome.room is None and not in_room

    async def _become_player(self) -> None:
        if not self._in_lobby_anonymous():
            return  # a room came first: the key is said at the next connection
        with contextlib.suppress(ConnectError, ServerError):
            await self.reconnect()

    def _remember(self, room: str | None) -> None:
        """Keep the session (server, token, room) for a restarted client."""
        conn = self.conn
        if conn is None or conn.welcome is None:
            return
        try:
            SavedSession(self.server, conn.welcome.token, conn.welcome.name, room).save(self.data)
        except OSError as error:
            log.warning("cannot save the session: %s", error)

    async def list_rooms(self) -> tuple[RoomSummary, ...]:
        reply = await self._request(ListRooms())
        return reply.rooms if isinstance(reply, Rooms) else ()

    async def daily_board(self, preset: str) -> DailyBoard:
        reply = await self._request(DailyBoardRequest(preset=preset))
        if not isinstance(reply, DailyBoard):
            raise ServerError("bad-reply", f"the server answered daily_board with {reply.TYPE}")
        return reply

    async def enter(self, request: Message) -> None:
        """Create, join or quick-match a room, then show it.

        Room events that arrive before the reply has been handled are held, then replayed
        on the new room in order (the reply's state comes first on the wire).
        """
        assert isinstance(request, CreateRoom | JoinRoom | QuickMatch | AcceptChallenge | Invite | AnswerInvite)
        self._entering, self._held = True, []
        try:
            reply = await self._request(request)
            if not isinstance(reply, RoomState):
                raise ServerError("internal", f"unexpected answer {reply.TYPE}")
            assert self.conn is not None
            deal_asked = None
            if isinstance(request, CreateRoom) and request.deal_number is not None:
                deal_asked = deal_label(deal_code(request.preset, request.deal_number))
            elif isinstance(request, CreateRoom) and request.deal_code is not None:
                deal_asked = deal_label(request.deal_code)
            await self._open_room(
                reply,
                created=isinstance(request, CreateRoom),
                deal_asked=deal_asked,
                matched=isinstance(request, QuickMatch),
            )
            for message in self._held:
                self._room_event(message)
        finally:
            self._entering, self._held = False, []

    async def _open_room(
        self, state: RoomState, *, created: bool = False, deal_asked: str | None = None, matched: bool = False
    ) -> None:
        assert self.conn is not None
        welcome = self.conn.welcome
        room = RaceController(
            self,
            self.conn,
            state,
            created=created,
            deal_asked=deal_asked,
            automove=self.settings.automove,
            grace_ms=welcome.limits.grace_ms if welcome is not None else None,
            ratings=self.ratings,
            matched=matched,
        )
        await room.start()
        self.room = room
        self._remember(room.code)

    def _room_event(self, message: Message) -> None:
        if self.room is not None:
            self.room.handle(message)

    async def _rejoin(self, room: RaceController) -> None:
        """Back online after a spectator's drop (which took them out of the room): watch again.

        Events that arrive before the reply has been handled are held, then replayed after the
        room state, as in ``enter``."""
        self._rejoin_held = []
        try:
            reply: Message | None = await self._request(JoinRoom(room=room.code, spectate=True))
        except ConnectionLost:
            return  # dropped again: the next reconnect tries again
        except (ServerError, TimeoutError) as error:
            reply = None
            log.info("rejoining %s: %s", room.code, error)
        finally:
            held, self._rejoin_held = self._rejoin_held, None
        if self.room is not room or room.closed:
            return  # left meanwhile
        if not isinstance(reply, RoomState):
            room.room_gone()
            return
        room.apply_state(reply)
        for message in held:
            room.handle(message)

    async def _request(self, message: Message) -> Message:
        if self.conn is None:
            raise ConnectionLost("not connected")
        return await self.conn.request(message)

    async def _close_connection(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            await conn.close()

    # -- RaceHost (client/race/host.py) ----------------------------------------------

    async def show_race_screen(self, screen: RaceScreen) -> None:
        await self.push_screen(screen)

    def start_task(self, work: Coroutine[Any, Any, None], name: str) -> None:
        self.run_worker(work, name=name, group="race", exit_on_error=False)

    def on_game_screen_automove_changed(self, event: GameScreen.AutomoveChanged) -> None:
        """Keep the player's auto-move choice for the next rooms and runs."""
        self.settings.automove = event.on
        self._save_settings()

    def on_game_screen_deck_changed(self, event: GameScreen.DeckChanged) -> None:
        """Keep the card colours for the next rooms and runs."""
        self.settings.deck = event.deck
        self._save_settings()

    def _save_settings(self) -> None:
        """Write the settings; a disk that refuses costs a warning, not the race."""
        try:
            self.settings.save(self.data)
        except OSError as error:
            self.notify(_("Could not save the settings: {error}").format(error=error), severity="warning")

    def race_over(self, record: RaceRecord) -> None:
        try:
            self.stats.record_race(record)
        except OSError as error:
            self.notify(_("Could not save the statistics: {error}").format(error=error), severity="warning")

    def race_ghost(self, challenge: str) -> None:
        self.lobby.race_ghost(challenge)

    def back_to_lobby(self, message: str | None = None, kind: str = "info") -> None:
        """Close the room's screens and show the lobby (with ``message``)."""
        room, self.room = self.room, None
        if room is not None:
            room.stop()
        while len(self.screen_stack) > 1 and self.screen not in (self.lobby, self.arena_desk.screen):
            self.pop_screen()
        if message:
            self.lobby.show_status(message, kind)
        self.lobby.set_connected(self.connected)
        self._remember(None)

    # -- connection callbacks -----------------------------------------------------

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's workers (a room opened, resumed or seated) run with ``exit_on_error=False``: a
        failed one must not close the client, but it says why in the log rather than vanishing."""
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            log.log(logging.ERROR, "%s failed: %r", event.worker.name or "a task", error, exc_info=error)

    def on_race_app_net_event(self, event: NetEvent) -> None:
        if event.conn is not self.conn:
            return
        message = event.message
        if isinstance(message, Notice):  # from the server's operators (docs/admin.md): shown wherever we are
            self.notify(message.text, title=_("Room closed") if message.room else _("Notice"), timeout=20)
            return
        if isinstance(message, Friends | Presence | Invitation | Invited | InviteClosed):  # wherever we are
            self._hear_friends(message)
            return
        if isinstance(message, Arena | Podium):  # the player's arena, in a room or not
            said = self.arena_desk.hear(message)
            if said and self.room is not None:
                self.notify(said, title=_("Arena {code}").format(code=message.arena))
            return
        if (
            isinstance(message, RoomState)
            and not self._entering
            and self.arena_desk.seats(message, self.room.code if self.room is not None else None)
        ):
            # The new room's events follow at once, before a worker could run: the last race's
            # room is closed now, so that they are held (not handed to it: its "Started" made it
            # look unfinished, and the new room never had them), then replayed on the new room.
            self._entering = True
            self.leave_for_next_race()
            self.run_worker(self._open_unasked(message), group="race", exit_on_error=False)  # the arena's next race
            return
        if isinstance(message, SeatTaken):  # another terminal or device of ours races in that room now
            if self.room is not None and self.room.code == message.room:
                self.back_to_lobby()
            self.lobby.offer_seat(message.room)
            self.lobby.show_status(
                _("Playing in another terminal or device: press Enter to race room {room} here").format(
                    room=message.room
                ),
                "error",
            )
            return
        if isinstance(message, RatingNotice):  # the player's, not a room's: it comes in a room or not
            self.ratings[message.preset] = message
            if self.room is None:
                self.lobby.show_status(rating_line(message), "good")
        left = self._left_below
        if left is not None and left[0] is event.conn and event.at < left[1]:
            return  # the finished room's, come after we moved on to the new one
        if self._again_held is not None:
            self._again_held.append((event.at, message))
        elif self._rejoin_held is not None:
            self._rejoin_held.append(message)
        elif self.room is not None:
            self.room.handle(message)
        elif self._entering:
            self._held.append(message)
        elif self._resuming and isinstance(message, RoomState):
            self._resuming = False
            self.run_worker(self._resume(message), group="race", exit_on_error=False)

    def leave_for_next_race(self) -> None:
        """The server seated us in a room nobody asked for here (an arena's next race): the last
        race's screens close (back to the arena's screen). Its result stays in sight a while: the
        next race may begin a moment after it ended."""
        try:
            last = room_text.last_race(self.room.model) if self.room is not None else None
            arena = self.arena_desk.arena
            if last is not None:  # notes outlive screens: said now, it shows over the next race
                title = _("Arena {code}: the last race").format(code=arena.arena) if arena is not None else ""
                self.notify(last, title=title, timeout=12)
            self.back_to_lobby()
        except BaseException:
            self._entering, self._held = False, []
            raise

    async def _resume(self, state: RoomState) -> None:
        """Back in the room a restarted client was in (its seat kept by the server)."""
        await self._open_unasked(state)
        if self.room is not None:
            self.room.screen.flash(*room_text.welcome_back(self.room.model))

    async def _open_unasked(self, state: RoomState) -> None:
        """Open a room no request of ours answered; its events that arrive meanwhile are held,
        then replayed on it in order, as ``enter`` does."""
        self._entering = True
        try:
            await self._open_room(state)
            for message in self._held:
                self._room_event(message)
        finally:
            self._entering, self._held = False, []

    def on_race_app_net_status(self, event: NetStatus) -> None:
        status = event.status
        if event.conn is not self.conn or status == "connecting":
            return
        if status == "reconnecting":
            self._reconnecting = True
        if status in ("connected", "new-session"):
            self._ask_friends()  # what changed while away
        elif status in ("closed", "replaced", "removed"):
            self.friends.listing = None  # not shown as current while away
            self._friends_changed()
        room = self.room
        if status == "new-session":
            # The server forgot our session: it restarted without its store, so rooms are gone.
            self._reconnecting = False
            self._remember(None)
            if room is not None:
                room.room_gone(_("the server restarted and no longer knows it; you are connected again"))
            else:
                self.lobby.connection_status(status)
            return
        if room is not None:
            if status == "connected" and self._reconnecting and self.conn is not None:
                welcome = self.conn.welcome
                if welcome is not None and welcome.room is None:
                    self._reconnecting = False
                    if room.role == Role.SPECTATOR:
                        self.start_task(self._rejoin(room), "rejoin")
                    else:
                        room.room_gone()
                    return
            room.on_status(status)
        else:
            self.lobby.connection_status(status)
        if status == "removed" and self.conn is not None:
            self.notify(
                self.conn.removed or _("removed"), title=_("Removed by a moderator"), severity="error", timeout=30
            )
        if status in ("connected", "closed", "replaced", "removed"):
            self._reconnecting = False
        if status in ("closed", "replaced", "removed") and self.conn is not None and not self.conn.connected:
            self.conn = None

    async def action_quit(self) -> None:
        """Quit; in a race, on a second ctrl+q (the seat is kept for the grace period: start the
        client again to come back)."""
        room = self.room
        if room is not None and room.model.racing_now() and isinstance(self.screen, RaceScreen):
            now = time.monotonic()
            if self._quit_asked_at is None or now - self._quit_asked_at > self.QUIT_SECONDS:
                self._quit_asked_at = now
                self.screen.flash(
                    _("Press ctrl+q again to quit: start the client again soon to get your seat back"), "error"
                )
                return
        await self._close_connection()
        self.exit()

    def show_stats(self) -> None:
        """The statistics; a race's deal chosen there opens in solo practice over the lobby."""

        def chosen(code: str | None) -> None:
            if code is not None:
                self.practise(code)

        self.push_screen(StatsScreen(self.stats), chosen)

    def practise(self, code: str) -> None:
        """The deal ``code`` alone, over the lobby (a race's deal again, or the daily deal)."""
        board = Board.from_code(code)
        title = _("Practice · deal {code}").format(code=code)  # "deal CODE", as the room and results write it
        self.push_screen(PracticeScreen(board, title=title, automove=self.settings.automove))

    # -- the server's records ----------------------------------------------------

    def records(self) -> Records:
        """The read API of the server this client races on (its ws:// URL as http://)."""
        return Records(http_base(self.server), tls=self.tls)

    def show_my_page(self) -> None:
        """My page on the server's records: who I am there is the session's player."""
        welcome = self.conn.welcome if self.conn is not None else None
        if welcome is None:
            self.notify(_("Connect first: your page is your player's on that server"), severity="warning")
            return
        self.push_screen(PlayerScreen(self.records(), welcome.player))

    def action_arena(self) -> None:
        """F8 anywhere: over a race, the arena's standings in a note (the race stays in sight);
        elsewhere, the arena's screen."""
        if self.room is None:
            if not isinstance(self.screen, ArenaScreen):
                self.show_arena()
            return
        summary = self.arena_desk.summary(now_ms())
        if summary is None:
            self.notify(_("Not in an arena: F8 in the lobby opens or joins one"), timeout=6)
            return
        arena = self.arena_desk.arena
        self.notify(summary, title=_("Arena {code}").format(code=arena.arena if arena else ""), timeout=10)

    def show_arena(self, code: str | None = None) -> None:
        self.push_screen(ArenaScreen(code))

    async def is_arena(self, code: str) -> bool:
        try:
            await self.records().arena(code)
        except (RecordsError, ValueError):  # none (404), the records away, or no http:// address
            return False
        return True

    def offer_deal(self, code: str) -> None:
        self.lobby.offer_deal(code)

    def web_link(self, path: str) -> str:
        try:
            return http_base(self.server) + path
        except ValueError:  # not a ws:// address (not connected yet): the path alone
            return path

    async def arena_request(self, message: Message) -> Message:
        return await self._request(message)

    def show_boards(self) -> None:
        self.push_screen(BoardsScreen(self.records()))

    # -- friends (client/screens/friends.py, client/screens/friends_screen.py) ------------------------------

    def action_friends(self) -> None:
        """F9 anywhere: the friends screen (from a waiting room, an invitation is to that room)."""
        self.show_friends()

    def show_friends(self) -> None:
        if not isinstance(self.screen, FriendsScreen | InvitationScreen):
            self.push_screen(FriendsScreen())

    def _ask_friends(self) -> None:
        """My friends and their presence, once connected as a registered player (the events keep
        them current after that)."""
        welcome = self.conn.welcome if self.conn is not None else None
        if welcome is None or not welcome.identified:
            self.friends.listing = None
            self.friends.why_not = (
                _("Connect in the lobby first: your friends are your player's on that server")
                if welcome is None
                else _("Only a registered player has friends: this session is anonymous (F7: your account)")
            )
            self._friends_changed()
            return
        self.run_worker(self._load_friends(), group="friends-list", exit_on_error=False)

    async def _load_friends(self) -> None:
        try:
            await self.friends_request(FriendsRequest())
        except (ServerError, ConnectionLost, TimeoutError) as error:
            self.friends.listing, self.friends.why_not = None, problem(error)
            self._friends_changed()

    async def friends_request(self, message: Message) -> Friends:
        reply = await self._request(message)
        if not isinstance(reply, Friends):
            raise ServerError("bad-reply", f"the server answered {message.TYPE} with {reply.TYPE}")
        self._hear_friends(reply)
        return reply

    async def invite_friend(self, player: str) -> None:
        """To my waiting room; from no room, the server makes one (its ``room`` is the reply, and
        the ``invitation`` follows as an event)."""
        if self.room is None:
            await self.enter(Invite(player=player))
            return
        reply = await self._request(Invite(player=player))
        if isinstance(reply, Invitation):
            self._hear_friends(reply)

    async def recent_rivals(self) -> list[dict[str, Any]]:
        """The people I raced lately, head to head, from the read API (``/players/ME/rivals``)."""
        welcome = self.conn.welcome if self.conn is not None else None
        if welcome is None or not welcome.identified:
            return []
        document = await self.records().player_rivals(welcome.player)
        rivals = document.get("rivals")
        return [entry for entry in rivals if isinstance(entry, dict)] if isinstance(rivals, list) else []

    async def watch_room(self, room: str) -> None:
        if self.room is not None:
            raise ServerError(ErrorCode.ALREADY_IN_ROOM, str(ERROR_TEXTS[ErrorCode.ALREADY_IN_ROOM]))
        await self.enter(JoinRoom(room=room, spectate=True))

    # -- race again (race_again: a new room and deal, the people just raced invited) -----------

    def why_no_invitations(self) -> str | None:
        """Why this session cannot invite anyone (None: it can): anonymous, or a server without
        friends (the friends list could not be read)."""
        welcome = self.conn.welcome if self.conn is not None else None
        if welcome is None:
            return _("Not connected: connect in the lobby first")
        if not welcome.identified:
            return _("Racing again is for registered players: this session is anonymous (F7: your account)")
        if self.friends.listing is None:
            return self.friends.why_not or _("Invitations are not ready yet: try again in a moment")
        return None

    def invited_to(self, room: str) -> list[str]:
        return self.friends.invited_to(room)

    def race_again(self, room: AgainRoom) -> None:
        self.run_worker(self._race_again(room), group="race", exit_on_error=False)

    async def _race_again(self, room: AgainRoom) -> None:
        """Ask for a new room and deal with the people of ``room``'s race. The reply is the new
        room's state (shown as a room I created); each ``invitation`` comes after it as an event.
        Until the reply the room events are held with their frame numbers: those before it are the
        finished room's (refused: all of them), those after it the new room's."""
        conn = self.conn
        if conn is None or self.room is not room or self._again_held is not None:
            return
        for player, racer in room.model.racers.items():  # the invitations name them, friends or not
            self.friends.names[player] = racer.name
        self._again_held = []
        try:
            reply, at = await conn.call(RaceAgain())
            if not isinstance(reply, RoomState):
                raise ServerError("bad-reply", f"the server answered race_again with {reply.TYPE}")
        except (ServerError, ConnectionLost, TimeoutError) as error:
            held, self._again_held = self._again_held, None
            for _at, message in held:
                self._room_event(message)  # still in the finished room: its events, in order
            room.again_refused(error)
            return
        held, self._again_held = self._again_held, None
        self._left_below = (conn, at)
        self._entering, self._held = True, [message for number, message in held if number > at]
        try:
            self.back_to_lobby()  # the finished room's screens close (the server took us out of it)
            await self._open_room(reply, created=True)
            for message in self._held:
                self._room_event(message)
        finally:
            self._entering, self._held = False, []
        if self.room is not None:
            self.room.invitations_changed()  # those that came before the room was shown

    def _hear_friends(self, message: Message) -> None:
        to_room = self.friends.sent_to.get(message.invite) if isinstance(message, InviteClosed) else None
        said = self.friends.hear(message)
        if isinstance(message, Invitation):
            to_room = message.room
        if isinstance(message, Invited):
            self._offer_invitation()
        elif isinstance(message, InviteClosed):
            for screen in self.screen_stack:
                if isinstance(screen, InvitationScreen) and screen.invited.invite == message.invite:
                    screen.close()  # answered in another terminal, or expired
        if said:
            self.notify(said, title=_("Friends"), timeout=8)
            if isinstance(self.screen, FriendsScreen):
                self.screen.show_status(said, "good")
        room = self.room
        if to_room is not None and room is not None and room.code == to_room:
            # The waiting room says whom it waits for: "Invitation sent to Bob and Cid", then each answer.
            room.invitations_changed(said if isinstance(message, InviteClosed) else None)
        if isinstance(message, Friends | Presence):
            self._friends_changed()

    def _friends_changed(self) -> None:
        """Redraw the friends where they show: the friends screens, the lobby's column."""
        for screen in self.screen_stack:
            if isinstance(screen, FriendsScreen):
                with contextlib.suppress(NoMatches):
                    screen.show(self.friends)
        with contextlib.suppress(NoMatches):
            for column in self.lobby.query(FriendsColumn):
                column.show(self.friends)

    def _racing_now(self) -> bool:
        return self.room is not None and self.room.model.racing_now()

    def _offer_invitation(self) -> None:
        """Show the oldest open invitation to me over whatever is on top, one at a time."""
        if any(isinstance(screen, InvitationScreen) for screen in self.screen_stack):
            return  # the next shows when this one goes
        invited = self.friends.next_invitation()
        if invited is None:
            return

        def answered(answer: str | None) -> None:
            self.friends.invited.pop(invited.invite, None)
            if answer is not None:
                work = self._answer_invitation(invited, answer == ACCEPT)
                self.run_worker(work, group="invitation", exit_on_error=False)
            self.call_later(self._offer_invitation)

        self.push_screen(InvitationScreen(invited, self.friends, self._racing_now), answered)

    async def _answer_invitation(self, invited: Invited, accept: bool) -> None:
        """Decline; or accept: out of the room I am in (a race asked about first), then seated in theirs."""
        try:
            if not accept:
                await self._request(AnswerInvite(invite=invited.invite, accept=False))
                return
            if self.room is not None:
                try:
                    await self._request(Leave())
                except (ServerError, ConnectionLost, TimeoutError) as error:
                    log.info("leave: %s", error)
                self.back_to_lobby()
            self.lobby.show_status(_("Joining {name} in room {room}…").format(name=invited.name, room=invited.room))
            await self.enter(AnswerInvite(invite=invited.invite, accept=True))
        except (ServerError, ConnectionLost, TimeoutError) as error:
            said = _("Could not answer {name}'s invitation: {error}").format(name=invited.name, error=problem(error))
            self.notify(said, title=_("Invitation"), severity="error", timeout=8)
            if self.room is None:
                self.lobby.show_status(said, "error")

    # -- my account (client/screens/account_screen.py) -------------------------------------

    def show_account(self, *, signing_in: bool = False) -> None:
        self.push_screen(AccountScreen(signing_in=signing_in))

    def account(self) -> Account:
        welcome = self.conn.welcome if self.conn is not None and self.conn.connected else None
        keys = PlayerKeys.load(self.data)
        key = keys.key_for(self.server)
        return Account(
            server=self.server,
            player=welcome.player if welcome is not None else None,
            identified=welcome is not None and welcome.identified,
            handle=welcome.handle if welcome is not None else None,
            kept=key.partition(".")[0] if key is not None else None,
            anonymous=keys.stays_anonymous(self.server),
        )

    async def account_request(self, message: Message) -> Message:
        return await self._request(message)

    def keep_key(self, key: str | None) -> None:
        keys = PlayerKeys.load(self.data)
        (keys.with_key(self.server, key) if key is not None else keys.without_player(self.server)).save(self.data)

    async def reconnect(self) -> str:
        """A new session with the key kept now (from the lobby: no room to lose); the lobby says so."""
        try:
            who = await self.connect(self.server, self.player_name)
        except (ConnectError, ServerError):
            self.lobby.connection_status("closed")  # the lobby tries again by itself
            raise
        self.lobby.set_connected(True)
        self.lobby.show_status(who, "good")
        return who

    def data_folder(self) -> Path:
        return self.data or data_dir()

    async def on_unmount(self) -> None:
        await self._close_connection()


class PracticeScreen(GameScreen):
    """A deal played alone from the lobby (a race's deal again); escape goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", NP_("footer", "Lobby"))]

    def __init__(self, board: Board, *, title: str, automove: bool) -> None:
        super().__init__(board, title=title, hints=True, automove=automove)

    def action_back(self) -> None:
        if self.selected is not None:
            self.action_cancel()
            return
        self.dismiss(None)


def run(args: argparse.Namespace) -> int:
    """The ``seahaven-client [ws://host:port] [--name NAME]`` entry point."""
    RaceApp(args.server, getattr(args, "name", None), tls=getattr(args, "tls", None)).run()
    return 0
