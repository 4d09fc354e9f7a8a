"""Load benchmark: the race server against the bare-WebSocket floor, under the same scripted races.

For each target it starts the server side as real processes pinned to one CPU (``--server-cpu``),
while this process, the load generator, keeps to another (``--gen-cpu``):

- ``floor``: a bare ``websockets`` server that acks a move and forwards it to the rival (floor.py);
- ``memory``: ``seahaven-server`` with its in-memory store;
- ``redis``: ``seahaven-server`` on a private redis-server (free loopback port, no persistence);
- ``aof``: the same with ``appendonly yes`` (fsync every second, Redis's default);
- ``two-nodes``: two ``seahaven-server`` processes on one Redis, each room's racers on different
  nodes. NOT MEANINGFUL YET: the server does not share live rooms between processes until the
  scale-out work lands, so these rooms do not start (the run says so and goes on).

Then it opens the connections (the client offers permessage-deflate, as browsers do, unless
``--no-deflate``), measures the server's RSS growth per idle connection, seats two racers per room
(hello, create_room / join_room, ready, wait for started: docs/protocol.md), and offers legal moves
from solver lines (races.py) at ``--rate`` moves/s over all racers. It prints p50/p90/p99/max of
move -> ack and move -> rival, accepted moves/s, server CPU per accepted move (server processes and
their redis-server, from /proc/PID/stat), and each figure's ratio to the floor of the same round.
Rounds alternate the order (floor first, then floor last), so ratios compare runs minutes apart.
The full run also sweeps rates on ``--sweep`` targets for the highest rate whose move -> rival p99
stays under 50 ms with at least 95% of the offered moves accepted.

    .venv/bin/python -m benchmarks.load --quick          # about a minute
    .venv/bin/python -m benchmarks.load                  # about ten minutes
    .venv/bin/python -m benchmarks.load --profile prof/  # py-spy on each server during the load

Loopback only, bounded in connections, rate and time; every child is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import stacks
from benchmarks.loadgen import Generator, Window
from benchmarks.procs import Listener, cpu_seconds, floor_server, on_cpus, race_server, rss_bytes
from benchmarks.races import Script, scripts
from tests.redis_proc import RedisProcess

TARGETS = ("floor", "memory", "redis", "aof", "two-nodes")
OURS = TARGETS[1:]
SLO = 0.050
"""The sweep's bar: move -> rival p99 under 50 ms..."""
SLO_ACCEPTED = 0.95
"""...with at least this share of the offered moves accepted."""
SWEEP_STEP = 1.5
MAX_CONNECTIONS = 4000
MAX_RATE = 50_000.0
MAX_SECONDS = 300.0
DEALS = 16


@dataclass
class Phase:
    """The figures of one load window."""

    offered: float
    seconds: float
    window: Window
    server_cpu: float
    gen_cpu: float

    @property
    def accepted(self) -> float:
        return len(self.window.ack) / self.seconds

    def ack(self, q: float) -> float:
        return percentile(self.window.ack, self.window.sent, q)

    def rival(self, q: float) -> float:
        return percentile(self.window.rival, self.window.sent_with_rival, q)

    @property
    def cpu_per_move(self) -> float:
        moves = len(self.window.ack)
        return self.server_cpu / moves if moves else math.inf

    @property
    def passes(self) -> bool:
        return self.rival(0.99) < SLO and self.accepted >= SLO_ACCEPTED * self.offered


@dataclass
class Run:
    """One target, one round."""

    target: str
    round: int
    rss_per_conn: float = math.nan
    redis_rss_per_conn: float = math.nan
    main: Phase | None = None
    sweep: list[Phase] = field(default_factory=list)
    failure: str = ""

    @property
    def best_rate(self) -> float:
        passing = [p.offered for p in self.sweep if p.passes]
        return max(passing) if passing else math.nan


def percentile(samples: list[float], expected: int, q: float) -> float:
    """Nearest-rank percentile of ``samples``, counting the ``expected - len(samples)`` missing
    answers as infinitely late."""
    n = max(expected, len(samples))
    if n == 0:
        return math.nan
    ordered = sorted(samples)
    rank = max(1, math.ceil(q * n))
    return ordered[rank - 1] if rank <= len(ordered) else math.inf


