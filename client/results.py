"""The results view: standings with times, and the rematch / back-to-lobby choice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from rich.style import Style
from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from .rivals import RacerStatus, format_ms

REMATCH: Final = "rematch"
LOBBY: Final = "lobby"


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One line of the standings (the protocol's Standing, as plain data)."""

    place: int
    name: str
    status: RacerStatus | str
    progress: int
    moves: int
    time_ms: int | None = None
    you: bool = False


def standings_table(rows: Sequence[ResultRow]) -> Table:
    table = Table(box=None, padding=(0, 1), expand=True, header_style=Style(bold=True, color="#a9d3b9"))
    table.add_column("#", justify="right")
    table.add_column("racer", ratio=1, no_wrap=True, overflow="ellipsis")
    table.add_column("home", justify="right")
    table.add_column("moves", justify="right")
    table.add_column("time", justify="right")
    table.add_column("")
    for row in rows:
        style = Style(bold=True, color="#fde047") if row.you else None
        status = str(row.status)
        note = "" if status == RacerStatus.FINISHED else status
        table.add_row(
            f"{row.place}.",
            row.name + (" (you)" if row.you else ""),
            f"{row.progress}/52",
            str(row.moves),
            format_ms(row.time_ms),
            note,
            style=style,
        )
    return table


class ResultsScreen(ModalScreen[str]):
    """Standings over the race screen; dismisses with ``"rematch"`` or ``"lobby"``."""

    DEFAULT_CSS = """
    ResultsScreen {
        align: center middle;
        background: $background 60%;
    }
    ResultsScreen > Vertical {
        width: 64;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: round #fde047;
        border-title-color: #fde047;
        background: $surface;
        padding: 0 2;
    }
    ResultsScreen #standings {
        width: 100%;
    }
    ResultsScreen #headline {
        width: 100%;
        text-style: bold;
        content-align: center middle;
        margin-bottom: 1;
    }
    ResultsScreen #buttons {
        width: 100%;
        height: auto;
        align: center middle;
        margin-top: 1;
    }
    ResultsScreen Button {
        margin: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "choose('rematch')", "Rematch"),
        Binding("l", "choose('lobby')", "Lobby"),
        Binding("escape", "choose('lobby')", "Lobby", show=False),
    ]

    def __init__(self, rows: Sequence[ResultRow], headline: str = "Race over") -> None:
        super().__init__()
        self.rows = tuple(rows)
        self.headline = headline

    def compose(self) -> ComposeResult:
        with Vertical(id="results") as box:
            box.border_title = "Results"
            yield Label(self.headline, id="headline")
            yield Static(standings_table(self.rows), id="standings")
            with Horizontal(id="buttons"):
                yield Button("Rematch (r)", id=REMATCH, variant="success")
                yield Button("Back to lobby (l)", id=LOBBY, variant="primary")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id or LOBBY)

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
