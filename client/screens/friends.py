"""Friends, presence and invitations (docs/protocol.md, section 24), as the terminal client keeps them.

``FriendsDesk`` holds the last ``friends`` list with each friend's presence as the ``presence``
events moved it, the invitations I sent that wait for an answer, and those I was sent. The App
(client/apps/app.py) feeds it every friends message, wherever the player is, and shows what it says;
the friends screen and the lobby's column (client/screens/friends_screen.py) draw it.

An invitation to me shows at once over whatever screen is on top (``InvitationScreen``): who, the
rules (or, from ``race_again``, that the people I just raced ask to race again on a new deal), the
seconds left; ``y`` (or Enter) accepts, ``n`` (or Escape) declines. Over a race the
player is running, Enter and Escape stay the race's keys: only ``y`` and ``n`` answer, and ``y``
asks again, as accepting leaves the race (the player resigns it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Button, Static

from i18n import N_, NP_, _
from i18n.rules_help import preset_title
from protocol.messages import Friend, FriendRef, Friends, Invitation, InviteClosed, Invited, Presence
from protocol.schema import Message
from seahaven import preset

from ..net.clock import ServerClock
from .localized import LocalModalScreen

MARKS: Final[dict[str, tuple[str, str]]] = {
    "lobby": ("●", "#86efac"),
    "waiting": ("◐", "#fde047"),
    "racing": ("▶", "#fb923c"),
    "watching": ("◎", "#93c5fd"),
    "offline": ("○", "#9ca3af"),
}
"""Each presence's mark and colour: the mark alone says it (no colour needed to read it)."""

ANSWERS: Final[dict[str, str]] = {
    "accepted": N_("{name} accepted your invitation"),
    "declined": N_("{name} declined your invitation"),
    "expired": N_("{name} did not answer your invitation"),
}


def rules_name(name: str) -> str:
    """A preset's title in the language in use (its name when unknown)."""
    try:
        return preset_title(preset(name).title)
    except ValueError:
        return name


def presence_words(state: str, room: str | None) -> str:
    """What a friend is doing, in words: ``in the lobby``, ``waiting in room 3R12R9``..."""
    if state == "lobby":
        return _("in the lobby")
    if state == "waiting":
        return _("waiting in room {room}").format(room=room) if room else _("waiting in a room")
    if state == "racing":
        return _("racing in room {room}").format(room=room) if room else _("racing")
    if state == "watching":
        return _("watching room {room}").format(room=room) if room else _("watching a race")
    return _("offline")


def presence_mark(state: str) -> Text:
    mark, colour = MARKS.get(state, MARKS["offline"])
    return Text(mark, style=f"bold {colour}")


def names_and(names: list[str]) -> str:
    """``Bob``, ``Bob and Cid``, ``Bob, Cid and Dora``: names as a sentence lists them."""
    if len(names) < 2:
        return "".join(names)
    return _("{names} and {last}").format(names=", ".join(names[:-1]), last=names[-1])


def who(ref: FriendRef | Friend) -> str:
    """A player's name, with the handle when they claimed one: ``Bob (@bobby)``."""
    return f"{ref.name} (@{ref.handle})" if ref.handle else ref.name


