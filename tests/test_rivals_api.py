"""``GET /api/v1/players/{player}/rivals`` over the real records: a live server reading a real
SQLite file and a real PostgreSQL database (the races archived as the archiver writes them).
What the reader answers in detail is tests/test_records_reader.py's; here, the route's part: the
404s the player page gives, the limit's bounds, the cache header, the document as the reader
gives it."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from server.app import RaceServer
from server.http import openapi
from server.records import reader
from server.records.archive import Archive
from server.records.database import Database
from server.records.reader import Reader
from server.records.schema import players
from tests.helpers import MakeServer
from tests.httpclient import get
from tests.race_records import T0, Run, made_record

NOW = T0 + 86_400_000


def clock() -> int:
    return NOW


async def add_player(db: Database, player: str, display_name: str, **columns: Any) -> None:
    row = {"player": player, "display_name": display_name, "key_hash": hashlib.sha256(player.encode()).hexdigest()}
    async with db.write() as conn:
        await conn.execute(players.insert().values({**row, "created_at": T0, **columns}))


@pytest.fixture
async def server(make_memory_server: MakeServer, database: Database) -> RaceServer:
    await Archive(database, now=clock).write_races(
        [
            *[
                made_record(f"W{i}-1-aaaaaaaa", T0 + i, [Run("pat", 60_000), Run(f"r{i:02d}", 70_000)])
                for i in range(25)
            ],
            made_record("W99-1-aaaaaaaa", T0 + 99, [Run("pat", 50_000), Run("bot-x", 40_000), Run("ghost-c1", 45_000)]),
        ]
    )
    await add_player(database, "r24", "Rita", handle="rita", handle_key="rita")
    return await make_memory_server(records=Reader(database, now=clock))


async def test_a_players_rivals_newest_first(server: RaceServer, database: Database) -> None:
    answer = await get(server.port, "/api/v1/players/pat/rivals")
    assert answer.status == 200 and answer.headers["cache-control"] == "public, max-age=10"
    document = answer.json()
    assert document == await Reader(database, now=clock).player_rivals("pat")
    rivals = document["rivals"]
    assert [r["player"] for r in rivals] == [f"r{i:02d}" for i in range(24, 4, -1)]  # 20, no bot, no ghost
    assert rivals[0] == {
        "player": "r24",
        "name": "Rita",
        "handle": "rita",
        "races": 1,
        "wins": 1,
        "losses": 0,
        "last_race": "W24-1-aaaaaaaa",
        "last_raced_at": T0 + 24,
        "deals": {
            "shared": 1,
            "faster": 1,
            "slower": 0,
            "latest": [{"deal_code": "SH1-ST-0001G", "mine_ms": 50_000, "theirs_ms": 70_000}],
        },
    }
    by_handle = (await get(server.port, "/api/v1/players/rita/rivals?limit=50")).json()
    assert by_handle["player"] == "r24" and [r["player"] for r in by_handle["rivals"]] == ["pat"]
    assert len((await get(server.port, "/api/v1/players/pat/rivals?limit=50")).json()["rivals"]) == 25
    assert len((await get(server.port, "/api/v1/players/pat/rivals?limit=1")).json()["rivals"]) == 1


@pytest.mark.parametrize("limit", ["0", "51", "x", "", "-1", "20&limit=20"])
async def test_a_limit_out_of_bounds_is_400(server: RaceServer, limit: str) -> None:
    answer = await get(server.port, f"/api/v1/players/pat/rivals?limit={limit}")
    assert answer.status == 400 and answer.error_code() == "bad-request"
    assert "limit" in answer.json()["error"]["message"]


async def test_an_unknown_or_deleted_player_is_404_as_their_page(server: RaceServer, database: Database) -> None:
    for target in ("/api/v1/players/nobody", "/api/v1/players/nobody/rivals"):
        answer = await get(server.port, target)
        assert answer.status == 404 and answer.error_code() == "not-found", target
        assert answer.headers["cache-control"] == "public, max-age=10"
    assert (await get(server.port, "/api/v1/players/r03/rivals")).status == 200
    await add_player(database, "r03", "deleted player", deleted_at=NOW)
    for target in ("/api/v1/players/r03", "/api/v1/players/r03/rivals"):
        assert (await get(server.port, target)).status == 404, target
    # The deleted player is still pat's rival, as a deleted player.
    rivals = (await get(server.port, "/api/v1/players/pat/rivals?limit=50")).json()["rivals"]
    assert [(r["name"], r["handle"]) for r in rivals if r["player"] == "r03"] == [("deleted player", None)]


def test_the_reader_and_the_document_agree_on_the_bounds() -> None:
    assert (reader.RIVALS_DEFAULT, reader.RIVALS_MAX) == (openapi.RIVALS_DEFAULT, openapi.RIVALS_MAX)
    assert reader.LATEST_DEALS == openapi.LATEST_DEALS
