"""Race analyses in the records: the queue of races to analyse, and each race's analysis, once.

``Analyses`` implements ``server.shell.ports.AnalysisBook``. The archive queues each race in the
race's own transaction (``server/records/archive.py``). An analyst (``server/play/analyst.py``, one
per node) takes the newest queued races that no other analyst holds, each for a lease
(``UPDATE ... RETURNING``: of two analysts asking at once, each row goes to one), analyses them in
its worker, and stores each analysis in one transaction that also takes its race off the queue,
keyed by the race's id (``ON CONFLICT DO NOTHING``): a second store of a race (a lease that ran
out while its analyst was still at it) changes nothing. An analyst that dies leaves its races
queued; their leases run out and another takes them. So does a database outage: the store fails,
the race stays queued. A race taken ``MAX_TRIES`` times without an analysis is left queued and
said "failed" (a bug to look at, not a loop).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from server.records.database import Database
from server.records.rows import record_of
from server.records.schema import analysis_queue, race_analyses, race_racers, races

__all__ = ["MAX_TRIES", "Analyses", "analysis_document", "analysis_view", "mistakes"]

MISTAKES_OVER: Final = 20
"""The newest analysed races a player's page sums their mistakes over."""
MOVE_KINDS: Final = ("cell", "column", "empty-column", "foundation", "undo")
"""Where a move went (``seahaven.analysis.To``), as the summary counts them."""
MAX_TRIES: Final = 3
"""Leases a race gets before it is left alone (each try's analysis failed or its analyst died)."""

queue = analysis_queue


class Analyses:
    """The queue and the analyses; ``now``: the server's clock (ms)."""

    def __init__(self, db: Database, *, now: Callable[[], int]) -> None:
        self.db = db
        self.now = now
        self.keep = (
            db.insert(race_analyses)
            .on_conflict_do_nothing(index_elements=["race_id"])
            .returning(race_analyses.c.race_id)
        )

    async def take(self, limit: int, lease_ms: int) -> list[dict[str, Any]]:
        """Up to ``limit`` of the newest queued races nobody holds (a race just run before the
        backlog a migration queued: its racers are the ones looking), now held by the caller for
        ``lease_ms``: each as the analysis reads it (``race_id``, ``preset``, ``deal``, ``racers``
        with ``player``, ``moves`` and ``auto``)."""
        now = self.now()
        free = (or_(queue.c.taken_until.is_(None), queue.c.taken_until < now), queue.c.tries < MAX_TRIES)
        async with self.db.write() as conn:
            newest = queue.c.queued_at.desc(), queue.c.race_id.desc()
            wanted = list(
                (await conn.execute(select(queue.c.race_id).where(*free).order_by(*newest).limit(limit))).scalars()
            )
            if not wanted:
                return []
            lease = update(queue).where(queue.c.race_id.in_(wanted), *free)
            lease = lease.values(taken_until=now + lease_ms, tries=queue.c.tries + 1).returning(queue.c.race_id)
            held = set((await conn.execute(lease)).scalars())
            return [await race_input(conn, race_id) for race_id in wanted if race_id in held]

    async def store(self, race_id: str, document: dict[str, Any]) -> bool:
        """Keep ``document`` as the race's analysis and take the race off the queue; False when it
        had one already (then it is left as it was)."""
        row = {"race_id": race_id, "analysed_at": self.now(), "document": json.dumps(document)}
        async with self.db.write() as conn:
            kept = (await conn.execute(self.keep, row)).first() is not None
            await conn.execute(delete(queue).where(queue.c.race_id == race_id))
        return kept

    async def backlog(self) -> int:
        """Races queued and not given up on."""
        async with self.db.read() as conn:
            count = select(func.count()).select_from(queue).where(queue.c.tries < MAX_TRIES)
            return int((await conn.execute(count)).scalar_one())


