"""PostgreSQL for tests and benchmarks: a database of their own on the shared server, or a private server.

The shared server is ``SEAHAVEN_TEST_PG`` (default ``postgresql://postgres@127.0.0.1:5432/postgres``,
trust auth): each user creates ``seahaven_test_<random>`` and drops it after (``WITH (FORCE)``),
never touching another database. When that server does not answer, ``PgProcess`` starts a private
one (``initdb`` + ``pg_ctl`` in a temporary folder, a free loopback port), which fault tests also
use by themselves: ``stop`` and ``start`` it to take the database away and bring it back.

A missing PostgreSQL fails the tests (never skips them): ``scripts/install-test-deps`` installs it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import TracebackType

import asyncpg
import pytest

from tests.redis_proc import HOST, free_port

SHARED_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres"
OS_USER = "postgres"
"""The operating-system user a private server runs as when the tests run as root (initdb refuses root)."""


def shared_url() -> str:
    return os.environ.get("SEAHAVEN_TEST_PG") or SHARED_DEFAULT


def pg_binary(name: str) -> str:
    """``initdb``, ``pg_ctl``...: on the PATH, else Debian's /usr/lib/postgresql/N/bin (newest N);
    a test *failure* when there is none."""
    found = shutil.which(name)
    if found is not None:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(Path(p).parts[4]))
    if candidates:
        return candidates[-1]
    pytest.fail(f"{name} not found: install PostgreSQL (scripts/install-test-deps does) to run the records tests")


async def answers(url: str) -> bool:
    """Whether a PostgreSQL server takes a connection at ``url`` (within 3 s)."""
    try:
        conn = await asyncpg.connect(url, timeout=3)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
        return False
    await conn.close()
    return True


def answers_now(url: str) -> bool:
    """``answers`` from synchronous code, even one an event loop is running under (a thread of its own)."""
    with concurrent.futures.ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, answers(url)).result()


def with_database(url: str, name: str) -> str:
    """``url`` naming database ``name`` instead."""
    base, _, _ = url.rpartition("/")
    return f"{base}/{name}"


async def create_database(admin_url: str) -> str:
    """A new empty database ``seahaven_test_<random>`` on the server of ``admin_url``; its URL."""
    name = f"seahaven_test_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(admin_url, timeout=10)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return with_database(admin_url, name)


async def drop_database(admin_url: str, url: str) -> None:
    """Drop the database of ``url`` (one ``create_database`` made), closing whoever is still on it."""
    name = url.rpartition("/")[2]
    assert name.startswith("seahaven_test_"), f"refusing to drop {name!r}: not a test database"
    conn = await asyncpg.connect(admin_url, timeout=10)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def scratch_database(admin_url: str) -> AsyncIterator[str]:
    """A fresh database's URL for the block, dropped after it."""
    url = await create_database(admin_url)
    try:
        yield url
    finally:
        await drop_database(admin_url, url)


@contextlib.contextmanager
def scratch_database_sync(admin_url: str) -> Iterator[str]:
    """``scratch_database`` for code outside an event loop (each step on a loop of its own)."""
    url = asyncio.run(create_database(admin_url))
    try:
        yield url
    finally:
        asyncio.run(drop_database(admin_url, url))


class PgProcess:
    """A private PostgreSQL server on ``127.0.0.1:<port>`` with its data in a temporary folder,
    user ``postgres`` with trust auth; ``stop()`` and ``start()`` keep the data and the port.
    Use as a context manager or call ``close()``."""

    def __init__(self, startup_timeout: float = 30.0) -> None:
        self.initdb = pg_binary("initdb")
        self.pg_ctl = pg_binary("pg_ctl")
        self.port = free_port()
        self.startup_timeout = startup_timeout
        self.dir = Path(tempfile.mkdtemp(prefix="seahaven-pg-"))
        self.data = self.dir / "data"
        self.log_path = self.dir / "postgres.log"
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                pytest.fail("running as root needs runuser (util-linux) to start PostgreSQL as its own user")
            try:
                shutil.chown(self.dir, user=OS_USER)
            except LookupError:
                pytest.fail(f"running as root needs an OS user {OS_USER!r} for PostgreSQL (its package creates it)")
            self.as_user = ["runuser", "-u", OS_USER, "--"]
        self._initialised = False

    @property
    def url(self) -> str:
        """The server's maintenance database (create your own with ``create_database``)."""
        return f"postgresql://postgres@{HOST}:{self.port}/postgres"

    def _run(self, *argv: str, timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_user, *argv], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )

    def start(self) -> PgProcess:
        """Start (initialising the data folder the first time) and wait until it takes connections."""
        if not self._initialised:
            done = self._run(
                self.initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync",
                timeout=120,
            )  # fmt: skip
            if done.returncode != 0:
                pytest.fail(f"initdb failed:\n{done.stdout}\n{done.stderr}", pytrace=False)
            self._initialised = True
        # fsync off: the tests stop the server, never the machine, so the OS keeps what was written;
        # synchronous_commit stays on, so a committed transaction survives an immediate stop.
        options = f"-p {self.port} -k {self.dir} -c listen_addresses={HOST} -c fsync=off"
        done = self._run(
            self.pg_ctl, "-D", str(self.data), "-l", str(self.log_path), "-o", options,
            "-w", "-t", str(int(self.startup_timeout)), "start",
            timeout=self.startup_timeout + 10,
        )  # fmt: skip
        if done.returncode != 0:
            log = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
            pytest.fail(f"PostgreSQL on port {self.port} did not start:\n{done.stderr}\n{log}", pytrace=False)
        return self

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: "fast" (sessions closed, a clean shutdown) or "immediate" (like a crash:
        recovery from the WAL on the next start)."""
        if self.running:
            self._run(self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop", timeout=60)

    @property
    def running(self) -> bool:
        if not self._initialised:
            return False
        return self._run(self.pg_ctl, "-D", str(self.data), "status", timeout=30).returncode == 0

    def close(self) -> None:
        """Stop and remove the data folder."""
        self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> PgProcess:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PgProcess(port={self.port}, dir={os.fspath(self.dir)!r})"