# -- starting a target ----------------------------------------------------------------------------


@dataclass
class Side:
    """The processes of one target: listeners (the WebSocket servers) and maybe a redis-server."""

    listeners: list[Listener]
    redis: RedisProcess | None = None

    @property
    def urls(self) -> list[str]:
        return [listener.url for listener in self.listeners]

    @property
    def pids(self) -> list[int]:
        return [listener.pid for listener in self.listeners] + self.redis_pids

    @property
    def redis_pids(self) -> list[int]:
        proc = self.redis._proc if self.redis is not None else None
        return [proc.pid] if proc is not None else []


@contextlib.contextmanager
def started(target: str, cpus: set[int], server_args: list[str], server_env: dict[str, str]) -> Iterator[Side]:
    side = Side([])
    try:
        if target == "floor":
            side.listeners.append(floor_server().start(cpus))
        else:
            redis_url = None
            if target != "memory":
                with on_cpus(cpus):
                    side.redis = RedisProcess(appendonly=target == "aof").start()
                redis_url = side.redis.url
            prefix = f"bench-{uuid.uuid4().hex[:6]}:"
            for node in range(2 if target == "two-nodes" else 1):
                server = race_server(f"{target} node {node}", redis_url, prefix, server_args, server_env)
                side.listeners.append(server.start(cpus))
        yield side
    finally:
        for listener in side.listeners:
            listener.stop()
        if side.redis is not None:
            side.redis.close()


# -- one target -----------------------------------------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace, lines: list[Script]) -> None:
        self.args = args
        self.scripts = lines
        self.server_cpus = {args.server_cpu}

    async def run(self, target: str, round_: int) -> Run:
        run = Run(target, round_)
        ours = target != "floor"
        env = dict(kv.split("=", 1) for kv in self.args.server_env) if ours else {}
        with started(target, self.server_cpus, self.args.server_arg if ours else [], env) as side:
            gen = Generator(side.urls, deflate=not self.args.no_deflate)
            try:
                await self._load(run, side, gen)
            except (RuntimeError, OSError, TimeoutError) as exc:
                run.failure = f"{type(exc).__name__}: {exc}"
            finally:
                await gen.close()
        return run

    async def _load(self, run: Run, side: Side, gen: Generator) -> None:
        args = self.args
        await asyncio.sleep(0.5)
        servers = [listener.pid for listener in side.listeners]
        rss = sum(rss_bytes(pid) for pid in servers)
        redis_rss = sum(rss_bytes(pid) for pid in side.redis_pids)
        await gen.connect(args.connections)
        await asyncio.sleep(1.0)
        run.rss_per_conn = (sum(rss_bytes(pid) for pid in servers) - rss) / args.connections
        if side.redis_pids:
            run.redis_rss_per_conn = (sum(rss_bytes(pid) for pid in side.redis_pids) - redis_rss) / args.connections
        try:
            await gen.seat(self.scripts)
        except TimeoutError:
            note = " (two nodes do not share rooms yet)" if run.target == "two-nodes" else ""
            raise RuntimeError(f"rooms did not start{note}") from None
        if args.signal_after_seating:
            for pid in servers:
                os.kill(pid, signal.SIGUSR1)
        profiler = self._profile(run, servers[0]) if args.profile and run.target != "floor" else None
        try:
            run.main = await self._phase(side, gen, args.rate, args.warmup, args.measure)
        finally:
            if profiler is not None:
                profiler.wait(args.warmup + args.measure + 30)
        if run.target in args.sweep:
            await self._sweep(run, side, gen)

    def _profile(self, run: Run, pid: int) -> subprocess.Popen[bytes]:
        out = Path(self.args.profile) / f"{run.target}-round{run.round}.txt"
        out.parent.mkdir(parents=True, exist_ok=True)
        seconds = int(self.args.warmup + self.args.measure)
        argv = [self.args.py_spy, "record", "--pid", str(pid), "--duration", str(seconds), "--rate", "200"]
        argv += ["--format", "raw", "--nonblocking", "--output", str(out)]
        return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def _phase(self, side: Side, gen: Generator, rate: float, warmup: float, measure: float) -> Phase:
        marks: list[tuple[float, float, float]] = []

        def probe() -> None:
            marks.append((time.perf_counter(), sum(cpu_seconds(p) for p in side.pids), time.process_time()))

        window = await gen.run(rate, warmup, measure, drain=self.args.drain, probe=probe)
        (t0, s0, g0), (t1, s1, g1) = marks[0], marks[-1]
        return Phase(rate, t1 - t0, window, server_cpu=s1 - s0, gen_cpu=(g1 - g0) / (t1 - t0))

    async def _sweep(self, run: Run, side: Side, gen: Generator) -> None:
        """Raise the rate by SWEEP_STEP until a step fails, then try once between the last pass and it."""
        args = self.args
        rate = args.sweep_from
        last_pass = math.nan
        while rate <= MAX_RATE:
            phase = await self._phase(side, gen, rate, args.sweep_warmup, args.sweep_measure)
            run.sweep.append(phase)
            print(f"    sweep {run.target:<9} {describe_sweep(phase)}", flush=True)
            if not phase.passes:
                break
            last_pass = rate
            rate *= SWEEP_STEP
        else:
            return
        if not math.isnan(last_pass):
            between = round(math.sqrt(last_pass * rate))
            phase = await self._phase(side, gen, between, args.sweep_warmup, args.sweep_measure)
            run.sweep.append(phase)
            print(f"    sweep {run.target:<9} {describe_sweep(phase)}", flush=True)


