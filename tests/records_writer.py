"""A process writing race records into one database, for the tests of several writers at once.

``python -m tests.records_writer URL COUNT ORDER BARRIER NAME``: builds COUNT records (rooms
R0..), waits until every writer named in the folder BARRIER is ready (so the writers really run
at the same time), writes them one race at a time in ORDER (``forward`` or ``backward``) and
prints how many of them it was the first to write.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from server.records.archive import Archive
from server.records.database import open_database
from server.rooms.history import RaceRecord
from tests.race_records import copies, raced_record

WRITERS = 2


async def write(url: str, records: list[RaceRecord]) -> int:
    db = open_database(url, Path("."))
    archive = Archive(db, now=lambda: time.time_ns() // 1_000_000)
    try:
        return sum([await archive.write_race(record) for record in records])
    finally:
        await db.close()


def main(argv: list[str]) -> None:
    url, count, order, barrier, name = argv
    records = copies(raced_record(), int(count))
    if order == "backward":
        records.reverse()
    folder = Path(barrier)
    (folder / f"{name}.ready").touch()
    deadline = time.monotonic() + 60
    while len(list(folder.glob("*.ready"))) < WRITERS:
        if time.monotonic() > deadline:
            raise SystemExit("the other writer never came")
        time.sleep(0.01)
    print(asyncio.run(write(url, records)))


if __name__ == "__main__":
    main(sys.argv[1:])
