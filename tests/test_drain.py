"""Draining a node on real processes: two nodes behind HAProxy on one Redis; node 1 is drained
(SIGUSR1, or the admin API) while a race runs on it. It takes nobody new (``/healthz`` 503, new
connections 4003), moves everyone not racing at once, lets the race finish (or, past the limit,
moves its racers to node 2, where the race goes on), then exits by itself."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator

import pytest

from protocol.errors import CloseCode
from protocol.messages import CreateRoom, Hello, JoinRoom, Ok, Ready, RoomState, Started
from seahaven import Board
from seahaven.solver import solve
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests import httpclient
from tests.haproxy_proc import HAProxyProcess
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess, free_port
from tests.roaming import Roamer, closed_with
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

MOVES = [str(move) for move in solve(Board.deal("seahaven", 1)).moves]
TOKEN = "drain-test-token-0123456789"


class Pair:
    """Node 1 (the one drained, with the admin API) and node 2, behind HAProxy."""

    def __init__(self, redis_url: str, *drain: str) -> None:
        self.admin_port = free_port()
        common = ("--redis", redis_url, "--spectator-delay", "0", "--grace", "60")
        self.one = ServerProcess(*common, "--admin-port", str(self.admin_port), "--admin-token", TOKEN, *drain)
        self.two = ServerProcess(*common)
        self.lb = HAProxyProcess([f"127.0.0.1:{self.one.port}", f"127.0.0.1:{self.two.port}"])

    def close(self) -> None:
        self.lb.close()
        self.one.close()
        self.two.close()


@pytest.fixture
def pair(redis_proc: RedisProcess) -> Iterator[Pair]:
    pair = Pair(redis_proc.url)
    try:
        yield pair
    finally:
        pair.close()


@pytest.fixture
def pair_with_limit(redis_proc: RedisProcess) -> Iterator[Pair]:
    pair = Pair(redis_proc.url, "--drain-limit", "1")
    try:
        yield pair
    finally:
        pair.close()


async def race_on(node: ServerProcess, lb: HAProxyProcess) -> tuple[Roamer, Roamer, str]:
    """Ann and Bob racing on ``node`` (connected to it directly; they come back through ``lb``)."""
    ann, bob = Roamer(lb.url, "Ann", MOVES), Roamer(lb.url, "Bob", MOVES)
    await ann.open(node.url)
    await bob.open(node.url)
    created = await ann.ws.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    ann.room = bob.room = created.room
    assert isinstance(await bob.ws.call(JoinRoom(room=created.room)), RoomState)
    for racer in (ann, bob):
        assert isinstance(await racer.ws.call(Ready()), Ok)
    for racer in (ann, bob):
        await racer.ws.expect(Started)
    await ann.play(3)
    await bob.play(3)
    return ann, bob, created.room


async def exited(node: ServerProcess) -> int:
    await wait_until(lambda: node.proc.poll() is not None, 30, what="the drained node to exit")
    code = node.proc.poll()
    assert code is not None
    return code


async def test_a_drained_node_lets_its_race_finish_takes_nobody_new_then_exits(pair: Pair) -> None:
    ann, bob, code = await race_on(pair.one, pair.lb)
    cy = await WsClient.open(pair.one.url, "Cy")  # in the lobby: nothing keeps him here
    assert (await httpclient.get(pair.one.port, "/healthz")).status == 200

    pair.one.proc.send_signal(signal.SIGUSR1)
    assert await closed_with(cy) == CloseCode.TRY_ANOTHER_NODE
    health = await httpclient.get(pair.one.port, "/healthz")
    assert (health.status, health.body) == (503, b"draining\n")
    newcomer = await WsClient.open(pair.one.url)
    assert await closed_with(newcomer) == CloseCode.TRY_ANOTHER_NODE

    # The race runs on to its end on node 1, nobody moved.
    await bob.play(3)
    await ann.play(len(MOVES))
    result = await ann.result()
    assert result.standings[0].player == ann.ws.player
    assert ann.closes == [] and bob.closes == []

    # Then they are moved: back through the balancer on node 2, in their finished room.
    for racer in (ann, bob):
        assert await closed_with(racer.ws) == CloseCode.TRY_ANOTHER_NODE
        state = await racer.come_back()
        assert state.room == code and state.phase == "finished"
        assert racer.node == "node-2"
    assert await exited(pair.one) == 0
    for racer in (ann, bob):
        await racer.close()


async def test_past_the_drain_limit_racers_move_to_another_node_and_race_on(pair_with_limit: Pair) -> None:
    pair = pair_with_limit
    ann, bob, _ = await race_on(pair.one, pair.lb)
    drain = await httpclient.request(pair.admin_port, "POST", "/drain", {"Authorization": f"Bearer {TOKEN}"})
    assert drain.status == 202 and drain.json()["began"] is True

    # A second later: moved mid-race (4003), they race on at node 2 from where they were.
    ann.closes.append(await closed_with(ann.ws))
    await ann.come_back()
    await bob.play(3)
    await ann.play(len(MOVES))
    assert CloseCode.TRY_ANOTHER_NODE in ann.closes and ann.node == "node-2"
    result = await ann.result()
    assert result.standings[0].player == ann.ws.player
    assert bob.done == 6 and CloseCode.TRY_ANOTHER_NODE in bob.closes and ann.done == len(MOVES)
    assert await exited(pair.one) == 0
    for racer in (ann, bob):
        await racer.close()


async def test_a_connection_that_says_hello_after_the_drain_began_is_sent_on() -> None:
    """In process: a connection accepted before the drain is sent on at its hello (4003), and the
    drain ends once nobody is left."""
    server = RaceServer(Config(port=0), MemoryStore())
    await server.start()
    try:
        early = await WsClient.open(f"ws://127.0.0.1:{server.port}")
        assert server.drain.begin("test") and not server.drain.begin("again")
        await early.send(Hello(name="Late"))
        assert await closed_with(early) == CloseCode.TRY_ANOTHER_NODE
        async with asyncio.timeout(10):
            await server.drain.done.wait()
    finally:
        await server.stop()
