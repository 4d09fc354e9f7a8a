"""Finished arenas in the database (server/records/arenas.py): each written once however often it is
written, read back by the API; and end to end, an arena that ends while the database is down waits
in the store and is written once the database is back (a real private PostgreSQL, stopped and
started)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from server.records.archive import Archive
from server.records.arenas import ArenaArchive
from server.records.database import Database, open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from server.records.schema import arena_players, arenas
from server.shell import ports
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.httpclient import get
from tests.pg_proc import PgProcess
from tests.racing import arena_race_resigned
from tests.wsclient import WsClient

NOW = 1_700_000_000_000


def arena_row(code: str, ends_at: int) -> dict[str, Any]:
    return {
        "code": code,
        "name": "Hourly",
        "preset": "seahaven",
        "deal_grade": None,
        "created_by": "operator",
        "starts_at": ends_at - 1_800_000,
        "ends_at": ends_at,
    }


STANDINGS = [
    {"player": "ann", "name": "Ann", "place": 1, "points": 7, "wins": 3, "races": 4},
    {"player": "bob", "name": "Bob", "place": 2, "points": 4, "wins": 1, "races": 4},
    {"player": "cid", "name": "Cid", "place": 3, "points": 0, "wins": 0, "races": 3},
]


async def counts(db: Database) -> tuple[int, int]:
    """Arena rows, arena player rows."""
    async with db.read() as conn:
        return (
            int((await conn.execute(sa.select(sa.func.count()).select_from(arenas))).scalar_one()),
            int((await conn.execute(sa.select(sa.func.count()).select_from(arena_players))).scalar_one()),
        )


async def test_a_finished_arena_is_written_once_however_often(database: Database) -> None:
    sink: ports.ArenaArchive = ArenaArchive(database, now=lambda: NOW)  # what the arenas are handed
    assert await sink.write_arena(arena_row("ARENA1", NOW), STANDINGS) is True
    # Written again (a retry after a lost acknowledgement, a node that took the pairing over):
    # nothing changes, not even with other standings.
    assert await sink.write_arena({**arena_row("ARENA1", NOW), "name": "other"}, STANDINGS[:1]) is False
    assert await counts(database) == (1, 3)
    reader = Reader(database, now=lambda: NOW)
    found = await reader.arena("ARENA1")
    assert found is not None
    assert (found["name"], found["phase"], found["archived"], found["player_count"]) == ("Hourly", "finished", True, 3)
    assert found["link_path"] == "/a/ARENA1"
    assert [(s["place"], s["player"], s["points"], s["wins"], s["races"]) for s in found["standings"]] == [
        (1, "ann", 7, 3, 4),
        (2, "bob", 4, 1, 4),
        (3, "cid", 0, 0, 3),
    ]
    assert await reader.arena("NONE00") is None


async def test_two_writers_at_once_write_one_arena(database: Database) -> None:
    first, second = ArenaArchive(database, now=lambda: NOW), ArenaArchive(database, now=lambda: NOW + 1)
    done = await asyncio.gather(
        first.write_arena(arena_row("ARENA1", NOW), STANDINGS), second.write_arena(arena_row("ARENA1", NOW), STANDINGS)
    )
    assert sorted(done) == [False, True]
    assert await counts(database) == (1, 3)


async def test_a_players_arenas_page_newest_first(database: Database) -> None:
    sink = ArenaArchive(database, now=lambda: NOW)
    for n in range(3):
        await sink.write_arena(arena_row(f"ARENA{n}", NOW + n * 3_600_000), STANDINGS[: 3 - n])
    reader = Reader(database, now=lambda: NOW)
    assert [a["code"] for a in await reader.recent_arenas(2)] == ["ARENA2", "ARENA1"]
    page = await reader.player_arenas("bob", limit=1)
    assert [(a["code"], a["place"], a["points"]) for a in page["arenas"]] == [("ARENA1", 2, 4)]
    rest = await reader.player_arenas("bob", limit=5, before=page["next"])
    assert [a["code"] for a in rest["arenas"]] == ["ARENA0"] and rest["next"] is None
    assert [a["code"] for a in (await reader.player_arenas("cid"))["arenas"]] == ["ARENA0"]


async def test_an_arena_that_ends_while_the_database_is_down_is_written_when_it_is_back(
    make_memory_server: MakeServer, private_postgres: PgProcess, tmp_path: Path
) -> None:
    db = open_database(private_postgres.url, tmp_path)
    await migrate(db)
    server = await make_memory_server(
        archive=Archive(db, now=wall_clock),
        records=Reader(db, now=wall_clock),
        arena_archive=ArenaArchive(db, now=wall_clock),
    )
    clock = fake(server)
    ann, bob = await WsClient.open(url_of(server), "Ann"), await WsClient.open(url_of(server), "Bob")
    # One race each (paired within the pairing's second), both resign: one of them wins it.
    code = await arena_race_resigned(ann, bob)

    async def served() -> dict[str, Any]:
        answer = await get(server.port, f"/api/v1/arenas/{code}")
        assert answer.status == 200, answer.body
        document: dict[str, Any] = answer.json()
        return document

    async def live() -> dict[str, Any]:  # polled: the store itself (the API's rate limit runs on the fake clock)
        found = await server.arenas.live_arena(code)
        assert found is not None
        return found

    async def scored() -> bool:
        return sum(int(s["races"]) for s in (await live())["standings"]) == 2

    await wait_until(scored, 10, what="the race scored")
    listed = (await get(server.port, "/api/v1/arenas")).json()
    assert [a["code"] for a in listed["live"]] == [code] and listed["live"][0]["archived"] is False
    assert listed["upcoming"] == [] and listed["finished"] == []

    private_postgres.stop()
    clock.advance(5 * 60_000 + 1000)  # the arena is over

    async def ended() -> bool:
        return str((await live())["phase"]) == "finished"

    await wait_until(ended, 10, what="the arena's end")
    await asyncio.sleep(2.5)  # pairing rounds try (and fail) to write it
    assert code in await server.store.arena_codes()  # kept in the store, listed: tried again
    kept = await served()  # from the store while the database is away
    assert kept["archived"] is False and sum(s["points"] for s in kept["standings"]) == 2

    private_postgres.start()
    clock.advance(10_000)  # the retry's wait
    reader = Reader(db, now=wall_clock)

    async def recorded() -> bool:
        try:
            return await reader.arena(code) is not None
        except OSError:
            return False

    await wait_until(recorded, 20, what="the arena on record")
    await wait_until(lambda: _unlisted(server.store, code), 10, what="the arena unlisted")
    final = await served()
    assert final["archived"] is True and final["phase"] == "finished"
    assert [s["player"] for s in final["standings"]] == [s["player"] for s in kept["standings"]]
    assert [(s["points"], s["races"]) for s in final["standings"]] == [(2, 1), (0, 1)]
    # Ended again (a node that took the pairing over before the unlisting): written once still.
    await server.arenas.tick(code)
    assert await counts(db) == (1, 2)

    async def on_record() -> bool:
        return await reader.player(ann.player) is not None

    await wait_until(on_record, 20, what="Ann's race on record")
    mine = (await get(server.port, f"/api/v1/players/{ann.player}/arenas")).json()
    assert [a["code"] for a in mine["arenas"]] == [code] and mine["arenas"][0]["races"] == 1
    finished = (await get(server.port, "/api/v1/arenas")).json()["finished"]
    assert [a["code"] for a in finished] == [code] and finished[0]["archived"] is True
    missing = await get(server.port, "/api/v1/arenas/ZZZZZZ")
    assert missing.status == 404 and missing.error_code() == "not-found"
    for client in (ann, bob):
        await client.close()
    await db.close()


def wall_clock() -> int:
    return time.time_ns() // 1_000_000


async def _unlisted(store: Any, code: str) -> bool:
    return code not in await store.arena_codes()
