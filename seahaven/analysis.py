"""Where a race was won and lost: every racer's position after each of their moves, judged.

    from seahaven.analysis import analyse
    report = analyse(race)        # a race as the read API serves it (docs/api.md, "race")
    report.racers[1].points[30]   # the second racer's position after their 31st entry, judged
    report.racers[1].lost_at      # the move after which their deal could not be won, or None
    report.as_json()              # what /api/v1/races/{race_id}/analysis serves

For each racer and each entry of their ``moves`` (a move, an auto-move or an undo, in the order the
server applied them): the position after it is ``won``, ``winnable`` (the solver found a line, of
``line`` moves), ``lost`` (the solver examined every reachable position and none wins) or
``unknown`` (no answer within the budget: said, never guessed). Then what a player asks after a
race: the move that lost the deal, the moves that lengthened the line most or took longest, how
far their line followed the winner's, and the shortest known solution of the deal.

Most positions cost no search. Following the line found one position earlier keeps it (one move
shorter); a position reached from a lost one by a move is lost too (a win from it would be one
from the position before); an undo goes back to a position judged already. The budget is per
position (``max_states``, the same verdicts on every machine) with a clock on top of it
(``max_seconds`` per position, ``race_seconds`` for the whole race, after which what is left is
``unknown``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .board import Board
from .moves import CELL, FOUNDATION, Move
from .solver import solve

__all__ = ["Costly", "Line", "Point", "RaceAnalysis", "RacerAnalysis", "analyse"]

Verdict = Literal["won", "winnable", "lost", "unknown"]
Kind = Literal["lost", "longer", "slow"]
To = Literal["cell", "column", "empty-column", "foundation", "undo"]
"""Where a move went: what kind of move it was, for a player's summary of their mistakes."""

UNDO = "undo"
COSTLY_EACH = 3
"""How many of each kind of costly move are named (the longest thinks, the longest detours)."""


@dataclass(frozen=True, slots=True)
class Point:
    """The position after entry ``index`` of a racer's moves, at ``ms`` from the start;
    ``took_ms`` since the entry before (the race's start for the first); ``line``: the solver's
    line's length from there (0 when won; None unless winnable)."""

    index: int
    ms: int
    took_ms: int
    verdict: Verdict
    line: int | None


@dataclass(frozen=True, slots=True)
class Costly:
    """A move that cost the racer: ``kind`` "lost" (the deal could not be won after it), "longer"
    (the line from after it is ``by`` moves longer than the one it left) or "slow" (it took
    ``by`` ms); ``own`` counts the racer's own moves and undos up to it (the results' count)."""

    kind: Kind
    index: int
    own: int
    ms: int
    move: str
    to: To
    by: int


@dataclass(frozen=True, slots=True)
class Line:
    """A racer's line (the moves in effect at their end) against the winner's: ``common`` moves
    from the opening alike, then parted at ``parted_at`` (the entry of the racer's moves that
    left the winner's line; None when it never did)."""

    winner: str
    common: int
    parted_at: int | None
    winner_moves: int
    racer_moves: int


@dataclass(frozen=True, slots=True)
class RacerAnalysis:
    player: str
    opening: Point
    """The deal's opening position (index -1), before the racer's first move."""
    points: tuple[Point, ...]
    """One per entry of the racer's moves, in order."""
    lost_at: Costly | None
    """The move after which the racer's board could not be won and never could again (None: it
    stayed winnable, or the move is not known: an ``unknown`` stands between)."""
    costly: tuple[Costly, ...]
    against_winner: Line | None
    """None for the winner, or when nobody finished."""


@dataclass(frozen=True, slots=True)
class RaceAnalysis:
    race_id: str
    preset: str
    deal: int
    solution: int | None
    """The solver's line from the opening (its length), None if it found none in the budget."""
    shortest: int | None
    """The shortest winning line known: the solver's, or a finisher's moves in effect at the end."""
    shortest_by: str | None
    """Who played it: a racer's id, or "solver"."""
    max_states: int
    racers: tuple[RacerAnalysis, ...]
    searched: int = field(default=0, compare=False)
    """Positions the solver was run on (the others followed from a judged one)."""

    def as_json(self) -> dict[str, Any]:
        """The document the read API serves (docs/api.md, "analysis")."""
        return {
            "race_id": self.race_id,
            "preset": self.preset,
            "deal": self.deal,
            "solution": self.solution,
            "shortest": {"moves": self.shortest, "by": self.shortest_by} if self.shortest is not None else None,
            "max_states": self.max_states,
            "racers": [_racer_json(r) for r in self.racers],
        }


