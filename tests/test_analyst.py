"""Each race on record analysed exactly once (server/play/analyst.py, server/records/analyses.py),
on SQLite and PostgreSQL, with real worker processes: two analysts on one queue, a worker killed
under its analyst, the database away; and the read API's ``/api/v1/races/{id}/analysis`` on a real
server process, as a player's client reads it.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import jsonschema_rs
from sqlalchemy import func, select, update

from benchmarks.analysis_backlog import backlog_races
from seahaven import CELL, FOUNDATION, Board, Move
from server.http.openapi import SCHEMAS
from server.play.analyst import Analyst, Budget
from server.play.dealpool import worker_executor
from server.records.analyses import MAX_TRIES, Analyses, analysis_view
from server.records.archive import Archive
from server.records.database import Database, open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from server.records.schema import analysis_queue, race_analyses, race_racers
from tests.archiving import race
from tests.helpers import wait_until
from tests.httpclient import get
from tests.pg_proc import PgProcess
from tests.race_records import copies, raced_record
from tests.recording import analysis, archived, recording_server, wall_ms
from tests.server_proc import ServerProcess


def workers() -> Executor:
    """The analysts' worker, at the tests' own priority: these tests count races analysed, not
    how the worker yields the CPU (benchmarks.load --analysis-backlog measures that)."""
    return worker_executor(1, nice=0)


async def analysed_counts(db: Database) -> dict[str, int]:
    """Race id -> how many analyses the records hold of it."""
    async with db.read() as conn:
        query = select(race_analyses.c.race_id, func.count()).group_by(race_analyses.c.race_id)
        return {race_id: count for race_id, count in (await conn.execute(query)).all()}


async def queued(db: Database) -> int:
    async with db.read() as conn:
        return int((await conn.execute(select(func.count()).select_from(analysis_queue))).scalar_one())


async def running(analysts: list[Analyst], until: Callable[[], object], what: str) -> None:
    """Run ``analysts`` until ``until()`` is true; then stop them and their workers."""
    tasks = [asyncio.create_task(a.run()) for a in analysts]
    try:
        await wait_until(until, 60, what=what)  # type: ignore[arg-type]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for analyst in analysts:
            analyst.close()


async def test_two_analysts_analyse_each_archived_race_exactly_once(database: Database) -> None:
    records = copies(raced_record(), 6)
    await Archive(database, now=wall_ms).write_races(records)
    await Archive(database, now=wall_ms).write_races(records[:2])  # written twice: queued once
    assert await queued(database) == 6
    assert (await await_view(database, records[0].race_id))["status"] == "pending"

    analysts = [Analyst(Analyses(database, now=wall_ms), workers) for _ in range(2)]

    async def done() -> bool:
        # The queue empties at the last store's commit, a moment before its analyst counts it:
        # stopped in that moment (beside two busy loops), the analysts had counted 5.
        return await queued(database) == 0 and sum(a.stored for a in analysts) >= 6

    await running(analysts, done, "the queue analysed")
    assert await analysed_counts(database) == {r.race_id: 1 for r in records}
    assert sum(a.stored for a in analysts) == 6  # no analysis stored twice, none lost
    view = await await_view(database, records[0].race_id)
    assert view["status"] == "done" and view["analysed_at"] is not None
    report = view["analysis"]
    assert report["race_id"] == records[0].race_id and report["deal"] == 1
    for racer, record in zip(report["racers"], records[0].racers, strict=True):
        assert racer["player"] == record.player and len(racer["points"]) == len(record.moves)
    ann, bob = report["racers"]
    assert ann["points"][-1]["verdict"] == "won" and ann["lost_at"] is None
    assert bob["against_winner"]["winner"] == ann["player"]
    assert "name" not in ann  # names are the race's: an account deleted later leaves none here


async def await_view(db: Database, race_id: str) -> dict[str, Any]:
    async with db.read() as conn:
        view = await analysis_view(conn, race_id, wall_ms())
    assert view is not None
    return view


async def test_a_killed_worker_leaves_its_race_queued_and_it_is_analysed_once_after(database: Database) -> None:
    (record,) = copies(raced_record(), 1)
    await Archive(database, now=wall_ms).write_races([record])
    made: list[Executor] = []

    def dying_then_healthy() -> Executor:
        executor = worker_executor(1, nice=0)
        if not made:  # the first worker is killed as an out-of-memory killer would
            pid = executor.submit(os.getpid).result(timeout=30)
            os.kill(pid, signal.SIGKILL)
        made.append(executor)
        return executor

    analyst = Analyst(Analyses(database, now=wall_ms), dying_then_healthy, Budget(lease_seconds=1.0))

    async def done() -> bool:
        return await queued(database) == 0

    await running([analyst], done, "the race analysed by a new worker")
    assert len(made) == 2 and analyst.stored == 1
    assert await analysed_counts(database) == {record.race_id: 1}


async def test_a_race_whose_analysis_keeps_failing_is_said_failed_not_retried_forever(database: Database) -> None:
    (record,) = copies(raced_record(), 1)
    await Archive(database, now=wall_ms).write_races([record])
    book = Analyses(database, now=wall_ms)
    for _ in range(MAX_TRIES):  # taken and never stored: each lease runs out
        assert [r["race_id"] for r in await book.take(5, lease_ms=0)] == [record.race_id]
        await asyncio.sleep(0.002)  # the lease (0 ms) has run out
    assert await book.take(5, lease_ms=0) == []
    assert (await await_view(database, record.race_id))["status"] == "failed"
    assert await book.backlog() == 0


async def test_races_wait_out_a_database_outage_and_are_analysed_once_after(
    private_postgres: PgProcess, tmp_path: Path
) -> None:
    db = open_database(private_postgres.url, tmp_path)
    try:
        await migrate(db)
        records = copies(raced_record(), 3)
        await Archive(db, now=wall_ms).write_races(records)
        private_postgres.stop()  # the database goes away before the analyst starts
        analyst = Analyst(Analyses(db, now=wall_ms), workers)
        task = asyncio.create_task(analyst.run())
        try:
            await wait_until(lambda: analyst.failures >= 2, 30, what="the analyst backing off")
            assert analyst.stored == 0 and not task.done()
            private_postgres.start()

            async def done() -> bool:
                return analyst.stored == 3 and await queued(db) == 0

            await wait_until(done, 60, what="the races analysed after the outage")
            # Resumed: the pass that stored the last one ends (its next take finds the queue empty).
            await wait_until(lambda: analyst.failures == 0, 10, what="the analyst saying it resumed")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            analyst.close()
        assert await analysed_counts(db) == {r.race_id: 1 for r in records}
    finally:
        await db.close()


async def test_the_api_says_pending_until_a_race_is_analysed_and_refuses_bad_ids(tmp_path: Path) -> None:
    async with recording_server(tmp_path) as server:  # no analyst: races stay queued
        result_race, _ = await race(f"ws://127.0.0.1:{server.port}/", 30)
        await wait_until(lambda: archived(server, result_race), what="the race archived")
        answer = await get(server.port, f"/api/v1/races/{result_race}/analysis")
        assert answer.status == 200 and answer.headers["cache-control"] == "public, max-age=10"
        assert answer.json() == {"race_id": result_race, "status": "pending", "analysed_at": None, "analysis": None}
        for path, status in (
            ("/api/v1/races/not-a-race/analysis", 400),
            ("/api/v1/races/ZZZZ-1-aaaaaaaa/analysis", 404),
            (f"/api/v1/races/{result_race}/analysis?verbose=1", 400),
        ):
            refused = await get(server.port, path)
            assert refused.status == status, (path, refused.status, refused.body)
            assert refused.json()["error"]


async def test_a_server_process_analyses_its_races_and_serves_them(tmp_path: Path) -> None:
    # At nice 10 (--analysis low): a worker that waits for an idle CPU waits out a busy test run.
    server = ServerProcess("--data-dir", str(tmp_path), "--analysis", "low")
    try:
        race_id, played = await race(server.url, 30)  # Ann plays 30 moves of a win, Bob 2
        view = await analysis(server.port, race_id)
        assert view["status"] == "done"
        validator = {"$ref": "#/components/schemas/Analysis", "components": {"schemas": SCHEMAS}}
        jsonschema_rs.Draft202012Validator(validator).validate(view)  # as the OpenAPI document says
        report = view["analysis"]
        assert {r["player"]: len(r["points"]) for r in report["racers"]} == {p: len(m) for p, m in played.items()}
        assert all(p["verdict"] == "winnable" for r in report["racers"] for p in r["points"])
        assert report["solution"] is not None and report["shortest"]["by"] == "solver"
        answer = await get(server.port, f"/api/v1/races/{race_id}/analysis")
        assert answer.headers["cache-control"] == "public, max-age=3600"
        metrics = (await get(server.port, "/metrics")).body.decode()
        assert "seahaven_analyses_stored 1.0" in metrics.splitlines()
    finally:
        server.close()
    db = open_database(None, tmp_path)  # the node's default file in its data folder
    try:
        assert await analysed_counts(db) == {race_id: 1} and await queued(db) == 0
    finally:
        await db.close()


async def test_a_players_page_sums_their_mistakes_from_the_analyses(database: Database) -> None:
    records = backlog_races(6)  # Ann plays the solver's line home; Bob wanders, as new players do
    await Archive(database, now=wall_ms).write_races(records)
    analyst = Analyst(Analyses(database, now=wall_ms), workers)

    async def done() -> bool:
        return await queued(database) == 0

    await running([analyst], done, "the races analysed")
    reader = Reader(database, now=wall_ms)
    lost_to: list[str] = []
    for record in records:
        view = await reader.analysis(record.race_id)
        assert view is not None and view["status"] == "done"
        bob = view["analysis"]["racers"][1]
        assert bob["player"] == "pBOB"
        if bob["lost_at"] is not None:
            # The kind of move, read again from the board before it.
            board = Board.deal("seahaven", record.settings.deal)
            for _, text in record.racers[1].moves[: bob["lost_at"]["index"]]:
                board.pop() if text == "undo" else board.push_text(text)
            move = Move.parse(bob["lost_at"]["move"])
            kind = {CELL: "cell", FOUNDATION: "foundation"}.get(move.dst_area)
            lost_to.append(kind or ("column" if board.columns[move.dst] else "empty-column"))
    assert lost_to, "some wanderer lost the deal"
    page = await reader.player("pBOB")
    assert page is not None
    summed = page["mistakes"]
    assert summed["analysed"] == 6 and summed["lost"] == len(lost_to)
    assert {k: v for k, v in summed["lost_by"].items() if v} == dict(Counter(lost_to))
    ann = await reader.player("pANN")
    assert ann is not None and ann["mistakes"]["analysed"] == 6 and ann["mistakes"]["lost"] == 0

    # A race filed under another id since (a guest who registered): the analysis follows it.
    async with database.write() as conn:
        await conn.execute(
            update(race_racers)
            .where(race_racers.c.race_id == records[0].race_id, race_racers.c.player == "pBOB")
            .values(player="uBOBBY")
        )
    view = await reader.analysis(records[0].race_id)
    assert view is not None
    assert [r["player"] for r in view["analysis"]["racers"]] == ["pANN", "uBOBBY"]
    assert view["analysis"]["racers"][1]["against_winner"]["winner"] == "pANN"


async def test_the_newest_race_is_taken_first_and_a_held_one_is_left_alone(database: Database) -> None:
    older, newer = copies(raced_record(), 2)
    await Archive(database, now=lambda: 1_000).write_races([older])  # a backlog a migration queued
    await Archive(database, now=lambda: 2_000).write_races([newer])  # the race just run
    book, other = Analyses(database, now=wall_ms), Analyses(database, now=wall_ms)
    assert [r["race_id"] for r in await book.take(1, 60_000)] == [newer.race_id]
    assert [r["race_id"] for r in await other.take(5, 60_000)] == [older.race_id]  # not the held one
    assert await book.take(5, 60_000) == []


def workers_of(pid: int) -> list[int]:
    """The multiprocessing workers (spawned) that process ``pid`` started."""
    found = []
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        if b"spawn_main" in cmdline:
            found.append(int(child))
    return found


def running_process(pid: int) -> bool:
    return Path(f"/proc/{pid}").exists()


async def test_a_server_stops_at_once_with_an_analysis_under_way(tmp_path: Path) -> None:
    """A SIGTERM mid-analysis kills the worker, not waits for it: at SCHED_IDLE on a busy machine
    an analysis may not end for minutes, and the interpreter's exit used to join it. Here the
    worker is stopped (SIGSTOP) with the race's analysis on it: it would never end."""
    server = ServerProcess("--data-dir", str(tmp_path), "--analysis", "low")
    try:
        assert workers_of(server.proc.pid) == []  # no worker until a race is on record
        race_id, _ = await race(server.url, 30)
        stopped: set[int] = set()

        def caught() -> bool:
            for pid in workers_of(server.proc.pid):
                os.kill(pid, signal.SIGSTOP)
                stopped.add(pid)
            return bool(stopped)

        await wait_until(caught, 30, interval=0.005, what="the analysis worker started")
        answer = await get(server.port, f"/api/v1/races/{race_id}/analysis")
        assert answer.json()["status"] == "pending"  # caught before it stored the analysis
        assert server.terminate() == 0  # within 10 s
        for pid in stopped:
            assert not running_process(pid), f"worker {pid} outlived its server"
    finally:
        for pid in workers_of(server.proc.pid) if server.proc.poll() is None else []:
            os.kill(pid, signal.SIGKILL)
        server.close()
