"""HAProxy as a real child process running the deployment's own config (``deploy/haproxy.cfg``),
pointed at local nodes through the environment variables that config reads, its TLS frontend on a
certificate made by compose's own init step (``deploy/make-cert.sh``)."""

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
MAKE_CERT = CONFIG.parent / "make-cert.sh"


def make_certificate(directory: Path) -> tuple[Path, Path]:
    """Run compose's certificate step into ``directory``: HAProxy's PEM (certificate and key),
    and the certificate alone (what a client trusts), good for 127.0.0.1 and localhost."""
    env = {"PATH": "/usr/bin:/bin", "SEAHAVEN_CERT_DIR": str(directory)}
    subprocess.run(["/bin/sh", str(MAKE_CERT)], check=True, capture_output=True, env=env, timeout=60)
    return directory / "seahaven.pem", directory / "seahaven-ca.pem"


def haproxy_binary() -> str:
    """The haproxy on the PATH; a test *failure* (never a skip) when there is none."""
    binary = shutil.which("haproxy")
    if binary is None:
        pytest.fail("haproxy is not on the PATH: apt-get install haproxy (.ci/run does)", pytrace=False)
    return binary


def check_config(path: Path = CONFIG, cert: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``haproxy -c`` on a config file, with the environment it gets in compose (no overrides but
    ``cert``, where compose's certs volume would have put it; None: none, as before the first start)."""
    env = {"PATH": "/usr/bin"} | ({"SEAHAVEN_LB_CERT": str(cert)} if cert is not None else {})
    command = [haproxy_binary(), "-c", "-f", str(path)]
    return subprocess.run(command, capture_output=True, text=True, timeout=30, env=env)


def with_nodes(count: int, path: Path) -> Path:
    """The deployment's config written to ``path`` with ``count`` nodes in each backend, as an
    operator adds one: a ``server node-N`` line after the last, in the same form."""
    lines: list[str] = []
    for line in CONFIG.read_text().splitlines():
        lines.append(line)
        if line.lstrip().startswith("server node-2 "):
            for n in range(3, count + 1):
                named = line.replace("node-2", f"node-{n}").replace("NODE_2", f"NODE_{n}")
                lines.append(named.replace("server-2:", f"server-{n}:"))
    path.write_text("\n".join(lines) + "\n")
    return path


class HAProxyProcess:
    """``haproxy -db`` in front of ``nodes`` (host:port each), listening on a free loopback ``port``
    and with TLS on ``tls_port`` (its certificate in ``certs``: ``ca`` is what clients trust)."""

    def __init__(self, nodes: list[str], startup_timeout: float = 10.0, config: Path = CONFIG) -> None:
        """``config``: another config than the deployment's (one that names more nodes,
        ``SEAHAVEN_NODE_3`` on: ``with_nodes``)."""
        assert len(nodes) == config.read_text().count("server node-") // 2, f"{config} names another number of nodes"
        self.port = free_port()
        self.tls_port = free_port()
        self.log = Path(tempfile.mkstemp(prefix="seahaven-haproxy-", suffix=".log")[1])
        self.certs = Path(tempfile.mkdtemp(prefix="seahaven-certs-"))
        pem, self.ca = make_certificate(self.certs)
        env = {
            "PATH": "/usr/bin:/usr/sbin",
            "SEAHAVEN_LB_BIND": f"{HOST}:{self.port}",
            "SEAHAVEN_LB_TLS_BIND": f"{HOST}:{self.tls_port}",
            "SEAHAVEN_LB_CERT": str(pem),
        } | {f"SEAHAVEN_NODE_{i}": node for i, node in enumerate(nodes, 1)}
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [haproxy_binary(), "-db", "-f", str(config)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
            )
        deadline = time.monotonic() + startup_timeout
        while not (self._listening(self.port) and self._listening(self.tls_port)):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                log = self.log_text()
                self.close()
                pytest.fail(f"haproxy did not start:\n{log}", pytrace=False)
            time.sleep(0.02)

    def _listening(self, port: int) -> bool:
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return True
        except OSError:
            return False

    @property
    def url(self) -> str:
        return f"ws://{HOST}:{self.port}"

    @property
    def http(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def wss(self) -> str:
        return f"wss://{HOST}:{self.tls_port}"

    @property
    def https(self) -> str:
        return f"https://{HOST}:{self.tls_port}"

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
        shutil.rmtree(self.certs, ignore_errors=True)
