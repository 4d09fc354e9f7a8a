"""The deployment: compose.yaml and deploy/haproxy.cfg are valid, and the same topology (one Redis, two
server nodes, HAProxy in front, plain and with TLS) runs here as real processes.

What holds with two nodes: each node serves hello and /healthz through the balancer, sessions and
the lobby live in the shared Redis (a racer's token works on either node, a public room created on one
node is listed on the other), racers on different nodes race in one room to the same standings, and
when a node is killed its racers reconnect through the balancer to the other node and finish their
race there; over TLS (HAProxy's certificate made by compose's own init step), racers race through
``wss://`` and the terminal client's connection trusts the certificate it is given, and only it.
(More multi-node cases, directly on the nodes: tests/test_multinode.py.)
"""

from __future__ import annotations

import asyncio
import shutil
import signal
import ssl
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from client.net.connection import ConnectError, RaceConnection, tls_context
from protocol.messages import (
    CreateRoom,
    Hello,
    ListRooms,
    Moved,
    MoveRequest,
    Progress,
    Result,
    Rooms,
    RoomState,
    Welcome,
)
from seahaven import Board, Move
from seahaven.solver import solve
from tests.haproxy_proc import CONFIG, HAProxyProcess, check_config, make_certificate
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "compose.yaml"
NODE_HEADER = "X-Seahaven-Node"


