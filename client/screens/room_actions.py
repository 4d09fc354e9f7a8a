"""What a room's screen asks of its room: ``RoomActions``.

The race screen (client/screens/race_screen.py) sends the player's keys here and asks here whether they
work now; ``RaceController`` (client/race/controller.py) implements it. So the screen never imports the
controller, as ``MoveSink`` (client/screens/game_screen.py) spares the game screen the network.
"""

from __future__ import annotations

from typing import Protocol

from ..net.clock import ServerClock
from .game_screen import MoveSink


class RoomActions(MoveSink, Protocol):
    """A room as its screen sees it: the moves (``MoveSink``), the room's keys, and whether
    each works now."""

    @property
    def server_clock(self) -> ServerClock:
        """The server's clock seen from here (the countdown counts down on it)."""
        ...

    # -- the keys ----------------------------------------------------------------------

    def toggle_ready(self) -> None:
        """``r``: ready or not before a race; after one, ask for a rematch."""

    def ask_leave(self) -> None:
        """``l``: leave the room (during a race only when pressed twice)."""

    def watch(self, step: int) -> None:
        """``]`` / ``[``: look at the next (``step`` 1) or previous (-1) racer's board."""

    def ask_hint(self) -> None:
        """``H``: ask the server for a hint."""

    def review(self) -> None:
        """``v`` after the race: step through the racers' moves."""

    def race_again(self) -> None:
        """``g`` after the race: a new room and deal, the people of this race invited (or why not)."""

    # -- which keys work now -----------------------------------------------------------

    def can_ready(self) -> bool:
        """``r`` is ready (or not) now: a racer before the race."""
        ...

    def can_rematch(self) -> bool:
        """``r`` asks for a rematch now: a racer after the race who has not asked yet."""
        ...

    def undo_allowed(self) -> bool:
        """The room allows undo."""
        ...

    def hints_allowed(self) -> bool:
        """The room gives hints."""
        ...

    def can_hint(self) -> bool:
        """The room gives hints and the player races."""
        ...

    def racing_now(self) -> bool:
        """The player races now (resign and smart moves work)."""
        ...

    def could_play(self) -> bool:
        """The player races or is stuck in the race: undo shows (without undo it says so)."""
        ...

    def can_watch(self) -> bool:
        """A spectator during the race with boards to look at: the switching keys work."""
        ...

    def why_not_race_again(self) -> str | None:
        """None: ``g`` races again now; else why not, in words ("" where ``g`` means nothing)."""
        ...

    def can_review(self) -> bool:
        """The race is over and its deal known: ``v`` reviews it (the racers panel's key before)."""
        ...
