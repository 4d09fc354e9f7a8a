"""Capacity a lobby operator can plan with: racers held at a human pace, and idle connections.

Racers: a private redis-server (free loopback port) and one ``python -m server`` on it, both pinned
to ``--server-cpu`` (a node: one core, its Redis beside it); load generator processes
(``--generators``) on ``--gen-cpu``. Each racer sits in a two-racer room and plays its deal's
winning line (the solver's, every move checked by the engine) at a human pace: one move every
``--pace`` seconds on average, Poisson arrivals. A racer who finishes ends the race (``result``); the
two then leave and race the next deal in a new room. N starts at ``--start`` and grows by ``--step``
(the racers already seated keep playing) until move -> rival p99 passes 50 ms (``--p99-limit``; or
fewer than 95% of the moves are acknowledged), the generators run out of CPU, or ``--max-racers``.
A failed step runs once more and the better of the two counts (the machine is shared). Each step
prints moves/s,
move -> ack and move -> rival percentiles (a move never answered counts as infinitely late; moves
refused because the rival had just finished do not count), the server's CPU (process CPU time /
wall time), its redis-server's, the generators', and what other processes took of each CPU.

Idle: a fresh server and Redis, ``--idle`` connections that said ``hello`` and then sit still: the
growth of the server's (and redis-server's) RSS per connection. The open-file limit is read first
and raised (``resource.setrlimit``) as far as allowed; each generator connects from its own loopback
address, so the ephemeral ports (about 28,000 per source address) do not cap the count.

    .venv/bin/python -m benchmarks.capacity --quick       # a smoke run: tiny sizes, about 20 s
    .venv/bin/python -m benchmarks.capacity               # 1,000 racers more each step; 20,000 idle (or what fits)
    .venv/bin/python -m benchmarks.capacity --idle 50000 --racers 0  # idle connections only

Loopback only, bounded in connections and time; every child is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import multiprocessing
import os
import random
import resource
import shlex
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from websockets.exceptions import ConnectionClosed, WebSocketException

from benchmarks.figures import SLO, SLO_ACCEPTED, Phase, fmt, ms
from benchmarks.load import machine
from benchmarks.loadgen import MAX_IN_FLIGHT, REPLY_TIMEOUT, Generator, Racer, Window, clock
from benchmarks.procs import cpu_busy_seconds, cpu_seconds, on_cpus, race_server, rss_bytes
from benchmarks.races import Script, scripts, winning_line
from tests.redis_proc import RedisProcess

MAX_RACERS = 100_000
MAX_IDLE = 200_000
MAX_GENERATORS = 16
MAX_SECONDS = 600.0
DEALS = 16
FD_MARGIN = 256
"""Descriptors a process keeps for everything but connections (files, pipes, Redis links)."""
SETTLE = 2.0
"""Seconds left after the idle connections opened, before the server's RSS is read."""


# -- a generator process: racers in rooms, moves at a human pace --------------------------------------


@dataclass(eq=False)
class Pair:
    """Two racers in one room, racing one line; ``racing`` while the room's race is on."""

    a: Racer
    b: Racer
    racing: bool = False
    races: int = 0


