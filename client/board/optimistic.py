"""Optimistic play: moves and undos apply to the local board at once and wait for a verdict.

Every action gets a sequence number (1, 2, 3... per board). The server's replies come back
in order; the network layer maps each reply to the oldest unanswered sequence number and
calls ``confirm`` or ``reject``. Rejecting an action rolls it back together with every
later action still waiting, since those were played on top of it.

With auto-move, a move brings the auto-moves after it (``Board.auto_move``, the server's rule:
the server plays the same when the move asks it to, and says which in ``moved.auto``), and an
undo takes the move back with them: one action each, as the server counts them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from seahaven import Board, Move


@dataclass(frozen=True, slots=True)
class Pending:
    """An action applied locally that the server has not answered yet."""

    seq: int
    move: Move
    undo: bool = False
    """True when the action took ``move`` back rather than playing it."""
    auto: tuple[Move, ...] = ()
    """The auto-moves played after ``move`` (an undo: taken back with it), in play order."""


class OptimisticBoard:
    """A board plus the actions on it that still wait for the server's verdict."""

    def __init__(self, board: Board, auto_played: Iterable[int] = ()) -> None:
        self.board = board
        self._pending: list[Pending] = []
        self._next_seq = 1
        self._groups = _groups(board, auto_played)
        """For each own move in effect, how many auto-moves came after it (what an undo takes)."""

    @property
    def pending(self) -> tuple[Pending, ...]:
        return tuple(self._pending)

    @property
    def can_undo(self) -> bool:
        """A move of the player's own is on the board (the opening's auto-moves are nobody's)."""
        return bool(self._groups)

    def reset(self, board: Board, auto_played: Iterable[int] = ()) -> None:
        """Start over on a new (or resynchronised) position; nothing is pending. ``auto_played``:
        the indices in its move stack of the moves auto-move played (``room.auto_played``)."""
        self.board = board
        self._pending.clear()
        self._groups = _groups(board, auto_played)

    def play(self, move: Move, *, auto: bool = False) -> int:
        """Play ``move`` now (IllegalMoveError if the engine refuses), and with ``auto`` the
        auto-moves after it; its sequence number."""
        self.board.push(move)
        played: list[Move] = []
        while auto and (next_move := self.board.auto_move()) is not None:
            self.board.push(next_move)
            played.append(next_move)
        self._groups.append(len(played))
        return self._record(move, undo=False, auto=tuple(played))

    def play_auto(self, moves: Iterable[Move]) -> int:
        """Auto-moves the server played with no move of the player's (the opening's), final at
        once; how many (IllegalMoveError if one does not apply: the board is out of step)."""
        played = 0
        for move in moves:
            self.board.push(move)
            played += 1
        return played

    def undo(self) -> tuple[int, Move]:
        """Take back the last own move and its auto-moves now (IndexError if none); the sequence
        number and the move."""
        if not self._groups:
            raise IndexError("no move of the player's to take back")
        taken = [self.board.pop() for _ in range(self._groups.pop())]
        move = self.board.pop()
        return self._record(move, undo=True, auto=tuple(reversed(taken))), move

    def take_servers_auto(self, seq: int, auto: Sequence[Move]) -> list[Pending]:
        """The server played ``auto`` after pending move ``seq``, not what was played here: the
        server's are the board's (it is the authority). The later pending actions, played on the
        other board, are rolled back: returned, newest first."""
        for i, action in enumerate(self._pending):
            if action.seq == seq and not action.undo:
                dropped = self.reject(self._pending[i + 1].seq) if i + 1 < len(self._pending) else []
                for _ in action.auto:
                    self.board.pop()
                for move in auto:
                    self.board.push(move)
                self._groups[-1] = len(auto)
                self._pending[i] = Pending(action.seq, action.move, False, tuple(auto))
                return dropped
        return []

    def auto_of(self, seq: int) -> tuple[Move, ...] | None:
        """The auto-moves pending action ``seq`` played or took back (None if not pending)."""
        return next((p.auto for p in self._pending if p.seq == seq), None)

    def _record(self, move: Move, *, undo: bool, auto: tuple[Move, ...]) -> int:
        seq = self._next_seq
        self._next_seq += 1
        self._pending.append(Pending(seq, move, undo, auto))
        return seq

    def confirm(self, seq: int) -> bool:
        """The server accepted ``seq`` (and so everything before it). False if unknown."""
        for i, p in enumerate(self._pending):
            if p.seq == seq:
                del self._pending[: i + 1]
                return True
        return False

    def reject(self, seq: int) -> list[Pending]:
        """Roll back ``seq`` and every later pending action; the actions undone, newest first.

        An unknown ``seq`` (already confirmed or rolled back) changes nothing.
        """
        for i, p in enumerate(self._pending):
            if p.seq == seq:
                dropped = self._pending[i:][::-1]
                del self._pending[i:]
                for action in dropped:
                    if action.undo:
                        self.board.push(action.move)
                        for move in action.auto:
                            self.board.push(move)
                        self._groups.append(len(action.auto))
                    else:
                        for _ in range(1 + len(action.auto)):
                            self.board.pop()
                        self._groups.pop()
                return dropped
        return []


def _groups(board: Board, auto_played: Iterable[int]) -> list[int]:
    """For each own move on ``board``'s stack, the auto-moves right after it, from the indices of
    the auto-moves (before the first own move: the opening's, which belong to no move)."""
    auto = set(auto_played)
    groups: list[int] = []
    for index in range(len(board.move_stack)):
        if index not in auto:
            groups.append(0)
        elif groups:
            groups[-1] += 1
    return groups
