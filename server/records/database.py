"""The database the records live in: one async engine, PostgreSQL (asyncpg) or a SQLite file (aiosqlite).

SQLAlchemy Core over the two async drivers, so one schema and one set of queries serve both (the
dialect-specific pieces are the upsert's ``insert`` and the settings each connection gets).

SQLite is the embedded default: one file that several processes (nodes on one host, ``--workers``)
share safely. Every connection gets WAL (readers never block the writer), a busy timeout (a writer
waits for another's commit instead of failing with "database is locked"), ``synchronous=NORMAL``
(durable at each checkpoint, a power cut loses at most the last commits, never corrupts) and
foreign keys. The sqlite3 module's own transaction handling is switched off (it begins a
transaction only before DML, never before DDL or a read): SQLAlchemy emits ``BEGIN`` itself, and
``BEGIN IMMEDIATE`` for writes, so a write transaction takes the file's write lock at its start
and waits its turn there (a deferred one that read first would fail with SQLITE_BUSY when another
process wrote meanwhile, whatever the timeout).

Whatever keeps a statement from reaching the database (refused connection, a server restarting,
a locked or unreadable file, a timeout) is raised as ``DatabaseUnavailable``, an ``OSError``:
what ``server.records.archiver.RaceArchive`` promises, so a caller tries again later.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import Table, event, exc, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.util import await_only

__all__ = [
    "DEFAULT_FILE",
    "Database",
    "DatabaseUnavailable",
    "is_unavailable",
    "normalise_url",
    "open_database",
    "unavailable_as_oserror",
]

DEFAULT_FILE = "seahaven.db"
"""The SQLite file in the data folder when no URL is given."""

BUSY_TIMEOUT_MS = 10_000
"""How long a SQLite writer waits for another process's transaction to end."""
WAL_RETRY_SECONDS = 0.02
"""How often a new connection asks again for WAL on a locked file (``_to_wal``)."""

DRIVERS = {
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
    "postgresql": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",  # the scheme many hosting services hand out
}
"""URL schemes accepted, and the async driver each one runs on."""

WRITE = "seahaven_write"
"""Execution option marking a write transaction (``BEGIN IMMEDIATE`` on SQLite)."""

TRANSIENT_SQLSTATES = ("08", "40", "53", "57", "58")
"""PostgreSQL error classes that say "not now" rather than "wrong": connection exceptions,
transaction rollbacks (serialization failure, deadlock), insufficient resources, operator
intervention (shutting down, starting up), system errors (I/O)."""

TRANSIENT_SQLITE = ("SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_FULL", "SQLITE_READONLY")
"""SQLite result codes (and their extended forms) that say the file cannot be used now."""


class DatabaseUnavailable(OSError):
    """The database cannot be reached or used right now (try again later)."""


def normalise_url(url: str) -> URL:
    """``url`` on its async driver: ``sqlite[+aiosqlite]:///PATH`` or ``postgresql[+asyncpg]://...``
    (ValueError, saying what is accepted, for anything else)."""
    try:
        parsed = make_url(url)
    except exc.ArgumentError:
        raise ValueError(f"not a database URL: {_hidden(url)!r}") from None
    driver = DRIVERS.get(parsed.drivername)
    if driver is None:
        raise ValueError(
            f"unsupported database {parsed.drivername!r}: use sqlite:///PATH or postgresql://USER@HOST/NAME"
        )
    if driver.startswith("sqlite"):
        if not parsed.database or parsed.database == ":memory:" or parsed.database.startswith("file:"):
            # Each pooled connection would get a database of its own: records would vanish.
            raise ValueError(f"SQLite needs a file: sqlite:///PATH, not {url!r}")
    elif not parsed.host and not parsed.query.get("host"):
        raise ValueError(f"a PostgreSQL URL names its host: postgresql://USER@HOST/NAME, not {_hidden(url)!r}")
    return parsed.set(drivername=driver)


def _hidden(url: str) -> str:
    """``url`` with a password, if it has one, masked (for an error message)."""
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest:
        credentials, _, host = rest.rpartition("@")
        if ":" in credentials:
            return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}"
    return url


