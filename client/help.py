"""The key table (one source for the help overlay and the docs) and the help overlay."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Final

from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from seahaven import Build, Capacity, EmptyColumn, Rules

KEYS: Final[tuple[tuple[str, tuple[tuple[str, str], ...]], ...]] = (
    (
        "Pick a place: one key for the source, one for the destination",
        (
            ("1-9, 0", "columns 1 to 10 (0 is the tenth)"),
            ("a-h", "free cells (as many as the rules have)"),
            ("# or .", "the foundations (a source only where the rules allow take-backs; again: next suit)"),
        ),
    ),
    (
        "With a card selected",
        (
            (
                "space, enter, s",
                "smart move: a foundation, else the longest column that takes it, else an empty column, else a cell",
            ),
            ("the same key", "smart move too (like a double click)"),
            ("up / down", "pick up one card more / fewer from a column's run"),
            ("escape", "drop the selection"),
        ),
    ),
    (
        "Game",
        (
            ("u", "undo the last move (when the race allows it)"),
            ("H", "hint: a move from a winning line (solo; races whose room allows it: counted)"),
            ("A", "auto-move on / off: safe cards go home by themselves, and the game finishes itself"),
            ("C", "card colours: red and black, four colours, four colour-blind-safe colours (kept)"),
            ("?", "this help"),
            ("n / r", "solo: a new deal / restart it (press twice mid-game)"),
            ("R", "race: resign (press twice)"),
            ("r", "room: ready / not ready; after a race: ask for a rematch"),
            ("l", "room: leave (press twice during a race: leaving resigns)"),
            ("[ / ]", "spectating: the previous / next racer's board (also shift+tab / tab)"),
            ("q / ctrl+q", "quit (solo / race)"),
        ),
    ),
    (
        "Mouse",
        (
            ("click", "a card or a slot: the source, then the destination"),
            ("click a deep card", "pick up the run from that card down"),
            ("double click", "smart move"),
            ("drag and drop", "press on a card (a deep card: the run from it), let go on where it goes"),
            ("click the table", "drop the selection"),
        ),
    ),
)


def rules_rows(rules: Rules) -> tuple[tuple[str, str], ...]:
    """The preset's rules in words, as (topic, rule) rows for the help."""
    build = "down by suit (7♥ on 8♥ only)" if rules.build is Build.SUIT else "down in alternating colours (7♥ on 8♠)"
    empty = (
        "only a King, or a run headed by a King"
        if rules.empty_column is EmptyColumn.KING and not rules.beak
        else "only the rank below the beak card, or a run headed by it"
        if rules.empty_column is EmptyColumn.KING
        else "any card or run"
    )
    run = {
        Capacity.SEQUENTIAL: "as many cards as the free cells and usable empty columns could carry one by one",
        Capacity.APP: "(free cells + 1) × 2 per empty column (the destination not counted)",
        Capacity.UNLIMITED: "any length",
    }[rules.capacity]
    home = "cards may come back from a foundation" if rules.foundation_takeback else "cards stay on a foundation"
    return (
        ("goal", "all 52 cards home, built up by suit from the Ace"),
        ("columns", f"{rules.columns}, built {build}"),
        ("empty column", empty),
        ("cells", f"{rules.cells}, one card each"),
        ("runs", f"a run of the right suit and order moves as one: {run}"),
        ("foundations", home),
    )


def help_renderable(rules: Rules | None = None, *, spectator_delay_s: int | None = None) -> Group:
    """The rules of ``rules`` (if given) and the key table, as Rich renderables: a heading and a
    two-column grid per section."""
    sections = list(KEYS)
    if rules is not None:
        sections.insert(0, (f"Rules: {rules.title}", rules_rows(rules)))
    if spectator_delay_s:
        sections.insert(0, ("Spectating", (("delay", f"you see the racers' moves {spectator_delay_s} s late"),)))
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


class HelpScreen(ModalScreen[None]):
    """Every key, over the game. Escape, ? or q closes it."""

    CSS_PATH = Path(__file__).with_name("help.tcss")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, rules: Rules | None = None, *, spectator_delay_s: int | None = None) -> None:
        super().__init__()
        self.rules = rules
        self.spectator_delay_s = spectator_delay_s

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body") as body:
            body.border_title = "Rules and keys" if self.rules is not None else "Keys"
            yield Static(help_renderable(self.rules, spectator_delay_s=self.spectator_delay_s), id="help-table")

    def action_close(self) -> None:
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)
