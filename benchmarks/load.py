"""Load benchmark: the race server against the bare-WebSocket floor, under the same scripted races.

Each target runs side by side with the floor (floor.py: a bare ``websockets`` server that acks a
move and forwards it to the rival), both pinned to one CPU (``--server-cpu``) while this process, the
load generator, keeps to another (``--gen-cpu``). Targets:

- ``memory``: ``seahaven-server`` with its in-memory store;
- ``redis``: ``seahaven-server`` on a private redis-server (free loopback port, no persistence);
- ``aof``: the same with ``appendonly yes`` (fsync every second, Redis's default);
- ``two-nodes``: two ``seahaven-server`` processes on one Redis (both on the server CPU), each
  room's racers on different nodes: every move is stored by one node and applied by the other.
- ``floor-redis``: the floor itself, storing each move in a private redis-server (one ``RPUSH``
  through the race server's link) before it acks: the least a server that keeps every acknowledged
  move in Redis can cost, so its ratios show the part of any Redis target's that is the round trip.
- ``floor-judged``: ``floor-redis`` that also judges each move on the racer's own engine board
  first: the two things no race server may skip, and nothing else.

For both servers it opens the connections (the client offers permessage-deflate, as browsers do,
unless ``--no-deflate``), measures the RSS growth per idle connection, seats two racers per room
(hello, create_room / join_room, ready, wait for started: docs/protocol.md), then offers legal moves
from solver lines (races.py) at ``--rate`` moves/s over all racers, to one server at a time, in
slices that alternate between ours and the floor (who goes first swaps every slice), so both see
the same noise of a shared machine. It prints p50/p90/p99/max of move -> ack and move -> rival,
accepted moves/s, server CPU per accepted move (server processes and their redis-server, from
/proc/PID/stat) and memory per connection, with ours / floor ratios. The full run also sweeps rates
(``--sweep`` targets, each step on ours and the floor in turn) for the highest rate whose
move -> rival p99 stays under 50 ms with at least 95% of the offered moves accepted.

    .venv/bin/python -m benchmarks.load --quick          # about a minute
    .venv/bin/python -m benchmarks.load                  # about ten minutes
    .venv/bin/python -m benchmarks.load --profile prof/  # py-spy on each of our servers under load
    .venv/bin/python -m benchmarks.load --quick --targets redis --lever gc-freeze --against plain  # A/B
    .venv/bin/python -m benchmarks.load --quick --analysis-backlog 200 --against plain  # analyses running

Levers (``--lever``, ``--no-deflate``, ``--server-arg``) are tried on the unchanged server from
outside (levers/sitecustomize.py); ``--against plain`` then runs the same target without them in
place of the floor, slice by slice, so a 10% change is not lost in the machine's noise.

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
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis

from benchmarks import stacks
from benchmarks.analysis_backlog import seed
from benchmarks.figures import Phase, Result, as_json, describe, describe_step, fmt, table
from benchmarks.loadgen import Generator
from benchmarks.procs import (
    ROOT,
    Listener,
    cpu_busy_seconds,
    cpu_seconds,
    floor_server,
    on_cpus,
    race_server,
    rss_bytes,
    wait_seconds,
)
from benchmarks.races import Script, scripts
from tests.redis_proc import RedisProcess

TARGETS = ("memory", "redis", "aof", "two-nodes", "floor-redis", "floor-judged")
FLOORS = ("floor-redis", "floor-judged")
"""Targets that are the floor itself, storing (and judging) each move."""
LEVERS = ("gc-log", "gc-threshold", "gc-freeze", "gc-off", "uvloop", "no-group-commit", "ttl-every-move")
SWEEP_STEP = 1.5
SWEEP_RESOLUTION = 1.1
"""The sweep narrows the highest passing rate until the next failing one is at most this much above
it, so that 0.9x of the floor can be told from 0.82x."""
MAX_CONNECTIONS = 4000
MAX_RATE = 50_000.0
MAX_SECONDS = 300.0
DEALS = 16


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

    def redis_commands(self) -> int:
        """Commands the redis-server has run so far (not counting this look: INFO, HELLO, CLIENT)."""
        if self.redis is None:
            return 0
        client = redis.Redis.from_url(self.redis.url)
        try:
            stats = client.info("commandstats")
        finally:
            client.close()
        mine = ("cmdstat_info", "cmdstat_hello", "cmdstat_client")
        return sum(int(v["calls"]) for k, v in stats.items() if not k.startswith(mine))


@contextlib.contextmanager
def started(
    target: str, cpus: set[int], server_args: list[str], server_env: dict[str, str], unix: bool = False
) -> Iterator[Side]:
    """The target's processes; ``server_args`` go to the race server (or, for the floor, to it);
    with ``unix``, servers reach their redis-server through its Unix socket."""
    side = Side([])
    try:
        if target == "floor":
            side.listeners.append(floor_server(*server_args).start(cpus))
        elif target in FLOORS:
            with on_cpus(cpus):
                side.redis = RedisProcess().start()
            judge = ["--judge"] if target == "floor-judged" else []
            url = side.redis.unix_url if unix else side.redis.url
            side.listeners.append(floor_server("--redis", url, *judge, *server_args).start(cpus))
        else:
            redis_url = None
            if target != "memory":
                with on_cpus(cpus):
                    side.redis = RedisProcess(appendonly=target == "aof").start()
                redis_url = side.redis.unix_url if unix else side.redis.url
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


# -- one pairing: a target and the floor, alternately ------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace, lines: list[Script]) -> None:
        self.args = args
        self.scripts = lines
        self.cpus = {args.server_cpu}

    async def pair(self, target: str) -> tuple[Result, Result]:
        """Start the target and what it is compared with (the floor, or with ``--against plain`` the
        same target without the levers) side by side, both idle but for the one under load; seat
        both, then load them in turns, swapping who goes first each slice."""
        args = self.args
        plain = args.against == "plain"
        ours, other = Result(target), Result("plain" if plain else "floor")
        logs = Path(tempfile.mkdtemp(prefix="seahaven-bench-"))
        env = dict(kv.split("=", 1) for kv in args.server_env)
        if args.analysis_backlog:  # our side's records hold races to analyse, the other's none
            folder = Path(tempfile.mkdtemp(prefix="seahaven-backlog-"))
            env["SEAHAVEN_DATA_DIR"] = str(await seed(folder, args.analysis_backlog))
        other_env: dict[str, str] = {}
        if "gc-log" in args.lever:  # both sides log their collections, so both pay for it
            env["SEAHAVEN_BENCH_GC_LOG"] = str(logs / "ours.json")
            other_env = {**lever_env(["gc-log"], None), "SEAHAVEN_BENCH_GC_LOG": str(logs / "other.json")}
        with (
            started(target if plain else "floor", self.cpus, [] if plain else args.floor_arg, other_env) as other_side,
            started(
                target, self.cpus, args.floor_arg if target in FLOORS else args.server_arg, env, args.redis_unix
            ) as side,
        ):
            sides = [(ours, side, Generator(side.urls, not args.no_deflate))]
            sides.append((other, other_side, Generator(other_side.urls, plain or not args.no_deflate)))
            try:
                for result, s, gen in sides:
                    await self._seat(result, s, gen, levered=result is ours)
                profiler = self._profile(target, side.listeners[0].pid) if args.profile else None
                try:
                    for i in range(args.slices):
                        for result, s, gen in sides if i % 2 else sides[::-1]:
                            if not result.failure:
                                warmup = args.warmup if i < 2 else args.slice_warmup
                                result.slices.append(await self._phase(s, gen, args.rate, warmup, args.measure))
                finally:
                    if profiler is not None:
                        profiler.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
                        profiler.wait(60)
                if target in args.sweep:
                    await self._sweep(sides)
            finally:
                for _, _, gen in sides:
                    await gen.close()
        for result, name in ((ours, "ours.json"), (other, "other.json")):
            if (logs / name).exists():  # written by the server as it exits
                result.gc_pauses = [(float(t), int(g), float(d)) for t, g, d in json.loads((logs / name).read_text())]
        shutil.rmtree(logs, ignore_errors=True)
        return ours, other

    async def _seat(self, result: Result, side: Side, gen: Generator, *, levered: bool) -> None:
        """Open the connections (RSS growth per idle connection), then seat and start every room."""
        args = self.args
        await asyncio.sleep(0.5)
        servers = [listener.pid for listener in side.listeners]
        rss = sum(rss_bytes(pid) for pid in servers)
        redis_rss = sum(rss_bytes(pid) for pid in side.redis_pids)
        try:
            await gen.connect(args.connections)
            await asyncio.sleep(1.0)
            result.rss_per_conn = (sum(rss_bytes(pid) for pid in servers) - rss) / args.connections
            if side.redis_pids:
                redis_now = sum(rss_bytes(pid) for pid in side.redis_pids)
                result.redis_rss_per_conn = (redis_now - redis_rss) / args.connections
            await gen.seat(self.scripts)
        except TimeoutError:
            result.failure = "rooms did not start"
        except (RuntimeError, OSError) as exc:
            result.failure = f"{type(exc).__name__}: {exc}"
        if "gc-freeze" in args.lever and levered:
            for pid in servers:
                os.kill(pid, signal.SIGUSR1)

    def _profile(self, target: str, pid: int) -> subprocess.Popen[bytes]:
        out = Path(self.args.profile) / f"{target}.txt"
        out.parent.mkdir(parents=True, exist_ok=True)
        argv = [self.args.py_spy, "record", "--pid", str(pid), "--rate", "200", "--format", "raw"]
        argv += ["--nonblocking", "--output", str(out)]
        return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def _phase(self, side: Side, gen: Generator, rate: float, warmup: float, measure: float) -> Phase:
        marks: list[tuple[float, ...]] = []
        server_cpu, gen_cpu = self.args.server_cpu, self.args.gen_cpu

        def probe() -> None:
            ours = sum(cpu_seconds(p) for p in side.pids)
            busy = (cpu_busy_seconds(server_cpu), cpu_busy_seconds(gen_cpu))
            waits = (sum(wait_seconds(p) for p in side.pids), wait_seconds(os.getpid()))
            redis_cpu = sum(cpu_seconds(p) for p in side.redis_pids)
            marks.append(
                (
                    time.perf_counter(),
                    ours,
                    time.process_time(),
                    *busy,
                    *waits,
                    side.redis_commands(),
                    redis_cpu,
                    time.time(),
                )
            )

        window = await gen.run(rate, warmup, measure, drain=self.args.drain, probe=probe)
        (t0, s0, g0, b0, c0, v0, x0, r0, d0, w0), (t1, s1, g1, b1, c1, v1, x1, r1, d1, w1) = marks[0], marks[-1]
        return Phase(
            rate,
            t1 - t0,
            window,
            server_cpu=s1 - s0,
            gen_cpu=g1 - g0,
            others_on_server_cpu=max(0.0, b1 - b0 - (s1 - s0)),
            others_on_gen_cpu=max(0.0, c1 - c0 - (g1 - g0)),
            server_wait=v1 - v0,
            gen_wait=x1 - x0,
            redis_commands=int(r1 - r0),
            redis_cpu=d1 - d0,
            spans=[(w0, w1)],
        )

    async def _sweep(self, sides: list[tuple[Result, Side, Generator]]) -> None:
        """Each side: raise the rate by SWEEP_STEP until a step fails, then halve the gap (on a log
        scale) between the highest pass and the lowest failure until it is at most SWEEP_RESOLUTION.
        The two sides take turns at each step. A failed step runs once more and the better of the two
        counts: a burst of other processes should not end the sweep. A step where the generator ran
        out of CPU ends that side's sweep (its rate is a lower bound)."""
        args = self.args
        turn = 0
        while True:
            todo = [(r, s, g, rate) for r, s, g in sides if not r.failure and (rate := self._next(r.sweep)) is not None]
            if not todo:
                return
            for result, side, gen, rate in todo if turn % 2 else todo[::-1]:
                phase = await self._phase(side, gen, rate, args.sweep_warmup, args.sweep_measure)
                print(f"    sweep {result.target:<9} {describe_step(phase)}", flush=True)
                if not phase.passes and not phase.generator_bound:
                    again = await self._phase(side, gen, rate, args.sweep_warmup, args.sweep_measure)
                    print(f"    again {result.target:<9} {describe_step(again)}", flush=True)
                    phase = min(phase, again, key=lambda p: (not p.passes, p.rival(0.99)))
                result.sweep.append(phase)
            turn += 1

    def _next(self, steps: list[Phase]) -> float | None:
        if not steps:
            return float(self.args.sweep_from)
        if steps[-1].generator_bound:
            return None  # higher rates would measure the generator, not the server
        failed = [p.offered for p in steps if not p.passes]
        passed = [p.offered for p in steps if p.passes]
        if not failed:
            rate = steps[-1].offered * SWEEP_STEP
            return rate if rate <= MAX_RATE else None
        if not passed:
            return None  # the first rate failed: below it, the sweep says nothing useful
        low, high = max(passed), min(failed)
        if high <= low * SWEEP_RESOLUTION:
            return None
        return float(round(math.sqrt(low * high)))


