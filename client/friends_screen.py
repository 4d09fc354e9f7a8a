"""The friends screen (F9) and the lobby's friends column (160 columns and wider).

The screen lists my friends, each with a presence mark and what they do in words, then the
players who asked me (``a`` accepts, ``x`` declines), those I asked (``x`` cancels) and those I
block (``u`` unblocks); a field asks a player by handle; ``i`` (or Enter) invites the selected
friend to race, ``w`` watches their room, ``x`` removes, ``b`` blocks; a tick box says whether my
friends see what I do. It asks ``friends`` when it opens; the App (``FriendsHost``:
client.app.RaceApp) keeps the list current from the server's events (client/friends.py) and
redraws it. The lobby's column shows the friends alone, Enter inviting.
"""

from __future__ import annotations

from typing import ClassVar, Final, Protocol, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, DataTable, Footer, Input, Label, Static

from i18n import N_, NP_, _, ngettext
from protocol.errors import ErrorCode
from protocol.messages import (
    AddFriend,
    BlockPlayer,
    FriendRef,
    Friends,
    FriendsRequest,
    RemoveFriend,
    SetPresence,
    UnblockPlayer,
)
from protocol.names import clean_handle
from protocol.schema import Message

from .errors import problem
from .friends import FriendsDesk, presence_mark, presence_words, who
from .localized import LocalScreen
from .net import ConnectionLost, ServerError
from .tickbox import TickBox

FRIEND: Final = "friend"
INCOMING: Final = "incoming"
OUTGOING: Final = "outgoing"
BLOCKED: Final = "blocked"

KIND_MARKS: Final = {INCOMING: "?", OUTGOING: "…", BLOCKED: "⊘"}

INVITE_REFUSALS: Final[dict[str, str]] = {
    ErrorCode.RACE_IN_PROGRESS: N_("Invite from the lobby or a waiting room: this room's race has begun or is over"),
    ErrorCode.NOT_A_RACER: N_("A spectator cannot invite: leave the room (l), then invite from the lobby"),
    ErrorCode.ROOM_FULL: N_("Your room has no free seat for a friend"),
}
"""An invitation's refusals that the error catalogue's words would mislead about (client/errors.py)."""


def invite_problem(error: BaseException) -> str:
    """Why an invitation could not be sent, in words."""
    if isinstance(error, ServerError) and error.code in INVITE_REFUSALS:
        return _(INVITE_REFUSALS[error.code])
    return problem(error)


class FriendsHost(Protocol):
    """What the friends screen and column need of the App."""

    @property
    def friends(self) -> FriendsDesk: ...

    async def friends_request(self, message: Message) -> Friends:
        """Send a friends request; the list it answers with, taken in (ServerError / ConnectionLost /
        TimeoutError)."""

    async def invite_friend(self, player: str) -> None:
        """Invite a friend to race: to my waiting room, or from no room to a new one (errors raised)."""

    async def watch_room(self, room: str) -> None:
        """Spectate ``room`` (errors raised; from no room only)."""


def rows(listing: Friends | None) -> list[tuple[str, str, FriendRef]]:
    """The screen's rows: (kind, player, the player as listed), friends first."""
    if listing is None:
        return []
    found: list[tuple[str, str, FriendRef]] = [
        (FRIEND, f.player, FriendRef(player=f.player, name=f.name, handle=f.handle)) for f in listing.friends
    ]
    for kind, refs in ((INCOMING, listing.incoming), (OUTGOING, listing.outgoing), (BLOCKED, listing.blocked)):
        found += [(kind, ref.player, ref) for ref in refs]
    return found


