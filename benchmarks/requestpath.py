"""The server's whole move path in-process: what one move costs in our own Python.

Seats two racers in each of ``--rooms`` rooms on a ``RaceServer`` (the memory store, or a private
redis-server with ``--store redis``), then plays solver lines (races.py): each move is a client
frame through ``decode_request`` and ``RaceServer.request``, that is the room's lock, the core (the
engine judges), the store's append, commit, the reply and the rival's frame. No sockets: frames
are counted instead of written (the floor pays for the same writes), so the figure is the part of a
move that is ours, without the WebSocket library, the kernel or the load benchmark's noise.

Two measures:

- CPU time per move (best of 5), steadier than the load benchmark but still moved by whatever
  else the machine runs;
- ``--instructions``: instructions per move, counted by valgrind's callgrind in two runs of
  different lengths and subtracted (start-up cancels out). The same code gives the same count to
  within about 1% however busy the machine is, so two commits can be told apart by a few percent
  (docs/performance.md compares commits this way).

    .venv/bin/python -m benchmarks.requestpath [--store redis] [--rooms 100] [--instructions]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.races import Script, scripts
from protocol.codec import decode_request, encode_request
from protocol.messages import CreateRoom, JoinRoom, MoveRequest, Ready
from server import runtime
from server.app import RaceServer
from server.config import Config
from server.shell.sessions import Session
from server.store.stores import MemoryStore, Store, open_store
from tests.fakeclock import FakeClock
from tests.redis_proc import RedisProcess

ROOT = Path(__file__).resolve().parents[1]
SHORT, LONG = 1, 6
"""Rounds of the two runs whose instruction counts are subtracted."""


class _Transport:
    def get_write_buffer_size(self) -> int:
        return 0


class _Socket:
    """What the server reads of a connection on the move path (its peer, its write buffer)."""

    remote_address = ("127.0.0.1", 1)
    request = None
    transport = _Transport()

    async def send(self, frame: bytes) -> None:
        """A resent reply (none in these races: every seq is new)."""


class Frames:
    """Stands in for ``websockets.broadcast`` in the server's fan-out: counts the frames it would write."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, connections: Iterable[object], frame: bytes) -> None:
        self.count += sum(1 for _ in connections)


class Bench:
    """A server with racing rooms, each racer playing its script one move at a time."""

    def __init__(self, store: Store, lines: list[Script]) -> None:
        self.clock = FakeClock()
        deals = iter([script.deal for script in lines])
        config = Config(countdown_ms=0, rooms_per_address=10**6, rate=1e9, burst=10**9)
        self.server = RaceServer(config, store, self.clock, deals=lambda: next(deals))
        self.lines = lines
        self.racers: list[tuple[Script, Session, _Socket]] = []
        self.played: dict[str, int] = {}
        self.frames = Frames()

    @contextlib.contextmanager
    def counting(self) -> Iterator[None]:
        """While inside: the server's fan-out counts frames instead of writing them (no sockets)."""
        fanout = self.server.fanout
        writes = fanout.broadcast
        fanout.broadcast = self.frames
        try:
            yield
        finally:
            fanout.broadcast = writes

    async def seat(self) -> None:
        srv = self.server
        for script in self.lines:
            pair = []
            for name in ("ann", "bob"):
                session = await srv.table.open(name)
                session.conn = sock = _Socket()  # type: ignore[assignment]
                srv.players[session.player] = session
                pair.append((session, sock))
            (a, sa), (b, sb) = pair
            await srv.request(sa, a, 1, CreateRoom(deal_number=script.deal, public=False))  # type: ignore[arg-type]
            await srv.request(sb, b, 1, JoinRoom(room=str(a.room)))  # type: ignore[arg-type]
            for session, sock in pair:
                await srv.request(sock, session, 2, Ready(ready=True))  # type: ignore[arg-type]
                self.racers.append((script, session, sock))
        self.clock.advance(1)  # the countdown (0 ms) ends: every room's timer starts its race
        for _ in range(10):
            await asyncio.sleep(0)
        if any(held.room.started_at is None for held in srv.rooms.values()):
            raise RuntimeError("a race did not start")

    def accepted(self) -> float:
        """Moves the server has counted as accepted (its /metrics counter)."""
        return self.server.metrics.registry.get_sample_value("seahaven_moves_accepted_total") or 0.0

    async def play(self, rounds: int) -> int:
        """Each racer plays ``rounds`` moves, in turn; the moves played (all must be accepted)."""
        accepted = self.accepted()
        moves = 0
        for _ in range(rounds):
            for script, session, sock in self.racers:
                index = self.played.get(session.player, 0)
                self.played[session.player] = index + 1
                self.clock.time += 1
                seq, request = decode_request(encode_request(MoveRequest(move=script.move(index)), index + 3))
                await self.server.request(sock, session, seq, request)  # type: ignore[arg-type]
                moves += 1
        if self.accepted() - accepted != moves:
            raise RuntimeError("a scripted move was refused: the figures would not be of the move path")
        return moves


