"""The post-race review: step through any racer's moves on the deal.

``ReviewScreen`` replays each racer's actions on the opening position: left / right step one,
home / end jump, ``[`` / ``]`` switch racer at the same step, space plays the steps at the race's
own pace (``+`` / ``-``: faster, slower); a line under the step draws the racer's cards home over
the race, the step shown marked (client/records/progress_graph.py). With ``fetch`` (the race on the
server's record, ``GET /api/v1/races/{race_id}``: client/records/records_api.py) it reads every racer's
moves and undos with their times from the server, showing meanwhile, and if the record cannot be
read, what the client has: each racer's moves in effect at the end (``result.histories``, or a
finished room's ``watching``). With ``analyse`` (the race's analysis, ``GET
/api/v1/races/{race_id}/analysis``), read once the record is, and again a few times a few seconds
apart while it is pending: the graph draws the steps after which the racer's deal could not be won
and marks the move that lost it, a line says it in words (client/records/race_analysis.py) and ``l`` shows
that move. A server without the analysis (records off, older: a 404) leaves them out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from i18n import NP_, _
from protocol.messages import Watched
from seahaven import Board

from ..board.places import describe
from ..records.progress_graph import progress_after, sparkline
from ..records.race_analysis import Judged, judged, summary
from ..records.records_api import RecordsError
from ..records.replay import Track, back, forward, tracks_from_histories, tracks_from_race
from ..widgets.board_view import BoardView
from ..widgets.keys_footer import KeysFooter
from ..widgets.rivals import format_ms
from .localized import LocalScreen

FetchRace = Callable[[], Awaitable[Mapping[str, Any]]]
"""Reads the race document from the server (a RecordsError when it cannot)."""
CheckRace = Callable[[], Awaitable[str]]
"""Checks the race's signed record (client/records/verification.py): the verdict in words."""
FetchAnalysis = Callable[[], Awaitable[Mapping[str, Any]]]
"""Reads the race's analysis from the server: ``status`` and, once done, ``analysis`` (a
RecordsError when it cannot)."""
ANALYSIS_WAITS_S: Final = (3.0, 3.0, 5.0, 5.0, 10.0)
"""How long to wait before asking again while the analysis is pending: the server analyses a race
a few seconds after it is on record; after these it is left out."""
SPEEDS: Final = (0.5, 1, 2, 4, 8)
"""Autoplay's speeds, times the race's own pace (``+`` / ``-``)."""
PAUSE_S: Final = 0.5
"""Autoplay's pause before a step whose time is not known (the moves seen here)."""
MIN_PAUSE_S: Final = 0.15
MAX_PAUSE_S: Final = 3.0
WIDE: Final = 80
"""Below this many columns the footer is compact (its keys closer), as it is when it shows ``l``:
then the app's ``^q`` still fits at 80 in every language."""
TALL: Final = 24
"""Below this many rows the analysis's line leaves out the longest think unless it fits on the
line: the board keeps its rows at 60x20."""
"""Autoplay's pauses at x1 are the racer's own, within these bounds: a long think is not sat through."""


