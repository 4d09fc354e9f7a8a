"""Optimistic play: moves and undos apply to the local board at once and wait for a verdict.

Every action gets a sequence number (1, 2, 3... per board). The server's replies come back
in order; the network layer maps each reply to the oldest unanswered sequence number and
calls ``confirm`` or ``reject``. Rejecting an action rolls it back together with every
later action still waiting, since those were played on top of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from seahaven import Board, Move


@dataclass(frozen=True, slots=True)
class Pending:
    """An action applied locally that the server has not answered yet."""

    seq: int
    move: Move
    undo: bool = False
    """True when the action took ``move`` back rather than playing it."""


class OptimisticBoard:
    """A board plus the actions on it that still wait for the server's verdict."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self._pending: list[Pending] = []
        self._next_seq = 1

    @property
    def pending(self) -> tuple[Pending, ...]:
        return tuple(self._pending)

    def reset(self, board: Board) -> None:
        """Start over on a new (or resynchronised) position; nothing is pending."""
        self.board = board
        self._pending.clear()

    def play(self, move: Move) -> int:
        """Play ``move`` now (IllegalMoveError if the engine refuses); its sequence number."""
        self.board.push(move)
        return self._record(move, undo=False)

    def undo(self) -> tuple[int, Move]:
        """Take back the last move now (IndexError if none); the sequence number and the move."""
        move = self.board.pop()
        return self._record(move, undo=True), move

    def _record(self, move: Move, *, undo: bool) -> int:
        seq = self._next_seq
        self._next_seq += 1
        self._pending.append(Pending(seq, move, undo))
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
                    else:
                        self.board.pop()
                return dropped
        return []