# -- the report -----------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return "lost" if math.isinf(seconds) else "-" if math.isnan(seconds) else f"{seconds * 1000:.2f}"


def describe_sweep(p: Phase) -> str:
    verdict = "pass" if p.passes else "FAIL"
    return (
        f"offered {p.offered:7.0f}/s accepted {p.accepted:7.0f}/s  rival p99 {ms(p.rival(0.99)):>8} ms  "
        f"server CPU {p.server_cpu / p.seconds:4.0%}  generator CPU {p.gen_cpu:4.0%}  {verdict}"
    )


def describe(run: Run) -> str:
    if run.main is None:
        return f"  {run.target:<9} round {run.round}: {run.failure or 'no figures'}"
    p = run.main
    w = p.window
    lines = [
        f"  {run.target:<9} round {run.round}: accepted {p.accepted:.0f}/s of {p.offered:.0f} offered, "
        f"server CPU {p.server_cpu / p.seconds:.0%} = {p.cpu_per_move * 1e6:.0f} us/move, "
        f"generator CPU {p.gen_cpu:.0%}, RSS {run.rss_per_conn / 1024:.1f} KiB/conn",
        f"    move->ack   p50 {ms(p.ack(0.5))}  p90 {ms(p.ack(0.9))}  p99 {ms(p.ack(0.99))}  max {ms(p.ack(1.0))} ms",
        f"    move->rival p50 {ms(p.rival(0.5))}  p90 {ms(p.rival(0.9))}  p99 {ms(p.rival(0.99))}  "
        f"max {ms(p.rival(1.0))} ms",
    ]
    if w.skipped or w.errors or len(w.ack) < w.sent or w.max_lag > 0.02:
        lines.append(
            f"    sent {w.sent}, acked {len(w.ack)}, rival heard {len(w.rival)}/{w.sent_with_rival}, skipped "
            f"{w.skipped} (>{8} in flight), errors {dict(w.errors)}, generator late by up to {w.max_lag * 1000:.0f} ms"
        )
    return "\n".join(lines)


def median(values: list[float]) -> float:
    finite = sorted(v for v in values if not math.isnan(v))
    if not finite:
        return math.nan
    mid = len(finite) // 2
    return finite[mid] if len(finite) % 2 else (finite[mid - 1] + finite[mid]) / 2


METRICS: list[tuple[str, Any, str]] = [
    ("move->ack p50", lambda r: r.main.ack(0.5) * 1e3, "ms"),
    ("move->ack p90", lambda r: r.main.ack(0.9) * 1e3, "ms"),
    ("move->ack p99", lambda r: r.main.ack(0.99) * 1e3, "ms"),
    ("move->ack max", lambda r: r.main.ack(1.0) * 1e3, "ms"),
    ("move->rival p50", lambda r: r.main.rival(0.5) * 1e3, "ms"),
    ("move->rival p90", lambda r: r.main.rival(0.9) * 1e3, "ms"),
    ("move->rival p99", lambda r: r.main.rival(0.99) * 1e3, "ms"),
    ("move->rival max", lambda r: r.main.rival(1.0) * 1e3, "ms"),
    ("accepted moves/s", lambda r: r.main.accepted, "/s"),
    ("server CPU per move", lambda r: r.main.cpu_per_move * 1e6, "us"),
    ("RSS per idle connection", lambda r: r.rss_per_conn / 1024, "KiB"),
    ("best rate, rival p99 < 50 ms", lambda r: r.best_rate, "/s"),
]


