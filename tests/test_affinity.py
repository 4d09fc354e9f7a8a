"""A room's racers kept on one node: the clients move their connection to the room's address
(``/r/CODE``) once seated, and the deployment's HAProxy hashes that path onto one node.

On real processes: a private redis-server, three nodes, HAProxy on the deployment's config with a
third node added the way an operator adds one. Two terminal clients (``client.net.connection.RaceConnection``)
connect through the balancer (leastconn spreads them over two nodes), race in one room, and end on
the one node the code hashes to: their moves ring no doorbell. When that node is killed both
reconnect through the balancer to the same survivor, and the race goes on there. The browser client
moves to ``/r/CODE`` too (Chromium through Playwright).
"""

from __future__ import annotations

import asyncio
import functools
import urllib.request
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page
from prometheus_client.parser import text_string_to_metric_families

from client.net.connection import RaceConnection, room_url
from protocol.messages import (
    CreateRoom,
    JoinRoom,
    Members,
    Moved,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    Progress,
    Ready,
    RoomState,
    Started,
)
from protocol.schema import Message
from seahaven import Board
from seahaven.solver import solve
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests.browser_pages import WAIT_MS, chromium, js, key_move, new_page, no_errors
from tests.haproxy_proc import HAProxyProcess, with_nodes
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

NODES = 3


class Cluster:
    """Three nodes on one Redis behind the deployment's HAProxy (a third node added)."""

    def __init__(self, redis: RedisProcess, config: Path) -> None:
        self.nodes = [ServerProcess("--redis", redis.url, "--spectator-delay", "0") for _ in range(NODES)]
        self.lb = HAProxyProcess([f"127.0.0.1:{node.port}" for node in self.nodes], config=config)

    def close(self) -> None:
        self.lb.close()
        for node in self.nodes:
            node.close()


@pytest.fixture
def cluster(redis_proc: RedisProcess, tmp_path: Path) -> Iterator[Cluster]:
    running = Cluster(redis_proc, with_nodes(NODES, tmp_path / "haproxy.cfg"))
    try:
        yield running
    finally:
        running.close()


