"""A spectator's side of a room: every racer's board followed move by move, one of them shown
(``[`` / ``]`` switch), how late the moves come, and the room asked again when a board falls out
of step.

``Watching`` is the race controller's part for it (client/race/controller.py: ``RaceController``
derives from it); the boards themselves are ``Boards`` (client/race/spectating.py). What it uses of
the controller is declared at the top of the class.
"""

from __future__ import annotations

from i18n import _
from protocol.enums import Phase
from protocol.messages import JoinRoom, Leave, Progress
from seahaven import Board

from ..net.outbox import Outbox
from ..screens.race_screen import RaceScreen
from .room_model import RoomModel
from .spectating import Boards, played


class Watching:
    """The boards a spectator follows, and the one on screen."""

    model: RoomModel
    spectate: Boards
    screen: RaceScreen
    outbox: Outbox
    spectator_delay_s: int | None
    """How late a spectator sees the moves (``_measure_lag``; None: not measured yet)."""
    _resyncing: bool
    _resynced: set[int]
    """The races whose spectator boards were resynced (once a race)."""

    # -- what the controller provides -------------------------------------------------

    @property
    def code(self) -> str:
        raise NotImplementedError

    def can_watch(self) -> bool:
        raise NotImplementedError

    def _title(self) -> str:
        raise NotImplementedError

    def _render(self) -> None:
        raise NotImplementedError

    # -- spectating -------------------------------------------------------------------

    def _watch_move(self, progress: Progress) -> None:
        spectate, model = self.spectate, self.model
        if progress.player not in spectate.boards and model.deal is not None and model.phase == Phase.RACING:
            spectate.add(progress.player, Board.from_code(model.deal), model.racers)  # missed the start: none yet
        if spectate.play(progress.player, played(progress), progress.actions or progress.moves, progress.progress):
            if progress.player == spectate.watched:
                self._show_watched()
        elif not self._resyncing and model.race_number not in self._resynced:
            # Once a race: a server that keeps sending what cannot be followed is not asked again
            # and again; the board stays covered as out of step until the next room frame.
            self._resynced.add(model.race_number)
            self._resync()

    def _measure_lag(self, elapsed_ms: int) -> None:
        """How late a spectator sees the moves: the race time now, less the move's race time
        (the server does not say its spectator delay; this is what it comes to)."""
        if self.model.started_at is None:
            return
        lag = round((self.model.clock.now() - self.model.started_at - elapsed_ms) / 1000)
        self.spectator_delay_s = max(0, lag)  # the screen gets it with the next _render

    def _resync(self) -> None:
        """A watched board fell out of step: ask for the room again (leave, then watch again);
        the room frame rebuilds every board."""
        self._resyncing = True
        self.outbox.put(None, Leave())
        self.outbox.put(None, JoinRoom(room=self.code, spectate=True))

    def _show_watched(self) -> None:
        board = self.spectate.watched_board()
        if board is not None and self.model.spectating:
            racer = self.model.racers.get(self.spectate.watched or "")
            self.screen.show_board(board.copy(), title=self._title(), actions=racer.moves if racer else None)

    def watch(self, step: int) -> None:
        """Look at the next (``step`` 1) or previous (-1) racer's board, in seat order."""
        if not self.can_watch():
            self.screen.flash(_("Switching boards is for spectators during a race"), "error")
            return
        self.spectate.step(step, self.model.racers)
        self._show_watched()
        self._render()
        self._flash_watching()

    def _flash_watching(self, prefix: str | None = None) -> None:
        watched = self.spectate.watched
        racer = self.model.racers.get(watched) if watched is not None else None
        if racer is not None:
            # The boards lag by the server's spectator delay: say so, or a switch looks stale.
            late = " (" + _("{n} s late").format(n=self.spectator_delay_s) + ")" if self.spectator_delay_s else ""
            said = _("{prefix}: {name}'s board{late} · [ and ] switch racer · only racers move").format(
                prefix=_("Spectating") if prefix is None else prefix, name=racer.name, late=late
            )
            self.screen.flash(said)