def summary(runs: list[Run], targets: list[str]) -> str:
    """Medians over rounds; ratios are per round (ours / the floor of the same round), then the median."""
    rounds = sorted({r.round for r in runs})
    by = {(r.target, r.round): r for r in runs}
    ours = [t for t in targets if t != "floor"]
    head = f"{'':<30}" + "".join(f"{t:>12}" for t in targets) + "".join(f"{t + '/floor':>16}" for t in ours)
    lines = [head]
    for label, get, unit in METRICS:

        def value(target: str, rnd: int, get: Any = get) -> float:
            run = by.get((target, rnd))
            if run is None or run.main is None:
                return math.nan
            return float(get(run))

        cells = [median([value(t, r) for r in rounds]) for t in targets]
        ratios = []
        for t in ours:
            per_round = [value(t, r) / value("floor", r) for r in rounds if value("floor", r) not in (0, math.nan)]
            ratios.append(median([x for x in per_round if not math.isinf(x)]))
        row = f"{label + ' (' + unit + ')':<30}" + "".join(f"{fmt(c):>12}" for c in cells)
        row += "".join(f"{fmt(x) + 'x':>16}" for x in ratios)
        lines.append(row)
    return "\n".join(lines)


def fmt(x: float) -> str:
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "lost"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.2f}"


def machine() -> str:
    model = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, {platform.platform()}"


def as_json(runs: list[Run]) -> list[dict[str, Any]]:
    out = []
    for run in runs:
        item: dict[str, Any] = {"target": run.target, "round": run.round, "failure": run.failure}
        if run.main is not None:
            item.update({label: get(run) for label, get, _ in METRICS})
            item["server_cpu_share"] = run.main.server_cpu / run.main.seconds
            item["generator_cpu_share"] = run.main.gen_cpu
            item["sent"] = run.main.window.sent
            item["skipped"] = run.main.window.skipped
            item["errors"] = dict(run.main.window.errors)
        item["redis_rss_per_conn_kib"] = run.redis_rss_per_conn / 1024
        item["sweep"] = [
            {"offered": p.offered, "accepted": p.accepted, "rival_p99_ms": p.rival(0.99) * 1e3, "passes": p.passes}
            for p in run.sweep
        ]
        out.append(item)
    return out


