"""Arenas in the terminal client (docs/arenas.md, docs/protocol.md section 23).

``ArenaDesk`` is what the App knows of the arena the player is in: its last ``arena`` frame and, at
its end, its ``podium``. ``ArenaScreen`` (the lobby's F8, "Arena") opens a new arena (rules and
minutes) or joins one by its code; once in one it shows the arena's clock, its live standings (points,
wins, streak fire, place; mine highlighted) and, at the end, the podium. The races come by
themselves: the server seats the player in the next race and sends its ``room`` unasked, which the
App opens over this screen (``ArenaDesk.seats``); the race's results go back to this screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final, Protocol, cast

from rich.style import Style
from rich.table import Table
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.timer import Timer
from textual.widgets import Button, Input, Label, Select, Static

from i18n import NP_, _
from protocol.messages import ARENA_MINUTES, Arena, ArenaStanding, CreateArena, JoinArena, LeaveArena, Podium, RoomState
from protocol.schema import Message

from ..net.clock import now_ms
from ..net.connection import ConnectionLost, ServerError
from ..net.errors import error_text
from ..text.words import minutes, ordinal, points, wins
from ..widgets.keys_footer import KeysFooter
from .lobby import preset_select, preset_title
from .localized import LocalScreen

MINUTE_CHOICES: Final = tuple(m for m in (5, 10, 15, 30, 60, 90, 180) if ARENA_MINUTES[0] <= m <= ARENA_MINUTES[1])


def streak_text(streak: int) -> str:
    """Wins in a row; from 2 on (the next race's points count double) with fire."""
    return f"🔥{streak}" if streak >= 2 else str(streak) if streak else ""


def place_line(arena: Arena, me: str) -> str:
    """My place in words: ``You are 2nd of 4 · 3 points`` (empty when I am not in the standings)."""
    for s in arena.standings:
        if s.player == me:
            return _("You are {place} of {n} · {points}").format(
                place=ordinal(s.rank), n=len(arena.standings), points=points(s.points)
            )
    return ""


def clock_line(arena: Arena, now: int) -> str:
    """The arena's clock at server time ``now``."""
    if arena.phase == "finished" or now >= arena.ends_at:
        return _("the arena is over")

    def mmss(ms: int) -> str:
        s = max(0, ms // 1000)
        return f"{s // 60}:{s % 60:02d}"

    if now < arena.starts_at:
        return _("starts in {time}").format(time=mmss(arena.starts_at - now))
    return _("{time} left").format(time=mmss(arena.ends_at - now))


def standings_table(standings: tuple[ArenaStanding, ...], me: str) -> Table:
    table = Table(box=None, padding=(0, 1), expand=True, header_style=Style(bold=True, color="#a9d3b9"))
    table.add_column("#", justify="right")
    table.add_column(_("player"), ratio=1, no_wrap=True, overflow="ellipsis")
    for name in (_("points"), _("wins"), _("races"), _("streak")):
        table.add_column(name, justify="right")
    for s in standings:
        name = s.name + (" " + _("(you)") if s.player == me else "") + ("" if s.active else " " + _("(left)"))
        style = Style(bold=True, color="#fde047") if s.player == me else None
        table.add_row(f"{s.rank}.", name, str(s.points), str(s.wins), str(s.races), streak_text(s.streak), style=style)
    return table


def podium_lines(podium: Podium, me: str) -> list[str]:
    return [
        f"{ordinal(i + 1)}  {s.name}{' ' + _('(you)') if s.player == me else ''} · {points(s.points)} · {wins(s.wins)}"
        for i, s in enumerate(podium.podium)
    ]


class ArenaHost(Protocol):
    """What the arena screen needs of the App."""

    @property
    def connected(self) -> bool: ...

    @property
    def arena_desk(self) -> ArenaDesk: ...

    async def arena_request(self, message: Message) -> Message:
        """A request's reply (ServerError / ConnectionLost / TimeoutError)."""

    def web_link(self, path: str) -> str:
        """The full web address of a server path (``/a/CODE``), to paste in a browser."""


class ArenaDesk:
    """The arena this player is in, as the server last said; its screen while one is shown."""

    def __init__(self) -> None:
        self.arena: Arena | None = None
        self.podium: Podium | None = None
        self.me = ""
        """My player id (the session's)."""
        self.screen: ArenaScreen | None = None

    @property
    def active(self) -> bool:
        """In an arena that has not ended: its races come by themselves."""
        return self.arena is not None and self.podium is None and self.arena.phase != "finished"

    def hear(self, message: Arena | Podium) -> str:
        """An ``arena`` or ``podium`` frame; a line to tell the player (empty: nothing to say)."""
        if isinstance(message, Arena):
            if self.arena is not None and self.arena.arena != message.arena:
                self.podium = None
            self.arena = message
            said = place_line(message, self.me)
        else:
            self.podium = message
            if message.podium:
                said = _("The arena is over: {name} won it").format(name=message.podium[0].name)
            else:
                said = _("The arena is over: nobody won it")
        if self.screen is not None:
            self.screen.refresh_arena()
        return said

    def seats(self, state: RoomState, room: str | None) -> bool:
        """A ``room`` frame nobody asked for here is the arena's next race (not the room we are in)."""
        return self.active and state.room != room

    def summary(self, now: int) -> str | None:
        """The arena in a few lines (my place, its clock, the leaders), None when not in one."""
        arena = self.arena
        if arena is None:
            return None
        lines = [place_line(arena, self.me), clock_line(arena, now)]
        lines += [f"{s.rank}. {s.name} · {points(s.points)}" for s in arena.standings[:5]]
        return "\n".join(line for line in lines if line)

    def leave(self) -> None:
        self.arena, self.podium = None, None
        if self.screen is not None:
            self.screen.refresh_arena()


class ArenaScreen(LocalScreen[None]):
    """Join or open an arena; then its standings, clock and podium. Escape: the lobby."""

    CSS_PATH = Path(__file__).with_name("arena.tcss")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", NP_("footer", "Lobby")),
        Binding("ctrl+l", "leave", NP_("footer", "Leave the arena")),
    ]

    def __init__(self, code: str | None = None) -> None:
        """``code``: an arena to join at once (a link typed into the lobby's Join field)."""
        super().__init__()
        self._clock: Timer | None = None
        self.busy = False
        self.code = code

    @property
    def host(self) -> ArenaHost:
        return cast(ArenaHost, self.app)

    @property
    def desk(self) -> ArenaDesk:
        return self.host.arena_desk

    def compose(self) -> ComposeResult:
        yield Static(
            "♠ ♥  " + _("Arena · race after race against the players nearest you") + "  ♦ ♣", id="arena-banner"
        )
        yield Static("", id="arena-status")
        with Vertical(id="arena-form", classes="box") as form:
            form.border_title = _("Join or open an arena")
            with Horizontal(classes="row"):
                yield Input(placeholder=_("arena code"), id="arena-code", max_length=12, compact=True)
                yield Button(_("Join arena"), id="arena-join", variant="success", compact=True)
            with Horizontal(classes="row"):
                yield Label(_("Rules"), classes="label")
                yield preset_select("arena-preset")
                yield Select(
                    [(minutes(m), m) for m in MINUTE_CHOICES],
                    value=30,
                    allow_blank=False,
                    id="arena-minutes",
                    compact=True,
                )
                yield Button(_("New arena"), id="arena-create", variant="warning", compact=True)
        with Vertical(id="arena-box", classes="box") as box:
            box.border_title = _("Standings")
            yield Static("", id="arena-info")
            yield Static("", id="arena-podium")
            yield Static("", id="arena-standings")
            with Horizontal(classes="row"):
                yield Button(_("Leave the arena"), id="arena-leave", compact=True)
        yield KeysFooter()

    def on_mount(self) -> None:
        self.desk.screen = self
        self._clock = self.set_interval(1.0, self._tick)
        self.refresh_arena()
        if self.desk.arena is None:
            self.query_one("#arena-code", Input).focus()
        if self.desk.arena is None and self.code is not None:
            self.query_one("#arena-code", Input).value = self.code
            self._join()

    def on_unmount(self) -> None:
        if self.desk.screen is self:
            self.desk.screen = None

    # -- what it shows -------------------------------------------------------------------------

    def say(self, text: str, kind: str = "info") -> None:
        status = self.query_one("#arena-status", Static)
        status.update(Content(text))
        status.set_class(kind == "error", "error")

    @property
    def status_text(self) -> str:
        return str(self.query_one("#arena-status", Static).content)

    def refresh_arena(self) -> None:
        """Show the arena as the desk has it (or the form, in none)."""
        arena, podium, me = self.desk.arena, self.desk.podium, self.desk.me
        self.query_one("#arena-form").display = arena is None
        self.query_one("#arena-box").display = arena is not None
        if arena is None:
            return
        self.query_one("#arena-box").border_title = _("Arena {code} · {rules}").format(
            code=arena.arena, rules=preset_title(arena.preset)
        )
        self._tick()
        self.query_one("#arena-podium", Static).update(
            Content(_("Podium") + "\n" + "\n".join(podium_lines(podium, me)) + "\n")
            if podium is not None
            else Content("")
        )
        self.query_one("#arena-standings", Static).update(standings_table(arena.standings, me))
        self.query_one("#arena-leave", Button).label = _("Close") if not self.desk.active else _("Leave the arena")

    def _tick(self) -> None:
        arena = self.desk.arena
        if arena is None:
            return
        lines = [
            _("code {code} · link {link} · {clock}").format(
                code=arena.arena, link=self.host.web_link(arena.link_path), clock=clock_line(arena, now_ms())
            ),
            place_line(arena, self.desk.me),
        ]
        if self.desk.active and arena.phase == "running":
            lines.append(_("The server seats you in the next race as soon as another player is free."))
        self.query_one("#arena-info", Static).update(Content("\n".join(lines)))

    @property
    def standings_text(self) -> str:
        """The standings as plain text (for tests and screen readers' logs)."""
        arena = self.desk.arena
        if arena is None:
            return ""
        return "\n".join(
            f"{s.rank}. {s.name}{' ' + _('(you)') if s.player == self.desk.me else ''} {s.points} {s.wins} {s.races} "
            f"{streak_text(s.streak)}".rstrip()
            for s in arena.standings
        )

    @property
    def podium_text(self) -> str:
        return str(self.query_one("#arena-podium", Static).content)

    # -- actions --------------------------------------------------------------------------------

    @on(Button.Pressed, "#arena-join")
    @on(Input.Submitted, "#arena-code")
    def _join(self) -> None:
        code = "".join(self.query_one("#arena-code", Input).value.split()).upper()
        if not 4 <= len(code) <= 12 or not code.isalnum():
            self.say(_("Type the arena's code (letters and digits, as your friend sent it)"), "error")
            return
        self._ask(JoinArena(arena=code), _("Joining arena {code}…").format(code=code))

    @on(Button.Pressed, "#arena-create")
    def _create(self) -> None:
        preset = str(self.query_one("#arena-preset", Select).value)
        minutes = cast(int, self.query_one("#arena-minutes", Select).value)
        self._ask(CreateArena(preset=preset, minutes=minutes), _("Opening an arena…"))

    @on(Button.Pressed, "#arena-leave")
    def _leave_pressed(self) -> None:
        self.action_leave()

    def action_leave(self) -> None:
        arena = self.desk.arena
        if arena is None:
            return
        if not self.desk.active:
            self.desk.leave()
            return
        self._ask(LeaveArena(arena=arena.arena), _("Leaving the arena…"), leaving=True)

    def action_back(self) -> None:
        self.dismiss(None)

    def _ask(self, message: Message, doing: str, *, leaving: bool = False) -> None:
        if not self.host.connected:
            self.say(_("Not connected: connect in the lobby first"), "error")
            return
        if self.busy:
            return
        self.say(doing)
        self.run_worker(self._do_ask(message, leaving), group="arena", exclusive=True, exit_on_error=False)

    async def _do_ask(self, message: Message, leaving: bool) -> None:
        self.busy = True
        try:
            reply = await self.host.arena_request(message)
        except ServerError as error:
            self.say(_("Refused: {reason}").format(reason=error_text(error.code, error.message)), "error")
            return
        except (ConnectionLost, TimeoutError):
            self.say(_("The server did not answer: try again"), "error")
            return
        finally:
            self.busy = False
        if leaving:
            self.desk.leave()
            self.say(_("You left the arena: your points stay in its standings"))
        elif isinstance(reply, Arena):
            self.desk.hear(reply)
            self.say(_("In arena {code}: share its code. The races start by themselves.").format(code=reply.arena))
