"""The friends screen (F9) and the lobby's friends column (160 columns and wider).

The screen lists my friends, each with a presence mark and what they do in words, then the
players who asked me (``a`` accepts, ``x`` declines), those I asked (``x`` cancels) and those I
block (``u`` unblocks); a field asks a player by handle; ``i`` (or Enter) invites the selected
friend to race, ``w`` watches their room, ``x`` removes, ``b`` blocks; a tick box says whether my
friends see what I do. It asks ``friends`` when it opens; the App (``FriendsHost``:
client.apps.app.RaceApp) keeps the list current from the server's events (client/screens/friends.py) and
redraws it. Under the list, my recent rivals from the read API (``/players/P/rivals``), each head
to head: wins and losses, and on how many of the deals we both finished I was faster; ``a`` (or
Enter) on one asks them to be my friend. The lobby's column shows the friends alone, Enter inviting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Protocol, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Checkbox, DataTable, Input, Label, Static

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

from ..net.connection import ConnectionLost, ServerError
from ..net.errors import problem
from ..records.records_api import RecordsError
from ..widgets.keys_footer import KeysFooter
from ..widgets.tickbox import TickBox
from .friends import FriendsDesk, presence_mark, presence_words, who
from .localized import LocalScreen

FRIEND: Final = "friend"
INCOMING: Final = "incoming"
OUTGOING: Final = "outgoing"
BLOCKED: Final = "blocked"

KIND_MARKS: Final = {INCOMING: "?", OUTGOING: "…", BLOCKED: "⊘"}
NARROW_BELOW: Final = 72
"""Below this many columns the screen is narrow: the tick box under the field, the rivals' cells short."""
RIVAL_MARKS: Final = {FRIEND: "✓", **KIND_MARKS}
"""A rival's mark: a friend already, asking me, asked, blocked (none: a key asks them)."""

INVITE_REFUSALS: Final[dict[str, str]] = {
    ErrorCode.RACE_IN_PROGRESS: N_("Invite from the lobby or a waiting room: this room's race has begun or is over"),
    ErrorCode.NOT_A_RACER: N_("A spectator cannot invite: leave the room (l), then invite from the lobby"),
    ErrorCode.ROOM_FULL: N_("Your room has no free seat for a friend"),
}
"""An invitation's refusals that the error catalogue's words would mislead about (client/net/errors.py)."""


@dataclass(frozen=True, slots=True)
class Rival:
    """Someone I raced lately, head to head (the read API's ``rivals`` entry)."""

    player: str
    name: str
    handle: str | None = None
    races: int = 0
    wins: int = 0
    """Races together where I placed ahead of them..."""
    losses: int = 0
    """...and behind them."""
    shared: int = 0
    """Deals we both finished (in any race)..."""
    faster: int = 0
    """...and of those, where my best time is lower than theirs."""

    @classmethod
    def from_json(cls, entry: Mapping[str, Any]) -> Rival:
        deals = entry.get("deals") or {}
        return cls(
            player=str(entry["player"]),
            name=str(entry.get("name") or entry["player"]),
            handle=entry.get("handle") or None,
            races=int(entry.get("races") or 0),
            wins=int(entry.get("wins") or 0),
            losses=int(entry.get("losses") or 0),
            shared=int(deals.get("shared") or 0),
            faster=int(deals.get("faster") or 0),
        )

    @property
    def shown_name(self) -> str:
        return f"{self.name} (@{self.handle})" if self.handle else self.name


def shared_deals(rival: Rival) -> str:
    """``faster on 3 of 5 shared deals``: the deals both finished, where my best time was lower."""
    if not rival.shared:
        return _("no shared deal")
    return ngettext(
        "faster on {faster} of {n} shared deal", "faster on {faster} of {n} shared deals", rival.shared
    ).format(faster=rival.faster, n=rival.shared)


