"""Child processes of the load benchmark: start them on a given CPU, read their CPU time and memory.

Everything a server side needs (the race server, its redis-server, the floor) runs pinned to one
CPU; the load generator keeps the other. Pinning happens in the parent just before each child is
spawned, so every thread the child ever makes inherits it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
STARTUP_TIMEOUT = 20.0


@contextlib.contextmanager
def on_cpus(cpus: set[int]) -> Iterator[None]:
    """Run the block (and the children it spawns) on ``cpus``, then go back to the old set."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # After the command name: fields[11] is utime, fields[12] stime (proc(5) numbers them 14, 15).
    return (int(fields[11]) + int(fields[12])) / TICKS


def wait_seconds(pid: int) -> float:
    """Time the process's threads have spent ready to run but waiting for a CPU (schedstat)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue  # a thread that just ended
    return total / 1e9


def cpu_busy_seconds(cpu: int) -> float:
    """Time CPU ``cpu`` has spent busy (anyone's work, not idle or waiting for I/O) since boot."""
    for line in Path("/proc/stat").read_text().splitlines():
        name, *ticks = line.split()
        if name == f"cpu{cpu}":
            user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, ticks[:8])
            return (user + nice + system + irq + softirq + steal) / TICKS
    raise RuntimeError(f"no cpu{cpu} in /proc/stat")


def rss_bytes(pid: int) -> int:
    """The process's resident set size."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


class Listener:
    """A server child that prints ``listening on ws://HOST:PORT`` once it accepts connections."""

    def __init__(self, label: str, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.label = label
        self.argv = argv
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self, cpus: set[int]) -> Listener:
        with on_cpus(cpus):
            self.proc = subprocess.Popen(
                self.argv,
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + STARTUP_TIMEOUT
        line = ""
        while time.monotonic() < deadline and self.proc.poll() is None:
            line = self.proc.stdout.readline()
            if line.startswith("listening on ws://"):
                self.url = line.split(" on ", 1)[1].strip()
                return self
        self.stop()
        raise RuntimeError(f"{self.label} did not start (last line {line!r})")

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def race_server(label: str, redis_url: str | None, prefix: str, extra: list[str], env: dict[str, str]) -> Listener:
    """``python -m server`` on a free port, live spectators, a short countdown."""
    argv = [sys.executable, "-m", "server", "--port", "0", "--spectator-delay", "0", "--countdown", "0.2"]
    # Every load client comes from this host: lift the per-address limits meant for the public.
    argv += ["--connections-per-address", "1000000", "--sessions-per-address", "1000000"]
    argv += ["--rooms-per-address", "1000000", "--rooms-per-connection", "1000000"]
    argv += extra
    if redis_url is not None:
        argv += ["--redis", redis_url, "--prefix", prefix]
    # Records (a SQLite file unless --database is among the extra flags) in a folder of the run's own.
    env = {"SEAHAVEN_DATA_DIR": tempfile.mkdtemp(prefix="seahaven-bench-"), **env}
    return Listener(label, argv, env)


def floor_server(*args: str) -> Listener:
    return Listener("floor", [sys.executable, "-m", "benchmarks.floor", "--port", "0", *args])
