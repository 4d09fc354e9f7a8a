"""Game records: a deal code and the moves played; replay rebuilds the position."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from .board import Board
from .codes import decode
from .moves import Move


@dataclass(frozen=True)
class GameRecord:
    """What happened in one game, enough to reproduce it exactly."""

    code: str
    moves: tuple[Move, ...] = field(default=())

    def replay(self) -> Board:
        """The final position; IllegalMoveError names the first move that does not apply."""
        board = Board.from_code(self.code)
        for move in self.moves:
            board.push(move)
        return board

    def to_json(self) -> str:
        preset, number = decode(self.code)
        return json.dumps(
            {"code": self.code, "preset": preset, "deal": number, "moves": [str(m) for m in self.moves]},
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Read the JSON form; ValueError when a field is missing or malformed."""
        try:
            data = json.loads(text)
            code = data["code"]
            moves = data["moves"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ValueError(f"not a game record: {exc}") from None
        if not isinstance(code, str) or not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise ValueError("a game record has a string 'code' and a list of move strings 'moves'")
        decode(code)
        return cls(code, tuple(Move.parse(m) for m in moves))

    @classmethod
    def of(cls, board: Board, code: str) -> GameRecord:
        """The record of the moves played on ``board`` since the deal ``code``."""
        return cls(code, tuple(board.move_stack))
