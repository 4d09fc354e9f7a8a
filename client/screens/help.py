"""The key table (one source for the help overlay and the docs) and the help overlay."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Final

from rich.console import Console, Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from i18n import N_, NP_, _
from i18n.rules_help import preset_title, rules_help
from seahaven import Rules

from .localized import LocalModalScreen

KEYS: Final[tuple[tuple[str, tuple[tuple[str, str], ...]], ...]] = (
    (
        N_("Pick a place: one key for the source, one for the destination"),
        (
            ("1-9, 0", N_("columns 1 to 10 (0 is the tenth)")),
            ("a-h", N_("free cells (as many as the rules have)")),
            # TRANSLATORS: key names: the keys themselves stay (#, ., space, enter, s...), their words translate
            (N_("# or ."), N_("the foundations (a source only where the rules allow take-backs; again: next suit)")),
        ),
    ),
    (
        N_("With a card selected"),
        (
            (
                N_("space, enter, s"),
                N_(
                    "smart move: a foundation, else the longest column that takes it, else an empty column, else a cell"
                ),
            ),
            (N_("the same key"), N_("smart move too (like a double click)")),
            (N_("up / down"), N_("pick up one card more / fewer from a column's run")),
            (N_("escape"), N_("drop the selection")),
        ),
    ),
    (
        N_("Game"),
        (
            ("u", N_("undo the last move (when the race allows it)")),
            ("H", N_("hint: a move from a winning line (solo; races whose room allows it: counted)")),
            ("A", N_("auto-move on / off: safe cards go home by themselves, and the game finishes itself")),
            ("C", N_("card colours: red and black, four colours, four colour-blind-safe colours (kept)")),
            ("?", N_("this help")),
            ("n / r", N_("solo: a new deal / restart it (press twice mid-game)")),
            ("R", N_("race: resign (press twice)")),
            ("r", N_("room: ready / not ready; after a race: ask for a rematch")),
            ("l", N_("room: leave (press twice during a race: leaving resigns)")),
            ("[ / ]", N_("spectating: the previous / next racer's board (also shift+tab / tab)")),
            (N_("q / ctrl+q"), N_("quit (solo / race)")),
        ),
    ),
    (
        N_("Mouse"),
        (
            (N_("click"), N_("a card or a slot: the source, then the destination")),
            (N_("click a deep card"), N_("pick up the run from that card down")),
            (N_("double click"), N_("smart move")),
            (N_("drag and drop"), N_("press on a card (a deep card: the run from it), let go on where it goes")),
            (N_("click the table"), N_("drop the selection")),
        ),
    ),
)


def rules_rows(rules: Rules) -> tuple[tuple[str, str], ...]:
    """The preset's rules in words, as (topic, rule) rows for the help, in the language in use
    (the ``rules`` catalog: i18n/rules_help.py)."""
    return rules_help(rules.name)


def translated(
    sections: Sequence[tuple[str, tuple[tuple[str, str], ...]]],
) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """The key table in the language in use (key names such as ``escape`` stay as the keyboard has them)."""
    return [(_(heading), tuple((_(key), _(what)) for key, what in rows)) for heading, rows in sections]


def help_renderable(rules: Rules | None = None, *, spectator_delay_s: int | None = None) -> Group:
    """The key table and the rules of ``rules`` (if given), as Rich renderables: a heading and a
    two-column grid per section. The keys come first: mid-game they are what a player looks up,
    and the rules, written out in full per preset, would push them off a small terminal."""
    sections = translated(KEYS)
    if rules is not None:
        sections.append((_("Rules: {title}").format(title=preset_title(rules.title)), rules_rows(rules)))
    if spectator_delay_s:
        late = _("you see the racers' moves {n} s late").format(n=spectator_delay_s)
        sections.insert(0, (_("Spectating"), ((_("delay"), late),)))
    parts: list[RenderableType] = []
    for n, (heading, rows) in enumerate(sections):
        parts.append(Text(("\n" if n else "") + heading, style=Style(bold=True, color="#a9d3b9")))
        table = Table.grid(padding=(0, 2))
        table.add_column(style=Style(bold=True, color="#fde047"), no_wrap=True, min_width=16)
        table.add_column()
        for key, what in rows:
            table.add_row(key, what)
        parts.append(table)
    return Group(*parts)


class HelpScreen(LocalModalScreen[None]):
    """Every key, over the game. Escape, ? or q closes it."""

    CSS_PATH = Path(__file__).with_name("help.tcss")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", NP_("footer", "Close")),
        Binding("question_mark", "close", NP_("footer", "Close"), show=False),
        Binding("q", "close", NP_("footer", "Close"), show=False),
    ]

    def __init__(self, rules: Rules | None = None, *, spectator_delay_s: int | None = None) -> None:
        super().__init__()
        self.rules = rules
        self.spectator_delay_s = spectator_delay_s

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = _("Rules and keys") if self.rules is not None else _("Keys")
            yield Static(help_renderable(self.rules, spectator_delay_s=self.spectator_delay_s), id="help-table")

    @property
    def text(self) -> str:
        """Everything the overlay says, scrolled or not (for tests and screen readers' logs)."""
        return plain_text(help_renderable(self.rules, spectator_delay_s=self.spectator_delay_s))

    def action_close(self) -> None:
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)


def plain_text(renderable: Group, width: int = 100) -> str:
    """Rich renderables as plain lines."""
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()
