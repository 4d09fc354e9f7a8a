"""A race server with records on, for the tests of what players see of them (the browser's
records pages, the terminal client's review, page and boards): a RaceServer on the memory store
and the real clock, archiving finished races into a SQLite file and reading them back (live
races from its store), as ``seahaven-server`` runs by default; with ``players``, its registered players
and ghost challenges on the same records too, as ``serve`` wires them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from server.app import RaceServer
from server.config import Config
from server.play.analyst import Analyst
from server.play.dealpool import worker_executor
from server.records.accounts import Accounts
from server.records.analyses import Analyses
from server.records.archive import Archive
from server.records.challenges import ChallengeRecords
from server.records.database import open_database
from server.records.friends import FriendRecords
from server.records.migrate import migrate
from server.records.reader import Reader
from server.store.stores import MemoryStore
from tests.httpclient import get


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


@asynccontextmanager
async def recording_server(
    folder: Path, *, records: bool = True, players: bool = False, drawn: bool = False, analysis: bool = False
) -> AsyncIterator[RaceServer]:
    """A started server whose every room races seahaven deal 1, picked by the server as if in
    secret (so a proven win counts on the boards); its records in ``folder``/records.db.
    ``records`` False: no records (the API answers 503 "records are off"). ``players``: registered
    players (``register``, ``sign_in``...) and ghost challenges too. ``drawn``: the server picks
    deals as it does when serving (the pool; a rated room's drawn at each start), not deal 1.
    ``analysis``: each race on record is analysed, in a worker process, as ``serve`` wires it
    (but at the tests' own priority: a worker waiting for an idle CPU waits out a busy test run)."""
    db = open_database(f"sqlite:///{folder / 'records.db'}", folder)
    await migrate(db)
    store = MemoryStore()
    config = Config(port=0, countdown_ms=0, rate=10_000, burst=10_000, spectator_delay_ms=0)
    archive = Archive(db, now=wall_ms) if records else None
    server = RaceServer(
        config,
        store,
        deals=None if drawn else lambda: 1,
        archive=archive,
        records=Reader(db, now=wall_ms, live=store) if records else None,
        challenges=ChallengeRecords(db, archive, live=store) if players and archive is not None else None,
        accounts=Accounts(db) if players and records else None,
        friends=FriendRecords(db) if players and records else None,
        analyst=Analyst(Analyses(db, now=wall_ms), lambda: worker_executor(1, nice=0)) if analysis else None,
    )
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
        await db.close()


async def archived(server: RaceServer, race_id: str) -> bool:
    """The server's API serves the race from its database."""
    answer = await get(server.port, f"/api/v1/races/{race_id}")
    return answer.status == 200 and answer.json()["archived"] is True


async def analysis(port: int, race_id: str) -> dict[str, Any]:
    """The race's analysis once the server on ``port`` has stored it ("pending" until then)."""
    deadline = asyncio.get_running_loop().time() + 60
    while True:
        answer = await get(port, f"/api/v1/races/{race_id}/analysis")
        assert answer.status in (200, 429), (answer.status, answer.body)
        if answer.status == 200 and answer.json()["status"] != "pending":
            document: dict[str, Any] = answer.json()
            return document
        assert asyncio.get_running_loop().time() < deadline, f"race {race_id} not analysed in time"
        await asyncio.sleep(float(answer.headers.get("retry-after", "1")) if answer.status == 429 else 0.1)


async def signed_record(server: RaceServer, race_id: str) -> dict[str, Any]:
    """The race's signed record once the server has archived it (404 until then; a 429 waits as
    its Retry-After says, as a polite client does)."""
    deadline = asyncio.get_running_loop().time() + 20
    while True:
        answer = await get(server.port, f"/api/v1/races/{race_id}/record")
        if answer.status == 200:
            document: dict[str, Any] = answer.json()
            return document
        assert answer.status in (404, 429), (answer.status, answer.body)
        assert asyncio.get_running_loop().time() < deadline, f"race {race_id} not signed in time"
        await asyncio.sleep(float(answer.headers.get("retry-after", "1")) if answer.status == 429 else 0.1)