class Database:
    """An open database: its engine, and transactions that raise ``DatabaseUnavailable``."""

    def __init__(self, url: URL) -> None:
        self.dialect = url.get_backend_name()
        self.url = url.render_as_string(hide_password=False)
        self._shown = url.render_as_string(hide_password=True)
        if self.dialect == "sqlite":
            self.engine = create_async_engine(url)
            _tune_sqlite(self.engine)
        else:
            self.engine = create_async_engine(
                url,
                pool_pre_ping=True,  # a connection left from before a server restart is replaced, not used
                pool_timeout=10,
                connect_args={
                    "timeout": 5,  # seconds to connect
                    "command_timeout": 30,
                    "server_settings": {"application_name": "seahaven-server"},
                },
            )
        self._writer = self.engine.execution_options(**{WRITE: True})

    def describe(self) -> str:
        """Where the records are, printable (no password)."""
        if self.dialect == "sqlite":
            return f"SQLite file {make_url(self.url).database}"
        return f"PostgreSQL {self._shown}"

    def insert(self, table: Table) -> Any:
        """An ``INSERT`` into ``table`` of this dialect (for its ``on_conflict_do_nothing``)."""
        return sqlite.insert(table) if self.dialect == "sqlite" else postgresql.insert(table)

    async def serialize(self, conn: AsyncConnection, keys: Iterable[str]) -> None:
        """Hold ``keys`` until ``conn``'s write transaction ends: two transactions that name a key
        run one after the other, so each sees what the other wrote (a guest's claim and a race of
        that guest archived at once). PostgreSQL: transaction-scoped advisory locks, taken in a
        fixed order; SQLite's write transactions already take the whole file's lock."""
        if self.dialect == "sqlite":
            return
        for key in sorted(set(keys)):
            await conn.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"), {"key": key})

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """A write transaction (committed when the block ends, rolled back when it raises)."""
        async with unavailable_as_oserror(), self._writer.begin() as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A read transaction (one snapshot for the block's statements)."""
        async with unavailable_as_oserror(), self.engine.begin() as conn:
            yield conn

    async def close(self) -> None:
        await self.engine.dispose()

    def __repr__(self) -> str:
        return f"Database({self.describe()})"


def _tune_sqlite(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def connected(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # the driver emits no BEGIN of its own (see the module)
        cursor = dbapi_connection.cursor()
        # The timeout first: every lock waits for it (and the switch to WAL tries again besides).
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        _to_wal(cursor)
        for pragma in ("synchronous = NORMAL", "foreign_keys = ON"):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE) else "BEGIN")


def _to_wal(cursor: Any) -> None:
    """``journal_mode = WAL``, tried again while the file is locked: on a new file (still in rollback
    mode), a connection that read it while another began writing gets "database is locked" at once,
    without the busy timeout (SQLite refuses a lock upgrade that could deadlock), so nodes starting
    together on a new file failed 7 times in 100. Waits on the event loop (this runs in SQLAlchemy's
    greenlet there), as long as the busy timeout."""
    waited = 0.0
    while True:
        try:
            cursor.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or waited * 1000 >= BUSY_TIMEOUT_MS:
                raise
        await_only(asyncio.sleep(WAL_RETRY_SECONDS))
        waited += WAL_RETRY_SECONDS


def is_unavailable(error: BaseException) -> bool:
    """Whether ``error`` says the database cannot be used now (rather than that a statement is wrong)."""
    if isinstance(error, OSError | exc.TimeoutError):  # refused, unreachable, timed out; the pool's timeout
        return True
    if not isinstance(error, exc.DBAPIError):
        return False
    if error.connection_invalidated or isinstance(error, exc.InterfaceError) or isinstance(error.orig, OSError):
        return True
    sqlstate = getattr(error.orig, "sqlstate", None)
    if isinstance(sqlstate, str) and sqlstate[:2] in TRANSIENT_SQLSTATES:
        return True
    code = getattr(error.orig, "sqlite_errorname", None)
    return isinstance(code, str) and code.startswith(TRANSIENT_SQLITE)


@contextlib.asynccontextmanager
async def unavailable_as_oserror() -> AsyncIterator[None]:
    """Raise what ``is_unavailable`` as ``DatabaseUnavailable`` (the original chained)."""
    try:
        yield
    except DatabaseUnavailable:
        raise
    except Exception as error:
        if is_unavailable(error):
            raise DatabaseUnavailable(f"database unavailable: {error}") from error
        raise


def open_database(url: str | None, data_dir: Path) -> Database:
    """The database at ``url``; None: the SQLite file ``seahaven.db`` in ``data_dir`` (created if
    missing). Opening connects nothing yet: the first transaction does (``migrate.check``)."""
    if url is None:
        data_dir.mkdir(parents=True, exist_ok=True)
        return Database(normalise_url(f"sqlite:///{(data_dir / DEFAULT_FILE).resolve()}"))
    parsed = normalise_url(url)
    if parsed.get_backend_name() == "sqlite":
        folder = Path(parsed.database or "").resolve().parent
        if not folder.is_dir():
            raise ValueError(f"the SQLite file's folder {folder} does not exist")
    return Database(parsed)
