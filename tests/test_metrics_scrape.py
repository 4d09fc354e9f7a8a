"""GET /metrics of a live server process, parsed with prometheus_client's own parser."""

from __future__ import annotations

import asyncio
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from protocol.messages import CreateRoom, Error, JoinRoom, Moved, MoveRequest, RoomState
from tests.helpers import wait_until
from tests.racing import DEAL, solution, start_race
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@pytest.fixture
def node(redis_proc: RedisProcess) -> Iterator[ServerProcess]:
    server = ServerProcess("--redis", redis_proc.url, "--node-name", "node-7")
    try:
        yield server
    finally:
        server.close()


def scrape(server: ServerProcess) -> Samples:
    with urllib.request.urlopen(f"{server.http}/metrics", timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        body = response.read().decode()
    families = text_string_to_metric_families(body)
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families for s in f.samples}


async def test_a_live_node_counts_what_it_holds_and_what_it_did(node: ServerProcess) -> None:
    ann, bob = await WsClient.open(node.url, "Ann"), await WsClient.open(node.url, "Bob")
    state = await ann.call(CreateRoom(deal_number=DEAL))
    assert isinstance(state, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    eve = await WsClient.open(node.url, "Eve")
    assert isinstance(await eve.call(JoinRoom(room=state.room, spectate=True)), RoomState)
    await start_race([ann, bob])
    moves = solution()[:3]
    for move in moves:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
    refused = await bob.call(MoveRequest(move="1h"))  # not a legal move at the deal
    assert isinstance(refused, Error)

    samples = await asyncio.to_thread(scrape, node)
    assert samples[("seahaven_node_info", (("node", "node-7"),))] == 1
    assert samples[("seahaven_rooms", ())] == 1
    assert samples[("seahaven_racers", ())] == 2
    assert samples[("seahaven_spectators", ())] == 1
    assert samples[("seahaven_connections", ())] == 3
    assert samples[("seahaven_moves_accepted_total", ())] == len(moves)
    assert samples[("seahaven_moves_refused_total", (("reason", refused.code),))] == 1
    assert samples[("seahaven_move_latency_seconds_count", ())] == len(moves) + 1
    appends = samples[("seahaven_store_latency_seconds_count", (("operation", "append"),))]
    assert appends >= len(moves)  # a move is one append (joins and the start add theirs)
    assert not [key for key in samples if key[0] == "seahaven_store_errors_total"]

    for client in (ann, bob, eve):
        await client.close()

    async def all_closed() -> bool:  # the node notices the closes in its own time
        return (await asyncio.to_thread(scrape, node))[("seahaven_connections", ())] == 0

    await wait_until(all_closed, what="the node's connections gauge back at 0")
