"""A throwaway local Redis Cluster for tests: three masters on free loopback ports, no replicas.

Each master is a :class:`RedisProcess` started with ``--cluster-enabled yes`` in its own directory;
``redis-cli --cluster create`` assigns the 16384 slots, and :meth:`LocalCluster.start` returns once
every node reports ``cluster_state:ok`` and agrees on the slot map. Never touches a shared Redis.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from types import TracebackType

import pytest

from tests.redis_proc import HOST, RedisProcess, free_port

SLOTS = 16384


class ClusterNodeProcess(RedisProcess):
    """A redis-server with cluster mode on (its nodes.conf lives in its own data directory).

    The cluster bus gets a free port of its own (``--cluster-port``): the default, port + 10000, may be
    taken or past 65535.
    """

    def __init__(self, *, appendonly: bool = False) -> None:
        super().__init__(appendonly=appendonly)
        self.bus_port = free_port()

    def _argv(self) -> list[str]:
        return [
            *super()._argv(),
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            str(self.dir / "nodes.conf"),
            "--cluster-port",
            str(self.bus_port),
            "--cluster-node-timeout",
            "5000",
        ]


def _command(port: int, *words: str, timeout: float = 2.0) -> bytes:
    """Send one inline command to 127.0.0.1:port and return the raw reply (bulk replies read whole)."""
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(" ".join(words).encode() + b"\r\n")
        reply = b""
        while b"\r\n" not in reply:
            chunk = sock.recv(65536)
            if not chunk:
                return reply
            reply += chunk
        if reply.startswith(b"$"):
            size = int(reply[1 : reply.index(b"\r\n")])
            header = reply.index(b"\r\n") + 2
            while len(reply) < header + size + 2:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                reply += chunk
            return reply[header : header + size]
        return reply


class LocalCluster:
    """Three cluster-mode redis-servers joined into one cluster; ``url`` is the store's cluster URL.

    With ``appendonly=True`` a master stopped and started again (``nodes[i].stop()`` / ``.start()``,
    same port, same nodes.conf) comes back with its data and its slots.
    """

    def __init__(self, masters: int = 3, startup_timeout: float = 30.0, *, appendonly: bool = False) -> None:
        cli = shutil.which("redis-cli")
        if cli is None:
            pytest.fail("redis-cli is not on the PATH: install Redis >= 7.0 to run the cluster tests", pytrace=False)
        self.cli = cli
        self.nodes = [ClusterNodeProcess(appendonly=appendonly) for _ in range(masters)]
        self.startup_timeout = startup_timeout

    @property
    def ports(self) -> list[int]:
        return [node.port for node in self.nodes]

    @property
    def url(self) -> str:
        """Every master as a seed node, in the ``redis+cluster://`` form ``open_store`` accepts."""
        return "redis+cluster://" + ",".join(f"{HOST}:{port}" for port in self.ports)

    def start(self) -> LocalCluster:
        for node in self.nodes:
            node.start()
        addresses = [f"{HOST}:{port}" for port in self.ports]
        create = subprocess.run(
            [self.cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=self.startup_timeout,
        )
        if create.returncode != 0:
            self.close()
            pytest.fail(f"redis-cli --cluster create failed:\n{create.stdout}\n{create.stderr}", pytrace=False)
        deadline = time.monotonic() + self.startup_timeout
        while not self.ok():
            if time.monotonic() > deadline:
                self.close()
                pytest.fail(f"the cluster on ports {self.ports} never reached cluster_state:ok", pytrace=False)
            time.sleep(0.05)
        return self

    def ok(self) -> bool:
        """True when every node says the cluster is ok, with all slots covered and the same epoch view."""
        for port in self.ports:
            try:
                info = _command(port, "CLUSTER", "INFO").decode()
            except OSError:
                return False
            fields = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
            if fields.get("cluster_state") != "ok" or fields.get("cluster_slots_ok") != str(SLOTS):
                return False
            if fields.get("cluster_known_nodes") != str(len(self.nodes)):
                return False
        return True

    def close(self) -> None:
        for node in self.nodes:
            node.close()

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LocalCluster(ports={self.ports})"
