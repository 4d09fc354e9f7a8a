"""A backlog of races for the analysts: records folders whose queue holds races to analyse.

``benchmarks.load --analysis-backlog N`` starts our server on such a folder, so its analyst
(server/play/analyst.py) works through N races in its worker while the load runs; with
``--against plain`` the same server without a backlog runs in the other slices, so the figures
say what analyses cost the move path (issue 40: p50, p99, CPU per move).

Each race is on one of the first winnable deals: a racer who plays the solver's line home, and
one who wanders (random legal moves, one in five taken back) until stuck or 80 moves, as a new
player does; the wanderer's positions are the dear ones (a lost one is proven by a full search).

    .venv/bin/python -m benchmarks.analysis_backlog 20     # how long N races take to analyse here
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from protocol.enums import EndReason, Status
from seahaven import Board
from seahaven.analysis import analyse
from seahaven.codes import encode
from seahaven.solver import solve
from server.records.archive import Archive
from server.records.database import open_database
from server.records.migrate import migrate
from server.records.views import race_view
from server.rooms.history import RaceRecord, RacerRecord
from server.rooms.settings import Settings

T0 = 1_800_000_000_000


def wander(board: Board, rng: random.Random, count: int) -> list[str]:
    played: list[str] = []
    for _ in range(count):
        if board.move_stack and rng.random() < 0.2:
            board.pop()
            played.append("undo")
            continue
        legal = board.legal_moves()
        if not legal:
            break
        move = rng.choice(legal)
        board.push(move)
        played.append(str(move))
    return played


def backlog_races(count: int, seed: int = 40) -> list[RaceRecord]:
    """``count`` finished two-racer races on winnable deals, ids ``BKLG0000-N-aaaaaaaa``."""
    rng = random.Random(seed)
    deals = [d for d in range(1, 80) if solve(Board.deal("seahaven", d)).solved][:30]
    records = []
    for n in range(count):
        deal = deals[n % len(deals)]
        line = [str(m) for m in solve(Board.deal("seahaven", deal)).moves]
        wandered = wander(Board.deal("seahaven", deal), rng, 80)
        won = tuple((500 * (i + 1), m) for i, m in enumerate(line))
        lost = tuple((700 * (i + 1), m) for i, m in enumerate(wandered))
        gave_up = lost[-1][0] if lost else 0
        settings = Settings(preset="seahaven", deal=deal)
        records.append(
            RaceRecord(
                race_id=f"BKLG{n:04d}-1-aaaaaaaa",
                room=f"BKLG{n:04d}",
                number=1,
                settings=settings,
                deal_code=encode("seahaven", deal),
                started_at=T0,
                ended_at=T0 + won[-1][0],
                end_reason=EndReason.WON,
                racers=(
                    RacerRecord("pANN", "Ann", 1, Status.FINISHED, 52, won[-1][0], won, 0, False, False),
                    RacerRecord("pBOB", "Bob", 2, Status.RESIGNED, 0, gave_up, lost, 0, False, False),
                ),
            )
        )
    return records


async def seed(folder: Path, count: int) -> Path:
    """``folder``'s records (the default SQLite file), migrated, with ``count`` races queued."""
    db = open_database(None, folder)
    try:
        await migrate(db)
        await Archive(db, now=lambda: time.time_ns() // 1_000_000).write_races(backlog_races(count))
    finally:
        await db.close()
    return folder


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else 20
    races = backlog_races(count)
    started = time.process_time()
    for record in races:
        analyse(race_view(record, {r.player: False for r in record.racers}, archived=True))
    spent = time.process_time() - started
    print(f"{count} backlog races analysed in {spent:.1f} s of CPU: {spent / count * 1000:.0f} ms each")


if __name__ == "__main__":
    main(sys.argv[1:])
