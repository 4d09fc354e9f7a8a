"""``seahaven-server --workers N``: N server processes on one host, sharing its port and one Redis.

Each worker is an ordinary node (the rooms are shared through Redis: ARCHITECTURE.md, "Several
nodes"), listening on the same port with SO_REUSEPORT, so the kernel spreads new connections over
them. This process only supervises: it starts the workers, starts again one that dies (its racers
reconnect to the others meanwhile), and passes SIGTERM/SIGINT on, so a graceful stop is each
worker's own (answer what is in flight, then 1012). On Linux a worker is also sent SIGTERM when the
supervisor dies however it dies (``PR_SET_PDEATHSIG``), so a supervisor killed with SIGKILL leaves
no worker serving on its own. A worker holds those signals until its handlers are in place: a drain
or a stop passed on while it is still starting is handled once it has started, not a kill mid-start.
"""

from __future__ import annotations

import ctypes
import logging
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from types import FrameType
from typing import Final

log = logging.getLogger("seahaven.workers")

RESPAWN_PAUSE: Final = 1.0
"""Seconds before a worker that died is started again (a worker that cannot start must not spin)."""


def free_port(host: str) -> int:
    """A port nobody listens on now, for workers that must all bind the same one."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def worker_command(argv: Sequence[str], port: int, node: str) -> list[str]:
    """The command line of one worker: the same flags, one process, the shared port, its own name
    (argparse keeps the last of a repeated option)."""
    return [
        sys.executable,
        "-m",
        "server",
        *argv,
        "--workers",
        "1",
        "--reuse-port",
        "--port",
        str(port),
        "--node-name",
        node,
    ]


_PR_SET_PDEATHSIG: Final = 1


HELD: Final = (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1)
"""The signals a worker holds from its start until its handlers are in place (``release_held``): a
stop or a drain passed on while it is still starting waits for it, where it would have killed it."""


def _prepare_worker() -> None:
    """In the worker, before it runs: SIGTERM when the process that started it dies (Linux), and
    the signals it will handle held until it handles them."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    signal.pthread_sigmask(signal.SIG_BLOCK, HELD)


def release_held() -> None:
    """In a server process whose signal handlers are installed: what was held since it started (a
    worker's, see ``HELD``) is delivered now. Nothing is held in a process started otherwise."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)


def _start(command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, preexec_fn=_prepare_worker)


def supervise(argv: Sequence[str], workers: int, host: str, port: int, node: str) -> int:
    """Run ``workers`` worker processes until SIGTERM or SIGINT (passed on to them), or SIGUSR1 (a
    drain, passed on; the supervisor exits once they all have); the exit status (0 after a stop)."""
    port = port or free_port(host)
    commands = [worker_command(argv, port, f"{node}-{i}") for i in range(1, workers + 1)]
    procs: list[subprocess.Popen[bytes]] = []
    received: list[int] = []
    """The signals passed on so far: a worker started after one is sent it too."""

    def stop(signum: int, frame: FrameType | None) -> None:
        received.append(signum)
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signum)

    def start(i: int) -> None:
        proc = _start(commands[i])
        if i < len(procs):
            procs[i] = proc
        else:
            procs.append(proc)
        for signum in list(received):  # one that came while it was being started (twice is harmless)
            proc.send_signal(signum)

    # Handlers first, so a signal while the workers start reaches every one of them.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # A drain (docs/admin.md): every worker drains, and one that exits after it is not started again.
    signal.signal(signal.SIGUSR1, stop)
    for i in range(workers):
        start(i)
    log.info("event=workers.started count=%d port=%d", workers, port)
    while not received:
        for i, proc in enumerate(procs):
            if proc.poll() is not None and not received:
                log.warning("event=worker.died worker=%d status=%s", i + 1, proc.returncode)
                time.sleep(RESPAWN_PAUSE)
                if not received:
                    start(i)
        time.sleep(0.2)
    return exit_status([proc.wait() for proc in procs])


def exit_status(codes: Sequence[int]) -> int:
    """The supervisor's exit status from its workers' (``Popen.returncode``: negative for a signal):
    0 when every one stopped cleanly, else the first failure's, a signal's as a shell gives it (128 +
    its number): a worker that died must not hide behind one that stopped."""
    failed = next((code for code in codes if code != 0), 0)
    return 128 - failed if failed < 0 else failed