def compose_config(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """Debian's ``docker-compose config``: validates against the Compose schema, needs no Docker engine."""
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.fail("docker-compose is not on the PATH: apt-get install docker-compose (.ci/run does)", pytrace=False)
    return subprocess.run(
        [binary, "-f", str(path), "config", *options], capture_output=True, text=True, timeout=60, cwd=path.parent
    )


def test_compose_file_is_valid_and_has_the_topology() -> None:
    checked = compose_config(COMPOSE)
    assert checked.returncode == 0, checked.stderr
    services = compose_config(COMPOSE, "--services")
    assert set(services.stdout.split()) == {
        *("redis", "postgres", "server-1", "server-2", "certs", "balancer"),
        *("prometheus", "grafana"),  # under the monitoring profile
    }
    resolved = checked.stdout
    # Redis keeps an append-only file with a stated fsync policy, on a volume.
    assert '- --appendonly\n    - "yes"\n    - --appendfsync\n    - everysec\n' in resolved
    assert "redis-data:/data" in resolved
    # Both nodes use the shared Redis; the balancer publishes 8765 with the repository's config.
    assert resolved.count("SEAHAVEN_REDIS_URL: redis://redis:6379/0") == 2
    # ...and the records in PostgreSQL, on a volume.
    assert resolved.count("SEAHAVEN_DATABASE_URL: postgresql://seahaven:seahaven@postgres:5432/seahaven") == 2
    assert "postgres-data:/var/lib/postgresql/data" in resolved
    assert "published: 8765" in resolved and "target: 8765" in resolved
    assert f"{CONFIG}:/usr/local/etc/haproxy/haproxy.cfg:ro" in resolved
    # TLS: 8443 published, the certificate from the certs step's volume, which runs first.
    assert "published: 8443" in resolved and "certs:/usr/local/etc/haproxy/certs:ro" in resolved
    assert "condition: service_completed_successfully" in resolved
    # Prometheus and Grafana only with --profile monitoring, on the repository's files.
    assert resolved.count("- monitoring") == 2
    assert f"{CONFIG.parent / 'alerts.yml'}:/etc/prometheus/alerts.yml:ro" in resolved
    assert f"{CONFIG.parent / 'grafana' / 'seahaven-dashboard.json'}:" in resolved


def test_the_compose_validator_rejects_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "compose.yaml"
    broken.write_text(COMPOSE.read_text().replace("    image: redis:7\n", "    image: redis:7\n    replicaz: 2\n"))
    checked = compose_config(broken)
    assert checked.returncode != 0 and "replicaz" in checked.stderr


def test_haproxy_config_is_valid_and_the_check_can_fail(tmp_path: Path) -> None:
    pem, _ = make_certificate(tmp_path / "certs")
    checked = check_config(cert=pem)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Configuration file is valid" in checked.stdout + checked.stderr
    broken = tmp_path / "haproxy.cfg"
    broken.write_text(CONFIG.read_text().replace("balance leastconn", "balance fewest"))
    assert check_config(broken, cert=pem).returncode != 0
    # The TLS frontend is checked too: without its certificate the config does not load.
    missing = check_config()
    assert missing.returncode != 0 and "certs/seahaven.pem" in missing.stdout + missing.stderr


def test_the_certificate_step_makes_one_certificate_and_keeps_it(tmp_path: Path) -> None:
    pem, ca = make_certificate(tmp_path)
    first = pem.read_bytes()
    assert b"BEGIN CERTIFICATE" in first and b"PRIVATE KEY" in first and pem.stat().st_mode & 0o077 == 0
    ssl.create_default_context(cafile=str(ca))  # the client's half is a certificate alone
    assert b"PRIVATE KEY" not in ca.read_bytes()
    make_certificate(tmp_path)  # a second start keeps it (a real one put there stays too)
    assert pem.read_bytes() == first


# --------------------------------------------------------------------------------------------------
# The topology as real processes


class Topology:
    def __init__(self, redis: RedisProcess) -> None:
        self.redis = redis
        self.nodes: list[ServerProcess] = []
        self.balancer: HAProxyProcess | None = None

    def start(self) -> Topology:
        self.nodes = [ServerProcess("--redis", self.redis.url) for _ in range(2)]
        self.balancer = HAProxyProcess([f"127.0.0.1:{node.port}" for node in self.nodes])
        return self

    @property
    def lb(self) -> HAProxyProcess:
        assert self.balancer is not None
        return self.balancer

    def close(self) -> None:
        if self.balancer is not None:
            self.balancer.close()
        for node in self.nodes:
            node.close()


@pytest.fixture
def topology(redis_proc: RedisProcess) -> Iterator[Topology]:
    running = Topology(redis_proc)
    try:
        yield running.start()
    finally:
        running.close()


def get(url: str) -> tuple[int, str, bytes]:
    """GET ``url``: status, the balancer's node header ('' when absent), body (also for an error status)."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.headers.get(NODE_HEADER, ""), bytes(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get(NODE_HEADER, ""), error.read()


async def healthz_through_the_balancer_reaches(topology: Topology, nodes: set[str], within: float = 30.0) -> None:
    """Ask /healthz through HAProxy until every node in ``nodes`` has answered (it balances them).

    HAProxy sends nothing to a node before two health checks passed (``rise 2``, every 2 s), and
    answers 503 while no node is up.
    """
    seen: set[str] = set()

    async def all_answered() -> bool:
        status, node, body = await asyncio.to_thread(get, topology.lb.http + "/healthz")
        if not (status == 503 and not node):  # 503 with no node: none is up yet
            assert status == 200 and body.startswith(b"ok\nstore: ok\n"), (status, node, body)
            seen.add(node)
        return seen >= nodes

    await wait_until(
        all_answered,
        within,
        what=lambda: f"only {seen} answered through the balancer\n{topology.lb.log_text()}",
        interval=0.1,
    )


async def open_on(topology: Topology, node: str, name: str, token: str | None = None) -> list[WsClient]:
    """Connect through the balancer until a connection lands on ``node``; the last one is there.

    With ``balance leastconn`` each new connection goes to the node with fewer open ones, so at most
    a couple of extra connections are needed; they are returned too (earlier in the list), still open.
    """
    opened: list[WsClient] = []
    for _ in range(6):
        client = await WsClient.open(topology.lb.url)
        opened.append(client)
        if client.ws.response is not None and client.ws.response.headers.get(NODE_HEADER) == node:
            welcome = await client.call(Hello(name=name, token=token))
            assert isinstance(welcome, Welcome), welcome
            client.welcome = welcome
            return opened
    raise AssertionError(f"no connection landed on {node}")


async def ann_wins(ann: WsClient, bob: WsClient, moves: Sequence[Move]) -> None:
    """Ann plays ``moves``, a win: both racers hear the same standings, Ann's first; both closed."""
    for move in moves:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
    results = [await client.expect(Result) for client in (ann, bob)]
    assert results[0].standings == results[1].standings
    assert [s.player for s in results[0].standings] == [ann.player, bob.player]
    for client in (ann, bob):
        await client.close()


async def test_two_nodes_behind_haproxy(topology: Topology) -> None:
    # /healthz on each node directly, then through the balancer, which reaches both.
    for node in topology.nodes:
        status, _, body = await asyncio.to_thread(get, node.http + "/healthz")
        assert status == 200 and body.startswith(b"ok\nstore: ok\n"), body
    await healthz_through_the_balancer_reaches(topology, {"node-1", "node-2"})

    # WebSockets through the balancer: leastconn spreads two open connections over both nodes,
    # and each node answers hello.
    first = await WsClient.open(topology.lb.url, "Ann")
    second = await WsClient.open(topology.lb.url, "Bob")
    landed = {client.ws.response.headers[NODE_HEADER] for client in (first, second) if client.ws.response}
    assert landed == {"node-1", "node-2"}
    assert first.player != second.player

    # A room created on one node is listed on the other: the lobby lives in the shared Redis.
    created = await first.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    listed = await second.call(ListRooms())
    assert isinstance(listed, Rooms) and [room.room for room in listed.rooms] == [created.room]

    # A racer drops and reconnects through the balancer with its token, landing on the other node:
    # same player, same name (the session is in Redis).
    assert second.ws.response is not None
    home = second.ws.response.headers[NODE_HEADER]
    other = ({"node-1", "node-2"} - {home}).pop()
    token, player = second.token, second.player
    await second.close()
    opened = await open_on(topology, other, "Bob", token)
    back = opened[-1]
    assert back.player == player and back.welcome is not None and back.welcome.name == "Bob"
    for client in (first, *opened):
        await client.close()


async def test_racers_of_a_killed_node_finish_their_race_on_the_other_node(topology: Topology) -> None:
    """Both racers of a room on node-1; node-1 is killed mid-race; they reconnect through the balancer
    with their tokens, land on node-2, which loads the room from Redis, and the race goes on to its
    result. (Holds today because the dead node no longer serves the room: no two nodes hold it.)"""
    await healthz_through_the_balancer_reaches(topology, {"node-1", "node-2"})
    opened = await open_on(topology, "node-1", "Ann")
    ann = opened.pop()
    extra = await open_on(topology, "node-1", "Bob")
    bob = extra.pop()
    for client in (*opened, *extra):
        await client.close()
    await race_of_two(ann, bob, CreateRoom(deal_number=1))
    moves = solve(Board.deal("seahaven", 1)).moves
    half = len(moves) // 2
    for move in moves[:half]:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)

    topology.nodes[0].kill()
    # Through the balancer, with their tokens: every connection now lands on node-2.
    ann2 = await WsClient.open(topology.lb.url, "Ann", token=ann.token)
    bob2 = await WsClient.open(topology.lb.url, "Bob", token=bob.token)
    for client in (ann2, bob2):
        assert client.ws.response is not None and client.ws.response.headers[NODE_HEADER] == "node-2"
    resumed = await ann2.expect(RoomState)
    assert resumed.phase == "racing" and len(resumed.history) == half
    await bob2.expect(RoomState)
    for move in moves[half:]:
        assert isinstance(await ann2.call(MoveRequest(move=str(move))), Moved)
    result = await bob2.expect(Result)
    assert [s.player for s in result.standings] == [ann.player, bob.player]
    assert result.standings[0].progress == 52
    for client in (ann2, bob2):
        await client.close()


