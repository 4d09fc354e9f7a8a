"""The statistics screen: per preset solo games, wins, win %, streaks and best times, race
results, and the race history, whose deals can be replayed in solo (Enter on a race)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import DataTable, Label

from i18n import NP_, _
from i18n.formats import percent
from i18n.rules_help import preset_title
from protocol.enums import Status
from seahaven import PRESETS

from ..data.stats import RaceRecord, Stats
from ..text.words import status_word
from ..widgets.keys_footer import KeysFooter
from ..widgets.rivals import DID_NOT_FINISH, format_ms
from .localized import LocalScreen


def _percent(value: int | None) -> str:
    return "—" if value is None else percent(value / 100)


def race_result(race: RaceRecord) -> str:
    """A race's outcome for the history: finished in its time, or how far a racer got who did not
    finish (older files say "racing" for them). The time is here, not a column of its own: with
    it the French and Italian history ran past 80 columns and lost its deal codes."""
    if race.status in (Status.RACING, DID_NOT_FINISH):
        return f"{status_word(DID_NOT_FINISH)} {race.progress}/52"
    if race.status == Status.FINISHED and race.time_ms is not None:
        return f"{status_word(race.status)} {format_ms(race.time_ms)}"
    return status_word(race.status)


def stacked(*labels: str) -> list[str]:
    """Column headers of two words on two lines ("best" over "time"): on one line the French,
    Italian and Dutch headers ran the tables past 80 columns. The places' "1st 2nd 3rd" stays whole."""
    return [label if len(label.split()) != 2 else label.replace(" ", "\n") for label in labels]


class StatsScreen(LocalScreen[str | None]):
    """Dismisses with the deal code of the race to replay, or None."""

    CSS_PATH = Path(__file__).with_name("stats_screen.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", NP_("footer", "Back")),
        Binding("q", "close", NP_("footer", "Back"), show=False),
    ]

    def __init__(self, stats: Stats) -> None:
        super().__init__()
        self.stats = stats

    def compose(self) -> ComposeResult:
        with Vertical(id="stats-body"):
            yield Label(_("Solo games"), id="stats-title")
            yield DataTable(id="presets", cursor_type="none", zebra_stripes=True, header_height=2)
            yield Label(_("no solo games yet"), id="no-solo")
            yield Label(_("Races"), id="race-stats-title")
            yield DataTable(id="race-stats", cursor_type="none", zebra_stripes=True, header_height=2)
            yield Label(_("Races (Enter: play the deal again in solo)"), id="races-title")
            yield DataTable(id="races", cursor_type="row", zebra_stripes=True)
            yield Label(_("no races yet"), id="no-races")
        yield KeysFooter()

    def on_mount(self) -> None:
        presets: DataTable[str] = self.query_one("#presets", DataTable)
        presets.add_columns(
            *stacked(_("rules"), _("games"), _("wins"), _("win %"), _("streak"), _("best"), _("best time"), _("fewest"))
        )
        race_stats: DataTable[str] = self.query_one("#race-stats", DataTable)
        race_stats.add_columns(
            *stacked(
                _("rules"), _("races"), _("wins"), _("win %"), _("streak"), _("best"), _("1st 2nd 3rd"), _("best time")
            )
        )
        place_width = max(len(word) for word in _("1st 2nd 3rd").split())
        for name, rules in PRESETS.items():
            title = preset_title(rules.title)
            title = title.split(",")[0] if name == "seahaven" else title
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
                    " ".join(f"{n:>{place_width}}" for n in raced.places),  # under the header's 1st 2nd 3rd
                    format_ms(raced.best_ms),
                )
        races_table: DataTable[str] = self.query_one("#races", DataTable)
        # No year and no room code (the deal replays the race): the deal's code fits 80 columns.
        races_table.add_columns(_("when"), _("rules"), _("place"), _("result"), _("deal"))
        for race in reversed(self.stats.races):
            races_table.add_row(
                race.when[5:16].replace("T", " "),
                preset_title(PRESETS[race.preset].title) if race.preset in PRESETS else race.preset,
                _("{place} of {n}").format(place=race.place, n=race.racers),
                race_result(race),
                race.deal,
            )
        races_table.display = bool(self.stats.races)
        self.query_one("#no-races").display = not self.stats.races
        # Said under the title, not as a row: a row's long words widened the table past 80 columns.
        presets.display = bool(presets.row_count)
        self.query_one("#no-solo").display = not presets.row_count
        race_stats.display = bool(race_stats.row_count)
        self.query_one("#race-stats-title").display = bool(race_stats.row_count)

    @on(DataTable.RowSelected, "#races")
    def _replay(self, event: DataTable.RowSelected) -> None:
        races = list(reversed(self.stats.races))
        if 0 <= event.cursor_row < len(races):
            self.dismiss(races[event.cursor_row].deal)

    def action_close(self) -> None:
        self.dismiss(None)