async def race_input(conn: AsyncConnection, race_id: str) -> dict[str, Any]:
    """An archived race as ``seahaven.analysis.analyse`` reads it (no names: see there)."""
    race = (await conn.execute(select(races).where(races.c.race_id == race_id))).mappings().one()
    query = select(race_racers).where(race_racers.c.race_id == race_id)
    racers = (await conn.execute(query.order_by(race_racers.c.place, race_racers.c.player))).mappings().all()
    record = record_of(race, racers)
    return {
        "race_id": record.race_id,
        "preset": record.settings.preset,
        "deal": record.settings.deal,
        "racers": [
            {"player": r.player, "moves": [[at, move] for at, move in r.moves], "auto": list(r.auto)}
            for r in record.racers
        ],
    }


async def analysis_view(conn: AsyncConnection, race_id: str, now: int) -> dict[str, Any] | None:
    """``GET /api/v1/races/{race_id}/analysis`` for an archived race (None: not archived):
    ``status`` "done" with the ``analysis``, "pending" while it is queued or being analysed,
    "failed" once the analysts gave up on it."""
    stored = await conn.execute(
        select(race_analyses.c.analysed_at, race_analyses.c.document).where(race_analyses.c.race_id == race_id)
    )
    done = stored.first()
    if done is not None:
        return analysis_document(race_id, "done", done[0], await filed(conn, json.loads(done[1])))
    archived = (await conn.execute(select(races.c.race_id).where(races.c.race_id == race_id))).first()
    if archived is None:
        return None
    held = (await conn.execute(select(queue.c.tries, queue.c.taken_until).where(queue.c.race_id == race_id))).first()
    given_up = held is not None and held[0] >= MAX_TRIES and (held[1] is None or held[1] < now)
    return analysis_document(race_id, "failed" if given_up else "pending")


async def filed(conn: AsyncConnection, analysis: dict[str, Any]) -> dict[str, Any]:
    """``analysis`` with its racers under the ids their race is filed under now: a guest who
    registered since has their races under their player id (server/records/accounts.py). The
    racers are in the standings' order in both."""
    query = select(race_racers.c.player).where(race_racers.c.race_id == analysis["race_id"])
    now = list((await conn.execute(query.order_by(race_racers.c.place, race_racers.c.player))).scalars())
    racers = analysis["racers"]
    if len(now) != len(racers):
        return analysis
    ids = {racer["player"]: player for racer, player in zip(racers, now, strict=True)}
    for racer in racers:
        racer["player"] = ids[racer["player"]]
        if racer["against_winner"] is not None:
            racer["against_winner"]["winner"] = ids.get(racer["against_winner"]["winner"], "")
    if analysis["shortest"] is not None and analysis["shortest"]["by"] in ids:
        analysis["shortest"]["by"] = ids[analysis["shortest"]["by"]]
    return analysis


async def mistakes(conn: AsyncConnection, player: str) -> dict[str, Any]:
    """What the analyses of ``player``'s newest ``MISTAKES_OVER`` analysed races say of them: how
    many they lost the deal in, and by which kind of move; which kinds of move made their line
    longest (the analyses' costly moves)."""
    rr = race_racers
    query = (
        select(rr.c.place, race_analyses.c.document)
        .join(race_analyses, race_analyses.c.race_id == rr.c.race_id)
        .where(rr.c.player == player)
        .order_by(rr.c.ended_at.desc(), rr.c.race_id.desc())
        .limit(MISTAKES_OVER)
    )
    rows = (await conn.execute(query)).all()
    lost_by = dict.fromkeys(MOVE_KINDS, 0)
    detours = dict.fromkeys(MOVE_KINDS, 0)
    lost = 0
    for place, document in rows:
        racers = json.loads(document)["racers"]
        if not 1 <= place <= len(racers):
            continue
        racer = racers[place - 1]
        if racer["lost_at"] is not None:
            lost += 1
            lost_by[racer["lost_at"]["to"]] += 1
        for costly in racer["costly"]:
            if costly["kind"] == "longer":
                detours[costly["to"]] += 1
    return {"analysed": len(rows), "lost": lost, "lost_by": lost_by, "detours": detours}


def analysis_document(
    race_id: str, status: str, analysed_at: int | None = None, analysis: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"race_id": race_id, "status": status, "analysed_at": analysed_at, "analysis": analysis}
