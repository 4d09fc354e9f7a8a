"""The records' database: which URLs it takes, the SQLite file's settings, and failures as OSError."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import exc, select, text

from server.records.database import Database, DatabaseUnavailable, is_unavailable, normalise_url, open_database
from tests.pg_proc import PgProcess, create_database, drop_database
from tests.redis_proc import free_port


@pytest.mark.parametrize(
    ("url", "driver"),
    [
        ("sqlite:///records.db", "sqlite+aiosqlite"),
        ("sqlite+aiosqlite:////var/lib/seahaven/records.db", "sqlite+aiosqlite"),
        ("postgresql://seahaven:pw@db.example/seahaven", "postgresql+asyncpg"),
        ("postgresql+asyncpg://seahaven@db.example:6543/seahaven", "postgresql+asyncpg"),
        ("postgres://seahaven@db.example/seahaven", "postgresql+asyncpg"),
    ],
)
def test_urls_run_on_the_async_drivers(url: str, driver: str) -> None:
    normalised = normalise_url(url)
    assert normalised.drivername == driver
    assert normalised.database == url.split(":///", 1)[1] if "sqlite" in url else url.rsplit("/", 1)[1]


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://root@localhost/seahaven", "unsupported database 'mysql'"),
        ("postgresql+psycopg://u@h/d", "unsupported database 'postgresql+psycopg'"),
        ("not a url", "not a database URL"),
        ("sqlite:///:memory:", "SQLite needs a file"),
        ("sqlite://", "SQLite needs a file"),
        ("postgresql:///seahaven", "names its host"),
    ],
)
def test_other_urls_are_refused_with_what_is_accepted(url: str, says: str) -> None:
    with pytest.raises(ValueError) as info:
        normalise_url(url)
    assert says in str(info.value)


def test_a_refused_url_does_not_show_its_password() -> None:
    with pytest.raises(ValueError) as info:
        normalise_url("postgresql://seahaven:hunter2@/seahaven")
    assert "hunter2" not in str(info.value) and "seahaven:***@" in str(info.value)


def test_describe_never_shows_the_password(tmp_path: Path) -> None:
    db = open_database("postgresql://seahaven:hunter2@db.example/records", tmp_path)
    assert db.describe() == "PostgreSQL postgresql+asyncpg://seahaven:***@db.example/records"
    assert "hunter2" in db.url  # the full URL stays available to open it again


async def test_the_default_is_a_sqlite_file_in_the_data_folder(tmp_path: Path) -> None:
    folder = tmp_path / "data" / "server"
    db = open_database(None, folder)
    try:
        assert folder.is_dir()
        assert db.describe() == f"SQLite file {folder.resolve() / 'seahaven.db'}"
        async with db.read() as conn:
            assert (await conn.execute(text("SELECT 1"))).scalar() == 1
        assert (folder / "seahaven.db").is_file()
    finally:
        await db.close()


def test_a_sqlite_file_in_a_missing_folder_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        open_database(f"sqlite:///{tmp_path / 'nowhere' / 'records.db'}", tmp_path)


async def test_every_sqlite_connection_is_set_up_for_sharing_the_file(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    try:
        # Two connections at once (one held open while the other is taken): both are set up.
        async with db.engine.connect() as first, db.engine.connect() as second:
            for conn in (first, second):
                settings = [
                    (await conn.execute(text(f"PRAGMA {name}"))).scalar()
                    for name in ("journal_mode", "busy_timeout", "synchronous", "foreign_keys")
                ]
                assert settings == ["wal", 10_000, 1, 1]  # synchronous 1 is NORMAL
    finally:
        await db.close()


async def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    db = open_database(f"sqlite:///{tmp_path / 'records.db'}", tmp_path)
    try:
        async with db.write() as conn:
            await conn.execute(text("CREATE TABLE t (x INTEGER)"))
        with pytest.raises(RuntimeError):
            async with db.write() as conn:
                await conn.execute(text("INSERT INTO t VALUES (1)"))
                raise RuntimeError("changed my mind")
        async with db.read() as conn:
            assert (await conn.execute(text("SELECT count(*) FROM t"))).scalar() == 0
    finally:
        await db.close()


async def test_a_wrong_statement_is_not_an_outage(database_url: str, tmp_path: Path) -> None:
    db = open_database(database_url, tmp_path)
    try:
        with pytest.raises(exc.DBAPIError) as info:
            async with db.read() as conn:
                await conn.execute(text("SELECT no_such_column FROM no_such_table"))
        assert not isinstance(info.value, OSError)
    finally:
        await db.close()


async def test_a_postgres_nobody_listens_on_is_unavailable(tmp_path: Path) -> None:
    db = open_database(f"postgresql://postgres@127.0.0.1:{free_port()}/postgres", tmp_path)
    try:
        with pytest.raises(DatabaseUnavailable) as info:
            async with db.read() as conn:
                await conn.execute(select(1))
        assert isinstance(info.value, OSError)
    finally:
        await db.close()


async def test_postgres_going_away_and_coming_back(private_postgres: PgProcess, tmp_path: Path) -> None:
    url = await create_database(private_postgres.url)
    db = open_database(url, tmp_path)
    try:
        async with db.write() as conn:
            await conn.execute(text("CREATE TABLE t (x INTEGER)"))
            await conn.execute(text("INSERT INTO t VALUES (1)"))
        private_postgres.stop("immediate")  # like a crash: pooled connections die with it
        for _ in range(2):  # a pooled connection that died, then a new one refused
            with pytest.raises(DatabaseUnavailable):
                async with db.read() as conn:
                    await conn.execute(text("SELECT x FROM t"))
        private_postgres.start()
        async with db.read() as conn:  # pool_pre_ping replaces whatever died: no error left over
            assert (await conn.execute(text("SELECT x FROM t"))).scalar() == 1
    finally:
        await db.close()
        await drop_database(private_postgres.url, url)


async def test_a_locked_sqlite_file_waits_for_the_other_writer(tmp_path: Path) -> None:
    """Two writers on one file: the second waits for the first's commit (busy_timeout), it does
    not fail with "database is locked"."""
    path = f"sqlite:///{tmp_path / 'records.db'}"
    first, second = open_database(path, tmp_path), open_database(path, tmp_path)
    try:
        async with first.write() as conn:
            await conn.execute(text("CREATE TABLE t (x INTEGER)"))
        async with first.write() as held:
            await held.execute(text("INSERT INTO t VALUES (1)"))
            waiting = asyncio.create_task(write_one(second, 2))
            await asyncio.sleep(0.3)
            assert not waiting.done()  # blocked on the lock, not failed
        await waiting
        async with second.read() as conn:
            assert sorted((await conn.execute(text("SELECT x FROM t"))).scalars()) == [1, 2]
    finally:
        await first.close()
        await second.close()


async def write_one(db: Database, value: int) -> None:
    async with db.write() as conn:
        await conn.execute(text("INSERT INTO t VALUES (:x)"), {"x": value})


def test_a_busy_sqlite_file_counts_as_unavailable_and_a_wrong_statement_does_not(tmp_path: Path) -> None:
    """The classifier on SQLite's own errors, as SQLAlchemy wraps them (waiting 10 s for a real
    busy timeout would be a slow test: a second connection that does not wait gets the same error)."""
    path = tmp_path / "records.db"
    holder = sqlite3.connect(path, isolation_level=None)
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as busy:
            other.execute("BEGIN IMMEDIATE")
        with pytest.raises(sqlite3.OperationalError) as wrong:
            other.execute("SELECT x FROM no_such_table")
    finally:
        holder.close()
        other.close()
    assert busy.value.sqlite_errorname == "SQLITE_BUSY"
    assert is_unavailable(exc.OperationalError("BEGIN IMMEDIATE", {}, busy.value))
    assert not is_unavailable(exc.OperationalError("SELECT", {}, wrong.value))
    assert is_unavailable(ConnectionRefusedError()) and not is_unavailable(ValueError())
