"""The database away for a minute: racing goes on, finished races wait in Redis, none is lost.

Two ``seahaven-server`` nodes on a private redis-server archive into a private PostgreSQL
(tests/pg_proc.py). Races run back to back on one node, two at a time, for ``--before`` seconds,
then PostgreSQL is crashed (``pg_ctl stop -m immediate``) for ``--outage`` seconds while races go
on, then it is started again and the run waits for every race to be on record. Printed: move ->
acknowledgement p50/p99/max before, during and after the outage (the database is never on the move
path, so the three should agree within the machine's noise), races finished in each spell, how
long the backlog took to drain, and the counts that must be zero: races lost, races doubled,
races whose moves on record differ from the acknowledged ones.

    .venv/bin/python -m benchmarks.archive_outage               # a minute-long outage
    .venv/bin/python -m benchmarks.archive_outage --outage 10   # shorter
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import asyncpg

from tests.archiving import node, on_record, race
from tests.pg_proc import PgProcess
from tests.redis_proc import RedisProcess


def quantiles(samples: list[float]) -> str:
    if not samples:
        return "no moves"
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    median = statistics.median(ordered)
    return f"p50 {median:6.2f} ms  p99 {p99:6.2f} ms  max {ordered[-1]:6.2f} ms  ({len(ordered)} moves)"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=float, default=10.0, help="seconds of racing before the outage")
    parser.add_argument("--outage", type=float, default=60.0, help="seconds the database is down")
    parser.add_argument("--after", type=float, default=10.0, help="seconds of racing after it")
    args = parser.parse_args()
    with RedisProcess() as redis_proc, PgProcess() as pg:
        # Every race comes from this host: lift the per-address limits meant for the public.
        unlimited = ("--rooms-per-address", "1000000", "--sessions-per-address", "1000000")
        nodes = [node(redis_proc.url, pg.url, *unlimited) for _ in range(2)]
        played: dict[str, dict[str, list[str]]] = {}
        spells: dict[str, list[float]] = {"before": [], "during": [], "after": []}
        finished: dict[str, int] = dict.fromkeys(spells, 0)
        try:
            for spell, seconds in (("before", args.before), ("during", args.outage), ("after", args.after)):
                if spell == "during":
                    pg.stop("immediate")
                if spell == "after":
                    pg.start()
                end = time.monotonic() + seconds
                while time.monotonic() < end:
                    runs = await asyncio.gather(*(race(nodes[0].url, 20, spells[spell]) for _ in range(2)))
                    for race_id, moves in runs:
                        played[race_id] = moves
                        finished[spell] += 1
            drained_from = time.monotonic()
            while True:
                try:
                    found = await on_record(pg.url)
                except (OSError, asyncpg.PostgresError):
                    found = {}
                if set(found) >= set(played) or time.monotonic() - drained_from > 120:
                    break
                await asyncio.sleep(0.2)
            drained = time.monotonic() - drained_from
        finally:
            for server in nodes:
                server.close()
    lost = sum(1 for r in played if r not in found)
    wrong = sum(1 for r in played if r in found and found[r] != played[r])
    extra = sum(1 for r in found if r not in played)
    print(f"database down {args.outage:.0f} s; races finished before/during/after: {finished}")
    for spell, samples in spells.items():
        print(f"  move -> ack {spell:>6}: {quantiles(samples)}")
    print(f"  backlog on record {drained:.1f} s after the racing stopped")
    print(f"  races {len(played)}: lost {lost}, doubled 0 (primary key), differing {wrong}, unknown on record {extra}")


if __name__ == "__main__":
    asyncio.run(main())
