"""The results view: standings with times, and the rematch / race again / review / challenge /
back-to-lobby choice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Final

from rich.style import Style
from rich.table import Table
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Label, Static

from i18n import NP_, _
from protocol.enums import Status

from ..text.words import hints, status_word, undos
from ..widgets.keys_footer import KeysFooter
from ..widgets.rivals import format_ms, says_what
from .localized import LocalModalScreen

REMATCH: Final = "rematch"
LOBBY: Final = "lobby"
REVIEW: Final = "review"
CHALLENGE: Final = "challenge"
RACE_AGAIN: Final = "again"
"""A new room and deal, the people just raced invited (``race_again``): unlike the rematch, nobody waited for."""
BOARD: Final = "board"
"""Escape: the results close over the final board; leaving the room is always asked for by name."""
NAME_ROOM: Final = 20
"""The columns a racer's name keeps in the standings however narrow the box (longer ones are cut)."""
TIGHT: Final = 72
"""Below this many columns the results show no buttons (their keys stay in the footer)."""


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One line of the standings (the protocol's Standing, as plain data)."""

    place: int
    name: str
    status: Status | str
    progress: int
    moves: int
    """Moves on the board at the end: an undo takes one back (``Standing.moves - 2 * undos``)."""
    time_ms: int | None = None
    you: bool = False
    bot: bool = False
    hints: int = 0
    """Hints the server gave this racer."""
    ghost: bool = False
    rating: str = ""
    """The rating shown beside the name (client/text/rating_text.py)."""
    undos: int = 0
    """The racer's own undos, said beside the status (as the browser says them under the moves)."""


def standings_table(rows: Sequence[ResultRow]) -> Table:
    names = [
        row.name
        + (" " + _("(you)") if row.you else "")
        + (" " + _("(bot)") if row.bot and not says_what(row.name, bot=True) else "")
        + (" " + _("(ghost)") if row.ghost and not says_what(row.name, bot=False) else "")
        + (f" {row.rating}" if row.rating else "")
        for row in rows
    ]
    table = Table(box=None, padding=(0, 1), expand=True, header_style=Style(bold=True, color="#a9d3b9"))
    table.add_column("#", justify="right")
    # Where the box is narrow (60 columns) the note wraps to a second line before a name is cut.
    widest = max((len(name) for name in names), default=0)
    table.add_column(_("racer"), no_wrap=True, overflow="ellipsis", min_width=min(widest, NAME_ROOM))
    table.add_column(_("home"), justify="right")
    table.add_column(_("moves"), justify="right")
    table.add_column(_("time"), justify="right")
    table.add_column("")
    for row, name in zip(rows, names, strict=True):
        style = Style(bold=True, color="#fde047") if row.you else None
        status = str(row.status)
        note = "" if status == Status.FINISHED else status_word(status)
        if row.hints or row.undos:
            said = (hints(row.hints) if row.hints else "", undos(row.undos) if row.undos else "")
            note = " · ".join(filter(None, (note, *said)))
        table.add_row(
            f"{row.place}.", name, f"{row.progress}/52", str(row.moves), format_ms(row.time_ms), note, style=style
        )
    return table


class ResultsScreen(LocalModalScreen[str]):
    """Standings over the race screen; dismisses with ``"rematch"`` or ``"lobby"``."""

    CSS_PATH = Path(__file__).with_name("results.tcss")
    # Narrow: the box covers the racers panel, so the screen behind is hidden, not half shown.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012 (Textual declares it so)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('rematch')", NP_("footer", "Rematch")),
        Binding("v", "choose('review')", NP_("footer", "Review")),
        Binding("c", "choose('challenge')", NP_("footer", "Challenge")),
        Binding("g", "choose('again')", NP_("footer", "Race again")),
        Binding("g", "no_again", NP_("footer", "Race again"), show=False),
        Binding("l", "choose('lobby')", NP_("footer", "Lobby")),
        Binding("escape", "choose('board')", NP_("footer", "Board"), show=False),
    ]

    def __init__(
        self,
        rows: Sequence[ResultRow],
        headline: str | None = None,
        *,
        can_rematch: bool = True,
        can_review: bool = False,
        can_challenge: bool = False,
        note: str = "",
        deal: str | None = None,
        again: str = "",
        no_again: str = "",
    ) -> None:
        """``can_rematch``: a racer's results (spectators do not vote); ``can_review``: every
        racer's moves are known; ``can_challenge``: the race is on record, so a friend may race
        this run (a ghost challenge); ``note``: a line under the standings; ``deal``: the race's deal
        code, written under the box as the room and the lobby's daily box write it; ``again``: g
        races again (``race_again``), and this line under the standings says with whom (empty: g is
        not offered); ``no_again``: why not, said when g is pressed all the same (empty: nothing)."""
        super().__init__()
        self.rows = tuple(rows)
        self.headline = _("Race over") if headline is None else headline
        self.can_rematch = can_rematch
        self.can_review = can_review
        self.can_challenge = can_challenge
        self.note = note
        self.deal = deal
        self.again = again
        self.no_again = no_again

    def compose(self) -> ComposeResult:
        with Vertical(id="results") as box:
            box.border_title = _("Results")
            if self.deal:
                box.border_subtitle = _("deal {code}").format(code=self.deal)
            yield Label(self.headline, id="headline")
            yield Static(standings_table(self.rows), id="standings")
            if self.note:
                yield Label(self.note, id="note")
            again = Label(Content(self.again), id="again")  # names: plain text, not markup
            again.display = bool(self.again)
            yield again
            with Horizontal(id="buttons"):
                if self.can_rematch:
                    yield Button(_("Rematch (r)"), id=REMATCH, variant="success", compact=True)
                if self.can_review:
                    yield Button(_("Review (v)"), id=REVIEW, compact=True)
                if self.can_challenge:
                    yield Button(_("Challenge (c)"), id=CHALLENGE, compact=True)
                yield Button(_("Back to lobby (l)"), id=LOBBY, variant="primary", compact=True)
        yield KeysFooter()  # this view's keys, over the race screen's

    def show_rows(self, rows: Sequence[ResultRow]) -> None:
        """The standings again, in place: what came after the view opened (the ratings a rated
        race's ``rating`` message brings, a moment after its result)."""
        self.rows = tuple(rows)
        for standings in self.query("#standings").results(Static):  # none yet: compose draws these rows
            standings.update(standings_table(self.rows))

    def on_resize(self, event: events.Resize) -> None:
        # Below 72 columns (60x20) the buttons would run past the box: the footer has the same keys.
        self.set_class(event.size.width < TIGHT, "-tight")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or LOBBY)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "choose" and parameters == (REMATCH,):
            return self.can_rematch
        if action == "choose" and parameters == (REVIEW,):
            return self.can_review
        if action == "choose" and parameters == (CHALLENGE,):
            return self.can_challenge
        if action == "choose" and parameters == (RACE_AGAIN,):
            return bool(self.again)
        if action == "no_again":
            return not self.again and bool(self.no_again)
        return True

    @property
    def again_text(self) -> str:
        """The line on racing again: with whom, or why not (after g)."""
        return str(self.query_one("#again", Label).content)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)

    def action_no_again(self) -> None:
        """g where racing again is not offered: why, under the standings."""
        label = self.query_one("#again", Label)
        label.update(Content(self.no_again))
        label.add_class("refused")
        label.display = True
