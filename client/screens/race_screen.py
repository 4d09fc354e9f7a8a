"""The game screen of a room: ``GameScreen`` plus Ready, Leave and the watched racer's keys.

Its reactive attributes (lock, cover, status line, racers panel, countdown) redraw their widgets
in ``watch_*`` methods; the race controller (client/race/controller.py) sets them all at once with
``show_room`` (a ``RoomView``), and the countdown alone with ``count_down_to``. The screen asks
its room for the rest through ``RoomActions`` (client/screens/room_actions.py), never the controller.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.timer import Timer

from i18n import N_, NP_, _
from seahaven import Board

from ..net.clock import ServerClock
from ..widgets.rivals import RacerView
from .game_screen import GameScreen
from .room_actions import RoomActions


@dataclass(frozen=True)
class RoomView:
    """Everything ``RaceScreen.show_room`` draws of the room (client/race/room_text.py has the words)."""

    lock: str | None
    """Why the board refuses input (None: the player may move)."""
    cover: tuple[str, ...] | None
    """The lines shown instead of the cards (empty: the cards; None: as the screen has it)."""
    between_races: bool
    """Waiting or counting down: the status line leaves out cards home and moves."""
    starts_at: int | None
    """The countdown's end on the server's clock (None: no countdown)."""
    info: str
    """The end of the status line (spectating, how late, reconnecting)."""
    racers: tuple[RacerView, ...]
    """The racers panel's rows."""
    racers_title: str
    """The racers panel's title."""
    spectator_delay_s: int | None
    """How late a spectator sees the moves, for the help screen (None: not measured)."""


class RaceScreen(GameScreen):
    """The game screen of a room: Ready (``r``), Leave (``l``, twice during a race), the
    watched racer (``[`` / ``]``); its reactive attributes redraw the widgets."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "ready", NP_("footer", "Ready")),
        Binding("r", "rematch", NP_("footer", "Rematch")),
        # Shown only where they work; pressed where they do not, they say why. (A subclass's
        # binding of a key replaces the base class's, so both of each key are here.)
        Binding("u", "undo", NP_("footer", "Undo")),
        Binding("u", "undo_off", NP_("footer", "Undo"), show=False),
        Binding("H", "hint", NP_("footer", "Hint")),
        Binding("H", "hint_off", NP_("footer", "Hint"), show=False),
        Binding("l", "leave", NP_("footer", "Leave room")),
        # After the race: a new room and deal with the same people (the rematch stays r). Not in
        # the footer (at 60 columns it ran past the edge): the results' footer and the final
        # board's line say it.
        Binding("g", "race_again", NP_("footer", "Race again"), show=False),
        Binding("g", "race_again_off", NP_("footer", "Race again"), show=False),
        # After the race v reviews it, as on the results; before, it shows or hides the racers.
        Binding("v", "review", NP_("footer", "Review")),
        Binding("v", "rivals", NP_("footer", "Racers")),
        # Not in the footer (the message line says "[ and ] switch racer"): with it the footer ran past 80.
        Binding("left_square_bracket", "watch(-1)", NP_("footer", "Previous racer"), key_display="[", show=False),
        Binding("right_square_bracket", "watch(1)", NP_("footer", "Next racer"), key_display="]"),
        Binding("shift+tab", "watch(-1)", NP_("footer", "Previous racer"), show=False),
        Binding("tab", "watch(1)", NP_("footer", "Next racer"), show=False),
    ]
    NARROW_WORDS: ClassVar[tuple[str, ...]] = (*GameScreen.NARROW_WORDS, NP_("footer-narrow", "Leave room"))
    """The keys said in shorter words below ``NARROW_FOOTER_BELOW`` columns (marked here for the catalog)."""

    lock_text: reactive[str | None] = reactive[str | None]("…", init=False)
    """Why the board refuses input (None: the player may move)."""
    cover: reactive[tuple[str, ...] | None] = reactive[tuple[str, ...] | None](None, init=False)
    """The lines shown instead of the cards (empty: the cards; None: as the screen has it)."""
    info_line: reactive[str] = reactive("", init=False)
    racers: reactive[tuple[tuple[RacerView, ...], str]] = reactive[tuple[tuple[RacerView, ...], str]](
        ((), N_("Racers")), init=False
    )
    """The racers panel's rows and title."""
    starts_at: reactive[int | None] = reactive[int | None](None, init=False)
    """The countdown's end on the server's clock (None: no countdown)."""
    between_races: reactive[bool] = reactive(True, init=False)

    def __init__(
        self, room: RoomActions, board: Board, *, undo_allowed: bool, title: str, automove: bool = True
    ) -> None:
        super().__init__(board, sink=room, race=True, undo_allowed=undo_allowed, title=title, automove=automove)
        self.room = room
        self.server_clock: ServerClock = room.server_clock
        self._ticker: Timer | None = None

    # -- the controller's interface: the room's state onto the reactive attributes -------

    def show_room(self, view: RoomView) -> None:
        """Draw ``view`` (each widget redraws only if its part changed) and recheck the keys."""
        self.spectator_delay_s = view.spectator_delay_s
        self.lock_text = view.lock
        self.cover = view.cover
        self.between_races = view.between_races
        self.starts_at = view.starts_at
        self.info_line = view.info
        self.racers = (view.racers, view.racers_title)
        self.refresh_bindings()

    def count_down_to(self, starts_at: int | None) -> None:
        """Count down to ``starts_at`` on the server's clock (None: stop the countdown)."""
        self.starts_at = starts_at

    # -- watchers: the reactive attributes onto the widgets ------------------------------

    def watch_lock_text(self, reason: str | None) -> None:
        self.set_locked(reason)

    def watch_cover(self, lines: tuple[str, ...] | None) -> None:
        if lines is not None:
            self.set_cover(*lines)

    def watch_info_line(self, text: str) -> None:
        self.set_info(text)

    def watch_racers(self, racers: tuple[tuple[RacerView, ...], str]) -> None:
        rows, title = racers
        self.update_racers(rows, _(title) if title == "Racers" else title)

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
        self.room.toggle_ready()

    def action_rematch(self) -> None:
        self.room.toggle_ready()

    def action_undo_off(self) -> None:
        self.flash(_("Undo is off in this race"), "error")

    def action_hint_off(self) -> None:
        self.flash(_("Hints are off in this race"), "error")

    def action_leave(self) -> None:
        self.room.ask_leave()

    def action_watch(self, step: int) -> None:
        self.room.watch(step)

    def action_review(self) -> None:
        self.room.review()

    def action_race_again(self) -> None:
        self.room.race_again()

    def action_race_again_off(self) -> None:
        self.room.race_again()  # says why not

    def action_hint(self) -> None:
        """In a race the server gives the hint (and counts it), never the local solver."""
        if not self.refuse_input():
            self.room.ask_hint()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        room = self.room
        if action == "hint":
            return room.can_hint()
        if action == "hint_off":
            return room.could_play() and not room.hints_allowed()
        if action == "ready":
            return room.can_ready()
        if action == "rematch":
            return room.can_rematch()
        if action == "resign":
            return room.racing_now()
        if action == "undo":
            return room.could_play() and room.undo_allowed()
        if action == "undo_off":
            return room.could_play() and not room.undo_allowed()
        if action == "smart":
            return room.racing_now()
        if action == "watch":
            return room.can_watch()
        if action == "review":
            return room.can_review()
        if action == "race_again":
            return room.why_not_race_again() is None
        if action == "race_again_off":
            return bool(room.why_not_race_again())
        if action == "rivals" and room.can_review():
            return False
        return super().check_action(action, parameters)
