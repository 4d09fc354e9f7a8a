"""The records' schema version: ``migrate`` (``seahaven-server migrate``) and ``check`` (at start).

Alembic's synchronous API runs inside ``AsyncConnection.run_sync`` (its asyncio cookbook), in one
write transaction that first takes the migration lock (PostgreSQL: an advisory lock for the
transaction; SQLite: the transaction's own ``BEGIN IMMEDIATE``), so nodes starting together on an
empty database migrate it once and the others find it at head.

``check`` migrates an empty database (no ``alembic_version``) at once, so the README's first
command needs nothing else; it refuses a database at an older revision (run ``migrate``: a
schema change is a step someone decides on, with a backup) or at one this build does not know (a
newer build migrated it).
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from server.records.database import Database

__all__ = ["MIGRATIONS", "SchemaMismatch", "alembic_config", "check", "lock_schema", "migrate"]

MIGRATIONS = Path(__file__).parent / "migrations"
"""Alembic's script folder (env.py, versions/)."""

LOCK_KEY = 0x5EA4A7E2
"""The PostgreSQL advisory lock the migrations hold (any constant of ours)."""


class SchemaMismatch(Exception):
    """The database's schema is not the one this build needs (the message says what to do)."""


def alembic_config(url: str | None = None, scripts: Path = MIGRATIONS) -> Config:
    """Alembic's configuration without an ini file; ``url``: env.py opens that database itself."""
    config = Config()
    config.set_main_option("script_location", str(scripts))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))  # configparser interpolates %
    return config


async def lock_schema(conn: AsyncConnection) -> None:
    """Hold the migration lock until ``conn``'s transaction ends."""
    if conn.dialect.name == "postgresql":
        await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK_KEY})
    # SQLite: the write transaction's BEGIN IMMEDIATE already holds the file's write lock.


async def migrate(db: Database, scripts: Path = MIGRATIONS) -> str:
    """Upgrade ``db`` to the newest revision; that revision."""
    async with db.write() as conn:
        await lock_schema(conn)
        return await conn.run_sync(upgrade, alembic_config(scripts=scripts))


async def check(db: Database, scripts: Path = MIGRATIONS) -> str:
    """The revision ``db`` is at, which is this build's (an empty database is migrated first);
    ``SchemaMismatch`` when it is at another; ``DatabaseUnavailable`` when it cannot be reached."""
    async with db.write() as conn:
        await lock_schema(conn)
        return await conn.run_sync(checked, alembic_config(scripts=scripts))


def upgrade(conn: Connection, config: Config) -> str:
    config.attributes["connection"] = conn  # env.py runs in this transaction
    command.upgrade(config, "head")
    return revision_of(conn) or ""


def revision_of(conn: Connection) -> str | None:
    return MigrationContext.configure(conn).get_current_revision()


def checked(conn: Connection, config: Config) -> str:
    scripts = ScriptDirectory.from_config(config)
    head = scripts.get_current_head()
    assert head is not None, f"no migrations in {scripts.dir}"
    current = revision_of(conn)
    if current is None:
        return upgrade(conn, config)
    if current == head:
        return head
    try:
        scripts.get_revision(current)
    except CommandError:  # the script folder has no such revision
        raise SchemaMismatch(
            f"database at revision {current}, which this build does not know (a newer build migrated it; "
            f"this build needs {head}): run a build that knows it"
        ) from None
    raise SchemaMismatch(f"database at revision {current}, this build needs {head}: run `seahaven-server migrate`")