def analyse(
    race: Mapping[str, Any],
    *,
    max_states: int = 100_000,
    max_seconds: float = 2.0,
    race_seconds: float = 60.0,
) -> RaceAnalysis:
    """The analysis of ``race`` (the read API's race document: ``race_id``, ``preset``, ``deal``,
    ``racers`` in place order with ``player``, ``moves`` and ``auto``; names are not kept, so a
    deleted account's name is nowhere in it).
    ValueError when a racer's moves do not replay on the deal."""
    opening = Board.deal(race["preset"], int(race["deal"]))
    judge = _Judge(max_states, max_seconds, time.monotonic() + race_seconds)
    first = judge.at(opening)
    runs = [_Run.replay(opening, racer) for racer in race["racers"]]
    winner = next((run for run in runs if run.won), None)
    racers = tuple(_racer(run, first, judge.walk(opening, first, run), winner) for run in runs)
    known = [(len(first.line), "solver")] if first.line is not None else []
    known += [(len(run.line), run.player) for run in runs if run.won]
    shortest, by = min(known, key=lambda k: k[0]) if known else (None, None)
    return RaceAnalysis(
        race_id=str(race.get("race_id", "")),
        preset=str(race["preset"]),
        deal=int(race["deal"]),
        solution=None if first.line is None else len(first.line),
        shortest=shortest,
        shortest_by=by,
        max_states=max_states,
        racers=racers,
        searched=judge.searched,
    )


@dataclass(frozen=True, slots=True)
class _Entry:
    ms: int
    text: str
    move: Move
    """The move played, or (an undo) the one taken back."""
    undo: bool
    auto: bool
    to: To


@dataclass(frozen=True, slots=True)
class _Run:
    """A racer's moves, replayed once on the deal."""

    player: str
    entries: tuple[_Entry, ...]
    won: bool
    line: tuple[Move, ...]
    """The moves in effect at the end."""
    pushed_by: tuple[int, ...]
    """For each move of ``line``, the entry that played it."""

    @classmethod
    def replay(cls, opening: Board, racer: Mapping[str, Any]) -> _Run:
        board = opening.copy()
        served = set(racer.get("auto") or ())
        entries: list[_Entry] = []
        by: list[int] = []
        for index, (ms, text) in enumerate(racer["moves"]):
            try:
                to: To = "undo"
                if text == UNDO:
                    move, undo = board.pop(), True
                    by.pop()
                else:
                    move, undo = Move.parse(text), False
                    to = _to(board, move)
                    board.push(move)
                    by.append(index)
            except (ValueError, IndexError) as exc:
                raise ValueError(f"{racer['player']}: entry {index} ({text}) does not replay: {exc}") from None
            entries.append(_Entry(int(ms), str(text), move, undo, index in served, to))
        return cls(str(racer["player"]), tuple(entries), board.is_won(), tuple(board.move_stack), tuple(by))


def _to(board: Board, move: Move) -> To:
    if move.dst_area == CELL:
        return "cell"
    if move.dst_area == FOUNDATION:
        return "foundation"
    return "column" if board.columns[move.dst] else "empty-column"


@dataclass(frozen=True, slots=True)
class _Known:
    verdict: Verdict
    line: tuple[Move, ...] | None = None
    """A winning line from the position (empty when won); None unless won or winnable."""


class _Judge:
    """Verdicts on positions, each searched at most once and only when no earlier one decides it."""

    def __init__(self, max_states: int, max_seconds: float, deadline: float) -> None:
        self.max_states = max_states
        self.max_seconds = max_seconds
        self.deadline = deadline
        self.seen: dict[tuple[object, ...], _Known] = {}
        self.searched = 0

    def at(self, board: Board) -> _Known:
        known = self.seen.get(board.position())
        if known is None:
            known = self.seen[board.position()] = self._search(board)
        return known

    def walk(self, opening: Board, first: _Known, run: _Run) -> list[_Known]:
        """The verdict after each of ``run``'s entries."""
        board, before = opening.copy(stack=False), first
        verdicts: list[_Known] = []
        for entry in run.entries:
            if entry.undo:
                board.pop()
            else:
                board.push_legal(entry.move)  # replayed legally already (_Run.replay)
            key = board.position()
            known = self.seen.get(key)
            if known is None:
                known = None if entry.undo else self._follow(before, entry.move, board)
                if known is None:
                    known = self._search(board)
                self.seen[key] = known
            verdicts.append(known)
            before = known
        return verdicts

    @staticmethod
    def _follow(before: _Known, move: Move, board: Board) -> _Known | None:
        """What the verdict before ``move`` decides of the position after it, if anything."""
        if before.verdict == "lost":
            return _Known("lost")  # a win from here would be one from there
        if before.line and before.line[0] == move:
            return _Known("won", ()) if board.is_won() else _Known("winnable", before.line[1:])
        return None

    def _search(self, board: Board) -> _Known:
        if board.is_won():
            return _Known("won", ())
        left = self.deadline - time.monotonic()
        if left <= 0:
            return _Known("unknown")
        self.searched += 1
        found = solve(board, max_states=self.max_states, max_seconds=min(self.max_seconds, left))
        if found.status == "solved":
            return _Known("winnable", found.moves)
        return _Known("lost" if found.status == "unsolvable" else "unknown")


