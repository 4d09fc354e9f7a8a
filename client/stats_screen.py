"""The statistics screen: per preset solo games, wins, win %, streaks and best times, race
results, and the race history, whose deals can be replayed in solo (Enter on a race)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label

from protocol.enums import Status
from seahaven import PRESETS

from .rivals import DID_NOT_FINISH, format_ms
from .stats import RaceRecord, Stats


def _percent(value: int | None) -> str:
    return "—" if value is None else f"{value}%"


def race_result(race: RaceRecord) -> str:
    """A race's outcome for the history: finished, or how far a racer got who did not finish
    (older files say "racing" for them)."""
    if race.status in (Status.RACING, DID_NOT_FINISH):
        return f"{DID_NOT_FINISH} {race.progress}/52"
    return race.status


class StatsScreen(Screen[str | None]):
    """Dismisses with the deal code of the race to replay, or None."""

    CSS_PATH = Path(__file__).with_name("stats_screen.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("q", "close", "Back", show=False),
    ]

    def __init__(self, stats: Stats) -> None:
        super().__init__()
        self.stats = stats

    def compose(self) -> ComposeResult:
        with Vertical(id="stats-body"):
            yield Label("Solo games", id="stats-title")
            yield DataTable(id="presets", cursor_type="none", zebra_stripes=True)
            yield Label("Races", id="race-stats-title")
            yield DataTable(id="race-stats", cursor_type="none", zebra_stripes=True)
            yield Label("Races (Enter: play the deal again in solo)", id="races-title")
            yield DataTable(id="races", cursor_type="row", zebra_stripes=True)
            yield Label("no races yet", id="no-races")
        yield Footer()

    def on_mount(self) -> None:
        presets: DataTable[str] = self.query_one("#presets", DataTable)
        presets.add_columns("rules", "games", "wins", "win %", "streak", "best", "best time", "fewest")
        race_stats: DataTable[str] = self.query_one("#race-stats", DataTable)
        race_stats.add_columns("rules", "races", "wins", "win %", "streak", "best", "1st 2nd 3rd", "best time")
        for name, rules in PRESETS.items():
            title = rules.title.split(",")[0] if name == "seahaven" else rules.title
            solo = self.stats.presets.get(name)
            if solo is not None and solo.played:
                presets.add_row(
                    title,
                    str(solo.played),
                    str(solo.won),
                    _percent(solo.win_percent),
                    str(solo.streak),
                    str(solo.best_streak),
                    format_ms(solo.best_ms),
                    "—" if solo.best_moves is None else str(solo.best_moves),
                )
            raced = self.stats.race_stats(name)
            if raced.races:
                race_stats.add_row(
                    title,
                    str(raced.races),
                    str(raced.won),
                    _percent(raced.win_percent),
                    str(raced.streak),
                    str(raced.best_streak),
                    " ".join(f"{n:>3}" for n in raced.places),
                    format_ms(raced.best_ms),
                )
        races_table: DataTable[str] = self.query_one("#races", DataTable)
        races_table.add_columns("when", "room", "rules", "place", "result", "time", "deal")
        for race in reversed(self.stats.races):
            races_table.add_row(
                race.when[5:16].replace("T", " "),  # no year: the columns fit 80
                race.room,
                PRESETS[race.preset].title if race.preset in PRESETS else race.preset,
                f"{race.place} of {race.racers}",
                race_result(race),
                format_ms(race.time_ms),
                race.deal,
            )
        races_table.display = bool(self.stats.races)
        self.query_one("#no-races").display = not self.stats.races
        if not presets.row_count:
            presets.add_row("no solo games yet", *[""] * 7)
        race_stats.display = bool(race_stats.row_count)
        self.query_one("#race-stats-title").display = bool(race_stats.row_count)

    @on(DataTable.RowSelected, "#races")
    def _replay(self, event: DataTable.RowSelected) -> None:
        races = list(reversed(self.stats.races))
        if 0 <= event.cursor_row < len(races):
            self.dismiss(races[event.cursor_row].deal)

    def action_close(self) -> None:
        self.dismiss(None)