async def test_racers_on_both_nodes_behind_haproxy_race_in_one_room(topology: Topology) -> None:
    """Ann lands on node-1, Bob on node-2; Bob joins Ann's room; each hears the other's progress and
    both get the same standings."""
    await healthz_through_the_balancer_reaches(topology, {"node-1", "node-2"})
    opened = await open_on(topology, "node-1", "Ann")
    ann = opened.pop()
    extra = await open_on(topology, "node-2", "Bob")
    bob = extra.pop()
    for client in (*opened, *extra):
        await client.close()
    await race_of_two(ann, bob, CreateRoom(deal_number=1))
    moves = solve(Board.deal("seahaven", 1)).moves
    for move in moves[:3]:
        assert isinstance(await bob.call(MoveRequest(move=str(move))), Moved)
    heard = await ann.expect(Progress, where=lambda p: p.player == bob.player and p.moves == 3)
    assert heard.moves == 3
    await ann_wins(ann, bob, moves)


async def test_a_stalled_nodes_websockets_are_cut_and_reconnect_to_the_other_node(topology: Topology) -> None:
    """node-1 stops answering (SIGSTOP: its socket still accepts, nothing replies). HAProxy's health
    checks time out, it marks node-1 down and cuts its WebSockets; the client reconnects through the
    balancer with its token and lands on node-2 as the same player."""
    await healthz_through_the_balancer_reaches(topology, {"node-1", "node-2"})
    opened = await open_on(topology, "node-1", "Ann")
    ann = opened.pop()
    for client in opened:
        await client.close()
    topology.nodes[0].proc.send_signal(signal.SIGSTOP)  # the fixture's SIGKILL ends it

    async with asyncio.timeout(30):  # two failed checks, 2 s apart, each waiting up to 2 s
        await ann.ws.wait_closed()
    back = await WsClient.open(topology.lb.url, "Ann", token=ann.token)
    assert back.ws.response is not None and back.ws.response.headers[NODE_HEADER] == "node-2"
    assert back.player == ann.player
    await back.close()


