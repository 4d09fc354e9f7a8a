"""The load benchmark's figures: latency percentiles, rates, CPU per move, and their ratios to the floor."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .loadgen import MAX_IN_FLIGHT, Window

SLO = 0.050
"""The sweep's bar: move -> rival p99 under 50 ms..."""
SLO_ACCEPTED = 0.95
"""...with at least this share of the offered moves accepted."""
GENERATOR_BOUND = 0.9
"""A step whose generator used this share of its CPU or more measured the generator as much as the server."""


def percentile(samples: list[float], expected: int, q: float) -> float:
    """Nearest-rank percentile of ``samples``, the ``expected - len(samples)`` missing answers
    counted as infinitely late."""
    n = max(expected, len(samples))
    if n == 0:
        return math.nan
    rank = max(1, math.ceil(q * n))
    ordered = sorted(samples)
    return ordered[rank - 1] if rank <= len(ordered) else math.inf


@dataclass
class Phase:
    """One or more load windows at one offered rate on one target, and the CPU they cost."""

    offered: float
    seconds: float
    window: Window
    server_cpu: float
    """CPU seconds of the server side (its processes and redis-server) during the windows."""
    gen_cpu: float
    """CPU seconds of the load generator during the windows."""
    others_on_server_cpu: float = 0.0
    """CPU seconds other processes (not ours: the machine is shared) took on the server's CPU."""
    others_on_gen_cpu: float = 0.0
    """The same on the generator's CPU."""
    server_wait: float = 0.0
    """Seconds the server side's threads (summed) were ready to run but waited for the CPU."""
    gen_wait: float = 0.0
    """The same for the load generator."""
    redis_commands: int = 0
    """Commands the server's redis-server ran meanwhile."""
    redis_cpu: float = 0.0
    """CPU seconds of the server side's redis-server alone (part of ``server_cpu``)."""
    spans: list[tuple[float, float]] = field(default_factory=list)
    """The measured windows on the Unix clock (to match the server's own GC log)."""

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
    def redis_cpu_per_move(self) -> float:
        moves = len(self.window.ack)
        return self.redis_cpu / moves if moves and self.redis_commands else math.nan

    @property
    def commands_per_move(self) -> float:
        return self.redis_commands / len(self.window.ack) if self.redis_commands and self.window.ack else math.nan

    @property
    def generator_behind(self) -> bool:
        """The generator, short of CPU, sent less than was planned: the step says little of the server."""
        return self.window.sent + self.window.skipped < SLO_ACCEPTED * self.offered * self.seconds

    @property
    def generator_bound(self) -> bool:
        """The generator's CPU was nearly full: late replies may be its own lag, not the server's."""
        return self.gen_cpu >= GENERATOR_BOUND * self.seconds

    @property
    def passes(self) -> bool:
        return self.rival(0.99) < SLO and self.accepted >= SLO_ACCEPTED * self.offered

    @staticmethod
    def merge(phases: list[Phase]) -> Phase:
        """The phases as one: samples pooled, seconds and CPU added."""
        window = Window(0.0)
        for p in phases:
            w = p.window
            window.sent += w.sent
            window.sent_with_rival += w.sent_with_rival
            window.skipped += w.skipped
            window.ack += w.ack
            window.rival += w.rival
            window.errors.update(w.errors)
            window.max_lag = max(window.max_lag, w.max_lag)
        return Phase(
            phases[0].offered,
            sum(p.seconds for p in phases),
            window,
            sum(p.server_cpu for p in phases),
            sum(p.gen_cpu for p in phases),
            sum(p.others_on_server_cpu for p in phases),
            sum(p.others_on_gen_cpu for p in phases),
            sum(p.server_wait for p in phases),
            sum(p.gen_wait for p in phases),
            sum(p.redis_commands for p in phases),
            sum(p.redis_cpu for p in phases),
            [span for p in phases for span in p.spans],
        )