@dataclass
class FriendsDesk:
    """What the client knows of my friends, requests, blocks and invitations."""

    listing: Friends | None = None
    """The last ``friends`` list, its friends' presence kept up by the ``presence`` events."""
    why_not: str | None = None
    """Why there is no list (not connected, not registered, no records), in words; None: there is one."""
    clock: ServerClock = field(default_factory=ServerClock)
    sent: dict[str, str] = field(default_factory=dict)
    """My invitations waiting for an answer: id -> the friend's name."""
    sent_to: dict[str, str] = field(default_factory=dict)
    """The room each of them is to: id -> room code."""
    names: dict[str, str] = field(default_factory=dict)
    """Names of players who are not in the list (the people of my last race): id -> name."""
    invited: dict[str, Invited] = field(default_factory=dict)
    """Invitations to me not answered yet, by id, oldest first."""

    @property
    def friends(self) -> tuple[Friend, ...]:
        return self.listing.friends if self.listing is not None else ()

    def name_of(self, player: str) -> str:
        listing = self.listing
        if listing is not None:
            refs: list[Friend | FriendRef] = [*listing.friends, *listing.incoming, *listing.outgoing, *listing.blocked]
            for ref in refs:
                if ref.player == player:
                    return ref.name
        return self.names.get(player, player)

    def invited_to(self, room: str) -> list[str]:
        """Whom I invited to ``room`` who has not answered yet, by name, in the order invited."""
        return [self.sent[invite] for invite, code in self.sent_to.items() if code == room and invite in self.sent]

    def hear(self, message: Message) -> str | None:
        """Take a friends message in; what to tell the player about it (None: nothing)."""
        if isinstance(message, Friends):
            before, self.listing, self.why_not = self.listing, message, None
            return None if before is None else _news(before, message)
        if isinstance(message, Presence):
            listing = self.listing
            if listing is not None:
                friends = tuple(
                    replace(f, state=message.state, room=message.room) if f.player == message.player else f
                    for f in listing.friends
                )
                self.listing = replace(listing, friends=friends)
            return None
        if isinstance(message, Invitation):
            if message.invite in self.sent:
                return None
            name = self.name_of(message.player)
            self.sent[message.invite] = name
            self.sent_to[message.invite] = message.room
            return _("Invitation sent to {name}").format(name=name)
        if isinstance(message, Invited):
            self.invited[message.invite] = message
            return None
        if isinstance(message, InviteClosed):
            self.invited.pop(message.invite, None)
            friend = self.sent.pop(message.invite, None)
            self.sent_to.pop(message.invite, None)
            if friend is None:
                return None
            return _(ANSWERS.get(message.answer, ANSWERS["expired"])).format(name=friend)
        return None

    def seconds_left(self, invited: Invited) -> int:
        return max(0, (invited.expires_at - self.clock.now() + 999) // 1000)

    def next_invitation(self) -> Invited | None:
        """The oldest invitation to me still open (the expired ones dropped)."""
        for invite, invited in list(self.invited.items()):
            if self.seconds_left(invited) > 0:
                return invited
            del self.invited[invite]
        return None


def _news(before: Friends, after: Friends) -> str | None:
    """What a new list says to a player who may not be looking at it: a new request to me, or my
    request accepted (the first one of each, by name)."""
    asked = {r.player for r in before.incoming}
    known = {f.player for f in before.friends}
    for ref in after.incoming:
        if ref.player not in asked:
            return _("{name} asks to be your friend: F9 to answer").format(name=who(ref))
    waiting = {r.player for r in before.outgoing}
    for friend in after.friends:
        if friend.player not in known and friend.player in waiting:
            return _("{name} accepted: you are friends now").format(name=who(friend))
    return None


ACCEPT: Final = "accept"
DECLINE: Final = "decline"


class InvitationScreen(LocalModalScreen[str | None]):
    """A friend invites me to race: accept (``y``, Enter) or decline (``n``, Escape); the seconds left
    count down, and the note goes when the time is up (None) or the invitation closed elsewhere.
    ``racing()``: the player runs a race now, which accepting would resign."""

    CSS = """
    InvitationScreen {
        align: center middle;
        background: $background 50%;
    }
    InvitationScreen #invitation {
        width: 72;
        max-width: 100%;
        height: auto;
        border: round #fde047;
        border-title-color: #fde047;
        border-title-style: bold;
        background: $surface;
        padding: 1 2;
    }
    InvitationScreen #invitation-text {
        text-style: bold;
    }
    InvitationScreen #invitation-note {
        margin: 1 0;
        color: #d1fae5;
    }
    InvitationScreen .buttons {
        height: auto;
        align: center middle;
    }
    InvitationScreen Button {
        margin: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "accept", NP_("footer", "Accept")),
        Binding("n", "decline", NP_("footer", "Decline")),
        Binding("enter", "accept_plain", NP_("footer", "Accept"), show=False),
        Binding("escape", "decline_plain", NP_("footer", "Decline"), show=False),
    ]

    def __init__(self, invited: Invited, desk: FriendsDesk, racing: Callable[[], bool]) -> None:
        super().__init__()
        self.invited = invited
        self.desk = desk
        self.racing = racing
        self.asked = False
        """``y`` once over a race: the next ``y`` leaves it."""
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="invitation") as box:
            box.border_title = _("Invitation")
            yield Static("", id="invitation-text")
            yield Static("", id="invitation-note")
            with Horizontal(classes="buttons"):
                # For the mouse: the keys are the screen's (a focused button took Enter over a race).
                for button in (
                    Button(_("Accept (y)"), id="accept", variant="success", compact=True),
                    Button(_("Decline (n)"), id="decline", variant="error", compact=True),
                ):
                    button.can_focus = False
                    yield button

    def on_mount(self) -> None:
        self._tick()
        self._timer = self.set_interval(1.0, self._tick)

    @property
    def text(self) -> str:
        return str(self.query_one("#invitation-text", Static).content)

    @property
    def note(self) -> str:
        return str(self.query_one("#invitation-note", Static).content)

    def _tick(self) -> None:
        left = self.desk.seconds_left(self.invited)
        if left <= 0 or self.invited.invite not in self.desk.invited:
            self.close()
            return
        if self.invited.again:  # the people of my last race, friends or not, on a new deal
            said = _("{name} asks you to race again (new deal) · {seconds} s").format(
                name=self.invited.name, seconds=left
            )
        else:
            said = _("{name} invites you to race ({rules}) · {seconds} s").format(
                name=self.invited.name, rules=rules_name(self.invited.preset), seconds=left
            )
        self.query_one("#invitation-text", Static).update(Content(said))
        if not self.asked:
            self._say(
                _("You are racing: y leaves this race (you resign it), n declines")
                if self.racing()
                else _("y or Enter: race with them · n or Escape: no thanks")
            )

    def _say(self, text: str) -> None:
        self.query_one("#invitation-note", Static).update(Content(text))

    def close(self) -> None:
        """Gone without an answer here (expired, or answered elsewhere)."""
        if self.app.screen is not self:
            return  # a screen over it: the next tick tries again
        if self._timer is not None:
            self._timer.stop()
        self.dismiss(None)

    def action_accept(self) -> None:
        if self.racing() and not self.asked:
            self.asked = True
            self._say(_("y again: leave this race (you resign it) and join {name}").format(name=self.invited.name))
            return
        self._answer(ACCEPT)

    def action_decline(self) -> None:
        self._answer(DECLINE)

    def action_accept_plain(self) -> None:
        if self.racing():
            self._say(_("You are racing: y to accept (you resign this race), n to decline"))
            return
        self._answer(ACCEPT)

    def action_decline_plain(self) -> None:
        if self.racing():
            self._say(_("You are racing: y to accept (you resign this race), n to decline"))
            return
        self._answer(DECLINE)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "accept":
            self.action_accept()
        else:
            self.action_decline()

    def _answer(self, answer: str) -> None:
        if self._timer is not None:
            self._timer.stop()
        self.dismiss(answer)
