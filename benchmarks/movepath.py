"""CPU time of one move through the core and the codec, in-process: no sockets, no store.

Seats racers in a few rooms, then plays solver lines (races.py) through what the server does
per move besides I/O: ``decode_request`` of the client frame, ``RoomCore.move`` (judge, apply,
render the frames, encode them), ``pack`` of the events and ``commit``. Prints the best of 5
CPU times per move, for the benchmark's live spectators (``--spectator-delay 0``) and for the
default 10 s delay with nobody watching; and what a move asking for auto-move (``move.auto``) adds
to that when no auto-move is due (most moves): the engine's look-up after the move (played, asked,
taken back, as ``Room.move`` does). Then what a move's abort costs (the store refused it:
another node appended first) in a room with a long log, next to a replay of that log. Steadier
than the load benchmark on a shared machine: it compares commits of the core and protocol.

    .venv/bin/python -m benchmarks.movepath
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.races import Script, scripts
from protocol.codec import decode_request, encode_request
from protocol.messages import MoveRequest
from seahaven import Move
from server.rooms.core import RoomCore
from server.rooms.events import pack
from server.rooms.room import Room
from server.rooms.settings import Settings

PLAYERS = ("ann", "bob")


class Rooms:
    """Racing rooms, two racers each, that play their scripts on a fake clock (1 ms a move)."""

    def __init__(self, lines: list[Script], delay_ms: int) -> None:
        self.now = 1_000
        self.played = 0
        self.rooms: list[tuple[RoomCore, Script]] = []
        for i, script in enumerate(lines):
            settings = Settings("seahaven", script.deal, countdown_ms=0, spectator_delay_ms=delay_ms)
            core, created = RoomCore.create(f"ROOM{i:02}", settings, self.now)
            core.commit(created, None)
            for player in PLAYERS:
                core.commit(core.join(player, player, False, self.now), None)
            for player in PLAYERS:
                core.commit(core.ready(player, True, self.now), None)
            core.commit(core.tick(self.now + 1), None)
            self.rooms.append((core, script))

    def play(self, rounds: int) -> int:
        """Each racer of each room plays ``rounds`` moves; the number of moves played."""
        for _ in range(rounds):
            for core, script in self.rooms:
                for player in PLAYERS:
                    self.now += 1
                    _, request = decode_request(encode_request(MoveRequest(move=script.move(self.played)), 1))
                    assert isinstance(request, MoveRequest)
                    outcome = core.move(player, request.move, self.now)
                    for event in outcome.events:
                        pack(event)
                    core.commit(outcome, None)
            self.played += 1
        return rounds * len(self.rooms) * len(PLAYERS)


def per_move(delay_ms: int, rooms: int, rounds: int) -> float:
    """Best of 5: CPU seconds per move."""
    bench = Rooms(scripts(rooms), delay_ms)
    bench.play(5)
    best = float("inf")
    for _ in range(5):
        began = time.process_time()
        moves = bench.play(rounds)
        best = min(best, (time.process_time() - began) / moves)
    return best


def auto_lookup(rooms: int, rounds: int) -> float:
    """Best of 5: CPU seconds of the look-up a move asking for auto-move adds (the move played,
    ``Board.auto_move`` asked once, the move taken back), on the scripts' loop positions."""
    bench = Rooms(scripts(rooms), 10_000)
    bench.play(max(len(s.opening) for _, s in bench.rooms) + 4)
    positions = []
    for core, script in bench.rooms:
        for player in PLAYERS:
            board = core.room.seats[player].board
            assert board is not None
            positions.append((board, Move.parse(script.move(bench.played))))
    best = float("inf")
    for _ in range(5):
        began = time.process_time()
        for _ in range(rounds):
            for board, move in positions:
                board.push_legal(move)
                board.auto_move()
                board.pop()
        best = min(best, (time.process_time() - began) / (rounds * len(positions)))
    return best


def abort_cost(events: int, aborts: int = 50) -> tuple[int, float, float]:
    """A racing room's log of about ``events`` events: its length, and best of 5, CPU seconds,
    one ``Room.replay`` of it (what an abort cost when it replayed the log) and one ``abort`` of
    a move there."""
    bench = Rooms(scripts(1), 10_000)
    bench.play(events // len(PLAYERS))
    ((core, script),) = bench.rooms
    replay = aborted = float("inf")
    for _ in range(5):
        began = time.process_time()
        Room.replay(core.log)
        replay = min(replay, time.process_time() - began)
        spent = 0.0
        for _ in range(aborts):
            core.move("ann", script.move(bench.played), bench.now + 1)
            began = time.process_time()
            core.abort()
            spent += time.process_time() - began
        aborted = min(aborted, spent / aborts)
    return len(core.log), replay, aborted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=4, choices=range(1, 17), metavar="1-16")
    parser.add_argument("--rounds", type=int, default=200, choices=range(1, 2001), metavar="1-2000")
    parser.add_argument(
        "--log",
        type=int,
        default=2000,
        choices=range(10, 9001),
        metavar="10-9000",
        help="events in the log of the room where moves are aborted",
    )
    args = parser.parse_args(argv)
    for label, delay in (("live spectators (delay 0)", 0), ("10 s spectator delay, nobody watching", 10_000)):
        print(f"{label:<40} {per_move(delay, args.rooms, args.rounds) * 1e6:6.1f} us CPU per move (best of 5)")
    lookup = auto_lookup(args.rooms, args.rounds)
    print(f"{'+ asking for auto-move (its look-up)':<40} {lookup * 1e6:6.1f} us CPU per move (best of 5)")
    length, replay, aborted = abort_cost(args.log)
    print(f"{f'replay of a {length}-event log':<40} {replay * 1e6:6.1f} us CPU (best of 5)")
    print(f"{'abort of a move in that room':<40} {aborted * 1e6:6.1f} us CPU per abort (best of 5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
