"""A spectator's copy of every racer's board, kept from what the server sends.

The boards start from the opening position (``started``) or from a room frame's ``watching``
(each racer's moves in effect, and how many actions they stand for); each ``progress.move``
plays one more (with the auto-moves the server played after it). A board that cannot follow (a
gap in the actions, a move that does not apply, cards home that disagree with the server) is
marked out of step and waits for the next room frame instead of drawing a wrong position.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence

from protocol.messages import Progress, Racer, Watched
from seahaven import Board

log = logging.getLogger("seahaven.client")


def played(progress: Progress) -> list[str]:
    """What a spectator's ``progress`` frame plays on that racer's board, in order: the move (or
    ``undone`` undos) and the auto-moves after it."""
    if progress.move == "undo":
        return ["undo"] * progress.undone
    return ([progress.move] if progress.move is not None else []) + list(progress.auto)


def replay(opening: Board, history: Iterable[str]) -> Board | None:
    """``opening`` with ``history`` played on a copy; None if a move does not apply."""
    board = opening.copy()
    for text in history:
        try:
            board.push_text(text)
        except ValueError as error:
            log.warning("cannot replay %s on a watched board: %s", text, error)
            return None
    return board


class Boards:
    """Every racer's board by player id, which one the spectator looks at, and which are stale."""

    def __init__(self) -> None:
        self.boards: dict[str, Board] = {}
        self.actions: dict[str, int] = {}
        """How many of each racer's actions (moves and undos: ``Racer.moves``) their board has."""
        self.stale: set[str] = set()
        """Racers whose board is out of step with the server until the next room frame."""
        self.watched: str | None = None

    def clear(self) -> None:
        self.boards.clear()
        self.actions.clear()
        self.stale.clear()

    def reset(self, opening: Board, watching: Iterable[Watched], racers: Mapping[str, Racer]) -> None:
        """Rebuild every board from the opening position and each racer's moves in effect."""
        self.clear()
        for w in watching:
            board = replay(opening, w.history)
            racer = racers.get(w.player)
            self.boards[w.player] = board if board is not None else opening.copy()
            self.actions[w.player] = w.actions
            # Caught up with the racers panel: its cards home must be the board's. (With auto-move
            # ``Racer.moves`` counts fewer than ``actions``: the board is then checked frame by frame.)
            caught_up = racer is not None and w.actions == racer.moves
            if board is None or (caught_up and racer is not None and board.progress != racer.progress):
                self.stale.add(w.player)
        if self.watched not in self.boards:
            self.watched = self.leader(racers)

    def add(self, player: str, opening: Board, racers: Mapping[str, Racer] | None = None) -> None:
        """A racer whose moves start now (the spectator missed the start): the opening position.
        With nobody watched yet, the leader is (``racers``: as the server says), not whoever
        moved first."""
        self.boards[player] = opening
        self.actions[player] = 0
        if self.watched is None:
            self.watched = self.leader(racers or {}) or player

    def play(self, player: str, moves: Sequence[str], actions: int, progress: int) -> bool:
        """A racer's move (or ``undo``), with the auto-moves after it, reached the spectator:
        False if that board is (now) out of step. ``actions`` counts the racer's moves and undos
        so far: one the board already has (it may arrive just after a room frame) is not played
        twice."""
        board = self.boards.get(player)
        if board is None or player in self.stale:
            return False
        done = self.actions.get(player, 0)
        if actions <= done:
            return True
        self.actions[player] = actions
        if actions > done + len(moves):
            log.warning("%s's board missed %d actions", player, actions - done - len(moves))
            self.stale.add(player)
            return False
        try:
            for move in moves:
                if move == "undo":
                    board.pop()
                else:
                    board.push_text(move)
        except (ValueError, IndexError) as error:
            move = ", ".join(moves)
            log.warning("%s's board is out of step (%s): %s", player, move, error)
            self.stale.add(player)
            return False
        if board.progress != progress:
            log.warning("%s's board has %d cards home, the server says %d", player, board.progress, progress)
            self.stale.add(player)
            return False
        return True

    def order(self, seats: Iterable[str]) -> list[str]:
        """The racers whose boards we have, in seat order: what ``[`` / ``]`` go through."""
        seated = [p for p in seats if p in self.boards]
        return seated + [p for p in self.boards if p not in seated]

    def leader(self, racers: Mapping[str, Racer]) -> str | None:
        """The racer with the most cards home as the server says (the racers panel), else as
        their board here has it (a board may lag behind: the spectator delay); the first in
        seat order on a tie."""

        def home(player: str) -> int:
            racer = racers.get(player)
            return max(racer.progress, self.boards[player].progress) if racer else self.boards[player].progress

        return max(self.order(racers), key=home, default=None)

    def step(self, by: int, seats: Iterable[str]) -> str | None:
        """Watch the next (``by`` 1) or previous (-1) racer in seat order."""
        order = self.order(seats)
        if not order:
            return None
        at = order.index(self.watched) if self.watched in order else 0
        self.watched = order[(at + by) % len(order)]
        return self.watched

    def watched_board(self) -> Board | None:
        return self.boards.get(self.watched) if self.watched is not None else None
