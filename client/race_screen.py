"""The game screen of a room: ``GameScreen`` plus Ready, Leave and the watched racer's keys.

Its reactive attributes (lock, cover, status line, racers panel, countdown) redraw their widgets
in ``watch_*`` methods; the race controller (client/race.py) only assigns them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.timer import Timer

from protocol.enums import Phase, Role
from seahaven import Board

from .game_screen import GameScreen
from .rivals import RacerView
from .room_model import ServerClock

if TYPE_CHECKING:
    from .race import RaceController


class RaceScreen(GameScreen):
    """The game screen of a room: Ready (``r``), Leave (``l``, twice during a race), the
    watched racer (``[`` / ``]``); its reactive attributes redraw the widgets."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "ready", "Ready"),
        Binding("l", "leave", "Leave room"),
        Binding("left_square_bracket", "watch(-1)", "Previous racer", key_display="["),
        Binding("right_square_bracket", "watch(1)", "Next racer", key_display="]"),
        Binding("shift+tab", "watch(-1)", "Previous racer", show=False),
        Binding("tab", "watch(1)", "Next racer", show=False),
    ]

    lock_text: reactive[str | None] = reactive[str | None]("…", init=False)
    """Why the board refuses input (None: the player may move)."""
    cover: reactive[tuple[str, ...] | None] = reactive[tuple[str, ...] | None](None, init=False)
    """The lines shown instead of the cards (empty: the cards; None: as the screen has it)."""
    info_line: reactive[str] = reactive("", init=False)
    racers: reactive[tuple[tuple[RacerView, ...], str]] = reactive[tuple[tuple[RacerView, ...], str]](
        ((), "Racers"), init=False
    )
    """The racers panel's rows and title."""
    starts_at: reactive[int | None] = reactive[int | None](None, init=False)
    """The countdown's end on the server's clock (None: no countdown)."""
    between_races: reactive[bool] = reactive(True, init=False)

    def __init__(
        self, controller: RaceController, board: Board, *, undo_allowed: bool, title: str, automove: bool = True
    ) -> None:
        super().__init__(board, sink=controller, race=True, undo_allowed=undo_allowed, title=title, automove=automove)
        self.controller = controller
        self.server_clock: ServerClock = controller.model.clock
        self._ticker: Timer | None = None

    # -- watchers: the reactive attributes onto the widgets ------------------------------

    def watch_lock_text(self, reason: str | None) -> None:
        self.set_locked(reason)

    def watch_cover(self, lines: tuple[str, ...] | None) -> None:
        if lines is not None:
            self.set_cover(*lines)

    def watch_info_line(self, text: str) -> None:
        self.set_info(text)

    def watch_racers(self, racers: tuple[tuple[RacerView, ...], str]) -> None:
        self.update_racers(*racers)

    def watch_between_races(self, between: bool) -> None:
        self.set_progress_shown(not between)

    def watch_starts_at(self, starts_at: int | None) -> None:
        if starts_at is None:
            if self._ticker is not None:
                self._ticker.stop()
                self._ticker = None
            self.set_countdown(None)
            return
        self._tick()
        if self._ticker is None:
            self._ticker = self.set_interval(0.1, self._tick)

    def _tick(self) -> None:
        if self.starts_at is not None:
            left = self.starts_at - self.server_clock.now()
            self.set_countdown(max(1, math.ceil(left / 1000)))

    # -- keys --------------------------------------------------------------------------

    def action_ready(self) -> None:
        self.controller.toggle_ready()

    def action_leave(self) -> None:
        self.controller.ask_leave()

    def action_watch(self, step: int) -> None:
        self.controller.watch(step)

    def action_hint(self) -> None:
        """In a race the server gives the hint (and counts it), never the local solver."""
        if not self._refuse_input():
            self.controller.ask_hint()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        c = self.controller
        model = c.model
        if action == "hint":
            return model.hints and model.racing_now()
        if action == "ready":
            rematch = model.phase == Phase.FINISHED and model.role == Role.RACER and not c.asked_rematch
            return (model.can_ready() and not c.reconnecting) or rematch
        if action == "resign":
            return model.racing_now()
        if action == "undo":
            # Shown whenever a racer could play: pressed in a room without undo, it says so.
            return model.racing_now() or model.stuck_now()
        if action == "smart":
            return model.racing_now()
        if action == "watch":
            return c.can_watch()
        return super().check_action(action, parameters)
