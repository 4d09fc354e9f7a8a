"""The records from the server, in the terminal: my page (races, wins, streaks, best times, my
ratings and what each rated race did to them, the arenas I was in, my races a page at a time) and
the leaderboards (per preset: the daily deal, this week, all time). Enter on a race opens its
replay from the server's record (client/screens/review.py).
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
from textual.widgets import DataTable, Label

from i18n import N_, NP_, _, ngettext
from i18n.rules_help import preset_title
from protocol.messages import PRESET_NAMES
from seahaven import preset

from ..records.records_api import Records, RecordsError
from ..records.verification import verdict
from ..text.rating_text import shown
from ..text.words import deal_code, racers, races, rated_races, status_word, wins
from ..widgets.keys_footer import KeysFooter
from ..widgets.rivals import DID_NOT_FINISH, format_ms
from .localized import LocalScreen
from .review import ReviewScreen

PERIODS: Final = {"day": N_("the daily deal"), "week": N_("this week"), "all": N_("all time")}
CSS: Final = Path(__file__).with_name("records.tcss")


def when(ms: int | None) -> str:
    """A moment in the local time zone, to the minute."""
    return "—" if ms is None else datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def title_of(name: str) -> str:
    try:
        return preset_title(preset(name).title)
    except ValueError:
        return name


def not_there(error: RecordsError, player: str) -> str:
    return (
        _("No player {player} on record on this server").format(player=player) if error.status == 404 else error.message
    )


def ratings_line(ratings: list[dict[str, Any]]) -> str:
    """My ratings, one per rules preset I was rated on: ``Ratings: Seahaven Towers 1523 (12 rated
    races)``; ``?`` after a provisional one."""
    if not ratings:
        return _("No rated race yet")
    parts = [
        _("{rules} {rating} ({races})").format(
            rules=title_of(r["preset"]), rating=shown(r["rating"], r["provisional"]), races=rated_races(r["races"])
        )
        for r in ratings
    ]
    return _("Ratings: {ratings}").format(ratings=" · ".join(parts))


class RecordsScreen(LocalScreen[None]):
    """What both screens share: the server's records, a status line, Enter on a race: its replay."""

    CSS_PATH = CSS

    def __init__(self, records: Records) -> None:
        super().__init__()
        self.records = records
        self.status = Label(_("Reading the records…"), classes="records-status")

    @property
    def status_text(self) -> str:
        return str(self.status.content)

    @on(DataTable.RowSelected)
    def _replay(self, event: DataTable.RowSelected) -> None:
        race_id = event.row_key.value
        if race_id:
            fetch, check = partial(self.records.race, race_id), partial(verdict, self.records, race_id)
            analyse = partial(self.records.analysis, race_id)
            self.app.push_screen(ReviewScreen(None, fetch=fetch, check=check, analyse=analyse))

    def action_close(self) -> None:
        self.dismiss(None)