# -- main -----------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer connections, one round, no sweep (~1 min)")
    parser.add_argument("--targets", default="floor,memory,redis,aof", help=f"comma-separated, of {', '.join(TARGETS)}")
    parser.add_argument("--connections", type=int, help="racers (two per room); default 1000, quick 400")
    parser.add_argument("--rate", type=float, default=1000.0, help="moves/s offered over all racers")
    parser.add_argument("--rounds", type=int, help="repetitions, alternating the order; default 2, quick 1")
    parser.add_argument("--warmup", type=float, help="seconds of load before measuring; default 5, quick 2")
    parser.add_argument("--measure", type=float, help="seconds measured; default 20, quick 6")
    parser.add_argument("--drain", type=float, default=3.0, help="seconds to wait for late answers")
    parser.add_argument("--sweep", help="targets to sweep; default floor,redis, quick none")
    parser.add_argument("--sweep-from", type=float, default=500.0, help="first rate of the sweep")
    parser.add_argument("--sweep-warmup", type=float, default=1.5)
    parser.add_argument("--sweep-measure", type=float, default=5.0)
    parser.add_argument("--no-deflate", action="store_true", help="the client does not offer permessage-deflate")
    parser.add_argument("--server-cpu", type=int, default=0)
    parser.add_argument("--gen-cpu", type=int, default=1)
    parser.add_argument(
        "--server-arg", action="append", default=[], help="a seahaven-server flag (repeat): --server-arg=--rate=99"
    )
    parser.add_argument(
        "--server-env", action="append", default=[], metavar="KEY=VALUE", help="seahaven-server environment (repeat)"
    )
    parser.add_argument(
        "--signal-after-seating", action="store_true", help="send seahaven-server SIGUSR1 once every room has started"
    )
    parser.add_argument("--profile", metavar="DIR", help="py-spy record each of our servers during the load")
    parser.add_argument("--json", metavar="PATH", help="also write every figure as JSON")
    args = parser.parse_args(argv)
    quick = args.quick
    args.connections = args.connections or (400 if quick else 1000)
    args.rounds = args.rounds or (1 if quick else 2)
    args.warmup = args.warmup if args.warmup is not None else (2.0 if quick else 5.0)
    args.measure = args.measure if args.measure is not None else (6.0 if quick else 20.0)
    sweep = args.sweep if args.sweep is not None else ("" if quick else "floor,redis")
    args.sweep = {t for t in sweep.split(",") if t}
    args.targets = [t for t in args.targets.split(",") if t]
    if unknown := [t for t in [*args.targets, *args.sweep] if t not in TARGETS]:
        parser.error(f"unknown target {unknown[0]!r}: pick from {', '.join(TARGETS)}")
    if "floor" not in args.targets:
        parser.error("the floor is part of every run: ratios need it")
    if not 2 <= args.connections <= MAX_CONNECTIONS or args.connections % 2:
        parser.error(f"--connections must be even, 2 to {MAX_CONNECTIONS}")
    if not 1 <= args.rate <= MAX_RATE or not 1 <= args.sweep_from <= MAX_RATE:
        parser.error(f"rates go from 1 to {MAX_RATE:.0f} moves/s")
    if not 1 <= args.rounds <= 10:
        parser.error("--rounds goes from 1 to 10")
    for seconds in (args.warmup, args.measure, args.drain, args.sweep_warmup, args.sweep_measure):
        if not 0 <= seconds <= MAX_SECONDS:
            parser.error(f"durations go from 0 to {MAX_SECONDS:.0f} s")
    cpus = os.sched_getaffinity(0)
    if {args.server_cpu, args.gen_cpu} - cpus or args.server_cpu == args.gen_cpu:
        parser.error(f"--server-cpu and --gen-cpu must be two different CPUs of {sorted(cpus)}")
    args.py_spy = shutil.which("py-spy", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if args.profile and args.py_spy is None:
        parser.error("--profile needs py-spy (pip install py-spy)")
    if shutil.which("redis-server") is None and set(args.targets) - {"floor", "memory"}:
        parser.error("redis-server is not on the PATH")
    return args


async def bench(args: argparse.Namespace) -> list[Run]:
    print(f"machine: {machine()}")
    print(
        f"{args.connections} connections in {args.connections // 2} two-racer rooms, {args.rate:.0f} moves/s offered, "
        f"{args.warmup:.0f} s warm-up + {args.measure:.0f} s measured, {args.rounds} round(s); server side on CPU "
        f"{args.server_cpu}, generator on CPU {args.gen_cpu}; client deflate {'off' if args.no_deflate else 'offered'}",
        flush=True,
    )
    lines = scripts(DEALS)
    bench_ = Bench(args, lines)
    runs: list[Run] = []
    for round_ in range(1, args.rounds + 1):
        order = args.targets if round_ % 2 else args.targets[::-1]
        for target in order:
            run = await bench_.run(target, round_)
            runs.append(run)
            print(describe(run), flush=True)
    print()
    print("medians over rounds; ratios are ours / the floor of the same round, median over rounds")
    print(summary(runs, args.targets))
    if args.profile:
        for run in runs:
            path = Path(args.profile) / f"{run.target}-round{run.round}.txt"
            if path.exists():
                print(f"\nprofile of {run.target}, round {run.round} ({path}):")
                print(stacks.summary(path))
    return runs


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.sched_setaffinity(0, {args.gen_cpu})
    started_at = time.monotonic()
    runs = asyncio.run(bench(args))
    if args.json:
        Path(args.json).write_text(json.dumps(as_json(runs), indent=1, default=str))
    print(f"\ndone in {time.monotonic() - started_at:.0f} s")
    return 1 if any(r.failure and r.target != "two-nodes" for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
