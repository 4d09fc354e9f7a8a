"""Exactly once, whatever fails: real server processes archive into a private PostgreSQL.

Two nodes on one private redis-server archive into one private PostgreSQL. Races end on the racers'
node while the other node, archiving the same index, is killed (SIGKILL) again and again at random
moments (mid-transaction among them), and while the database is down (pg_ctl stop) for a while:
racing goes on, finished races wait in Redis, and once the database is back every race is written.
Counted: races archived zero times, races with a racer missing or doubled, moves on record that
differ from what the server acknowledged. All must be zero.

The outage lasts ``OUTAGE`` seconds here (CI); ``benchmarks/archive_outage.py`` runs the minute-long
one with the same checks.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.archiving import node
from tests.pg_proc import PgProcess
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess

RACES = 12
OUTAGE = 4.0
"""Seconds the database is down (CI); the benchmark's is a minute."""


@pytest.fixture
def records_db(private_postgres: PgProcess) -> str:
    return private_postgres.url


@pytest.fixture
def racing(redis_proc: RedisProcess, records_db: str) -> Iterator[ServerProcess]:
    server = node(redis_proc.url, records_db)
    try:
        yield server
    finally:
        server.close()