def lever_env(levers: list[str], extras: str | None) -> dict[str, str]:
    """The environment that makes a server pull the levers (benchmarks/levers/sitecustomize.py)."""
    env = {"PYTHONPATH": str(ROOT / "benchmarks" / "levers"), "SEAHAVEN_BENCH_LEVERS": ",".join(levers)}
    if extras:
        env["SEAHAVEN_BENCH_EXTRAS"] = str(Path(extras).resolve())
    return env


# -- main -----------------------------------------------------------------------------------------


def machine() -> str:
    model = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, {platform.platform()}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="400 racers, memory+redis, 3 s slices (~1 min)")
    parser.add_argument(
        "--targets", help=f"comma-separated, of {', '.join(TARGETS)}; default memory,redis,aof, quick memory,redis"
    )
    parser.add_argument("--connections", type=int, help="racers (two per room); default 1000, quick 400")
    parser.add_argument("--rate", type=float, default=1000.0, help="moves/s offered over all racers")
    parser.add_argument("--slices", type=int, help="turns of load each side gets, alternating; default 4, quick 2")
    parser.add_argument("--warmup", type=float, help="seconds of load before the first slices; default 5, quick 1.5")
    parser.add_argument("--slice-warmup", type=float, default=1.0, help="seconds of load before later slices")
    parser.add_argument("--measure", type=float, help="seconds measured per slice; default 8, quick 3")
    parser.add_argument("--drain", type=float, default=3.0, help="seconds to wait for late answers")
    parser.add_argument("--sweep", help="targets to sweep (with the floor); default memory,redis, quick none")
    parser.add_argument("--sweep-from", type=float, default=250.0, help="first rate of the sweep")
    parser.add_argument("--sweep-warmup", type=float, default=1.5)
    parser.add_argument("--sweep-measure", type=float, default=5.0)
    parser.add_argument("--no-deflate", action="store_true", help="the client does not offer permessage-deflate")
    parser.add_argument("--server-cpu", type=int, default=0)
    parser.add_argument("--gen-cpu", type=int, default=1)
    parser.add_argument("--server-arg", action="append", default=[], help="a seahaven-server flag (repeat)")
    parser.add_argument(
        "--server-env", action="append", default=[], metavar="KEY=VALUE", help="seahaven-server environment (repeat)"
    )
    parser.add_argument(
        "--lever", action="append", default=[], choices=LEVERS, help="try a lever from outside (repeat; levers/)"
    )
    parser.add_argument(
        "--against",
        choices=("floor", "plain"),
        default="floor",
        help="compare with the floor, or with the same target without levers, flags or --no-deflate (A/B)",
    )
    parser.add_argument("--extras", metavar="DIR", help="where the uvloop lever finds it (pip --target)")
    parser.add_argument(
        "--floor-uvloop",
        dest="floor_arg",
        action="store_const",
        const=["--uvloop"],
        default=[],
        help="run the floor on uvloop too (it runs on asyncio's own loop by default)",
    )
    parser.add_argument(
        "--redis-unix",
        action="store_true",
        help="the target's servers reach their redis-server through its Unix socket, not TCP (with --against "
        "plain: only ours)",
    )
    parser.add_argument(
        "--analysis-backlog",
        type=int,
        default=0,
        metavar="N",
        help="our servers start with N races queued for analysis (benchmarks/analysis_backlog.py); with "
        "--against plain, the same server without them runs in the other slices",
    )
    parser.add_argument("--profile", metavar="DIR", help="py-spy record each of our servers during the load")
    parser.add_argument("--json", metavar="PATH", help="also write every figure as JSON")
    args = parser.parse_args(argv)
    quick = args.quick
    args.connections = args.connections or (400 if quick else 1000)
    args.slices = args.slices or (2 if quick else 4)
    args.warmup = args.warmup if args.warmup is not None else (1.5 if quick else 5.0)
    args.measure = args.measure if args.measure is not None else (3.0 if quick else 8.0)
    sweep = args.sweep if args.sweep is not None else ("" if quick else "memory,redis")
    args.sweep = {t for t in sweep.split(",") if t}
    targets = args.targets if args.targets is not None else ("memory,redis" if quick else "memory,redis,aof")
    args.targets = [t for t in targets.split(",") if t]
    if unknown := [t for t in [*args.targets, *args.sweep] if t not in TARGETS]:
        parser.error(f"unknown target {unknown[0]!r}: pick from {', '.join(TARGETS)} (the floor runs with each)")
    if not 2 <= args.connections <= MAX_CONNECTIONS or args.connections % 2:
        parser.error(f"--connections must be even, 2 to {MAX_CONNECTIONS}")
    if not 1 <= args.rate <= MAX_RATE or not 1 <= args.sweep_from <= MAX_RATE:
        parser.error(f"rates go from 1 to {MAX_RATE:.0f} moves/s")
    if not 1 <= args.slices <= 20:
        parser.error("--slices goes from 1 to 20")
    for seconds in (args.warmup, args.slice_warmup, args.measure, args.drain, args.sweep_warmup, args.sweep_measure):
        if not 0 <= seconds <= MAX_SECONDS:
            parser.error(f"durations go from 0 to {MAX_SECONDS:.0f} s")
    if args.measure <= 0 or args.sweep_measure <= 0:
        parser.error("measured durations must be above 0")
    if any("=" not in kv for kv in args.server_env):
        parser.error("--server-env takes KEY=VALUE")
    if args.lever:
        args.server_env += [f"{k}={v}" for k, v in lever_env(args.lever, args.extras).items()]
    if not 0 <= args.analysis_backlog <= 10_000:
        parser.error("--analysis-backlog goes from 0 to 10000")
    if args.against == "plain" and not (
        args.lever or args.server_arg or args.server_env or args.no_deflate or args.redis_unix or args.analysis_backlog
    ):
        parser.error(
            "--against plain compares levers, flags, --no-deflate, --redis-unix or --analysis-backlog with none: "
            "give some"
        )
    cpus = os.sched_getaffinity(0)
    if {args.server_cpu, args.gen_cpu} - cpus or args.server_cpu == args.gen_cpu:
        parser.error(f"--server-cpu and --gen-cpu must be two different CPUs of {sorted(cpus)}")
    args.py_spy = shutil.which("py-spy", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if args.profile and args.py_spy is None:
        parser.error("--profile needs py-spy (pip install py-spy)")
    if shutil.which("redis-server") is None and set(args.targets) - {"memory"}:
        parser.error("redis-server is not on the PATH")
    return args


async def bench(args: argparse.Namespace) -> list[tuple[Result, Result]]:
    print(f"machine: {machine()}")
    print(
        f"{args.connections} connections in {args.connections // 2} two-racer rooms, {args.rate:.0f} moves/s offered; "
        f"each target alternates with the floor in {args.slices} slices of {args.measure:.0f} s; server side on CPU "
        f"{args.server_cpu}, generator on CPU {args.gen_cpu}; client deflate "
        f"{'off' if args.no_deflate else 'offered'}",
        flush=True,
    )
    if args.server_arg or args.server_env:
        print(f"seahaven-server with flags {args.server_arg}, environment {args.server_env}")
    if args.analysis_backlog:
        print(f"our servers start with {args.analysis_backlog} races queued for analysis")
    bench_ = Bench(args, scripts(DEALS))
    pairs = []
    for target in args.targets:
        ours, floor = await bench_.pair(target)
        pairs.append((ours, floor))
        print(describe(ours), describe(floor), sep="\n", flush=True)
    print(f"\nours, {'the same without levers' if args.against == 'plain' else 'the floor'} in the same run, ratio")
    print(table(pairs))
    for ours, other in pairs:
        for result in (ours, other):
            if result.rate_is_a_floor:
                print(f"{result.target} (with {ours.target}): the sweep ended where the generator was CPU-bound,")
                print(f"    so {fmt(result.best_rate)}/s is a lower bound of its highest rate")
    if args.profile:
        for target in args.targets:
            path = Path(args.profile) / f"{target}.txt"
            if path.exists():
                print(f"\nprofile of {target} ({path}):")
                print(stacks.summary(path))
    return pairs


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.sched_setaffinity(0, {args.gen_cpu})
    began = time.monotonic()
    pairs = asyncio.run(bench(args))
    if args.json:
        Path(args.json).write_text(json.dumps(as_json(pairs), indent=1, default=str))
    print(f"\ndone in {time.monotonic() - began:.0f} s")
    return 1 if any(r.failure for pair in pairs for r in pair) else 0


if __name__ == "__main__":
    sys.exit(main())
