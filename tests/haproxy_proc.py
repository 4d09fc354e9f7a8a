"""HAProxy as a real child process running the deployment's own config (``deploy/haproxy.cfg``),
pointed at local nodes through the environment variables that config reads."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.redis_proc import HOST, free_port

CONFIG = Path(__file__).resolve().parent.parent / "deploy" / "haproxy.cfg"


def haproxy_binary() -> str:
    """The haproxy on the PATH; a test *failure* (never a skip) when there is none."""
    binary = shutil.which("haproxy")
    if binary is None:
        pytest.fail("haproxy is not on the PATH: apt-get install haproxy (.ci/run does)", pytrace=False)
    return binary


def check_config(path: Path = CONFIG) -> subprocess.CompletedProcess[str]:
    """``haproxy -c`` on a config file, with the environment it gets in compose (no overrides)."""
    return subprocess.run(
        [haproxy_binary(), "-c", "-f", str(path)], capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin"}
    )


class HAProxyProcess:
    """``haproxy -db`` in front of ``nodes`` (host:port each), listening on a free loopback ``port``."""

    def __init__(self, nodes: list[str], startup_timeout: float = 10.0) -> None:
        assert len(nodes) == 2, "deploy/haproxy.cfg names two nodes"
        self.port = free_port()
        self.log = Path(tempfile.mkstemp(prefix="seahaven-haproxy-", suffix=".log")[1])
        env = {
            "PATH": "/usr/bin:/usr/sbin",
            "SEAHAVEN_LB_BIND": f"{HOST}:{self.port}",
            "SEAHAVEN_NODE_1": nodes[0],
            "SEAHAVEN_NODE_2": nodes[1],
        }
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [haproxy_binary(), "-db", "-f", str(CONFIG)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        deadline = time.monotonic() + startup_timeout
        while not self._listening():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = self.log_text()
                self.close()
                pytest.fail(f"haproxy did not start:\n{log}", pytrace=False)
            time.sleep(0.02)

    def _listening(self) -> bool:
        try:
            with socket.create_connection((HOST, self.port), timeout=0.5):
                return True
        except OSError:
            return False

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}"

    @property
    def http(self) -> str:
        return f"http://{HOST}:{self.port}"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.unlink(missing_ok=True)
