"""Alembic's environment for the records: run by ``alembic.command`` from ``server.records.migrate``.

Two ways in, both online and on the async drivers (offline ``--sql`` scripts are not offered):

- the server's: ``migrate``/``check`` open a write transaction themselves (holding the migration
  lock) and hand its synchronous face to us in ``config.attributes["connection"]`` from inside
  ``AsyncConnection.run_sync`` (alembic's asyncio cookbook); the upgrade runs in that transaction;
- a URL in the config's ``sqlalchemy.url`` (``migrate.alembic_config(url)``, e.g. for
  ``alembic.command.check`` or ``revision --autogenerate`` while developing): we open the
  database, take the same lock and run in our own transaction.
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from server.records.database import Database, normalise_url
from server.records.migrate import lock_schema
from server.records.schema import metadata


def run_migrations(connection: Connection) -> None:
    # transactional_ddl: SQLite runs DDL inside our transaction too (the database module switched
    # off the sqlite3 module's own transaction handling), so a failed upgrade leaves nothing half done.
    context.configure(connection=connection, target_metadata=metadata, compare_type=True, transactional_ddl=True)
    with context.begin_transaction():
        context.run_migrations()


async def run_with_url(url: str) -> None:
    db = Database(normalise_url(url))
    try:
        async with db.write() as conn:
            await lock_schema(conn)
            await conn.run_sync(run_migrations)
    finally:
        await db.close()


if context.is_offline_mode():
    raise SystemExit("the records' migrations run online only: seahaven-server migrate --database URL")
given = context.config.attributes.get("connection")
if given is not None:
    run_migrations(given)
else:
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("no database: pass a connection in config.attributes or set sqlalchemy.url")
    asyncio.run(run_with_url(url))