class Crowd(Generator):
    """One generator process's racers. A scheduler offers moves as a Poisson process of rate
    (racers / pace), each to a racer picked at random: every racer who is racing moves as a Poisson
    process of rate 1 / pace (one between races, or done with its line, lets its turn go)."""

    def __init__(self, urls: list[str], lines: list[Script], pace: float, seed: int, source: str | None) -> None:
        super().__init__(urls, deflate=True, source=source)
        self.lines = lines
        self.pace = pace
        self.random = random.Random(seed)
        self.pair_of: dict[Racer, Pair] = {}
        self.next_line = seed
        self.tasks: set[asyncio.Task[None]] = set()
        self.scheduler: asyncio.Task[None] | None = None
        self.new_rooms = 0
        self.finished_races = 0
        self.seat_failures = 0
        self.closing = False

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def event(self, racer: Racer, frame: dict[str, Any]) -> None:
        pair = self.pair_of.get(racer)
        if frame["type"] == "result" and pair is not None and pair.racing:
            pair.racing = False
            self.finished_races += 1
            if not self.closing:
                self.spawn(self.rematch(pair))

    async def grow(self, count: int) -> None:
        """``count`` more racers (even), connected, seated in rooms and racing."""
        first = len(self.racers)
        await self.connect(count, first)
        new = sorted(self.racers[first:], key=lambda r: r.index)
        pairs = [Pair(new[i], new[i + 1]) for i in range(0, len(new) - 1, 2)]
        for pair in pairs:
            self.pair_of[pair.a] = self.pair_of[pair.b] = pair
        await self._bounded([lambda p=p: self.seat_pair(p) for p in pairs])  # type: ignore[misc]
        if self.scheduler is None:
            self.scheduler = asyncio.get_running_loop().create_task(self.schedule())

    async def seat_pair(self, pair: Pair) -> None:
        """A new room for the pair on the next line, both ready, until it starts."""
        script = self.lines[self.next_line % len(self.lines)]
        self.next_line += 1
        a, b = pair.a, pair.b
        loop = asyncio.get_running_loop()
        for racer, rival in ((a, b), (b, a)):
            racer.script, racer.rival, racer.played = script, rival, 0
            racer.sent_at.clear()
            racer.started = loop.create_future()
        state = await a.call("create_room", {"deal_number": script.deal, "public": False})
        a.room = b.room = state["body"]["room"]
        await b.call("join_room", {"room": a.room})
        await a.call("ready", {"ready": True})
        await b.call("ready", {"ready": True})
        for racer in (a, b):
            await asyncio.wait_for(racer.started, REPLY_TIMEOUT)
        pair.racing = True
        pair.races += 1

    async def rematch(self, pair: Pair) -> None:
        """After a race: both leave, and the pair races the next deal in a new room."""
        try:
            await pair.a.call("leave", {})
            await pair.b.call("leave", {})
            await self.seat_pair(pair)
            self.new_rooms += 1
        except (RuntimeError, TimeoutError, OSError) as exc:
            self.seat_failures += 1
            self.errors[f"new room: {exc}"] += 1

    async def schedule(self) -> None:
        next_at = clock()
        while True:
            now = clock()
            while next_at <= now:
                planned = next_at
                next_at += self.random.expovariate(len(self.racers) / self.pace)
                racer = self.racers[self.random.randrange(len(self.racers))]
                pair = self.pair_of.get(racer)
                script = racer.script
                if pair is None or not pair.racing or script is None or racer.played >= len(script.opening):
                    continue  # between races, or done with its line: its turn goes by
                window = self.window
                in_window = window is not None and window.holds(now)
                if len(racer.moves_in_flight) >= MAX_IN_FLIGHT:
                    if window is not None and in_window:
                        window.skipped += 1
                    continue
                if window is not None and in_window:
                    window.sent += 1
                    window.sent_with_rival += 1
                    window.max_lag = max(window.max_lag, now - planned)
                try:
                    await racer.send_move(now)
                except ConnectionClosed as exc:
                    self.errors[f"closed: {exc}"] += 1
                    pair.racing = False
            await asyncio.sleep(min(0.01, max(0.0, next_at - clock())))

    async def open_idle(self, count: int) -> dict[str, Any]:
        """``count`` more connections that say hello and then sit still; one that fails is counted,
        and the others go on."""
        failures: Counter[str] = Counter()

        async def one(index: int) -> None:
            try:
                await self.connect(1, index)
            except (OSError, TimeoutError, RuntimeError, WebSocketException) as exc:
                failures[f"{type(exc).__name__}: {exc}"] += 1

        first = len(self.racers)
        await self._bounded([lambda i=i: one(i) for i in range(first, first + count)])  # type: ignore[misc]
        return {"connections": len(self.racers), "failures": dict(failures)}

    async def measure(self, start: float, end: float, drain: float) -> dict[str, Any]:
        """Samples of the moves sent between ``start`` and ``end`` (perf_counter, the same clock in
        every process), and this process's CPU seconds meanwhile."""
        window = self.window = Window(start, end)
        rooms, races = self.new_rooms, self.finished_races
        gc.collect()
        gc.disable()  # a full collection here would stall every racer of the process at once
        try:
            await asyncio.sleep(max(0.0, start - clock()))
            cpu = time.process_time()
            await asyncio.sleep(max(0.0, end - clock()))
            cpu = time.process_time() - cpu
            deadline = clock() + drain
            while clock() < deadline and any(  # noqa: ASYNC110
                window.holds(t) for r in self.racers for t in (*r.moves_in_flight.values(), *r.sent_at.values())
            ):
                await asyncio.sleep(0.05)
        finally:
            gc.enable()
            self.window = None
        return {
            "sent": window.sent,
            "sent_with_rival": window.sent_with_rival,
            "skipped": window.skipped,
            "ack": window.ack,
            "rival": window.rival,
            "errors": dict(window.errors),
            "max_lag": window.max_lag,
            "cpu": cpu,
            "racing": sum(2 for p in set(self.pair_of.values()) if p.racing),
            "new_rooms": self.new_rooms - rooms,
            "finished_races": self.finished_races - races,
            "seat_failures": self.seat_failures,
        }

    async def close(self) -> None:
        self.closing = True
        if self.scheduler is not None:
            self.scheduler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.scheduler
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await super().close()