def samples(node: ServerProcess) -> dict[tuple[str, str], float]:
    """The node's connections and its room doorbells heard, from its /metrics (a dead node: nothing)."""
    if node.proc.poll() is not None:
        return {}
    with urllib.request.urlopen(f"{node.http}/metrics", timeout=10) as response:
        text = response.read().decode()
    found: dict[tuple[str, str], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "seahaven_connections":
                found[("connections", "")] = sample.value
            elif sample.name == "seahaven_doorbells_received_total":
                found[("doorbells", sample.labels["kind"])] = sample.value
    return found


async def connections(cluster: Cluster) -> list[int]:
    """Open WebSocket connections on each node, in order (0 for a dead one)."""
    scraped = await asyncio.gather(*(asyncio.to_thread(samples, node) for node in cluster.nodes))
    return [int(each.get(("connections", ""), 0)) for each in scraped]


async def room_doorbells(cluster: Cluster) -> list[float]:
    """Room doorbells each node heard, in order (0 for a dead one)."""
    scraped = await asyncio.gather(*(asyncio.to_thread(samples, node) for node in cluster.nodes))
    return [each.get(("doorbells", "room"), 0.0) for each in scraped]


def others(values: list[float], home: int) -> list[float]:
    return [value for i, value in enumerate(values) if i != home]


async def all_up(cluster: Cluster) -> None:
    """Every node has answered /healthz through the balancer (``rise 2``: a few seconds after start),
    so leastconn and the hash both see all three."""
    seen: set[str] = set()

    def ask() -> None:
        try:
            with urllib.request.urlopen(cluster.lb.http + "/healthz", timeout=5) as response:
                seen.add(response.headers.get("X-Seahaven-Node", ""))
        except OSError:
            pass

    async def answered() -> bool:
        await asyncio.to_thread(ask)
        return seen >= {f"node-{n}" for n in range(1, NODES + 1)}

    await wait_until(answered, 30, what=lambda: f"only {seen} answered", interval=0.1)


class Racer:
    """A terminal client's connection through the balancer, its events kept."""

    def __init__(self, url: str, name: str) -> None:
        self.events: list[Message] = []
        self.conn = RaceConnection(url, name, self.events.append, give_up_after=30)

    def heard(self, player: str | None, moves: int) -> bool:
        return any(isinstance(e, Progress) and e.player == player and e.moves == moves for e in self.events)


def together(counts: list[int]) -> bool:
    return sorted(counts)[-2:] == [0, 2] and sum(counts) == 2


async def test_racers_who_joined_through_the_balancer_race_on_one_node_and_move_together(cluster: Cluster) -> None:
    await all_up(cluster)
    ann, bob = Racer(cluster.lb.url, "Ann"), Racer(cluster.lb.url, "Bob")
    await ann.conn.connect()
    await bob.conn.connect()
    # In the lobby (path /), leastconn spreads them: two nodes with one connection each.
    assert sorted(await connections(cluster)) == [0, 1, 1]

    created = await ann.conn.request(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    assert isinstance(await bob.conn.request(JoinRoom(room=created.room)), RoomState)
    for racer in (ann, bob):
        assert racer.conn.address == room_url(cluster.lb.url, created.room)
    # Seated, both move to /r/CODE, which HAProxy hashes to one node: both connections end there.
    counts: list[int] = []

    async def on_one_node() -> bool:
        counts[:] = await connections(cluster)
        return together(counts)

    await wait_until(on_one_node, 15, what=lambda: f"connections per node {counts}")
    home = counts.index(2)

    for racer in (ann, bob):
        assert isinstance(await racer.conn.request(Ready()), Ok)
    await wait_until(lambda: all(any(isinstance(e, Started) for e in r.events) for r in (ann, bob)), 10)
    moves = solve(Board.deal("seahaven", 1)).moves
    half = len(moves) // 2
    # The nodes they joined through let go of the room at their first doorbell after the move.
    assert isinstance(await ann.conn.request(MoveRequest(move=str(moves[0]))), Moved)
    await wait_until(lambda: bob.heard(ann.conn.player, 1), 10)
    bells = await room_doorbells(cluster)
    for i, move in enumerate(moves[1:half], 2):
        assert isinstance(await ann.conn.request(MoveRequest(move=str(move))), Moved)
        await wait_until(functools.partial(bob.heard, ann.conn.player, i), 10)
    # One node holds the room: no other node hears its moves (the room's node still hears its own
    # rings, published while the others stay in the room's holders: docs/scaling.md).
    after = await room_doorbells(cluster)
    assert others(after, home) == others(bells, home), (bells, after)

    # The room's node dies: both reconnect through the balancer to /r/CODE, and land together.
    cluster.nodes[home].kill()

    async def back_together() -> bool:  # the node counts a connection before its welcome is read
        return await on_one_node() and ann.conn.connected and bob.conn.connected

    await wait_until(back_together, 30, what=lambda: f"connections per node {counts}")
    assert counts[home] == 0
    survivor = counts.index(2)
    bells = await room_doorbells(cluster)
    bob.events.clear()
    for i, move in enumerate(moves[half:], half + 1):
        assert isinstance(await ann.conn.request(MoveRequest(move=str(move))), Moved)
        if i < len(moves):
            await wait_until(functools.partial(bob.heard, ann.conn.player, i), 10)
    after = await room_doorbells(cluster)
    assert others(after, survivor) == others(bells, survivor), (bells, after)
    assert (await connections(cluster))[survivor] == 2
    for racer in (ann, bob):
        await racer.conn.close()


async def test_the_room_address_is_only_a_routing_hint(cluster: Cluster) -> None:
    """The server takes a hello on any /r/CODE, a room that does not exist or another than the
    session's: the path changes nothing but where the balancer sends the connection."""
    await all_up(cluster)
    ann = await WsClient.open(cluster.lb.url, "Ann")
    created = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    stranger = await WsClient.open(room_url(cluster.lb.url, "NOSUCH"), "Cid")
    assert stranger.player != ann.player
    wrong = await WsClient.open(room_url(cluster.lb.url, "NOSUCH"), "Ann", token=ann.token)
    assert wrong.player == ann.player
    back = await wrong.expect(RoomState)
    assert back.room == created.room  # the session's room, not the path's
    for client in (ann, stranger, wrong):
        await client.close()


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


async def page_on(browser: Browser, url: str, name: str) -> tuple[Page, list[str]]:
    """A page at ``url`` past its name form, and the addresses of the WebSockets it opens."""
    page = await new_page(browser)
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    await page.goto(url)
    await page.fill("#name", name)
    await page.click("text=Continue")
    await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)
    return page, sockets


async def test_two_browser_pages_move_to_the_rooms_address_and_race_on_one_node(
    cluster: Cluster, browser: Browser
) -> None:
    await all_up(cluster)
    ann, ann_sockets = await page_on(browser, cluster.lb.http, "Ann")
    await ann.fill("input[name=deal]", "1")
    await ann.click("text=Create room")
    await ann.wait_for_selector("#room-code", timeout=WAIT_MS)
    code = await ann.inner_text("#room-code")
    bob, bob_sockets = await page_on(browser, f"{cluster.lb.http}/r/{code}", "Bob")
    await bob.wait_for_selector("#ready", timeout=WAIT_MS)
    room = room_url(cluster.lb.url, code)
    # Each page opened the lobby's socket on / first, then one on the room's address.
    for sockets in (ann_sockets, bob_sockets):
        assert sockets[0] == cluster.lb.url + "/" and room in sockets, sockets
    counts: list[int] = []

    async def on_one_node() -> bool:
        counts[:] = await connections(cluster)
        return together(counts)

    await wait_until(on_one_node, 15, what=lambda: f"connections per node {counts}")
    await ann.keyboard.press("r")
    await bob.click("#ready")
    for page in (ann, bob):
        await page.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    # The move travels on the room's connection: Bob's page hears it.
    await key_move(ann, solve(Board.deal("seahaven", 1)).moves[0])
    await bob.wait_for_function(
        "() => window.seahaven.room.racers.some(r => r.name === 'Ann' && r.moves === 1)", timeout=WAIT_MS
    )
    assert await js(ann, "window.seahaven.conn.online") is True
    assert together(await connections(cluster))
    for page in (ann, bob):
        no_errors(page)


@pytest.fixture
async def one_server() -> AsyncIterator[RaceServer]:
    race = RaceServer(Config(port=0, countdown_ms=50, grace_ms=5000), MemoryStore())
    await race.start()
    yield race
    await race.stop()


async def test_the_terminal_client_moves_to_the_rooms_address_without_a_drop_or_a_lost_request(
    one_server: RaceServer,
) -> None:
    """Seated, the connection moves to /r/CODE: requests sent meanwhile are answered (sent again on
    the new connection with their seq), nobody is counted disconnected, no status says so."""
    url = f"ws://127.0.0.1:{one_server.port}"
    statuses: list[str] = []
    ann, bob = Racer(url, "Ann"), Racer(url, "Bob")
    ann.conn.on_status = statuses.append
    await ann.conn.connect()
    await bob.conn.connect()
    created = await ann.conn.request(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    pongs = await asyncio.gather(*(ann.conn.request(Ping()) for _ in range(5)))  # while it moves
    assert all(isinstance(pong, Pong) for pong in pongs)
    assert isinstance(await bob.conn.request(JoinRoom(room=created.room)), RoomState)

    def on_the_rooms_address() -> bool:
        sessions = [one_server.players[r.conn.player or ""] for r in (ann, bob)]
        paths = [s.conn.request.path if s.conn is not None and s.conn.request else None for s in sessions]
        return paths == [f"/r/{created.room}"] * 2

    await wait_until(on_the_rooms_address, 10)
    assert isinstance(await ann.conn.request(Ready()), Ok)
    assert isinstance(await bob.conn.request(Ready()), Ok)
    await wait_until(lambda: any(isinstance(e, Started) for e in bob.events), 10)
    assert statuses == ["connecting", "connected"]
    heard = [racer for e in ann.events + bob.events if isinstance(e, Members) for racer in e.racers]
    assert heard and all(racer.connected for racer in heard)
    for racer in (ann, bob):
        await racer.conn.close()
