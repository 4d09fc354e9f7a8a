"""The records as a player meets them: real server processes, the default SQLite file, the read API.

A race played by two clients; the server stopped, Redis flushed, the server started again:
``GET /api/v1/races/{race_id}`` returns every racer's moves exactly as acknowledged. Before it is
archived the same race is served from the live room.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import redis.asyncio as aioredis

from protocol.messages import CreateRoom, JoinRoom, Moved, MoveRequest, Ok, Ready, Resign, Result, RoomState, Started
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wins import SEAHAVEN_1_WIN
from tests.wsclient import WsClient


def get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


async def play_a_race(server: ServerProcess) -> tuple[str, dict[str, list[str]]]:
    ann = await WsClient.open(server.url, "Ann")
    bob = await WsClient.open(server.url, "Bob")
    state = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    for racer in (ann, bob):
        assert isinstance(await racer.call(Ready()), Ok)
    for racer in (ann, bob):
        await racer.expect(Started)
    acknowledged: dict[str, list[str]] = {ann.player: [], bob.player: []}
    for racer, moves in ((ann, SEAHAVEN_1_WIN[:20]), (bob, SEAHAVEN_1_WIN[:5])):
        for move in moves:
            reply = await racer.call(MoveRequest(move=move))
            assert isinstance(reply, Moved), reply
            acknowledged[racer.player].append(move)
    await bob.call(Resign())
    await ann.call(Resign())
    result = await ann.expect(Result)
    assert result.race_id is not None
    for racer in (ann, bob):
        await racer.close()
    return result.race_id, acknowledged


def moves_of(view: dict[str, Any]) -> dict[str, list[str]]:
    return {racer["player"]: [move for _, move in racer["moves"]] for racer in view["racers"]}


async def test_a_race_outlives_redis_in_the_records(redis_proc: RedisProcess) -> None:
    server = ServerProcess("--redis", redis_proc.url)
    data = server.data  # the node's data folder: its SQLite records
    try:
        race, acknowledged = await play_a_race(server)

        async def archived() -> bool:
            status, view = get(f"{server.http}/api/v1/races/{race}")
            return status == 200 and view["archived"] is True

        await wait_until(archived, what=f"race {race} archived")
        assert server.terminate() == 0
        client = aioredis.Redis.from_url(redis_proc.url)
        try:
            await client.flushall()
        finally:
            await client.aclose()
        # The same data folder: the records are the SQLite file in it.
        again = ServerProcess("--redis", redis_proc.url, "--data-dir", str(data))
        try:
            status, view = get(f"{again.http}/api/v1/races/{race}")
            assert status == 200, view
            assert moves_of(view) == acknowledged
            assert view["archived"] is True and view["end_reason"] == "all-done"
            assert [r["status"] for r in view["racers"]] == ["resigned", "resigned"]
        finally:
            again.close()
    finally:
        server.close()


async def test_an_unknown_race_is_a_json_404(redis_proc: RedisProcess) -> None:
    server = ServerProcess("--redis", redis_proc.url)
    try:
        status, body = get(f"{server.http}/api/v1/races/ABCDEF-1-aaaaaaaa")
        assert status == 404 and body["error"]["code"] == "not-found"
    finally:
        server.close()