async def run(store_kind: str, lines: list[Script], rounds: int, once: bool) -> tuple[float, float]:
    """(best CPU seconds per move of 5 runs, frames written per move); with ``once``, one run."""
    redis = RedisProcess().start() if store_kind == "redis" else None
    store = MemoryStore() if redis is None else open_store(redis.url, prefix="bench:")
    try:
        runtime.tune_gc()  # the collector as the server sets it
        bench = Bench(store, lines)
        with bench.counting():
            await bench.seat()
            await bench.play(2)
            runtime.freeze_heap()
            best = float("inf")
            frames = bench.frames.count
            for _ in range(1 if once else 5):
                began = time.process_time()
                with instrumented(once):
                    moves = await bench.play(rounds)
                best = min(best, (time.process_time() - began) / moves)
        return best, (bench.frames.count - frames) / (moves * (1 if once else 5))
    finally:
        await store.close()
        if redis is not None:
            redis.close()


@contextlib.contextmanager
def instrumented(under_callgrind: bool) -> Iterator[None]:
    """While inside, callgrind counts this process's instructions (``--once``, run by
    ``instructions`` with instrumentation off at start): the interpreter's start, the imports and
    the seating run uncounted at several times the speed, where counting them cost the test suite
    two thirds of its three minutes of valgrind. callgrind_control asks the running tool (vgdb)."""
    if not under_callgrind:
        yield
        return
    control = ["callgrind_control", "--instr=on", str(os.getpid())]
    subprocess.run(control, check=True, capture_output=True, timeout=60)
    try:
        yield
    finally:
        control[1] = "--instr=off"
        subprocess.run(control, check=True, capture_output=True, timeout=60)


def instructions(store_kind: str, rooms: int, scripts_file: Path) -> float:
    """Instructions per move: callgrind's counts of a LONG and a SHORT run, subtracted (what each
    run counts is its moves, inside ``instrumented``; the rest of the two runs cancels out)."""
    counts = []
    for rounds in (SHORT, LONG):
        argv = [sys.executable, "-m", "benchmarks.requestpath", "--store", store_kind, "--rooms", str(rooms)]
        argv += ["--rounds", str(rounds), "--once", "--scripts", str(scripts_file)]
        valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=/dev/null"]
        # A fixed hash seed: with a random one, set and dict layouts move the count by up to 4%.
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(valgrind + argv, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
        found = re.search(r"Collected : ([\d,]+)", done.stderr)
        if found is None:
            raise RuntimeError(f"callgrind printed no count:\n{done.stderr[-2000:]}")
        counts.append(int(found.group(1).replace(",", "")))
    return (counts[1] - counts[0]) / ((LONG - SHORT) * rooms * 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--store", choices=("memory", "redis"), default="memory")
    parser.add_argument("--rooms", type=int, default=100, choices=range(1, 501), metavar="1-500")
    parser.add_argument("--rounds", type=int, default=20, choices=range(1, 1001), metavar="1-1000")
    parser.add_argument("--instructions", action="store_true", help="count instructions per move (valgrind)")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)  # one run (under valgrind)
    parser.add_argument("--scripts", type=Path, help=argparse.SUPPRESS)  # the races, solved beforehand
    args = parser.parse_args(argv)
    lines = pickle.loads(args.scripts.read_bytes()) if args.scripts is not None else scripts(args.rooms)
    if args.instructions:
        if shutil.which("valgrind") is None:
            parser.error("--instructions needs valgrind on the PATH")
        with tempfile.TemporaryDirectory() as folder:
            saved = Path(folder) / "scripts.pickle"
            saved.write_bytes(pickle.dumps(lines))  # the solver would cost minutes under valgrind
            count = instructions(args.store, args.rooms, saved)
        print(f"{args.store} store, {args.rooms} rooms: {count:,.0f} instructions per move (callgrind)")
        return 0
    seconds, frames = runtime.run(run(args.store, lines, args.rounds, args.once))
    cpu = f"{seconds * 1e6:.1f} us CPU per move (best of 5)"
    print(f"{args.store} store, {args.rooms} rooms: {cpu}, {frames:.2f} frames out per move")
    return 0


if __name__ == "__main__":
    sys.exit(main())
