"""A throwaway redis-server for tests and benchmarks: its own loopback port, its own directory.

Never touches a shared Redis (for example one on 6379): the port is a free one the OS hands out.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import pytest

HOST = "127.0.0.1"


PORTS_PER_WORKER = 2000
FIRST_PORT = 12000
"""Ports handed out by ``free_port``: below the kernel's ephemeral range (32768 up, where bind to
port 0 and every outgoing connection take theirs), a block of ``PORTS_PER_WORKER`` per pytest-xdist
worker."""


def _port_block() -> range:
    """This process's block: by its xdist worker number (``gw3``: the fourth), the first otherwise."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    number = int(worker[2:]) if worker[2:].isdigit() else 0
    first = FIRST_PORT + (number % 10) * PORTS_PER_WORKER
    return range(first, first + PORTS_PER_WORKER)


_handed_out = 0


def free_port() -> int:
    """A TCP port on the loopback interface that nothing listens on right now, and that neither
    another test worker nor an outgoing connection takes while its process starts or while it is
    stopped for a restart: each worker hands out its own block in turn, so a port comes back only
    after ``PORTS_PER_WORKER`` others (a port handed by the kernel could be handed again at once)."""
    global _handed_out
    block = _port_block()
    for _ in range(len(block)):
        port = block[_handed_out % len(block)]
        _handed_out += 1
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((HOST, port))
            except OSError:
                continue  # in use (by something outside the tests): the next one
        return port
    raise AssertionError(f"no free port in {block}")


def redis_server_binary() -> str:
    """The redis-server on the PATH; a test *failure* (never a skip) when there is none."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not on the PATH: install Redis >= 7.0 to run the store tests", pytrace=False)
    return binary


class RedisProcess:
    """A redis-server child process on ``127.0.0.1:<port>`` (and a Unix socket in its directory) that
    can be stopped and started again.

    ``appendonly=True`` makes data survive ``stop()`` + ``start()`` (same directory, same port).
    RDB snapshots are off (``--save ""``). Use as a context manager or call ``close()``.
    """

    def __init__(
        self,
        *,
        appendonly: bool = False,
        port: int | None = None,
        startup_timeout: float = 10.0,
        databases: int = 1,
        extra: tuple[str, ...] = (),
    ) -> None:
        """``extra``: more redis-server options (a replica: ``("--replicaof", host, port)``)."""
        self.binary = redis_server_binary()
        self.extra = extra
        self.appendonly = appendonly
        self.databases = databases
        self._auto_port = port is None
        self.port = port if port is not None else free_port()
        self.startup_timeout = startup_timeout
        self.dir = Path(tempfile.mkdtemp(prefix="seahaven-redis-"))
        self._proc: subprocess.Popen[bytes] | None = None
        self._started = False

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    @property
    def socket_path(self) -> Path:
        """Its Unix socket (beside its files, so it is the same after a restart)."""
        return self.dir / "redis.sock"

    @property
    def unix_url(self) -> str:
        """The same server through its Unix socket."""
        return f"unix://{self.socket_path}?db=0"

    @property
    def log_path(self) -> Path:
        return self.dir / "redis.log"

    @property
    def pid(self) -> int:
        """The running redis-server's process id (to stop and continue it)."""
        assert self._proc is not None and self._proc.poll() is None, "redis-server is not running"
        return self._proc.pid

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def _argv(self) -> list[str]:
        return [
            self.binary,
            "--bind",
            HOST,
            "--port",
            str(self.port),
            "--dir",
            str(self.dir),
            "--unixsocket",
            str(self.socket_path),
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "yes" if self.appendonly else "no",
            "--daemonize",
            "no",
            "--logfile",
            str(self.log_path),
            "--databases",
            str(self.databases),
            *self.extra,
        ]

    def start(self) -> RedisProcess:
        """Start (or restart after ``stop()``, same port) and wait until it answers PING."""
        if self.running:
            return self
        # A port picked by free_port() can be taken by someone else before redis binds it: on the
        # first start only (a restart must keep its port), try a few fresh ports.
        attempts = 3 if self._auto_port and not self._started else 1
        for attempt in range(attempts):
            if attempt:
                self.port = free_port()
            if self._launch():
                self._started = True
                return self
        log = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
        pytest.fail(f"redis-server on port {self.port} did not come up:\n{log}", pytrace=False)

    def _launch(self) -> bool:
        proc = self._proc = subprocess.Popen(
            self._argv(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline and proc.poll() is None:
            if self._answers_ping(proc.pid):
                return True
            time.sleep(0.02)
        self.stop()
        return False

    def _answers_ping(self, pid: int) -> bool:
        """True when the server on our port answers PING and is our child (not some other redis)."""
        try:
            with socket.create_connection((HOST, self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\nINFO server\r\n")
                reply = b""
                while b"process_id:" not in reply or not reply.endswith(b"\r\n"):
                    chunk = sock.recv(65536)
                    if not chunk:
                        return False
                    reply += chunk
        except OSError:
            return False
        if not reply.startswith(b"+PONG"):
            return False
        line = reply.split(b"process_id:", 1)[1].split(b"\r\n", 1)[0]
        return line.strip() == str(pid).encode()

    def stop(self, timeout: float = 10.0) -> None:
        """Shut it down (SIGTERM: with appendonly the AOF is flushed first); kill if it hangs."""
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def close(self) -> None:
        """Stop and remove the data directory."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> RedisProcess:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"pid {self._proc.pid}" if self._proc is not None and self.running else "stopped"
        return f"RedisProcess(port={self.port}, appendonly={self.appendonly}, {state}, dir={os.fspath(self.dir)!r})"
