"""Archive throughput: race records written per second into SQLite and PostgreSQL (``server.records.Archive``).

Builds N realistic records once (two racers: a proven win of 86 moves and a rival's 13 moves with
an undo, from a room's real log), then for each database: a fresh one (a SQLite file in a
temporary folder; a database of its own on the shared PostgreSQL, else on a private server),
migrated, and the records written by one writer and by several at once (each race its own
transaction), then all of them written again (every write finds its race there: the cost of a
retry). Also how much of it is the engine replaying each finisher's moves (``proofs``).

    .venv/bin/python -m benchmarks.archive [--races 2000] [--targets sqlite,postgres] [--writers 4]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa

from server.records.archive import Archive
from server.records.database import Database, open_database
from server.records.migrate import migrate
from server.records.rows import proofs
from server.records.schema import races
from server.rooms.history import RaceRecord
from tests.pg_proc import PgProcess, answers, scratch_database, shared_url
from tests.race_records import copies, raced_record

TARGETS = ("sqlite", "postgres")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@contextlib.asynccontextmanager
async def fresh(target: str, folder: Path) -> AsyncIterator[Database]:
    """An empty, migrated database of ``target``."""
    if target == "sqlite":
        db = open_database(f"sqlite:///{folder / 'bench.db'}", folder)
        try:
            await migrate(db)
            yield db
        finally:
            await db.close()
        return
    server = shared_url()
    private = None if await answers(server) else PgProcess().start()
    try:
        async with scratch_database(private.url if private else server) as url:
            db = open_database(url, folder)
            try:
                await migrate(db)
                yield db
            finally:
                await db.close()
    finally:
        if private is not None:
            private.close()


async def write(db: Database, records: list[RaceRecord], writers: int) -> tuple[float, float]:
    """Seconds, wall and CPU (this process, every thread: aiosqlite's own included), to write
    ``records`` with ``writers`` archives at once (each a share of them)."""
    archive = Archive(db, now=now_ms)
    shares = [records[i::writers] for i in range(writers)]
    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(archive.write_races(share) for share in shares))
    return time.perf_counter() - wall, time.process_time() - cpu


async def count(db: Database) -> int:
    async with db.read() as conn:
        return int((await conn.execute(sa.select(sa.func.count()).select_from(races))).scalar_one())


def report(label: str, races_written: int, seconds: tuple[float, float]) -> None:
    wall, cpu = seconds
    print(
        f"  {label:<34} {races_written / wall:6.0f} races/s   {1000 * wall / races_written:5.2f} ms/race"
        f"   CPU {1000 * cpu / races_written:5.2f} ms/race"
    )


async def bench(target: str, records: list[RaceRecord], writers: int) -> None:
    half = len(records) // 2
    with tempfile.TemporaryDirectory(prefix="seahaven-bench-") as folder:
        async with fresh(target, Path(folder)) as db:
            print(f"{target}: {db.describe()}")
            report("one writer", half, await write(db, records[:half], 1))
            report(f"{writers} writers at once", len(records) - half, await write(db, records[half:], writers))
            report("again (every race already there)", len(records), await write(db, records, writers))
            assert await count(db) == len(records), "a race was lost or doubled"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--races", type=int, default=2000, help="records to write (half by one writer)")
    parser.add_argument("--targets", default=",".join(TARGETS), help="sqlite, postgres or both")
    parser.add_argument("--writers", type=int, default=4, help="archives writing at once in the second part")
    args = parser.parse_args(argv)
    targets = [t for t in args.targets.split(",") if t]
    unknown = set(targets) - set(TARGETS)
    if unknown or args.races < 2 or args.writers < 1:
        parser.error(f"targets are {', '.join(TARGETS)}; at least 2 races and 1 writer")
    records = copies(raced_record(), args.races)
    started = time.perf_counter()
    for record in records[:200]:
        proofs(record)
    proof_ms = 1000 * (time.perf_counter() - started) / min(200, len(records))
    print(f"{args.races} records, {sum(len(r.moves) for r in records[0].racers)} moves each; ", end="")
    print(f"the engine's replay (proofs) {proof_ms:.2f} ms/race of it")
    for target in targets:
        asyncio.run(bench(target, records, args.writers))


if __name__ == "__main__":
    main()