@dataclass
class Result:
    """What one target did in one pairing with the floor."""

    target: str
    rss_per_conn: float = math.nan
    redis_rss_per_conn: float = math.nan
    slices: list[Phase] = field(default_factory=list)
    sweep: list[Phase] = field(default_factory=list)
    failure: str = ""
    gc_pauses: list[tuple[float, int, float]] = field(default_factory=list)
    """(Unix time, generation, seconds) of the server's garbage collections, with the gc-log lever."""

    def gc_in_windows(self) -> str:
        """The collections that fell in the measured slices, by generation."""
        main = self.main
        if main is None or not self.gc_pauses:
            return ""
        inside = [(g, d) for t, g, d in self.gc_pauses if any(a <= t <= b for a, b in main.spans)]
        parts = []
        for gen in (0, 1, 2):
            pauses = sorted(d for g, d in inside if g == gen)
            if pauses:
                mid, top = pauses[len(pauses) // 2] * 1e3, pauses[-1] * 1e3
                parts.append(f"gen{gen} {len(pauses)} x median {mid:.2f} / max {top:.1f} ms")
        total = sum(d for _, d in inside)
        return f"GC in the measured {main.seconds:.0f} s: {', '.join(parts)}; {total / main.seconds:.1%} of the time"

    @property
    def main(self) -> Phase | None:
        return Phase.merge(self.slices) if self.slices else None

    @property
    def best_rate(self) -> float:
        passing = [p.offered for p in self.sweep if p.passes]
        return max(passing) if passing else math.nan

    @property
    def rate_is_a_floor(self) -> bool:
        """The sweep ended at a step where the generator, not this server, was out of CPU: the
        server's highest rate is at least ``best_rate``."""
        return any(p.generator_bound for p in self.sweep if not p.offered < self.best_rate)


def ms(seconds: float) -> str:
    return "lost" if math.isinf(seconds) else "-" if math.isnan(seconds) else f"{seconds * 1000:.2f}"


def describe_step(p: Phase) -> str:
    return (
        f"offered {p.offered:6.0f}/s accepted {p.accepted:6.0f}/s  rival p99 {ms(p.rival(0.99)):>8} ms  "
        f"server CPU {p.server_cpu / p.seconds:4.0%}  generator CPU {p.gen_cpu / p.seconds:4.0%}  "
        f"waited for CPU {p.server_wait / p.seconds:4.0%}/{p.gen_wait / p.seconds:4.0%}  "
        f"{'pass' if p.passes else 'FAIL'}"
        + (f" (the generator sent only {p.window.sent / p.seconds:.0f}/s)" if p.generator_behind else "")
        + (" (the generator was CPU-bound)" if p.generator_bound and not p.passes else "")
    )


def describe(result: Result) -> str:
    p = result.main
    if p is None:
        return f"  {result.target:<9} {result.failure or 'no figures'}"
    w = p.window
    lines = [
        f"  {result.target:<9} accepted {p.accepted:.0f}/s of {p.offered:.0f} offered over {p.seconds:.0f} s, "
        f"server CPU {p.server_cpu / p.seconds:.0%} = {p.cpu_per_move * 1e6:.0f} us/move, "
        f"generator CPU {p.gen_cpu / p.seconds:.0%}, RSS {result.rss_per_conn / 1024:.1f} KiB/idle connection",
        f"    other processes took {p.others_on_server_cpu / p.seconds:.0%} of the server CPU and "
        f"{p.others_on_gen_cpu / p.seconds:.0%} of the generator CPU; ready but waiting for the CPU: "
        f"server {p.server_wait / p.seconds:.1%} of the time, generator {p.gen_wait / p.seconds:.1%}",
        f"    move->ack   p50 {ms(p.ack(0.5))}  p90 {ms(p.ack(0.9))}  p99 {ms(p.ack(0.99))}  max {ms(p.ack(1.0))} ms",
        f"    move->rival p50 {ms(p.rival(0.5))}  p90 {ms(p.rival(0.9))}  p99 {ms(p.rival(0.99))}  "
        f"max {ms(p.rival(1.0))} ms",
    ]
    if w.skipped or w.errors or len(w.ack) < w.sent or len(w.rival) < w.sent_with_rival or w.max_lag > 0.02:
        lines.append(
            f"    sent {w.sent}, acked {len(w.ack)}, rival heard {len(w.rival)}/{w.sent_with_rival}, skipped "
            f"{w.skipped} (>{MAX_IN_FLIGHT} in flight), errors {dict(w.errors)}, a send up to "
            f"{w.max_lag * 1000:.0f} ms behind plan"
        )
    if result.failure:
        lines.append(f"    {result.failure}")
    if result.gc_pauses:
        lines.append(f"    {result.gc_in_windows()}")
    return "\n".join(lines)


def _main(get: Callable[[Phase], float]) -> Callable[[Result], float]:
    return lambda r: get(r.main) if r.main is not None else math.nan


METRICS: list[tuple[str, Callable[[Result], float]]] = [
    ("move->ack p50 (ms)", _main(lambda p: p.ack(0.5) * 1e3)),
    ("move->ack p90 (ms)", _main(lambda p: p.ack(0.9) * 1e3)),
    ("move->ack p99 (ms)", _main(lambda p: p.ack(0.99) * 1e3)),
    ("move->ack max (ms)", _main(lambda p: p.ack(1.0) * 1e3)),
    ("move->rival p50 (ms)", _main(lambda p: p.rival(0.5) * 1e3)),
    ("move->rival p90 (ms)", _main(lambda p: p.rival(0.9) * 1e3)),
    ("move->rival p99 (ms)", _main(lambda p: p.rival(0.99) * 1e3)),
    ("move->rival max (ms)", _main(lambda p: p.rival(1.0) * 1e3)),
    ("accepted moves/s", _main(lambda p: p.accepted)),
    ("server CPU per move (us)", _main(lambda p: p.cpu_per_move * 1e6)),
    ("  of which redis-server (us)", _main(lambda p: p.redis_cpu_per_move * 1e6)),
    ("Redis commands per move", _main(lambda p: p.commands_per_move)),
    ("server CPU busy (%)", _main(lambda p: p.server_cpu / p.seconds * 100)),
    ("others on server CPU (%)", _main(lambda p: p.others_on_server_cpu / p.seconds * 100)),
    ("others on generator CPU (%)", _main(lambda p: p.others_on_gen_cpu / p.seconds * 100)),
    ("server waited for CPU (%)", _main(lambda p: p.server_wait / p.seconds * 100)),
    ("generator waited for CPU (%)", _main(lambda p: p.gen_wait / p.seconds * 100)),
    ("RSS per idle conn (KiB)", lambda r: r.rss_per_conn / 1024),
    ("rate, rival p99<50ms (/s)", lambda r: r.best_rate),
]


def fmt(x: float) -> str:
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "lost"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.2f}"