def rival_cells(rival: Rival, *, narrow: bool = False) -> tuple[str, str, str]:
    """A rival's row: the name, wins–losses (``4–3``), the shared deals in words. ``narrow`` (60
    columns): the name alone and the deals as ``3/5 faster`` (the keys line under the list says
    them in full)."""
    record = f"{rival.wins}–{rival.losses}"
    if not narrow:
        return rival.shown_name, record, shared_deals(rival)
    deals = _("{faster}/{n} faster").format(faster=rival.faster, n=rival.shared) if rival.shared else "—"
    return rival.name, record, deals


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

    async def recent_rivals(self) -> list[dict[str, Any]]:
        """The people I raced lately, from the read API (RecordsError); none for a session that is
        no registered player's."""
        ...


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
    /* Narrow (60 columns): the tick box under the field, which kept too little room for its words. */
    FriendsScreen.-narrow .row {
        layout: grid;
        grid-size: 2;
        grid-columns: 1fr 12;
        height: 2;
    }
    FriendsScreen.-narrow #friends-title {
        margin-top: 0;
    }
    FriendsScreen.-narrow #friends-status {
        min-height: 1;
    }
    FriendsScreen.-narrow #row-keys {
        margin-top: 0;
    }
    FriendsScreen.-narrow #shown {
        column-span: 2;
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
    FriendsScreen #people:focus, FriendsScreen #rivals:focus {
        border: heavy #fde047;  /* a border, not an outline: an outline hid the header */
    }
    FriendsScreen #rivals {
        height: 1fr;
        background: transparent;
        border: round #2f7d55;
        border-title-color: #fde047;
        display: none;
    }
    FriendsScreen #rivals.-shown {
        display: block;
    }
    FriendsScreen #rivals-note {
        height: auto;
        color: #9ca3af;
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

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]  # noqa: RUF012 (Textual declares it so)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", NP_("footer", "Back")),
        Binding("i", "invite", NP_("footer", "Invite")),
        Binding("a", "accept", NP_("footer", "Accept")),
        Binding("a", "add_rival", NP_("footer", "Add friend")),
        Binding("a", "accept_rival", NP_("footer", "Accept")),  # a rival who asked me
        Binding("w", "watch", NP_("footer", "Watch")),
        Binding("x", "remove", NP_("footer", "Remove")),
        Binding("x", "decline", NP_("footer", "Decline")),
        Binding("x", "cancel", NP_("footer", "Cancel")),
        Binding("b", "block", NP_("footer", "Block")),
        Binding("u", "unblock", NP_("footer", "Unblock")),
    ]

    def __init__(
        self, desk: FriendsDesk | None = None, *, live: bool = True, rivals: list[Rival] | None = None
    ) -> None:
        """``desk``: what to show (default: the App's); ``live`` False: show it, ask nothing
        (screenshots), with ``rivals`` as my recent rivals."""
        super().__init__()
        self._desk = desk
        self.live = live
        self.busy = False
        self.rows: list[tuple[str, str, FriendRef]] = []
        self.rivals: list[Rival] = list(rivals or [])
        self.rivals_read = rivals is not None
        """The rivals were read (or given): an empty list is "none yet", not "reading"."""
        self.rivals_error = ""
        self._drawn_narrow = False
        """Why the rivals could not be read (empty: they were, or are being read)."""

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
            rivals: DataTable[str | Text] = DataTable(id="rivals", cursor_type="row", zebra_stripes=True)
            rivals.border_title = _("Recent rivals")
            yield rivals
            yield Static("", id="rivals-note")
            yield Static("", id="row-keys")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#people", DataTable).add_columns(" ", _("player"), _("what they do"))
        self.show(self.desk)
        self._focus_first()
        if self.live:
            self.show_status(_("Reading your friends…"))
            self._run(FriendsRequest(), "")
            self.run_worker(self._read_rivals(), group="rivals", exclusive=True, exit_on_error=False)

    async def _read_rivals(self) -> None:
        try:
            found = await self.host.recent_rivals()
        except RecordsError as error:
            if error.status != 404:  # 404: no races on record yet, so no rivals
                self.rivals_error = error.message
                self.show_rivals()
                return
            found = []
        rivals: list[Rival] = []
        for entry in found:
            try:
                rivals.append(Rival.from_json(entry))
            except (KeyError, TypeError, ValueError):
                continue  # an entry this client cannot read: the others still show
        self.rivals, self.rivals_read = rivals, True
        self.show_rivals()

    # -- drawing -----------------------------------------------------------------------

    def show(self, desk: FriendsDesk) -> None:
        """Draw the list as ``desk`` has it (the App calls this after each change)."""
        table: DataTable[str | Text] = self.query_one("#people", DataTable)
        selected = self._people_row()
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
        self.show_rivals()

    def show_rivals(self) -> None:
        """My recent rivals, each marked when already a friend, asked, asking or blocked."""
        table: DataTable[str | Text] = self.query_one("#rivals", DataTable)
        row = table.cursor_row
        table.clear()
        if not table.columns:
            table.add_columns(" ", _("rival"), _("won–lost"), _("best times"))
        narrow = self._drawn_narrow = self.narrow
        for rival in self.rivals:
            kind = self.kind_of(rival.player)
            style = "bold #86efac" if kind == FRIEND else "#9ca3af"
            mark = Text(RIVAL_MARKS[kind] if kind is not None else " ", style=style)
            table.add_row(mark, *rival_cells(rival, narrow=narrow), key=rival.player)
        if self.rivals:
            table.move_cursor(row=min(max(row, 0), len(self.rivals) - 1))
        table.set_class(bool(self.rivals), "-shown")
        if self.rivals:
            said = ""
        elif self.rivals_error:
            said = _("Your recent rivals could not be read: {error}").format(error=self.rivals_error)
        elif self.rivals_read:
            said = _("Recent rivals: none yet (the people you race show here)")
        else:
            said = _("Reading your recent rivals…") if self.live else ""
        note = self.query_one("#rivals-note", Static)
        note.update(Content(said))
        note.display = bool(said)
        self._row_keys()

    @property
    def narrow(self) -> bool:
        return 0 < self.size.width < NARROW_BELOW

    def on_resize(self) -> None:
        narrow = self.narrow
        if self.rivals and narrow != self._drawn_narrow:
            self.call_after_refresh(self.show_rivals)  # the rivals' cells as long as the width allows

    def kind_of(self, player: str) -> str | None:
        """What ``player`` is to me in the friends list: friend, incoming, outgoing, blocked, or None."""
        for kind, listed, _ref in self.rows:
            if listed == player:
                return kind
        return None

    def rivals_rows(self) -> list[tuple[str, str, str]]:
        """The rivals as shown: (name, wins–losses, shared deals)."""
        table = self.query_one("#rivals", DataTable)
        rows = [[str(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]
        return [(name, record, deals) for _mark, name, record, deals in rows]

    def selected_rival(self) -> Rival | None:
        """The rival under the cursor while the rivals list has the focus."""
        table = self.query_one("#rivals", DataTable)
        row = table.cursor_row
        if not table.has_focus or not 0 <= row < len(self.rivals):
            return None
        return self.rivals[row]

    def can_add(self, rival: Rival) -> bool:
        """``a`` asks this rival: not a friend, asked or blocked already (one who asks me: ``a`` accepts)."""
        return self.kind_of(rival.player) in (None, INCOMING)

    def _row_keys(self) -> None:
        """The line under the lists: what the keys do to the selected row."""
        rival = self.selected_rival()
        if rival is not None:
            self.query_one("#row-keys", Static).update(Content(self._rival_keys(rival)))
            self.refresh_bindings()
            return
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

    def _rival_keys(self, rival: Rival) -> str:
        kind = self.kind_of(rival.player)
        raced = ngettext("{n} race together", "{n} races together", rival.races).format(n=rival.races)
        if self.narrow:  # the list says the deals short there
            raced += " · " + shared_deals(rival)
        said = {
            None: _("a asks {name} to be your friend"),
            FRIEND: _("{name} is your friend: invite them from the list above"),
            INCOMING: _("{name} asks to be your friend: a accepts"),
            OUTGOING: _("You asked {name}: no answer yet"),
            BLOCKED: _("You block {name}"),
        }[kind].format(name=rival.name)
        return f"{raced} · {said}"

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
        """The row under the friends list's cursor (None while the rivals list has the focus)."""
        if self.query_one("#rivals", DataTable).has_focus:
            return None
        return self._people_row()

    def _people_row(self) -> tuple[str, str, FriendRef] | None:
        table = self.query_one("#people", DataTable)
        row = table.cursor_row
        if not self.rows or not 0 <= row < len(self.rows):
            return None
        return self.rows[row]

    @on(DataTable.RowHighlighted, "#people")
    @on(DataTable.RowHighlighted, "#rivals")
    def _highlighted(self) -> None:
        self._row_keys()

    def on_descendant_focus(self) -> None:
        self._row_keys()  # the keys line follows the list with the focus

    def on_descendant_blur(self) -> None:
        self._row_keys()

    # -- the keys ------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("add_rival", "accept_rival"):
            rival = self.selected_rival()
            asks_me = rival is not None and self.kind_of(rival.player) == INCOMING
            return rival is not None and self.can_add(rival) and asks_me == (action == "accept_rival")
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

    @on(DataTable.RowSelected, "#rivals")
    def _enter_rival(self) -> None:
        self.action_add_rival()

    def action_accept_rival(self) -> None:
        self.action_add_rival()

    def action_add_rival(self) -> None:
        rival = self.selected_rival()
        if rival is None or not self.can_add(rival):
            return
        if self.kind_of(rival.player) == INCOMING:
            said = _("You and {name} are friends now").format(name=rival.name)
        else:
            said = _("Asked {name} to be your friend").format(name=rival.name)
        self._run(AddFriend(player=rival.player), said)

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
