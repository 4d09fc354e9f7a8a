"""Race records into the database: each race once, whole, however often and by however many it is written."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from server.records.archive import Archive
from server.records.archiver import RaceArchive
from server.records.database import Database, DatabaseUnavailable, open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from server.records.rows import proofs
from server.records.schema import race_racers, races
from server.records.views import race_view
from server.rooms.history import RaceRecord
from server.rooms.settings import public_settings
from tests.pg_proc import PgProcess, scratch_database
from tests.race_records import T0, copies, raced_record

ROOT = Path(__file__).resolve().parent.parent
NOW = T0 + 3_600_000


def clock() -> int:
    return NOW


async def counts(db: Database) -> tuple[int, int]:
    """Race rows, racer rows."""
    async with db.read() as conn:
        return (
            int((await conn.execute(sa.select(sa.func.count()).select_from(races))).scalar_one()),
            int((await conn.execute(sa.select(sa.func.count()).select_from(race_racers))).scalar_one()),
        )


async def test_a_raced_room_round_trips(database: Database) -> None:
    record = raced_record()
    sink: RaceArchive = Archive(database, now=clock)  # what the archiver is handed
    await sink.write_races([record])
    async with database.read() as conn:
        race = (await conn.execute(sa.select(races))).mappings().one()
        racers = (await conn.execute(sa.select(race_racers).order_by(race_racers.c.place))).mappings().all()
    assert race["race_id"] == record.race_id and race["room"] == "ROOM01" and race["number"] == 1
    assert (race["preset"], race["deal"], race["deal_code"]) == ("seahaven", 1, record.deal_code)
    assert (race["chosen"], race["daily"], race["hints_allowed"], race["undo_allowed"]) == (False, None, False, True)
    assert race["settings"] == public_settings(record.settings)  # the room's secret left out
    assert (race["started_at"], race["ended_at"], race["end_reason"]) == (record.started_at, record.ended_at, "won")
    assert (race["racer_count"], race["archived_at"]) == (2, NOW)
    ann, bob = racers
    assert (ann["player"], ann["place"], ann["status"], ann["proven"], ann["undos"]) == ("ann", 1, "finished", True, 0)
    assert (bob["player"], bob["place"], bob["status"], bob["proven"], bob["undos"]) == ("bob", 2, "racing", False, 1)
    assert ann["moves"] == [[at, move] for at, move in record.racers[0].moves]
    assert bob["moves"][-1][1] == "undo"
    # Read back whole, it is the record it was written from.
    view = await Reader(database, now=clock).race(record.race_id)
    assert view == race_view(record, proofs(record), archived=True)


async def test_a_second_write_changes_nothing(database: Database) -> None:
    archive = Archive(database, now=clock)
    record = raced_record()
    assert await archive.write_race(record) is True
    renamed = dataclasses.replace(
        record,
        end_reason="time-limit",
        racers=tuple(dataclasses.replace(r, name="Someone else") for r in record.racers),
    )
    assert await archive.write_race(renamed) is False
    await archive.write_races([record, renamed])
    assert await counts(database) == (1, 2)
    view = await Reader(database, now=clock).race(record.race_id)
    assert view is not None and view["end_reason"] == "won"
    assert [r["name"] for r in view["racers"]] == ["Ann", "Bob"]


async def test_a_finish_whose_moves_do_not_win_is_not_proven(database: Database) -> None:
    record = raced_record()
    ann = record.racers[0]
    forged = dataclasses.replace(record, racers=(dataclasses.replace(ann, moves=ann.moves[:-1]), *record.racers[1:]))
    await Archive(database, now=clock).write_races([forged])
    view = await Reader(database, now=clock).race(record.race_id)
    assert view is not None
    assert [(r["status"], r["proven"]) for r in view["racers"]] == [("finished", False), ("racing", False)]


async def test_writers_at_once_write_each_race_once(database: Database, tmp_path: Path) -> None:
    """Two tasks on one Database and two on another (as two nodes), all writing the same races."""
    records = copies(raced_record(), 40)
    other = open_database(database.url, tmp_path)
    try:
        writers = [Archive(db, now=clock) for db in (database, database, other, other)]

        async def write_all(archive: Archive, order: list[RaceRecord]) -> int:
            return sum([await archive.write_race(record) for record in order])

        firsts = await asyncio.gather(
            *(write_all(w, records if i % 2 else records[::-1]) for i, w in enumerate(writers))
        )
    finally:
        await other.close()
    assert sum(firsts) == 40  # each race had exactly one first writer
    assert await counts(database) == (40, 80)


def test_two_processes_share_one_sqlite_file(tmp_path: Path) -> None:
    """Two real processes write the same 300 races into one file at the same time: no lost or
    doubled row, no "database is locked"."""
    path = tmp_path / "records.db"
    url = f"sqlite:///{path}"
    db = open_database(url, tmp_path)
    asyncio.run(migrate_and_close(db))
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.records_writer", url, "300", order, str(barrier), order],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        for order in ("forward", "backward")
    ]
    outputs = [w.communicate(timeout=300) for w in writers]
    for writer, (_, err) in zip(writers, outputs, strict=True):
        assert writer.returncode == 0, err
        assert "locked" not in err
    firsts = [int(out) for out, _ in outputs]
    assert sum(firsts) == 300 and all(firsts)  # both wrote some first, together each race once
    assert asyncio.run(counts_and_close(open_database(url, tmp_path))) == (300, 600)


async def migrate_and_close(db: Database) -> None:
    try:
        await migrate(db)
    finally:
        await db.close()


async def counts_and_close(db: Database) -> tuple[int, int]:
    try:
        return await counts(db)
    finally:
        await db.close()


async def test_an_outage_raises_oserror_and_loses_nothing(private_postgres: PgProcess, tmp_path: Path) -> None:
    records = copies(raced_record(), 8)
    async with scratch_database(private_postgres.url) as url:
        db = open_database(url, tmp_path)
        try:
            await migrate(db)
            archive = Archive(db, now=clock)
            await archive.write_races(records[:5])
            private_postgres.stop("immediate")
            with pytest.raises(DatabaseUnavailable) as info:
                await archive.write_races(records[5:])
            assert isinstance(info.value, OSError)  # what RaceArchive promises the archiver
            private_postgres.start()
            assert await counts(db) == (5, 10)  # the committed races survived, the failed ones left nothing
            await archive.write_races(records)  # the archiver's retry, whole
            assert await counts(db) == (8, 16)
        finally:
            await db.close()
