"""Finished races reach the database exactly once: the archive path from the room's append to a row.

Real parts throughout: RaceServers on loopback with the memory store or a private redis-server,
real WebSocket racers, and a real database (a SQLite file and a PostgreSQL database of the test's
own). What is counted: races archived zero times or twice (both must be none), and every racer's
moves on record exactly as the server acknowledged them.
"""

from __future__ import annotations

import time
from typing import Any

import sqlalchemy as sa

from protocol.messages import Moved, MoveRequest, Resign, Result
from server.app import RaceServer
from server.records.archive import Archive
from server.records.archiver import Archiver
from server.records.database import Database
from server.records.reader import Reader
from server.records.schema import race_racers, races
from server.rooms.raceid import room_of
from server.store.base import Append, Stored
from server.store.stores import Store
from tests.helpers import MakeServer, wait_until
from tests.racing import room_with, solution, start_race
from tests.wsclient import WsClient


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


async def rows(db: Database, race: str | None = None) -> tuple[int, int]:
    """How many race rows and racer rows the database holds (of ``race``, when given)."""
    async with db.read() as conn:
        count_races = sa.select(sa.func.count()).select_from(races)
        count_racers = sa.select(sa.func.count()).select_from(race_racers)
        if race is not None:
            count_races = count_races.where(races.c.race_id == race)
            count_racers = count_racers.where(race_racers.c.race_id == race)
        return int((await conn.execute(count_races)).scalar_one()), int((await conn.execute(count_racers)).scalar_one())


async def race_to_the_end(server: RaceServer, moves: int = 12) -> tuple[str, dict[str, list[str]]]:
    """Two racers race: Ann plays ``moves`` moves of a win, Bob one, then both resign. The race's
    id (from ``result``) and each racer's acknowledged moves."""
    clients, _ = await room_with(server, "Ann", "Bob")
    ann, bob = clients
    try:
        await start_race(clients)
        played: dict[str, list[str]] = {ann.player: [], bob.player: []}
        for move in solution()[:moves]:
            reply = await ann.call(MoveRequest(move=str(move)))
            assert isinstance(reply, Moved), reply
            played[ann.player].append(str(move))
        reply = await bob.call(MoveRequest(move=str(solution()[0])))
        assert isinstance(reply, Moved), reply
        played[bob.player].append(str(solution()[0]))
        await ann.call(Resign())
        await bob.call(Resign())
        result = await ann.expect(Result)
        assert result.race_id is not None and room_of(result.race_id) == _room_of(server, ann)
        return result.race_id, played
    finally:
        for client in clients:
            await client.close()


def _room_of(server: RaceServer, client: WsClient) -> str:
    session = server.players[client.player]
    assert session.room is not None
    return session.room


async def archived(db: Database, race: str) -> bool:
    return (await rows(db, race))[0] == 1


async def make_archiving(make_server: MakeServer, database: Database, **kw: Any) -> RaceServer:
    return await make_server(archive=Archive(database, now=wall_ms), **kw)


async def test_a_finished_race_is_archived_once_with_every_acknowledged_move(
    make_server: MakeServer, database: Database
) -> None:
    server = await make_archiving(make_server, database)
    race, played = await race_to_the_end(server)
    await wait_until(lambda: archived(database, race), what=f"race {race} archived")
    assert await rows(database, race) == (1, 2)
    view = await Reader(database, now=wall_ms).race(race)
    assert view is not None and view["archived"] is True
    on_record = {r["player"]: [m for _, m in r["moves"]] for r in view["racers"]}
    assert on_record == played
    # The mark is cleared and the room leaves the index; the log has its TTL back.
    assert server.archiver is not None
    await wait_until(lambda: _unmarked(server.store, room_of(race)), what="marks cleared")


async def _unmarked(store: Store, room: str) -> bool:
    return not await store.archive_marks(room) and room not in dict(await store.archive_due(100))


async def test_until_archived_the_race_is_served_from_the_live_room(
    make_server: MakeServer, database: Database
) -> None:
    """Records off on the server (nothing archives), a reader with the live store: the race is there."""
    server = await make_server()
    race, played = await race_to_the_end(server)
    view = await Reader(database, now=wall_ms, live=server.store).race(race)
    assert view is not None and view["archived"] is False
    assert {r["player"]: [m for _, m in r["moves"]] for r in view["racers"]} == played
    assert await rows(database, race) == (0, 0)


async def test_two_archivers_on_one_race_write_one_row(make_redis_server: MakeServer, database: Database) -> None:
    """Two nodes on one Redis both archive (each wakes for the index): one row per race and racer."""
    first = await make_archiving(make_redis_server, database)
    second = await make_archiving(make_redis_server, database)
    race, _ = await race_to_the_end(first)
    assert second.archiver is not None
    # The second node's archiver works the same room at the same time as the first one's.
    await second.archiver.drain()
    await wait_until(lambda: archived(database, race))
    room = room_of(race)
    for server in (first, second):
        assert server.archiver is not None
        await server.archiver.archive_room(room, 0)  # again, after the marks were cleared: nothing
    assert await rows(database, race) == (1, 2)


async def test_a_mark_the_index_lost_is_found_by_the_sweep(make_server: MakeServer, database: Database) -> None:
    """The node died between the commit (end + mark) and indexing it: the sweep finds the mark."""
    server = await make_server()  # records off: it marks nothing, so the test marks as the append would
    race, _ = await race_to_the_end(server)
    room = room_of(race)

    async def marked() -> bool:
        """The room's last append again, as an archiving node would have stored it: with the mark
        (the racers' drops may still be landing: again until the log held still)."""
        log = await server.store.load(room)
        return isinstance(await server.store.append_at(room, [], Append(60.0, len(log), None, None, [race])), Stored)

    await wait_until(marked)
    assert await server.store.archive_marks(room) == [race]
    assert room not in dict(await server.store.archive_due(100))
    archiver = Archiver(server.store, Archive(database, now=wall_ms), 60.0)
    assert await archiver.drain() == 0  # not indexed: invisible to a pass
    assert await archiver.sweep() == 1
    assert await archiver.drain() == 1
    assert await rows(database, race) == (1, 2)
    assert await server.store.archive_marks(room) == []
