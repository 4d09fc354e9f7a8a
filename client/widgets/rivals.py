"""Race widgets fed plain data: the rivals panel, the race clock and the countdown.

None of them knows about the network: the race layer turns server messages into
``RacerView`` values and calls ``RivalsPanel.update_racers``, ``RaceClock.start``/``stop``
and ``Countdown.set_seconds``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Digits, Label

from i18n import _
from i18n.formats import decimal_mark
from protocol.enums import Status

from ..text.words import hints, moves, status_word


@dataclass(frozen=True, slots=True)
class RacerView:
    """One racer as the panel shows them."""

    name: str
    progress: int = 0
    """Cards on the foundations, 0 to 52."""
    moves: int = 0
    status: Status | str = Status.RACING
    time_ms: int | None = None
    """Finishing time, for a finished racer."""
    connected: bool = True
    you: bool = False
    watched: bool = False
    """The racer whose board a spectator is looking at."""
    bot: bool = False
    """A bot racer played by the server."""
    hints: int = 0
    """Hints the server gave this racer this race."""
    ghost: bool = False
    """A ghost: a recorded run the server plays again (a challenge)."""
    rating: str = ""
    """The rating shown beside the name (client/text/rating_text.py; empty: none known)."""
    safe: int = 0
    """Cards that could go home safely now, on a board this client holds (0: none, or not known)."""


DID_NOT_FINISH: Final = "did not finish"
"""A racer still racing when the race ended (time up, or the others done): what every screen
says after the race, never "racing"."""


def format_ms(ms: int | None) -> str:
    """``m:ss.t`` (``h:mm:ss`` past an hour), the tenths after the locale's decimal mark (``1:05,3``
    in French, Italian and Dutch); an em dash for no time."""
    if ms is None:
        return "—"
    ms = max(0, int(ms))
    tenths = ms // 100
    minutes, seconds = divmod(tenths // 10, 60)
    if minutes >= 60:
        hours, minutes = divmod(minutes, 60)
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}{decimal_mark()}{tenths % 10}"


_STATUS_STYLE = {
    Status.WAITING: Style(color="#9ca3af"),
    Status.READY: Style(color="#a3e635"),
    Status.RACING: Style(color="#38bdf8"),
    Status.FINISHED: Style(color="#4ade80", bold=True),
    Status.STUCK: Style(color="#facc15"),
    Status.RESIGNED: Style(color="#9ca3af"),
    Status.FORFEIT: Style(color="#9ca3af"),
}
_BAR_COLOUR: dict[str, str] = {
    Status.RACING: "#38bdf8",
    Status.FINISHED: "#4ade80",
    Status.STUCK: "#facc15",
}
WATCHED_COLOUR = "#67e8f9"
_DISCONNECTED = Style(color="#f87171", bold=True)
_EIGHTHS = " ▏▎▍▌▋▊▉"


def status_text(racer: RacerView) -> tuple[str, Style]:
    """What the panel says about a racer's state, and in which style."""
    try:
        status = Status(racer.status)
    except ValueError:  # not the protocol's: "did not finish", said in the player's language too
        return status_word(str(racer.status)), Style(color="#9ca3af")
    if not racer.connected and status not in (Status.FINISHED, Status.RESIGNED, Status.FORFEIT):
        return _("disconnected"), _DISCONNECTED
    if status is Status.FINISHED:
        return _("finished {time}").format(time=format_ms(racer.time_ms)), _STATUS_STYLE[status]
    if status is Status.READY:
        return _("ready ✓"), _STATUS_STYLE[status]
    return status_word(status.value), _STATUS_STYLE[status]


def progress_bar(progress: int, width: int, colour: str) -> Text:
    """A bar of ``width`` cells filled in eighths for progress out of 52."""
    width = max(1, width)
    eighths = round(max(0, min(52, progress)) * width * 8 / 52)
    full, part = divmod(eighths, 8)
    bar = Text()
    bar.append("█" * full, Style(color=colour, bgcolor="#1f2937"))
    if full < width:
        bar.append(_EIGHTHS[part], Style(color=colour, bgcolor="#1f2937"))
        bar.append(" " * (width - full - 1), Style(bgcolor="#1f2937"))
    return bar