def table(pairs: list[tuple[Result, Result]]) -> str:
    """One column group per pairing: ours, what it ran alternately with (the floor or the plain
    server), and the ratio."""
    head = f"{'':<30}" + "".join(f"{ours.target:>10}{other.target:>9}{'ratio':>8}" for ours, other in pairs)
    lines = [head]
    for label, get in METRICS:
        row = f"{label:<30}"
        for ours, floor in pairs:
            a, b = get(ours), get(floor)
            # No ratio to a value that prints as 0.00: a share of 0.004% would make it astronomic.
            finite = math.isfinite(a) and math.isfinite(b) and abs(b) >= 0.005
            row += f"{fmt(a):>10}{fmt(b):>9}{fmt(a / b) + 'x' if finite else '-':>8}"
        lines.append(row)
    return "\n".join(lines)


def as_json(pairs: list[tuple[Result, Result]]) -> list[dict[str, Any]]:
    out = []
    for pair in pairs:
        for result in pair:
            item: dict[str, Any] = {"target": result.target, "paired_with": pair[0].target, "failure": result.failure}
            item.update({label: get(result) for label, get in METRICS})
            main = result.main
            if main is not None:
                item["generator_cpu_share"] = main.gen_cpu / main.seconds
                item["sent"] = main.window.sent
                item["skipped"] = main.window.skipped
                item["errors"] = dict(main.window.errors)
                item["max_send_lag_ms"] = main.window.max_lag * 1e3
            item["redis_rss_per_conn_kib"] = result.redis_rss_per_conn / 1024
            item["sweep"] = [
                {"offered": p.offered, "accepted": p.accepted, "rival_p99_ms": p.rival(0.99) * 1e3, "passes": p.passes}
                for p in result.sweep
            ]
            out.append(item)
    return out