class FriendsScreen(LocalScreen[None]):
    """My friends with their presence, requests either way, blocks; invite, watch, add by handle."""

    CSS = """
    FriendsScreen {
        background: #0b3d26;
    }
    FriendsScreen #friends-body {
        padding: 0 1;
        height: 1fr;
    }
    FriendsScreen #friends-title {
        text-style: bold;
        color: #fde047;
        margin-top: 1;
    }
    FriendsScreen #friends-status {
        height: auto;
        min-height: 2;
        color: #d1fae5;
    }
    FriendsScreen #friends-status.error {
        color: #fca5a5;
        text-style: bold;
    }
    FriendsScreen #friends-status.good {
        color: #86efac;
        text-style: bold;
    }
    FriendsScreen .row {
        height: 1;
        margin-bottom: 1;
    }
    FriendsScreen #friend-handle {
        width: 1fr;
        max-width: 32;
        margin-right: 1;
    }
    FriendsScreen .row Button {
        width: auto;
        min-width: 6;
        margin-right: 2;
    }
    FriendsScreen Checkbox {
        border: none;
        padding: 0;
        height: 1;
        width: auto;
        background: transparent;
    }
    FriendsScreen #people {
        height: 1fr;
        background: transparent;
        border: round #2f7d55;
    }
    FriendsScreen #people:focus {
        border: heavy #fde047;  /* a border, not an outline: an outline hid the header */
    }
    FriendsScreen Button:focus {
        background: #fde047;
        color: #111827;
        text-style: bold;
    }
    FriendsScreen Checkbox:focus > .toggle--label {
        background: #fde047;
        color: #111827;
    }
    FriendsScreen #row-keys {
        height: auto;
        color: #a9d3b9;
        margin-top: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", NP_("footer", "Back")),
        Binding("i", "invite", NP_("footer", "Invite")),
        Binding("a", "accept", NP_("footer", "Accept")),
        Binding("w", "watch", NP_("footer", "Watch")),
        Binding("x", "remove", NP_("footer", "Remove")),
        Binding("x", "decline", NP_("footer", "Decline")),
        Binding("x", "cancel", NP_("footer", "Cancel")),
        Binding("b", "block", NP_("footer", "Block")),
        Binding("u", "unblock", NP_("footer", "Unblock")),
    ]

    def __init__(self, desk: FriendsDesk | None = None, *, live: bool = True) -> None:
        """``desk``: what to show (default: the App's); ``live`` False: show it, ask nothing (screenshots)."""
        super().__init__()
        self._desk = desk
        self.live = live
        self.busy = False
        self.rows: list[tuple[str, str, FriendRef]] = []

    @property
    def host(self) -> FriendsHost:
        return cast(FriendsHost, self.app)

    @property
    def desk(self) -> FriendsDesk:
        return self._desk if self._desk is not None else self.host.friends

    def compose(self) -> ComposeResult:
        with Vertical(id="friends-body"):
            yield Label(_("Friends"), id="friends-title")
            yield Static("", id="friends-status")
            with Horizontal(classes="row"):
                yield Input(placeholder=_("a player's handle"), id="friend-handle", max_length=64, compact=True)
                yield Button(_("Ask"), id="ask", variant="success", compact=True)
                yield TickBox(_("Friends see what I do"), True, id="shown", compact=True)
            table: DataTable[str | Text] = DataTable(id="people", cursor_type="row", zebra_stripes=True)
            yield table
            yield Static("", id="row-keys")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#people", DataTable).add_columns(" ", _("player"), _("what they do"))
        self.show(self.desk)
        self._focus_first()
        if self.live:
            self.show_status(_("Reading your friends…"))
            self._run(FriendsRequest(), "")

    # -- drawing -----------------------------------------------------------------------

    def show(self, desk: FriendsDesk) -> None:
        """Draw the list as ``desk`` has it (the App calls this after each change)."""
        table: DataTable[str | Text] = self.query_one("#people", DataTable)
        selected = self.selected()
        listing = desk.listing
        self.rows = rows(listing)
        table.clear()
        states = {f.player: f for f in listing.friends} if listing is not None else {}
        for kind, player, ref in self.rows:
            if kind == FRIEND:
                friend = states[player]
                mark, what = presence_mark(friend.state), presence_words(friend.state, friend.room)
            else:
                mark = Text(KIND_MARKS[kind], style="bold #fde047" if kind == INCOMING else "#9ca3af")
                what = {
                    INCOMING: _("asks to be your friend"),
                    OUTGOING: _("asked: no answer yet"),
                    BLOCKED: _("blocked by you"),
                }[kind]
            table.add_row(mark, who(ref), what, key=f"{kind}:{player}")
        if selected is not None:
            keys = [(kind, player) for kind, player, _ref in self.rows]
            if (selected[0], selected[1]) in keys:
                table.move_cursor(row=keys.index((selected[0], selected[1])))
        shown = self.query_one("#shown", Checkbox)
        shown.disabled = listing is None
        if listing is not None and shown.value != (listing.shown_to == "friends"):
            with shown.prevent(Checkbox.Changed):
                shown.value = listing.shown_to == "friends"
        if listing is None and desk.why_not:
            self.show_status(desk.why_not, "error")
        # The first row came while the empty field waited (a request arrived): its keys work at once,
        # not typed into the field ("a accepts" typed an "a").
        field = self.query_one("#friend-handle", Input)
        if self.rows and field.has_focus and not field.value:
            table.focus()
        self._row_keys()

    def _row_keys(self) -> None:
        """The line under the list: what the keys do to the selected row."""
        chosen = self.selected()
        if chosen is None:
            said = _("No friends yet: type a player's handle above and press Enter to ask them")
        else:
            kind, _player, ref = chosen
            said = {
                FRIEND: _("{name}: Enter or i invites to race · w watches their room · x removes · b blocks"),
                INCOMING: _("{name} asks to be your friend: a accepts · x declines · b blocks"),
                OUTGOING: _("You asked {name}: x cancels the request"),
                BLOCKED: _("You block {name}: u unblocks (then ask again to be friends)"),
            }[kind].format(name=ref.name)
        self.query_one("#row-keys", Static).update(Content(said))
        self.refresh_bindings()

    def show_status(self, text: str, kind: str = "info") -> None:
        """The message line (``kind``: info, error, good)."""
        status = self.query_one("#friends-status", Static)
        status.update(Content(text))
        status.set_class(kind == "error", "error")
        status.set_class(kind == "good", "good")

    @property
    def status_text(self) -> str:
        return str(self.query_one("#friends-status", Static).content)

    @property
    def row_keys_text(self) -> str:
        return str(self.query_one("#row-keys", Static).content)

    def selected(self) -> tuple[str, str, FriendRef] | None:
        table = self.query_one("#people", DataTable)
        row = table.cursor_row
        if not self.rows or not 0 <= row < len(self.rows):
            return None
        return self.rows[row]

    @on(DataTable.RowHighlighted, "#people")
    def _highlighted(self) -> None:
        self._row_keys()

    # -- the keys ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        kinds = {
            "invite": (FRIEND,),
            "watch": (FRIEND,),
            "remove": (FRIEND,),
            "accept": (INCOMING,),
            "decline": (INCOMING,),
            "cancel": (OUTGOING,),
            "block": (FRIEND, INCOMING, OUTGOING),
            "unblock": (BLOCKED,),
        }.get(action)
        if kinds is None:
            return True
        chosen = self.selected()
        return chosen is not None and chosen[0] in kinds

    def action_close(self) -> None:
        self.dismiss(None)

    @on(DataTable.RowSelected, "#people")
    def _enter(self) -> None:
        chosen = self.selected()
        if chosen is not None and chosen[0] == FRIEND:
            self.action_invite()
        elif chosen is not None and chosen[0] == INCOMING:
            self.action_accept()

    def _friend(self) -> FriendRef | None:
        chosen = self.selected()
        return chosen[2] if chosen is not None else None

    def action_invite(self) -> None:
        ref = self._friend()
        if ref is None or self.busy:
            return
        self.busy = True
        self.show_status(_("Inviting {name}…").format(name=ref.name))
        self.run_worker(self._invite(ref), group="friends", exclusive=True, exit_on_error=False)

    async def _invite(self, ref: FriendRef) -> None:
        try:
            await self.host.invite_friend(ref.player)
        except (ServerError, ConnectionLost, TimeoutError) as error:
            said = _("Could not invite {name}: {error}").format(name=ref.name, error=invite_problem(error))
            self.show_status(said, "error")
        finally:
            self.busy = False

    def action_watch(self) -> None:
        chosen = self.selected()
        if chosen is None or self.busy:
            return
        friend = next((f for f in self.desk.friends if f.player == chosen[1]), None)
        if friend is None or friend.room is None or friend.state == "offline":
            self.show_status(_("{name} is in no room to watch").format(name=chosen[2].name), "error")
            return
        self.busy = True
        self.show_status(_("Joining room {room} to watch…").format(room=friend.room))
        self.run_worker(self._watch(friend.room), group="friends", exclusive=True, exit_on_error=False)

    async def _watch(self, room: str) -> None:
        try:
            await self.host.watch_room(room)
        except (ServerError, ConnectionLost, TimeoutError) as error:
            self.show_status(_("Could not watch room {room}: {error}").format(room=room, error=problem(error)), "error")
        finally:
            self.busy = False

    def action_accept(self) -> None:
        ref = self._friend()
        if ref is not None:
            self._run(AddFriend(player=ref.player), _("You and {name} are friends now").format(name=ref.name))

    def action_remove(self) -> None:
        ref = self._friend()
        if ref is not None:
            self._run(RemoveFriend(player=ref.player), _("{name} is no longer your friend").format(name=ref.name))

    def action_decline(self) -> None:
        ref = self._friend()
        if ref is not None:
            self._run(RemoveFriend(player=ref.player), _("You declined {name}'s request").format(name=ref.name))

    def action_cancel(self) -> None:
        ref = self._friend()
        if ref is not None:
            self._run(RemoveFriend(player=ref.player), _("Your request to {name} is withdrawn").format(name=ref.name))

    def action_block(self) -> None:
        ref = self._friend()
        if ref is not None:
            self._run(
                BlockPlayer(player=ref.player),
                _("You block {name}: no requests, invitations or presence between you").format(name=ref.name),
            )

    def action_unblock(self) -> None:
        ref = self._friend()
        if ref is not None:
            self._run(UnblockPlayer(player=ref.player), _("{name} is no longer blocked").format(name=ref.name))

    @on(Button.Pressed, "#ask")
    @on(Input.Submitted, "#friend-handle")
    def _ask(self) -> None:
        field = self.query_one("#friend-handle", Input)
        handle = field.value.strip().removeprefix("@")
        if not handle:
            self.show_status(_("Type the handle of the player you want as a friend"), "error")
            field.focus()
            return
        try:
            clean_handle(handle)
        except ValueError as error:
            self.show_status(_("That is not a handle: {why}").format(why=error), "error")
            return
        self._run(AddFriend(handle=handle), _("Asked @{handle} to be your friend").format(handle=handle), clear=True)

    @on(Checkbox.Changed, "#shown")
    def _shown(self, event: Checkbox.Changed) -> None:
        listing = self.desk.listing
        wanted = "friends" if event.value else "nobody"
        if listing is None or listing.shown_to == wanted:
            return
        said = (
            _("Your friends see what you do again")
            if event.value
            else _("Nobody sees what you do now: you show as offline")
        )
        self._run(SetPresence(shown_to=wanted), said)

    def _run(self, request: Message, good: str, *, clear: bool = False) -> None:
        """Send ``request``; say ``good`` once the server answered (the list redraws itself)."""
        if self.busy or not self.live:
            return
        self.busy = True
        self.run_worker(self._send(request, good, clear), group="friends", exclusive=True, exit_on_error=False)

    async def _send(self, request: Message, good: str, clear: bool) -> None:
        try:
            listing = await self.host.friends_request(request)
        except (ServerError, ConnectionLost, TimeoutError) as error:
            self.show_status(problem(error), "error")
            return
        finally:
            self.busy = False
        if clear:
            self.query_one("#friend-handle", Input).value = ""
            self.query_one("#people", DataTable).focus()
        if good:
            self.show_status(good, "good")
        elif listing.incoming:
            n = len(listing.incoming)
            self.show_status(
                ngettext(
                    "{n} player asks to be your friend: a accepts", "{n} players ask to be your friends: a accepts", n
                ).format(n=n)
            )
        else:
            self.show_status("")
        if not good:
            self._focus_first()

    def _focus_first(self) -> None:
        """The list when it has rows (its keys work at once), else the field to ask someone."""
        if self.rows:
            self.query_one("#people", DataTable).focus()
        else:
            self.query_one("#friend-handle", Input).focus()


