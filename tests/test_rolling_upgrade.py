"""A rolling upgrade with a race under way: two nodes of this build behind HAProxy (the deployment's
own config) on one real Redis are replaced one at a time by the next release (this build with its
format version raised, tests/test_format_version.py), and the race goes on across both
replacements to its end, with nothing lost.

What the test shows of this build's side: when the next release writes to the room, the node of
this build lets the room go, moves its racers there (4003, try another node) and takes no new
connections (``/healthz`` 503 ``outdated``), so the balancer sends everyone to the newer node.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator

import msgpack
import pytest
import redis.asyncio as aioredis

from protocol.errors import CloseCode
from protocol.messages import CreateRoom, JoinRoom, Ok, Ready, RoomState, Started
from seahaven import Board
from seahaven.solver import solve
from server.rooms import events
from server.rooms.events import SPAN, Ended, Moved, unpack
from tests import httpclient
from tests.haproxy_proc import HAProxyProcess
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess
from tests.roaming import Roamer
from tests.server_proc import NEXT_RELEASE, ServerProcess

MOVES = [str(move) for move in solve(Board.deal("seahaven", 1)).moves]
NODE = ("--spectator-delay", "0", "--grace", "60")


class Fleet:
    """Two nodes behind HAProxy; each can be replaced by the next release on its own port."""

    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url
        self.nodes: list[ServerProcess] = []
        self.nodes.append(ServerProcess("--redis", redis_url, *NODE))
        self.nodes.append(ServerProcess("--redis", redis_url, *NODE))
        self.lb = HAProxyProcess([f"127.0.0.1:{n.port}" for n in self.nodes])

    def upgrade(self, index: int) -> None:
        """Stop node ``index`` gracefully (1012) and start the next release on its port."""
        old = self.nodes[index]
        assert old.terminate() == 0
        old.close()
        self.nodes[index] = ServerProcess("--redis", self.redis_url, *NODE, port=old.port, launch=NEXT_RELEASE)

    async def balancer_sends_to(self, name: str) -> None:
        """Until HAProxy sends a new request to node ``name`` (its checks found it up)."""

        async def answered_by() -> bool:
            with contextlib.suppress(OSError):
                answer = await httpclient.get(self.lb.port, "/healthz")
                return answer.headers.get("x-seahaven-node") == name
            return False

        await wait_until(answered_by, 20, what=f"HAProxy sending to {name}", interval=0.2)

    def outdated(self, index: int) -> Callable[[], Awaitable[bool]]:
        """Whether node ``index`` says it is outdated (503 ``outdated``: a newer build's node is alive)."""

        async def says() -> bool:
            health = await httpclient.get(self.nodes[index].port, "/healthz")
            return health.status == 503 and health.body.startswith(b"outdated")

        return says

    def close(self) -> None:
        self.lb.close()
        for node in self.nodes:
            node.close()


@pytest.fixture
def fleet(redis_proc: RedisProcess) -> Iterator[Fleet]:
    fleet = Fleet(redis_proc.url)
    try:
        yield fleet
    finally:
        fleet.close()


def read_log(entries: list[bytes], monkeypatch: pytest.MonkeyPatch) -> list[events.Event]:
    """The log as the next release reads it (it reads both versions)."""
    with monkeypatch.context() as patch:
        patch.setattr(events, "FORMAT", events.FORMAT + 1)
        return [unpack(entry) for entry in entries]


def version(entry: bytes) -> int:
    head = msgpack.unpackb(entry, raw=False)[0]
    assert isinstance(head, int)
    return head // SPAN


async def test_a_race_spans_a_rolling_upgrade_of_both_nodes_and_loses_nothing(
    fleet: Fleet, redis: aioredis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann, bob = Roamer(fleet.lb.url, "Ann", MOVES), Roamer(fleet.lb.url, "Bob", MOVES)
    await ann.open()
    await bob.open()
    created = await ann.ws.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    ann.room = bob.room = code = created.room
    assert isinstance(await bob.ws.call(JoinRoom(room=code)), RoomState)
    for racer in (ann, bob):
        assert isinstance(await racer.ws.call(Ready()), Ok)
    for racer in (ann, bob):
        await racer.ws.expect(Started)
    await ann.play(5)
    await bob.play(5)

    # Node 2 is replaced by the next release: its racers (if any) come back on node 1 meanwhile.
    fleet.upgrade(1)
    await ann.play(5)
    await bob.play(5)
    await fleet.balancer_sends_to("node-2")

    # Bob's connection drops; back through the balancer he reaches the newer node (it holds the
    # fewest connections), which writes the room's first entries of the newer format.
    await bob.drop()
    assert bob.node == "node-2"
    await bob.play(5)

    # Node 1 (this build) met the newer entries: it moved Ann (4003) and takes nobody new, and
    # Ann, coming back through the balancer, races on at the newer node.
    await ann.play(5)
    await wait_until(lambda: CloseCode.TRY_ANOTHER_NODE in ann.closes, what="Ann moved off node 1")
    await wait_until(fleet.outdated(0), what="node 1 outdated")
    assert ann.node == "node-2"

    # Node 1 is replaced too; the race runs to its end on the next release.
    fleet.upgrade(0)
    await bob.play(5)
    await ann.play(len(MOVES))
    result = await ann.result()
    assert result.standings[0].player == ann.ws.player

    # Nothing lost: every move either racer was told was stored is in the log, in order, once.
    stored = [bytes(e) for e in await redis.lrange(f"seahaven:{{room:{code}}}:log", 0, -1)]  # type: ignore[arg-type]
    log = read_log(stored, monkeypatch)
    for racer in (ann, bob):
        played = [e.move for e in log if isinstance(e, Moved) and e.player == racer.ws.player]
        assert played == MOVES[: racer.done] and racer.done >= racer.acked
    assert ann.done == len(MOVES) and any(isinstance(e, Ended) for e in log)
    # This build wrote nothing after the next release's first entry.
    first_newer = next(i for i, e in enumerate(stored) if version(e) > events.FORMAT)
    assert all(version(e) == events.FORMAT + 1 for e in stored[first_newer:])
    for racer in (ann, bob):
        await racer.close()