def generator_process(
    conn: Connection, urls: list[str], lines: list[Script], pace: float, index: int, cpu: int
) -> None:
    """A generator process: obeys the coordinator's commands on ``conn`` until ``stop``."""
    os.sched_setaffinity(0, {cpu})
    source = f"127.0.{index // 200 + 1}.{index % 200 + 10}"
    asyncio.run(_serve(conn, Crowd(urls, lines, pace, index, source)))


async def _serve(conn: Connection, crowd: Crowd) -> None:
    loop = asyncio.get_running_loop()
    while True:
        command: dict[str, Any] = await loop.run_in_executor(None, conn.recv)
        op = command["op"]
        reply: dict[str, Any] = {}
        try:
            if op == "grow":
                await crowd.grow(command["count"])
                reply = {"racers": len(crowd.racers)}
            elif op == "idle":
                reply = await crowd.open_idle(command["count"])
            elif op == "measure":
                reply = await crowd.measure(command["start"], command["end"], command["drain"])
            elif op == "stop":
                await crowd.close()
                conn.send({})
                return
        except (RuntimeError, TimeoutError, OSError) as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        conn.send(reply)


class Generators:
    """The generator processes, spawned on ``cpu``; commands go to all of them at once."""

    def __init__(self, count: int, urls: list[str], lines: list[Script], pace: float, cpu: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.conns: list[Connection] = []
        self.procs: list[multiprocessing.process.BaseProcess] = []
        for index in range(count):
            mine, theirs = context.Pipe()
            proc = context.Process(target=generator_process, args=(theirs, urls, lines, pace, index, cpu), daemon=True)
            proc.start()
            self.conns.append(mine)
            self.procs.append(proc)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs if p.pid is not None]

    def ask(self, commands: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for conn, command in zip(self.conns, commands, strict=True):
            conn.send(command)
        return [conn.recv() for conn in self.conns]

    def split(self, total: int, unit: int = 1) -> list[int]:
        """``total`` in shares of multiples of ``unit``, one per process, as even as can be."""
        units, extra = divmod(total // unit, len(self.conns))
        return [(units + (i < extra)) * unit for i in range(len(self.conns))]

    def close(self) -> None:
        with contextlib.suppress(OSError, EOFError):
            self.ask([{"op": "stop"}] * len(self.conns))
        for proc in self.procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join()


# -- the coordinator -----------------------------------------------------------------------------


@dataclass
class Node:
    """One race server on its own redis-server."""

    redis: RedisProcess
    server_pid: int
    url: str

    @property
    def redis_pid(self) -> int:
        return self.redis.pid


@contextlib.contextmanager
def node(cpu: int, server_args: list[str]) -> Iterator[Node]:
    with on_cpus({cpu}):
        redis_proc = RedisProcess().start()
    server = None
    try:
        server = race_server("capacity", redis_proc.url, f"cap-{uuid.uuid4().hex[:6]}:", server_args, {}).start({cpu})
        yield Node(redis_proc, server.pid, server.url)
    finally:
        if server is not None:
            server.stop()
        redis_proc.close()


def raise_open_files(wanted: int) -> tuple[int, int, str]:
    """Raise this process's open-file limit (children inherit it) toward ``wanted``: the soft one to
    the hard one, and the hard one too where allowed. (limit before, limit now, how)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if wanted <= soft:
        return soft, soft, "enough already"
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(hard, wanted)))
        return soft, wanted, f"raised (hard limit was {hard})"
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return soft, hard, f"raised to the hard limit only (not allowed above {hard})"


@dataclass
class Step:
    racers: int
    seconds: float
    phase: Phase
    server_cpu: float
    redis_cpu: float
    gen_cpu: float
    others_server_cpu: float
    others_gen_cpu: float
    racing: int
    new_rooms: int
    finished_races: int
    seat_failures: int
    slo: float = SLO
    """The bar: move -> rival p99 under this many seconds (with 95% of the moves acknowledged)."""

    @property
    def moves_per_second(self) -> float:
        return self.phase.window.sent / self.seconds

    @property
    def passes(self) -> bool:
        p = self.phase
        return p.rival(0.99) < self.slo and p.accepted >= SLO_ACCEPTED * p.offered

    @property
    def late(self) -> float:
        """The share of moves whose rival heard of them ``slo`` or more after they were sent (or never)."""
        w = self.phase.window
        if not w.sent_with_rival:
            return math.nan
        missing = max(0, w.sent_with_rival - len(w.rival))
        return (sum(1 for t in w.rival if t >= self.slo) + missing) / w.sent_with_rival

    @property
    def saturated(self) -> bool:
        """The generators used 90% of their CPU or more: the step measured them as much as the node."""
        return self.phase.generator_bound


@dataclass
class Idle:
    wanted: int
    opened: int = 0
    server_rss: float = math.nan
    redis_rss: float = math.nan
    failure: str = ""

    @property
    def server_per_conn(self) -> float:
        return self.server_rss / self.opened if self.opened else math.nan

    @property
    def redis_per_conn(self) -> float:
        return self.redis_rss / self.opened if self.opened else math.nan


@dataclass
class Report:
    command: str
    machine: str
    load_before: str
    open_files: str
    steps: list[Step] = field(default_factory=list)
    idle: Idle | None = None
    stopped: str = ""
    load_after: str = ""

    @property
    def best(self) -> Step | None:
        passing = [s for s in self.steps if s.passes]
        return max(passing, key=lambda s: s.racers) if passing else None


def measure_step(node_: Node, gens: Generators, args: argparse.Namespace, racers: int) -> Step:
    start = clock() + args.warmup
    end = start + args.measure
    pids = [node_.server_pid, node_.redis_pid]
    command = {"op": "measure", "start": start, "end": end, "drain": args.drain}
    for conn in gens.conns:
        conn.send(command)
    time.sleep(max(0.0, start - clock()))
    before = [cpu_seconds(p) for p in pids] + [cpu_busy_seconds(args.server_cpu), cpu_busy_seconds(args.gen_cpu)]
    time.sleep(max(0.0, end - clock()))
    after = [cpu_seconds(p) for p in pids] + [cpu_busy_seconds(args.server_cpu), cpu_busy_seconds(args.gen_cpu)]
    parts = [conn.recv() for conn in gens.conns]
    if failed := [p["error"] for p in parts if "error" in p]:
        raise RuntimeError(failed[0])
    server, redis_, busy_server, busy_gen = (b - a for a, b in zip(before, after, strict=True))
    gen_cpu = sum(p["cpu"] for p in parts)
    window = Window(start, end)
    for p in parts:
        window.sent += p["sent"]
        window.sent_with_rival += p["sent_with_rival"]
        window.skipped += p["skipped"]
        window.ack += p["ack"]
        window.rival += p["rival"]
        window.errors.update(p["errors"])
        window.max_lag = max(window.max_lag, p["max_lag"])
    # A move refused because the rival had just finished is told to no one: it has no rival time.
    window.sent_with_rival -= window.errors.get("race-over", 0)
    seconds = end - start
    phase = Phase(window.sent / seconds, seconds, window, server_cpu=server + redis_, gen_cpu=gen_cpu, redis_cpu=redis_)
    return Step(
        racers,
        seconds,
        phase,
        server,
        redis_,
        gen_cpu,
        max(0.0, busy_server - server - redis_),
        max(0.0, busy_gen - gen_cpu),
        sum(p["racing"] for p in parts),
        sum(p["new_rooms"] for p in parts),
        sum(p["finished_races"] for p in parts),
        sum(p["seat_failures"] for p in parts),
        args.p99_limit / 1e3,
    )


def describe(step: Step) -> str:
    p = step.phase
    verdict = "pass" if step.passes else "FAIL"
    if step.saturated:
        verdict += " (generators CPU-bound)"
    return (
        f"{step.racers:>7,} {step.moves_per_second:>8,.0f} {ms(p.ack(0.5)):>8} {ms(p.ack(0.99)):>8} "
        f"{ms(p.rival(0.5)):>8} {ms(p.rival(0.99)):>8} {ms(p.rival(1.0)):>8} {step.late:>6.2%} "
        f"{step.server_cpu / step.seconds:>6.0%} "
        f"{step.redis_cpu / step.seconds:>6.0%} {step.gen_cpu / step.seconds:>6.0%} "
        f"{step.others_server_cpu / step.seconds:>6.0%} {step.others_gen_cpu / step.seconds:>6.0%} "
        f"{step.new_rooms:>5} {verdict}"
    )


HEAD = (
    f"{'racers':>7} {'moves/s':>8} {'ack p50':>8} {'ack p99':>8} {'riv p50':>8} {'riv p99':>8} {'riv max':>8} "
    f"{'late':>6} {'server':>6} {'redis':>6} {'gens':>6} {'oth/S':>6} {'oth/G':>6} {'rooms':>5}"
)


def run_racers(report: Report, args: argparse.Namespace, lines: list[Script]) -> None:
    print(f"\nracers, one move every {args.pace:g} s each (Poisson), two per room; times in ms; late: moves")
    print(f"the rival heard of {args.p99_limit:g} ms or more after the send (or never); CPU in share of one core")
    print("(server: the race server process; oth/S, oth/G: other processes on the server's and the generators'")
    print("CPU); rooms: new rooms after a finished race during the measured part")
    print(HEAD, flush=True)
    with node(args.server_cpu, args.server_arg) as node_:
        gens = Generators(args.generators, [node_.url], lines, args.pace, args.gen_cpu)
        try:
            racers = 0
            target = args.start
            while target <= args.max_racers:
                shares = gens.split(target - racers, unit=2)
                replies = gens.ask([{"op": "grow", "count": n} for n in shares])
                if failed := [r["error"] for r in replies if "error" in r]:
                    report.stopped = f"{target:,} racers could not be seated: {failed[0]}"
                    break
                racers = sum(r["racers"] for r in replies)
                step = measure_step(node_, gens, args, racers)
                print(describe(step), flush=True)
                if not step.passes and not step.saturated:
                    again = measure_step(node_, gens, args, racers)
                    print(describe(again) + " (again)", flush=True)
                    step = min(step, again, key=lambda s: (not s.passes, s.phase.rival(0.99)))
                report.steps.append(step)
                if step.saturated:
                    report.stopped = f"the generators ran out of CPU at {racers:,} racers (a lower bound)"
                    break
                if not step.passes:
                    report.stopped = f"move -> rival p99 passed {args.p99_limit:g} ms at {racers:,} racers"
                    break
                target = racers + args.step
            else:
                report.stopped = f"--max-racers {args.max_racers:,} reached"
        finally:
            gens.close()


def run_idle(report: Report, args: argparse.Namespace) -> None:
    idle = report.idle = Idle(args.idle)
    print(f"\nidle: {args.idle:,} connections that said hello, over {args.generators} generator processes", flush=True)
    with node(args.server_cpu, args.server_arg) as node_:
        gens = Generators(args.generators, [node_.url], [], args.pace, args.gen_cpu)
        try:
            time.sleep(SETTLE)
            server, redis_ = rss_bytes(node_.server_pid), rss_bytes(node_.redis_pid)
            began = time.monotonic()
            replies = gens.ask([{"op": "idle", "count": n} for n in gens.split(args.idle)])
            opened = time.monotonic() - began
            failures: Counter[str] = Counter()
            for r in replies:
                failures.update(r.get("failures", {}))
                if "error" in r:
                    failures[r["error"]] += 1
            if failures:
                idle.failure = "; ".join(f"{n} x {what}" for what, n in failures.most_common(3))
            idle.opened = sum(r.get("connections", 0) for r in replies)
            time.sleep(SETTLE)
            idle.server_rss = rss_bytes(node_.server_pid) - server
            idle.redis_rss = rss_bytes(node_.redis_pid) - redis_
            print(f"  opened {idle.opened:,} in {opened:.1f} s" + (f"; {idle.failure}" if idle.failure else ""))
        finally:
            gens.close()


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def summary(report: Report, args: argparse.Namespace) -> str:
    lines = ["", f"$ {report.command}", f"machine: {report.machine}"]
    lines.append(
        f"load average before {report.load_before}, after {report.load_after}; open files: {report.open_files}"
    )
    if args.racers:
        lines.append(f"racers: one move every {args.pace:g} s, node = server + redis-server on CPU {args.server_cpu}")
        lines.append(f"  stopped: {report.stopped}")
        best = report.best
        if best is None:
            lines.append("  no step passed")
        else:
            share = best.server_cpu / best.seconds
            with_redis = (best.server_cpu + best.redis_cpu) / best.seconds
            lines += [
                f"  racers per node (rival p99 < {args.p99_limit:g} ms):    {best.racers:>10,}  "
                f"({best.moves_per_second:,.0f} moves/s, rival p99 {ms(best.phase.rival(0.99))} ms)",
                f"  racers per core of the server process:  {per_core(best.racers, share):>10}  "
                f"(server CPU {share:.0%})",
                f"  racers per core, server + redis-server: {per_core(best.racers, with_redis):>10}  "
                f"(server + redis CPU {with_redis:.0%})",
            ]
    idle = report.idle
    if idle is not None:
        lines += [
            f"idle connections: {idle.opened:,} of {idle.wanted:,} opened"
            + (f" ({idle.failure})" if idle.failure else ""),
            f"  server RSS per idle connection:       {idle.server_per_conn / 1024:>10.1f} KiB",
            f"  redis-server RSS per idle connection: {idle.redis_per_conn / 1024:>10.1f} KiB",
        ]
    return "\n".join(lines)


def per_core(racers: int, share: float) -> str:
    return fmt(racers / share) if share > 0 else "-"


def as_json(report: Report) -> dict[str, Any]:
    steps = []
    for s in report.steps:
        p = s.phase
        steps.append(
            {
                "racers": s.racers,
                "moves_per_second": s.moves_per_second,
                "ack_p50_ms": p.ack(0.5) * 1e3,
                "ack_p99_ms": p.ack(0.99) * 1e3,
                "rival_p50_ms": p.rival(0.5) * 1e3,
                "rival_p99_ms": p.rival(0.99) * 1e3,
                "rival_max_ms": p.rival(1.0) * 1e3,
                "rival_late_share": s.late,
                "server_cpu": s.server_cpu / s.seconds,
                "redis_cpu": s.redis_cpu / s.seconds,
                "generator_cpu": s.gen_cpu / s.seconds,
                "others_on_server_cpu": s.others_server_cpu / s.seconds,
                "others_on_generator_cpu": s.others_gen_cpu / s.seconds,
                "racing": s.racing,
                "new_rooms": s.new_rooms,
                "finished_races": s.finished_races,
                "seat_failures": s.seat_failures,
                "errors": dict(p.window.errors),
                "passes": s.passes,
                "saturated": s.saturated,
            }
        )
    best = report.best
    out: dict[str, Any] = {
        "command": report.command,
        "machine": report.machine,
        "stopped": report.stopped,
        "steps": steps,
        "racers_per_node": best.racers if best else None,
        "racers_per_core": best.racers / (best.server_cpu / best.seconds) if best and best.server_cpu else None,
        "racers_per_core_with_redis": (
            best.racers / ((best.server_cpu + best.redis_cpu) / best.seconds) if best and best.server_cpu else None
        ),
    }
    if report.idle is not None:
        out["idle"] = {
            **asdict(report.idle),
            "server_kib_per_conn": report.idle.server_per_conn / 1024,
            "redis_kib_per_conn": report.idle.redis_per_conn / 1024,
        }
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 40 racers in steps of 40, 200 idle")
    parser.add_argument("--start", type=int, help="racers of the first step (even); default 1000, quick 40")
    parser.add_argument("--step", type=int, help="racers added each step (even); default 1000, quick 40")
    parser.add_argument("--max-racers", type=int, help="the last step's racers at most; default 20000, quick 80")
    parser.add_argument("--no-racers", dest="racers", action="store_false", help="skip the racers")
    parser.add_argument("--idle", type=int, help="idle connections (0: skip); default 20000, quick 200")
    parser.add_argument(
        "--p99-limit", type=float, default=SLO * 1e3, help="the bar: move -> rival p99 in ms (default 50)"
    )
    parser.add_argument("--pace", type=float, default=2.0, help="mean seconds between one racer's moves")
    parser.add_argument("--warmup", type=float, help="seconds of load before each measured part; default 5, quick 1")
    parser.add_argument("--measure", type=float, help="seconds measured per step; default 15, quick 3")
    parser.add_argument("--drain", type=float, default=3.0, help="seconds to wait for late answers")
    parser.add_argument("--generators", type=int, default=2, help="load generator processes")
    parser.add_argument("--server-cpu", type=int, default=0, help="the CPU of the server and its redis-server")
    parser.add_argument("--gen-cpu", type=int, default=1, help="the CPU of the generator processes")
    parser.add_argument("--server-arg", action="append", default=[], help="a seahaven-server flag (repeat)")
    parser.add_argument("--json", metavar="PATH", help="also write every figure as JSON")
    args = parser.parse_args(argv)
    quick = args.quick
    args.start = args.start if args.start is not None else (40 if quick else 1000)
    args.step = args.step if args.step is not None else (40 if quick else 1000)
    args.max_racers = args.max_racers if args.max_racers is not None else (80 if quick else 20_000)
    args.idle = args.idle if args.idle is not None else (200 if quick else 20_000)
    args.warmup = args.warmup if args.warmup is not None else (1.0 if quick else 5.0)
    args.measure = args.measure if args.measure is not None else (3.0 if quick else 15.0)
    for name in ("start", "step", "max_racers"):
        value = getattr(args, name)
        if not 2 <= value <= MAX_RACERS or value % 2:
            parser.error(f"--{name.replace('_', '-')} must be even, 2 to {MAX_RACERS:,}")
    if not 0 <= args.idle <= MAX_IDLE:
        parser.error(f"--idle goes from 0 to {MAX_IDLE:,}")
    if not 1 <= args.generators <= MAX_GENERATORS:
        parser.error(f"--generators goes from 1 to {MAX_GENERATORS}")
    if not 0 < args.p99_limit <= MAX_SECONDS * 1e3:
        parser.error("--p99-limit must be above 0 ms")
    if not 0.01 <= args.pace <= 60:
        parser.error("--pace goes from 0.01 to 60 seconds")
    for seconds in (args.warmup, args.measure, args.drain):
        if not 0 <= seconds <= MAX_SECONDS:
            parser.error(f"durations go from 0 to {MAX_SECONDS:.0f} s")
    if args.measure <= 0:
        parser.error("--measure must be above 0")
    cpus = os.sched_getaffinity(0)
    if {args.server_cpu, args.gen_cpu} - cpus or args.server_cpu == args.gen_cpu:
        parser.error(f"--server-cpu and --gen-cpu must be two different CPUs of {sorted(cpus)}")
    if not args.racers and not args.idle:
        parser.error("nothing to do: --no-racers and --idle 0")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    exe = os.path.relpath(sys.executable) if sys.executable.startswith(os.getcwd() + os.sep) else sys.executable
    command = shlex.join([exe, "-m", "benchmarks.capacity", *(sys.argv[1:] if argv is None else argv)])
    connections = max(args.idle, args.max_racers if args.racers else 0)
    before, now, how = raise_open_files(connections + FD_MARGIN)
    report = Report(command, machine(), load_average(), f"{before:,} -> {now:,} ({how})")
    print(f"$ {command}\nmachine: {report.machine}\nload average: {report.load_before}; open files {report.open_files}")
    if connections + FD_MARGIN > now:
        # Past the limit the server stops accepting for a while and each refused client waits out
        # its handshake timeout: ask only for what fits, and say so.
        fits = (now - FD_MARGIN) // 2 * 2
        args.idle, args.max_racers = min(args.idle, fits), min(args.max_racers, fits)
        print(f"  a process may hold about {fits:,} connections here: idle and racers capped to it")
        report.open_files += f"; connections capped at {fits:,}"
    began = time.monotonic()
    with on_cpus({args.gen_cpu}):
        if args.idle:
            run_idle(report, args)
        if args.racers:
            run_racers(report, args, scripts(DEALS, make=winning_line))
    report.load_after = load_average()
    print(summary(report, args))
    if args.json:
        Path(args.json).write_text(json.dumps(as_json(report), indent=1, default=str))
    print(f"\ndone in {time.monotonic() - began:.0f} s")
    failed = (args.racers and not report.steps) or (report.idle is not None and not report.idle.opened)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