class FriendsColumn(Vertical):
    """The lobby's friends, at 160 columns and wider: a mark, the name and what each does; Enter
    invites the one selected (the lobby says how it went)."""

    SCOPED_CSS = False  # its rules name the lobby's width class
    DEFAULT_CSS = """
    FriendsColumn {
        display: none;
        width: 40;
        height: auto;
        border: round #2f7d55;
        border-title-color: #fde047;
        border-title-style: bold;
        padding: 0 1;
        margin: 1 1 0 1;
    }
    LobbyScreen.-roomy FriendsColumn.-shown {
        display: block;
    }
    FriendsColumn DataTable {
        height: auto;
        max-height: 16;
        background: transparent;
    }
    FriendsColumn DataTable:focus {
        background: #14532d;
    }
    FriendsColumn .note {
        color: #9ca3af;
        text-style: italic;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.players: list[str] = []

    @property
    def host(self) -> FriendsHost:
        return cast(FriendsHost, self.app)

    def compose(self) -> ComposeResult:
        table: DataTable[str | Text] = DataTable(id="lobby-friends", cursor_type="row", show_header=False)
        yield table
        yield Label("", id="lobby-friends-note", classes="note")

    def on_mount(self) -> None:
        self.border_title = _("Friends (F9)")
        self.query_one("#lobby-friends", DataTable).add_columns(" ", _("player"), _("what they do"))

    def show(self, desk: FriendsDesk) -> None:
        """The friends as ``desk`` has them; hidden without a list (anonymous, not connected)."""
        listing = desk.listing
        self.set_class(listing is not None, "-shown")
        if listing is None:
            return
        table: DataTable[str | Text] = self.query_one("#lobby-friends", DataTable)
        row = table.cursor_row
        table.clear()
        self.players = [f.player for f in listing.friends]
        for friend in listing.friends:
            table.add_row(presence_mark(friend.state), friend.name, presence_words(friend.state, friend.room))
        if self.players:
            table.move_cursor(row=min(max(row, 0), len(self.players) - 1))
        table.display = bool(self.players)
        asking = len(listing.incoming)
        if asking:
            note = ngettext(
                "{n} player asks to be your friend: F9", "{n} players ask to be your friends: F9", asking
            ).format(n=asking)
        elif not self.players:
            note = _("no friends yet: F9 to ask one")
        else:
            note = _("Enter invites to race")
        self.query_one("#lobby-friends-note", Label).update(note)

    @on(DataTable.RowSelected, "#lobby-friends")
    def _invite(self, event: DataTable.RowSelected) -> None:
        event.stop()
        row = event.cursor_row
        if not 0 <= row < len(self.players):
            return
        player = self.players[row]
        self.run_worker(self._send(player), group="lobby-friends", exclusive=True, exit_on_error=False)

    async def _send(self, player: str) -> None:
        lobby = self.screen
        name = self.host.friends.name_of(player)
        say = getattr(lobby, "show_status", None)
        try:
            await self.host.invite_friend(player)
        except (ServerError, ConnectionLost, TimeoutError) as error:
            if say is not None:
                say(_("Could not invite {name}: {error}").format(name=name, error=invite_problem(error)), "error")