async def test_a_race_over_wss_through_haproxy(topology: Topology) -> None:
    """TLS ends at HAProxy: two racers open ``wss://`` connections trusting the certificate compose's
    step made, land on both nodes, and race one room to the same standings; /healthz answers over
    https too."""
    await healthz_through_the_balancer_reaches(topology, {"node-1", "node-2"})
    trust = ssl.create_default_context(cafile=str(topology.lb.ca))
    ann = await WsClient.open(topology.lb.wss, "Ann", tls=trust)
    bob = await WsClient.open(topology.lb.wss, "Bob", tls=trust)
    landed = {client.ws.response.headers[NODE_HEADER] for client in (ann, bob) if client.ws.response}
    assert landed == {"node-1", "node-2"}
    await race_of_two(ann, bob, CreateRoom(deal_number=1))
    await ann_wins(ann, bob, solve(Board.deal("seahaven", 1)).moves)

    def https_healthz() -> bytes:
        with urllib.request.urlopen(topology.lb.https + "/healthz", timeout=5, context=trust) as response:
            return bytes(response.read())

    assert (await asyncio.to_thread(https_healthz)).startswith(b"ok\nstore: ok\n")


async def test_the_terminal_clients_connection_speaks_wss_with_a_ca_file(topology: Topology) -> None:
    """``seahaven-client --server wss://... --ca FILE``: the connection trusts that certificate; without
    it the self-signed server is refused, saying why."""
    await healthz_through_the_balancer_reaches(topology, {"node-1", "node-2"})
    trusting = RaceConnection(topology.lb.wss, "Ann", lambda message: None, tls=tls_context(str(topology.lb.ca)))
    welcome = await trusting.connect()
    assert welcome.name == "Ann"
    await trusting.close()
    doubting = RaceConnection(topology.lb.wss, "Bob", lambda message: None)
    with pytest.raises(ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        await doubting.connect()