def _point(index: int, ms: int, took_ms: int, known: _Known) -> Point:
    return Point(index, ms, took_ms, known.verdict, None if known.line is None else len(known.line))


def _racer(run: _Run, first: _Known, verdicts: Sequence[_Known], winner: _Run | None) -> RacerAnalysis:
    points: list[Point] = []
    previous = 0
    for index, (entry, known) in enumerate(zip(run.entries, verdicts, strict=True)):
        points.append(_point(index, entry.ms, entry.ms - previous, known))
        previous = entry.ms
    opening = _point(-1, 0, 0, first)
    own = _own_counts(run)

    def costly(kind: Kind, index: int, by: int) -> Costly:
        entry = run.entries[index]
        text = entry.text if not entry.undo else UNDO
        return Costly(kind, index, own[index], entry.ms, text, entry.to, by)

    lost = _lost_at(run, opening, points)
    longer: list[tuple[int, int]] = []
    for index, point in enumerate(points):
        entry = run.entries[index]
        before = points[index - 1] if index else opening
        if entry.auto or entry.undo or point.line is None or before.line is None:
            continue
        detour = point.line - (before.line - 1)
        if detour > 0:
            longer.append((detour, index))
    slow = [(p.took_ms, p.index) for p in points if not run.entries[p.index].auto and p.took_ms > 0]
    named = [costly("lost", lost, 0)] if lost is not None else []
    named += [costly("longer", i, by) for by, i in sorted(longer, key=lambda c: (-c[0], c[1]))[:COSTLY_EACH]]
    named += [costly("slow", i, by) for by, i in sorted(slow, key=lambda c: (-c[0], c[1]))[:COSTLY_EACH]]
    return RacerAnalysis(
        player=run.player,
        opening=opening,
        points=tuple(points),
        lost_at=named[0] if lost is not None else None,
        costly=tuple(named),
        against_winner=None if winner is None or winner is run else _against(run, winner),
    )


def _own_counts(run: _Run) -> list[int]:
    """For each entry, the racer's own moves and undos up to and including it."""
    counts, own = [], 0
    for entry in run.entries:
        own += not entry.auto
        counts.append(own)
    return counts


def _lost_at(run: _Run, opening: Point, points: Sequence[Point]) -> int | None:
    """The entry after which the board was lost for good, if the verdicts tell it exactly: the
    last one whose position was lost just after a winnable one, and nothing winnable since. An
    auto-move is played for the racer's own move before it, which gets the blame."""
    if not points or points[-1].verdict != "lost":
        return None
    index = len(points) - 1
    while index > 0 and points[index - 1].verdict == "lost":
        index -= 1
    before = points[index - 1] if index else opening
    if before.verdict != "winnable":
        return None  # an unknown stands between: which move lost it is not known
    while index > 0 and run.entries[index].auto:
        index -= 1
    return index


def _against(run: _Run, winner: _Run) -> Line:
    common = 0
    for mine, theirs in zip(run.line, winner.line, strict=False):
        if mine != theirs:
            break
        common += 1
    parted = run.pushed_by[common] if common < len(run.line) else None
    return Line(winner.player, common, parted, len(winner.line), len(run.line))


def _racer_json(racer: RacerAnalysis) -> dict[str, Any]:
    def point(p: Point) -> dict[str, Any]:
        return {"index": p.index, "ms": p.ms, "took_ms": p.took_ms, "verdict": p.verdict, "line": p.line}

    def cost(c: Costly) -> dict[str, Any]:
        return {"kind": c.kind, "index": c.index, "own": c.own, "ms": c.ms, "move": c.move, "to": c.to, "by": c.by}

    line = racer.against_winner
    return {
        "player": racer.player,
        "opening": point(racer.opening),
        "points": [point(p) for p in racer.points],
        "lost_at": None if racer.lost_at is None else cost(racer.lost_at),
        "costly": [cost(c) for c in racer.costly],
        "against_winner": None
        if line is None
        else {
            "winner": line.winner,
            "common": line.common,
            "parted_at": line.parted_at,
            "winner_moves": line.winner_moves,
            "racer_moves": line.racer_moves,
        },
    }
