"""Races on real server processes that archive: a node, a two-racer race, what the database holds.

Shared by the fault test (tests/test_archive_faults.py) and the minute-long outage benchmark
(benchmarks/archive_outage.py).
"""

from __future__ import annotations

import json
import time

import asyncpg

from protocol.messages import CreateRoom, JoinRoom, Moved, MoveRequest, Ok, Ready, Resign, Result, RoomState, Started
from tests.server_proc import ServerProcess
from tests.wins import SEAHAVEN_1_WIN
from tests.wsclient import WsClient


def node(redis_url: str, database: str, *extra: str) -> ServerProcess:
    return ServerProcess("--redis", redis_url, "--database", database, "--spectator-delay", "0", *extra)


async def race(url: str, moves: int, timings: list[float] | None = None) -> tuple[str, dict[str, list[str]]]:
    """Ann and Bob race on the server at ``url``: Ann plays ``moves`` moves of a win, Bob two, both
    resign. The race's id and each racer's acknowledged moves; ``timings`` gets each move's
    milliseconds from the request to its acknowledgement."""
    ann = await WsClient.open(url, "Ann")
    bob = await WsClient.open(url, "Bob")
    try:
        state = await ann.call(CreateRoom(deal_number=1))
        assert isinstance(state, RoomState)
        assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
        for racer in (ann, bob):
            assert isinstance(await racer.call(Ready()), Ok)
        for racer in (ann, bob):
            await racer.expect(Started)
        played: dict[str, list[str]] = {ann.player: [], bob.player: []}
        for racer, line in ((ann, SEAHAVEN_1_WIN[:moves]), (bob, SEAHAVEN_1_WIN[:2])):
            for move in line:
                sent = time.perf_counter()
                reply = await racer.call(MoveRequest(move=move))
                if timings is not None:
                    timings.append((time.perf_counter() - sent) * 1000)
                assert isinstance(reply, Moved), reply
                played[racer.player].append(move)
        await ann.call(Resign())
        await bob.call(Resign())
        result = await ann.expect(Result)
        assert result.race_id is not None
        return result.race_id, played
    finally:
        await ann.close()
        await bob.close()


async def on_record(database: str) -> dict[str, dict[str, list[str]]]:
    """Race id -> player -> moves, as the database holds them (one entry per racer row)."""
    conn = await asyncpg.connect(database)
    try:
        rows = await conn.fetch("SELECT race_id, player, moves FROM race_racers ORDER BY race_id, player")
        counts = await conn.fetch("SELECT race_id, count(*) AS n FROM races GROUP BY race_id")
    finally:
        await conn.close()
    assert all(row["n"] == 1 for row in counts)  # the primary key: never twice
    found: dict[str, dict[str, list[str]]] = {}
    for row in rows:
        moves = row["moves"]
        if isinstance(moves, str):  # asyncpg hands JSON columns over as text
            moves = json.loads(moves)
        racers = found.setdefault(row["race_id"], {})
        assert row["player"] not in racers, f"racer {row['player']} twice in {row['race_id']}"
        racers[row["player"]] = [entry[1] for entry in moves]  # [ms, move], or [ms, move, 1] by auto-move
    return found
