"""The networked client: the lobby, then a room's race screen, on one server session.

``RaceApp`` owns the ``RaceConnection``. Its events and status changes come back as
Textual messages (so they are handled in order on the App's queue) and go to the room's
``RaceController`` (client/race.py) or, between rooms, to the ``LobbyScreen``. A spectator's
drop takes them out of the room on the server: back online, the App joins it again to watch on.

    seahaven-client [ws://host:port] [--name NAME]
"""

from __future__ import annotations

import argparse
import getpass
import logging
import os
from collections.abc import Callable, Coroutine
from typing import Any, ClassVar, Final

from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message as TextualMessage
from textual.screen import Screen

from protocol.messages import CreateRoom, JoinRoom, ListRooms, QuickMatch, Rooms, RoomState, RoomSummary
from protocol.schema import Message

from .lobby import LobbyScreen
from .net import ConnectionLost, RaceConnection, ServerError
from .race import RaceController, RaceScreen

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

    TITLE = "Seahaven Towers: race a friend"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+q", "quit", "Quit", priority=True)]

    class NetEvent(TextualMessage):
        """A server event (not a reply) arrived on connection ``conn``."""

        def __init__(self, message: Message, conn: object) -> None:
            super().__init__()
            self.message = message
            self.conn = conn

    class NetStatus(TextualMessage):
        """Connection ``conn`` changed state: connecting, connected, reconnecting, closed, replaced."""

        def __init__(self, status: str, conn: object) -> None:
            super().__init__()
            self.status = status
            self.conn = conn

    def __init__(
        self,
        server: str = DEFAULT_SERVER,
        name: str | None = None,
        *,
        autoconnect: bool = True,
        connection_factory: ConnectionFactory = RaceConnection,
    ) -> None:
        super().__init__()
        self.server = server
        self.player_name = name or default_name()
        self.connection_factory = connection_factory
        self.conn: RaceConnection | None = None
        self.room: RaceController | None = None
        self.lobby = LobbyScreen(server, self.player_name, autoconnect=autoconnect)
        self._entering = False
        self._held: list[Message] = []
        self._reconnecting = False
        self._rejoin_held: list[Message] | None = None
        """Room events held while a spectator joins their room again (None: not rejoining)."""

    def get_default_screen(self) -> Screen[Any]:
        return self.lobby

    # -- the session ----------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.conn is not None and self.conn.connected

    async def connect(self, url: str, name: str) -> str:
        """Open a new session (closing the old one); who we are, for the lobby."""
        await self._close_connection()
        # The callbacks name their connection: news from an older one is ignored.
        box: list[RaceConnection] = []

        def on_event(message: Message) -> None:
            self.post_message(self.NetEvent(message, box[0]))

        def on_status(status: str) -> None:
            self.post_message(self.NetStatus(status, box[0]))

        conn = self.connection_factory(url, name, on_event, on_status)
        box.append(conn)
        welcome = await conn.connect()
        self.conn, self.server, self.player_name = conn, url, name
        if welcome.room is not None:  # cannot happen on a fresh session, but say so if it does
            return f"Connected to {url} as {welcome.name} (still in room {welcome.room})"
        return f"Connected to {url} as {welcome.name}: create a room, join one, or quick match"

    async def list_rooms(self) -> tuple[RoomSummary, ...]:
        reply = await self._request(ListRooms())
        return reply.rooms if isinstance(reply, Rooms) else ()

    async def enter(self, request: Message) -> None:
        """Create, join or quick-match a room, then show it.

        Room events that arrive before the reply has been handled are held, then replayed
        on the new room in order (the reply's state comes first on the wire).
        """
        assert isinstance(request, CreateRoom | JoinRoom | QuickMatch)
        self._entering, self._held = True, []
        try:
            reply = await self._request(request)
            if not isinstance(reply, RoomState):
                raise ServerError("internal", f"unexpected answer {reply.TYPE}")
            assert self.conn is not None
            room = RaceController(self, self.conn, reply)
            await room.start()
            self.room = room
            for message in self._held:
                room.handle(message)
        finally:
            self._entering, self._held = False, []

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

    # -- RaceHost (client/race.py) ----------------------------------------------

    async def show_race_screen(self, screen: RaceScreen) -> None:
        await self.push_screen(screen)

    def start_task(self, work: Coroutine[Any, Any, None], name: str) -> None:
        self.run_worker(work, name=name, group="race", exit_on_error=False)

    def back_to_lobby(self, message: str | None = None, kind: str = "info") -> None:
        """Close the room's screens and show the lobby (with ``message``)."""
        room, self.room = self.room, None
        if room is not None:
            room.stop()
        while len(self.screen_stack) > 1 and self.screen is not self.lobby:
            self.pop_screen()
        if message:
            self.lobby.show_status(message, kind)
        self.lobby.set_connected(self.connected)

    # -- connection callbacks -----------------------------------------------------

    def on_race_app_net_event(self, event: NetEvent) -> None:
        if event.conn is not self.conn:
            return
        if self._rejoin_held is not None:
            self._rejoin_held.append(event.message)
        elif self.room is not None:
            self.room.handle(event.message)
        elif self._entering:
            self._held.append(event.message)

    def on_race_app_net_status(self, event: NetStatus) -> None:
        status = event.status
        if event.conn is not self.conn or status == "connecting":
            return
        if status == "reconnecting":
            self._reconnecting = True
        room = self.room
        if room is not None:
            if status == "connected" and self._reconnecting and self.conn is not None:
                welcome = self.conn.welcome
                if welcome is not None and welcome.room is None:
                    self._reconnecting = False
                    if room.role == "spectator":
                        self.start_task(self._rejoin(room), "rejoin")
                    else:
                        room.room_gone()
                    return
            room.on_status(status)
        else:
            self.lobby.connection_status(status)
        if status in ("connected", "closed", "replaced"):
            self._reconnecting = False
        if status in ("closed", "replaced") and self.conn is not None and not self.conn.connected:
            self.conn = None

    async def action_quit(self) -> None:
        await self._close_connection()
        self.exit()

    async def on_unmount(self) -> None:
        await self._close_connection()


def run(args: argparse.Namespace) -> int:
    """The ``seahaven-client [ws://host:port] [--name NAME]`` entry point."""
    RaceApp(args.server, getattr(args, "name", None)).run()
    return 0