class RivalsPanel(Widget):
    """Every racer: name, a progress bar out of 52, moves and status."""

    DEFAULT_CSS = """
    RivalsPanel {
        width: 26;
        height: 1fr;
        padding: 0 1;
        background: $panel;
    }
    """

    def __init__(self, racers: Sequence[RacerView] = (), *, title: str | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.racers: tuple[RacerView, ...] = tuple(racers)
        self.title = _("Racers") if title is None else title

    def update_racers(self, racers: Sequence[RacerView], title: str | None = None) -> None:
        """Show these racers, in this order (the race layer sorts them)."""
        self.racers = tuple(racers)
        if title is not None:
            self.title = title
        self.refresh()

    def render(self) -> Text:
        width = max(10, self.size.width)
        out = Text(no_wrap=True, overflow="crop", end="")
        first, *more = self.title.split("\n")
        out.append(first[:width], Style(bold=True))
        for line in more:  # the spectators, the deal: a line each (together they ran past the panel)
            out.append("\n" + line[:width], Style(color="#a9d3b9"))
        if not self.racers:
            out.append("\n\n" + _("no racers yet"), Style(color="#9ca3af", italic=True))
            return out
        # Four lines a racer with a blank between them; three without; two when cramped.
        n = len(self.racers)
        head = 1 + len(more)
        height = self.size.height or head + 4 * n
        lines = 4 if head + 4 * n <= height else 3 if head + 3 * n <= height else 2
        for racer in self.racers:
            out.append("\n\n" if lines == 4 else "\n")
            text, style = status_text(racer)
            if lines == 2:
                name = _name(racer, width - len(text) - 1)
                out.append_text(name)
                out.append(" " * max(1, width - len(name) - len(text)))
                out.append(text, style)
            else:
                out.append_text(_name(racer, width))
            out.append("\n")
            count = f" {racer.progress:>2}/52"
            if racer.safe:
                # Said as such ("+3 safe") where the bar keeps some room; a bare "+3" otherwise.
                said = " " + _("+{n} safe").format(n=racer.safe)
                count += said if len(count + said) <= width // 2 + 2 else f" +{racer.safe}"
            out.append_text(progress_bar(racer.progress, width - len(count), _bar_colour(racer)))
            out.append(count)
            if lines > 2:
                out.append("\n")
                hinted = " · " + hints(racer.hints) if racer.hints else ""
                # Cut words, never letters that read as units ("16m 1h" looked like a time).
                said = _fit(
                    width - len(text) - 3,
                    moves(racer.moves) + hinted,
                    moves(racer.moves),
                    _("{n} mv").format(n=racer.moves),
                    "",
                )
                if said:
                    out.append(f"{said} · ", Style(color="#d1d5db"))
                out.append(text[:width], style)
        return out


def _name(racer: RacerView, width: int) -> Text:
    """The racer's name (``▶ name (you)`` for the player, ``» name (watching)`` for the racer
    a spectator watches), cut to ``width``."""
    if racer.you:
        mark, note, colour = "▶ ", " " + _("(you)"), "#fde047"
    elif racer.watched:
        mark, note, colour = "» ", " " + _("(watching)"), WATCHED_COLOUR
    else:
        mark, note, colour = "", "", None
    if (racer.bot or racer.ghost) and not says_what(racer.name, bot=racer.bot):
        note = " " + (_("(bot)") if racer.bot else _("(ghost)")) + note
    if racer.rating:
        note += f" {racer.rating}"
    if len(racer.name) + len(mark) + len(note) > width:
        note = ""
    text = Text(mark + racer.name[: max(1, width - 2 - len(note))])
    text.stylize(Style(bold=True, color=colour))
    text.append(note, Style(color="#9ca3af"))
    return text


def says_what(name: str, *, bot: bool) -> bool:
    """The name already says it is a bot ("Computer (brisk)") or a ghost: no mark to add."""
    marks = (_("computer"), _("bot"), "computer", "bot") if bot else (_("ghost"), "ghost")
    return any(mark.lower() in name.lower() for mark in marks)


def _fit(width: int, *choices: str) -> str:
    """The first choice at most ``width`` long (the last one otherwise)."""
    for choice in choices:
        if len(choice) <= width:
            return choice
    return choices[-1]


def _bar_colour(racer: RacerView) -> str:
    grey = "#6b7280"
    if not racer.connected:
        return grey
    return _BAR_COLOUR.get(racer.status, grey)  # a StrEnum key matches its text: an unknown status is grey


class RaceClock(Widget):
    """The race clock: counts up from ``start``; shows the time left under a limit."""

    DEFAULT_CSS = """
    RaceClock {
        width: auto;
        height: 1;
        padding: 0 1;
        text-style: bold;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._origin: float | None = None
        self._frozen_ms = 0
        self.limit_ms: int | None = None
        self._timer: Timer | None = None

    @property
    def running(self) -> bool:
        return self._origin is not None

    @property
    def elapsed_ms(self) -> int:
        if self._origin is None:
            return self._frozen_ms
        return int((time.monotonic() - self._origin) * 1000)

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.1, self._tick, pause=not self.running)

    def _tick(self) -> None:
        self.refresh(layout=True)

    def start(self, elapsed_ms: int = 0, limit_ms: int | None = None) -> None:
        """Run from ``elapsed_ms`` (the server's race time when this is called)."""
        self._origin = time.monotonic() - elapsed_ms / 1000
        self.limit_ms = limit_ms
        if self._timer is not None:
            self._timer.resume()
        self.refresh(layout=True)

    def stop(self, final_ms: int | None = None) -> None:
        """Stop, showing ``final_ms`` (or the time reached)."""
        self._frozen_ms = self.elapsed_ms if final_ms is None else final_ms
        self._origin = None
        if self._timer is not None:
            self._timer.pause()
        self.refresh(layout=True)

    def reset(self) -> None:
        self._origin = None
        self._frozen_ms = 0
        self.limit_ms = None
        if self._timer is not None:
            self._timer.pause()
        self.refresh(layout=True)

    def render(self) -> Text:
        elapsed = self.elapsed_ms
        text = Text(format_ms(elapsed))
        if self.limit_ms is not None:
            left = max(0, self.limit_ms - elapsed)
            style = Style(color="#f87171" if left < 30_000 else "#d1d5db", bold=False)
            shown = format_ms(left)[:-2] if left >= 60_000 else format_ms(left)
            text.append(" · " + _("{time} left").format(time=shown), style)
        return text


class Countdown(Vertical):
    """The big countdown before a race starts."""

    DEFAULT_CSS = """
    Countdown {
        align: center middle;
        width: 1fr;
        height: 1fr;
        background: #0d5c36;
    }
    Countdown Label {
        width: 100%;
        text-align: center;
        color: #d1fae5;
        text-style: bold;
    }
    Countdown Digits {
        width: 100%;
        text-align: center;
        color: #fde047;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.seconds: int | None = None
        self.label = Label(_("The race starts in"), id="countdown-label")
        self.digits = Digits("", id="countdown-digits")

    def compose(self) -> ComposeResult:
        yield self.label
        yield self.digits

    def set_seconds(self, seconds: int | None, label: str | None = None) -> None:
        self.seconds = seconds
        self.label.update(_("The race starts in") if label is None else label)
        self.digits.update("" if seconds is None else str(seconds))