class PlayerScreen(RecordsScreen):
    """A player's page (``GET /api/v1/players/{player}`` and its races, a page at a time)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", NP_("footer", "Back")),
        Binding("m", "more", NP_("footer", "More races")),
    ]

    def __init__(self, records: Records, player: str) -> None:
        super().__init__(records)
        self.player = player
        self.document: dict[str, Any] | None = None
        self.next: str | None = None
        """The cursor of the next page of races (None: no more)."""
        self.heading = Label(player, classes="records-title", id="player-name")
        self.summary = Label("", id="player-summary")
        self.ratings = Label("", id="player-ratings")

    def compose(self) -> ComposeResult:
        with Vertical(classes="records-body"):
            yield self.heading
            yield self.summary
            yield self.ratings
            yield Label(_("Best times (Enter: the replay)"), classes="records-heading")
            yield DataTable(id="bests", cursor_type="row", zebra_stripes=True)
            yield Label(_("Rated races (Enter: the replay)"), classes="records-heading")
            yield DataTable(id="rating-history", cursor_type="row", zebra_stripes=True)
            yield Label(_("Arenas"), classes="records-heading")
            yield DataTable(id="player-arenas", cursor_type="row", zebra_stripes=True)
            yield Label(_("Races (Enter: the replay; m: older ones)"), classes="records-heading")
            yield DataTable(id="player-races", cursor_type="row", zebra_stripes=True)
            yield self.status
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#bests", DataTable).add_columns(_("rules"), _("time"), _("deal"), _("when"))
        self.query_one("#player-races", DataTable).add_columns(
            _("when"), _("rules"), _("deal"), _("place"), _("status"), _("time")
        )
        self.query_one("#rating-history", DataTable).add_columns(
            _("when"), _("rules"), _("place"), _("rating"), _("change")
        )
        self.query_one("#player-arenas", DataTable).add_columns(
            _("ended"), _("arena"), _("rules"), _("place"), _("points"), _("wins")
        )
        self.run_worker(self.load(), exit_on_error=False)

    async def load(self) -> None:
        try:
            doc = await self.records.player(self.player)
            page = await self.records.player_races(self.player)
        except RecordsError as error:
            self.status.update(not_there(error, self.player))
            return
        self.document = doc
        handle = f" @{doc['handle']}" if doc["handle"] else ""
        self.heading.update(f"{doc['name']}{handle}")
        rate = f" ({round(100 * doc['wins'] / doc['races'])}%)" if doc["races"] else ""
        self.summary.update(
            ngettext(
                "{races} · {wins}{rate} · {finished} finished · win streak {streak} · best streak {best}",
                "{races} · {wins}{rate} · {finished} finished · win streak {streak} · best streak {best}",
                doc["finished"],
            ).format(
                races=races(doc["races"]),
                wins=wins(doc["wins"]),
                rate=rate,
                finished=doc["finished"],
                streak=doc["current_streak"],
                best=doc["best_streak"],
            )
        )
        self.ratings.update(ratings_line(doc["ratings"]))
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
        await self.load_ratings_and_arenas()

    async def load_ratings_and_arenas(self) -> None:
        """The latest page of each: what is not on record (an older server, records away) leaves its
        table empty and says so, the rest of the page stays."""
        try:
            history = await self.records.player_ratings(self.player)
        except RecordsError as error:
            self.status.update(error.message)
        else:
            table: DataTable[str] = self.query_one("#rating-history", DataTable)
            for entry in history["history"]:
                table.add_row(
                    when(entry["ended_at"]),
                    title_of(entry["preset"]),
                    _("{place} of {n}").format(place=entry["place"], n=entry["racers"]),
                    shown(entry["rating"], entry["provisional"]),
                    f"{entry['change']:+d}",
                    key=entry["race_id"],
                )
        try:
            arenas = await self.records.player_arenas(self.player)
        except RecordsError as error:
            self.status.update(error.message)
        else:
            table = self.query_one("#player-arenas", DataTable)
            for arena in arenas["arenas"]:
                table.add_row(
                    when(arena["ends_at"]),
                    arena["name"] or arena["code"],
                    title_of(arena["preset"]),
                    _("{place} of {n}").format(place=arena["place"], n=arena["player_count"]),
                    str(arena["points"]),
                    _("{wins} of {races}").format(wins=arena["wins"], races=arena["races"]),
                )  # no key: Enter opens no replay

    def add_races(self, page: dict[str, Any]) -> None:
        table: DataTable[str] = self.query_one("#player-races", DataTable)
        for race in page["races"]:
            table.add_row(
                when(race["ended_at"]),
                title_of(race["preset"]),
                deal_code(race["preset"], race["deal"]),
                _("{place} of {n}").format(place=race["place"], n=race["racers"]),
                status_word(DID_NOT_FINISH if race["status"] == "racing" else race["status"]),
                # A time is a finisher's: anyone else's is only when their progress last changed.
                format_ms(race["time_ms"] if race["status"] == "finished" else None),
                key=race["race_id"],
            )
        self.next = page["next"]
        shown = table.row_count
        more = " · " + _("m: older ones") if self.next else ""
        self.status.update(
            _("{races} shown").format(races=races(shown)) + more if shown else _("No race on record yet")
        )

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
        Binding("escape", "close", NP_("footer", "Back")),
        Binding("d", "period('day')", NP_("footer", "Daily deal")),
        Binding("w", "period('week')", NP_("footer", "This week")),
        Binding("a", "period('all')", NP_("footer", "All time")),
        Binding("right_square_bracket", "preset(1)", NP_("footer", "Next rules"), key_display="]"),
        Binding("left_square_bracket", "preset(-1)", NP_("footer", "Previous rules"), key_display="["),
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
                _(
                    "The fastest wins, each replayed by the server's engine: no hints, people only, deals the server"
                    " picked (Enter: the replay)"
                ),
                classes="records-heading",
            )
            yield DataTable(id="board-entries", cursor_type="row", zebra_stripes=True)
            yield self.status
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one("#board-entries", DataTable).add_columns("#", _("racer"), _("time"), _("deal"), _("when"))
        self.reload()

    def reload(self) -> None:
        self.heading.update(
            _("Leaderboard: {rules} · {period}").format(rules=title_of(self.preset), period=_(PERIODS[self.period]))
        )
        self.status.update(_("Reading the board…"))
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
        self.status.update(racers(count) + day if count else _("No proven win here yet") + day)

    def action_period(self, period: str) -> None:
        if period in PERIODS and period != self.period:
            self.period = period
            self.reload()

    def action_preset(self, by: int) -> None:
        names = list(PRESET_NAMES)
        self.preset = names[(names.index(self.preset) + by) % len(names)] if self.preset in names else names[0]
        self.reload()
