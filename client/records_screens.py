"""The records from the server, in the terminal: my page (races, wins, streaks, best times, my
races a page at a time) and the leaderboards (per preset: the daily deal, this week, all time).
Enter on a race opens its replay from the server's record (client/review.py).
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Final

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label

from protocol.messages import PRESET_NAMES
from seahaven import preset

from .records_api import Records, RecordsError
from .review import ReviewScreen
from .rivals import DID_NOT_FINISH, format_ms, plural
from .room_model import deal_code

PERIODS: Final = {"day": "the daily deal", "week": "this week", "all": "all time"}
CSS: Final = Path(__file__).with_name("records.tcss")


def when(ms: int | None) -> str:
    """A moment in the local time zone, to the minute."""
    return "—" if ms is None else datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def title_of(name: str) -> str:
    try:
        return preset(name).title
    except ValueError:
        return name


def not_there(error: RecordsError, what: str) -> str:
    return f"No {what} on record on this server" if error.status == 404 else error.message


class RecordsScreen(Screen[None]):
    """What both screens share: the server's records, a status line, Enter on a race: its replay."""

    CSS_PATH = CSS

    def __init__(self, records: Records) -> None:
        super().__init__()
        self.records = records
        self.status = Label("Reading the records…", classes="records-status")

    @property
    def status_text(self) -> str:
        return str(self.status.content)

    @on(DataTable.RowSelected)
    def _replay(self, event: DataTable.RowSelected) -> None:
        race_id = event.row_key.value
        if race_id:
            self.app.push_screen(ReviewScreen(None, fetch=partial(self.records.race, race_id)))

    def action_close(self) -> None:
        self.dismiss(None)


class PlayerScreen(RecordsScreen):
    """A player's page (``GET /api/v1/players/{player}`` and its races, a page at a time)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("m", "more", "More races"),
    ]

    def __init__(self, records: Records, player: str) -> None:
        super().__init__(records)
        self.player = player
        self.document: dict[str, Any] | None = None
        self.next: str | None = None
        """The cursor of the next page of races (None: no more)."""
        self.heading = Label(player, classes="records-title", id="player-name")
        self.summary = Label("", id="player-summary")

    def compose(self) -> ComposeResult:
        with Vertical(classes="records-body"):
            yield self.heading
            yield self.summary
            yield Label("Best times (Enter: the replay)", classes="records-heading")
            yield DataTable(id="bests", cursor_type="row", zebra_stripes=True)
            yield Label("Races (Enter: the replay; m: older ones)", classes="records-heading")
            yield DataTable(id="player-races", cursor_type="row", zebra_stripes=True)
            yield self.status
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#bests", DataTable).add_columns("rules", "time", "deal", "when")
        self.query_one("#player-races", DataTable).add_columns("when", "rules", "deal", "place", "status", "time")
        self.run_worker(self.load(), exit_on_error=False)

    async def load(self) -> None:
        try:
            doc = await self.records.player(self.player)
            page = await self.records.player_races(self.player)
        except RecordsError as error:
            self.status.update(not_there(error, "player " + self.player))
            return
        self.document = doc
        handle = f" @{doc['handle']}" if doc["handle"] else ""
        self.heading.update(f"{doc['name']}{handle}")
        rate = f" ({round(100 * doc['wins'] / doc['races'])}%)" if doc["races"] else ""
        self.summary.update(
            f"{plural(doc['races'], 'race')} · {plural(doc['wins'], 'win')}{rate} · {doc['finished']} finished"
            f" · win streak {doc['current_streak']} · best streak {doc['best_streak']}"
        )
        bests: DataTable[str] = self.query_one("#bests", DataTable)
        for best in doc["bests"]:
            bests.add_row(
                title_of(best["preset"]),
                format_ms(best["time_ms"]),
                deal_code(best["preset"], best["deal"]),
                when(best["ended_at"]),
                key=best["race_id"],
            )
        self.add_races(page)

    def add_races(self, page: dict[str, Any]) -> None:
        table: DataTable[str] = self.query_one("#player-races", DataTable)
        for race in page["races"]:
            table.add_row(
                when(race["ended_at"]),
                title_of(race["preset"]),
                deal_code(race["preset"], race["deal"]),
                f"{race['place']} of {race['racers']}",
                DID_NOT_FINISH if race["status"] == "racing" else race["status"],
                format_ms(race["time_ms"]),
                key=race["race_id"],
            )
        self.next = page["next"]
        shown = table.row_count
        more = " · m: older ones" if self.next else ""
        self.status.update(f"{plural(shown, 'race')} shown{more}" if shown else "No race on record yet")

    def action_more(self) -> None:
        if self.next is not None:
            self.run_worker(self.more(self.next), exit_on_error=False, exclusive=True)

    async def more(self, cursor: str) -> None:
        try:
            self.add_races(await self.records.player_races(self.player, cursor))
        except RecordsError as error:
            self.status.update(error.message)


class BoardsScreen(RecordsScreen):
    """The leaderboards (``GET /api/v1/leaderboards/{preset}``): ``[`` / ``]`` the rules, d / w / a
    the daily deal, this week, all time."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Back"),
        Binding("d", "period('day')", "Daily deal"),
        Binding("w", "period('week')", "This week"),
        Binding("a", "period('all')", "All time"),
        Binding("right_square_bracket", "preset(1)", "Next rules", key_display="]"),
        Binding("left_square_bracket", "preset(-1)", "Previous rules", key_display="["),
    ]

    def __init__(self, records: Records, preset_name: str = PRESET_NAMES[0], period: str = "all") -> None:
        super().__init__(records)
        self.preset = preset_name
        self.period = period
        self.board: dict[str, Any] | None = None
        self.heading = Label("", classes="records-title", id="board-title")

    def compose(self) -> ComposeResult:
        with Vertical(classes="records-body"):
            yield self.heading
            yield Label(
                "The fastest wins, each replayed by the server's engine: no hints, people only, deals the server"
                " picked (Enter: the replay)",
                classes="records-heading",
            )
            yield DataTable(id="board-entries", cursor_type="row", zebra_stripes=True)
            yield self.status
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#board-entries", DataTable).add_columns("#", "racer", "time", "deal", "when")
        self.reload()

    def reload(self) -> None:
        self.heading.update(f"Leaderboard: {title_of(self.preset)} · {PERIODS[self.period]}")
        self.status.update("Reading the board…")
        self.run_worker(self.load(self.preset, self.period), exit_on_error=False, exclusive=True)

    async def load(self, preset_name: str, period: str) -> None:
        table: DataTable[str] = self.query_one("#board-entries", DataTable)
        try:
            board = await self.records.leaderboard(preset_name, period)
        except RecordsError as error:
            table.clear()
            self.status.update(error.message)
            return
        self.board = board
        table.clear()
        for entry in board["entries"]:
            table.add_row(
                str(entry["rank"]),
                entry["name"],
                format_ms(entry["time_ms"]),
                deal_code(preset_name, entry["deal"]),
                when(entry["ended_at"]),
                key=entry["race_id"],
            )
        day = f" ({board['day']}, UTC)" if board["day"] else ""
        count = len(board["entries"])
        self.status.update(f"{plural(count, 'racer')}{day}" if count else f"No proven win here yet{day}")

    def action_period(self, period: str) -> None:
        if period in PERIODS and period != self.period:
            self.period = period
            self.reload()

    def action_preset(self, by: int) -> None:
        names = list(PRESET_NAMES)
        self.preset = names[(names.index(self.preset) + by) % len(names)] if self.preset in names else names[0]
        self.reload()