class ReviewScreen(LocalScreen[None]):
    """One racer's game at a time, step by step, read-only."""

    CSS_PATH = Path(__file__).with_name("review.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", NP_("footer", "Next")),
        Binding("left", "step(-1)", NP_("footer", "Prev")),
        Binding("end", "step(100000)", NP_("footer", "Last")),
        Binding("right_square_bracket", "racer(1)", NP_("footer", "Next racer"), key_display="]"),
        # Not shown: the footer fits 80 columns in every language with end and ] alone (issue 22,
        # bug 12; issue 39, bug 6); home beside end, [ beside ], are found where they are looked for.
        Binding("home", "step(-100000)", NP_("footer", "First"), show=False),
        Binding("left_square_bracket", "racer(-1)", NP_("footer", "Previous racer"), key_display="[", show=False),
        Binding("escape", "close", NP_("footer", "Back")),
        # Shown only when the analysis names the move that lost the racer's deal.
        Binding("l", "lost", NP_("footer", "Lost move")),
        # Said on the graph's line (the footer is full at 80 columns).
        Binding("space", "play", NP_("footer", "Play"), show=False),
        Binding("plus,equals_sign", "speed(1)", NP_("footer", "Faster"), show=False),
        Binding("minus", "speed(-1)", NP_("footer", "Slower"), show=False),
    ]

    at: reactive[int] = reactive(0)
    """How many of the racer's actions are played on the board shown."""
    racer: reactive[int] = reactive(0)
    """Which track (index into ``tracks``) is shown."""

    def __init__(
        self,
        deal: str | None,
        histories: Sequence[Watched] = (),
        names: Mapping[str, str] | None = None,
        *,
        first: str | None = None,
        fetch: FetchRace | None = None,
        check: CheckRace | None = None,
        analyse: FetchAnalysis | None = None,
    ) -> None:
        """``deal`` and ``histories``: what the client saw (``deal`` None: only the record, which
        ``fetch`` must then give); ``first``: whose track shows first; ``check``: the record's
        verification, shown once the record is read; ``analyse``: the race's analysis, read once
        the record is (its indices are the record's)."""
        super().__init__()
        if deal is None and fetch is None:
            raise ValueError("a review needs the deal and the moves, or the race on record")
        self.first = first
        self.fetch = fetch
        self.check = check
        self.analyse = analyse
        self.analysis_waits: Sequence[float] = ANALYSIS_WAITS_S
        """The waits between reads of a pending analysis (ANALYSIS_WAITS_S)."""
        self.analysis: Mapping[str, Any] | None = None
        """The race's analysis (docs/api.md, "analysis"), once read and done."""
        self.judged: Judged | None = None
        """The shown racer's part of it (None: no analysis, or none that fits the track)."""
        self.verdict = ""
        """The signed record's verdict (empty until checked)."""
        self.opening = Board.from_code(deal) if deal is not None else None
        self.tracks: tuple[Track, ...] = ()
        if self.opening is not None:
            self.tracks = tracks_from_histories(self.opening, histories, names or {})
        self.source = "here" if self.opening is not None else "reading"
        """Where the tracks come from: "here" (what the client saw), "reading" the server's
        record, "server" (read), "failed" (not read: ``note`` says why)."""
        self.note = ""
        # Without the deal (only the record), the board shows once the record is read.
        self.board = self.opening.copy() if self.opening is not None else Board.deal("seahaven", 1)
        self.view = BoardView(self.board, id="review-board")
        self.view.display = self.opening is not None
        self.line = Static(id="review-line")
        self.graph = Static(id="review-graph")
        """The racer's cards home over the race, the step shown marked (client/records/progress_graph.py)."""
        self.said = Static(id="review-analysis")
        """What the analysis says of the racer's deal, in words (hidden without one)."""
        self.said.display = False
        self.counts: list[int] = []
        """Cards home after each step of the track shown (its graph's heights)."""
        self.speed = 1
        """Autoplay's index into SPEEDS."""
        self.player_timer: Timer | None = None
        """Steps forward while autoplay runs (None: stopped)."""
        self.set_reactive(ReviewScreen.racer, self.index_of(first))

    def compose(self) -> ComposeResult:
        yield self.line
        yield self.graph
        yield self.said
        yield self.view
        yield KeysFooter()

    def on_mount(self) -> None:
        if self.fetch is not None:
            if self.source == "here":
                self.source, self.note = "reading", _("reading the race on record…")
            self.run_worker(self.read_record(self.fetch), exit_on_error=False)
        self._show()

    async def read_record(self, fetch: FetchRace) -> None:
        """The server's record in place of what the client saw, at the same racer and step."""
        try:
            opening, tracks = tracks_from_race(await fetch())
        except RecordsError as error:
            self.fallen_back(error.message)
            return
        except (ValueError, KeyError, TypeError) as error:  # a record this client cannot replay
            self.fallen_back(_("the race on record does not replay here ({error})").format(error=error))
            return
        player = self.player or self.first
        self.opening, self.tracks, self.source, self.note = opening, tracks, "server", _("on record")
        self.view.display = True
        self.set_reactive(ReviewScreen.racer, self.index_of(player))
        self.watch_racer()
        if self.analyse is not None:
            self.run_worker(self.read_analysis(self.analyse), exit_on_error=False)
        if self.check is not None:
            self.verdict = await self.check()
            self._show()

    async def read_analysis(self, analyse: FetchAnalysis) -> None:
        """The race's analysis, asked again after each of ``analysis_waits`` while it is pending (or
        the API asks to wait: 429); anything else (failed, no such race, an older server's 404,
        records off, no answer) leaves it out, unsaid."""
        for wait in (*self.analysis_waits, None):
            try:
                answer = await analyse()
            except RecordsError as error:
                if error.status != 429:
                    return
            else:
                status, analysis = answer.get("status"), answer.get("analysis")
                if status == "done" and isinstance(analysis, Mapping):
                    self.analysis = analysis
                    self.judge()
                    return
                if status != "pending":
                    return
            if wait is None:
                return
            await asyncio.sleep(wait)

    def judge(self) -> None:
        """The shown racer's part of the analysis, on the graph, in words and in the footer (``l``)."""
        track = self.track
        found = judged(self.analysis, track.player, track.steps) if self.analysis and track is not None else None
        self.judged = found if self.source == "server" else None  # the analysis indexes the record's moves
        self.refresh_bindings()
        self._show()

    def fallen_back(self, why: str) -> None:
        self.source = "failed"
        self.note = _("{why}: the moves seen here").format(why=why) if self.opening is not None else why
        self._show()

    def index_of(self, player: str | None) -> int:
        players = [t.player for t in self.tracks]
        return players.index(player) if player in players else 0

    @property
    def track(self) -> Track | None:
        return self.tracks[self.racer] if self.tracks else None

    @property
    def player(self) -> str:
        track = self.track
        return track.player if track is not None else ""

    def watch_at(self, old: int, new: int) -> None:
        steps = self.track.steps if self.track is not None else ()
        if new > old:
            for step in steps[old:new]:
                forward(self.board, step)
        else:
            for step in reversed(steps[new:old]):
                back(self.board, step)
        self._show()

    def watch_racer(self) -> None:
        if self.opening is None:
            return
        self.board = self.opening.copy()
        steps = self.track.steps if self.track is not None else ()
        self.counts = progress_after(self.opening, steps)
        at = min(self.at, len(steps))
        for step in steps[:at]:
            forward(self.board, step)
        self.set_reactive(ReviewScreen.at, at)
        self.judge()

    def action_step(self, by: int) -> None:
        steps = self.track.steps if self.track is not None else ()
        self.at = max(0, min(len(steps), self.at + by))

    def action_play(self) -> None:
        """Space: play the racer's steps at the race's own pace (times SPEEDS), or stop; from the
        start again once at the end."""
        if self.player_timer is not None:
            self._stop()
        elif self.track is not None and self.track.steps:
            if self.at >= len(self.track.steps):
                self.at = 0
            self._next_step()
        self._show()

    def action_speed(self, by: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + by))
        self._show()

    def _next_step(self) -> None:
        """Wait as long as the racer took before the next step (shortened, at most MAX_PAUSE_S at x1),
        then play it."""
        steps = self.track.steps if self.track is not None else ()
        if self.at >= len(steps):
            self._stop()
            self._show()
            return
        step, before = steps[self.at], steps[self.at - 1] if self.at else None
        took = (step.ms - (before.ms or 0)) / 1000 if step.ms is not None and before is not None else PAUSE_S
        pause = min(MAX_PAUSE_S, max(MIN_PAUSE_S, took)) / SPEEDS[self.speed]
        self.player_timer = self.set_timer(pause, self._played)

    def _played(self) -> None:
        self.action_step(1)
        self._next_step()

    def _stop(self) -> None:
        if self.player_timer is not None:
            self.player_timer.stop()
            self.player_timer = None

    def action_lost(self) -> None:
        """``l``: the board just after the move that lost the racer's deal, that move on the line."""
        if self.judged is not None and self.judged.lost is not None:
            self._stop()
            self.at = self.judged.lost.index + 1
            self._show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "lost":  # in the footer only when there is a lost move to show
            return self.judged is not None and self.judged.lost is not None
        return super().check_action(action, parameters)

    def action_racer(self, by: int) -> None:
        if self.tracks:
            self.racer = (self.racer + by) % len(self.tracks)

    def action_close(self) -> None:
        self._stop()
        self.dismiss(None)

    def _show(self) -> None:
        if not self.is_mounted:
            return
        self.view.show(self.board)
        track = self.track
        note = f" · {self.note}" if self.note else ""
        if track is None:
            self.line.update(Content(_("Review") + note))
            return
        last = ""
        if self.at:
            step = track.steps[self.at - 1]
            when = " " + _("at {time}").format(time=format_ms(step.ms)) if step.ms is not None else ""
            if step.undo:  # the board shown is the one before the move taken back
                last = when + " · " + _("undo: took back {move}").format(move=describe(self.board, step.move))
            else:
                before = self.board.copy()
                before.pop()
                last = f"{when} · {describe(before, step.move)}"
            if step.auto:
                last += " " + _("(by itself)")
        # Counted as the results count: the racer's own moves and undos, not the server's auto-moves.
        own = [not step.auto for step in track.steps]
        # The verdict first, where the eye starts: the line wraps to a second at 80 columns.
        verdict = f"{self.verdict} · " if self.verdict else ""
        text = _("Review: {name} · move {at} of {n}{last} · {home}/52 home · racer {racer} of {racers}{note}").format(
            name=track.name,
            at=sum(own[: self.at]),
            n=sum(own),
            last=last,
            home=self.board.progress,
            racer=self.racer + 1,
            racers=len(self.tracks),
            note=note,
        )
        self.line.update(Content(verdict + text))
        judgement = self.judged
        lost = judgement is not None and judgement.lost is not None
        self.query_one(KeysFooter).compact = lost or self.size.width < WIDE
        self.said.display = judgement is not None and self.opening is not None
        if judgement is not None and self.opening is not None:
            room = self.said.size.width - 2 if self.size.height < TALL else None
            self.said.update(Content(summary(judgement, self.opening, track.steps, room)))
            self.said.set_class(judgement.end == "lost", "-lost")
        self._draw_graph()

    def _draw_graph(self) -> None:
        """The graph, then its keys: "space ▶ · x1" (what space does now, and the speed)."""
        if not self.counts and self.opening is not None and self.track is not None:
            self.counts = progress_after(self.opening, self.track.steps)
        playing = self.player_timer is not None
        keys = " " + _("space {action} · {speed} (+/-)").format(
            action="⏸" if playing else "▶", speed=f"×{SPEEDS[self.speed]:g}"
        )
        room = max(0, self.graph.size.width - len(keys) - 2)
        judgement = self.judged
        verdicts = judgement.verdicts if judgement is not None else ()
        lost = judgement.lost.index + 1 if judgement is not None and judgement.lost is not None else None
        graph = sparkline(self.counts, room, self.at, verdicts, lost)
        graph.append(keys, "#a9d3b9")
        self.graph.update(graph)

    def on_resize(self) -> None:
        self._show()

    @property
    def line_text(self) -> str:
        return str(self.line.content)

    @property
    def analysis_text(self) -> str:
        """What the analysis line says ("" when it is not shown)."""
        return str(self.said.content) if self.said.display else ""
