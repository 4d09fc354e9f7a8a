"""Friends across nodes, on real processes: two nodes on one private redis-server and one records
file, the deployment's HAProxy in front. Ann is on node 1, Bob on node 2, Cid comes through the
balancer: an invitation from the lobby on node 1 reaches Bob on node 2, accepting seats him in
Ann's room, and Bob's presence reaches his friends on either node, including just after they
became friends on another node. How fast is measured, not asserted here: benchmarks/invitations.py."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from protocol.messages import AddFriend, AnswerInvite, Friends, Invite, InviteClosed, Invited, Presence, RoomState
from tests.haproxy_proc import HAProxyProcess, with_nodes
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, registered


class Deployment:
    def __init__(self, redis: RedisProcess, folder: Path) -> None:
        records = f"sqlite:///{folder / 'records.db'}"
        # One after the other: the first start migrates the empty records.
        self.nodes = [ServerProcess("--redis", redis.url, "--database", records) for _ in range(2)]
        self.lb = HAProxyProcess(
            [f"127.0.0.1:{node.port}" for node in self.nodes], config=with_nodes(2, folder / "haproxy.cfg")
        )

    def close(self) -> None:
        self.lb.close()
        for node in self.nodes:
            node.close()


@pytest.fixture
def deployment(redis_proc: RedisProcess, tmp_path: Path) -> Iterator[Deployment]:
    running = Deployment(redis_proc, tmp_path)
    try:
        yield running
    finally:
        running.close()


async def befriend(a: WsClient, b: WsClient) -> None:
    assert isinstance(await a.call(AddFriend(player=b.player)), Friends)
    await b.expect(Friends, where=lambda f: a.player in [r.player for r in f.incoming])
    assert isinstance(await b.call(AddFriend(player=a.player)), Friends)
    await a.expect(Friends, where=lambda f: b.player in [x.player for x in f.friends])


async def test_an_invitation_and_presence_cross_nodes_within_a_second(deployment: Deployment) -> None:
    one, two = (f"{node.url}/" for node in deployment.nodes)
    ann, bob = await registered(one, "Ann"), await registered(two, "Bob")
    cid = await registered(f"{deployment.lb.url}/", "Cid")
    assert isinstance(await ann.call(AddFriend(player=bob.player)), Friends)  # asked on node 1
    await bob.expect(Friends, where=lambda f: ann.player in [r.player for r in f.incoming])
    await asyncio.sleep(1.0)  # node 1 has looked since, and keeps Ann's friends (none) for 10 s
    assert isinstance(await bob.call(AddFriend(player=ann.player)), Friends)  # accepted on node 2
    # Node 1 learns of the friendship from the doorbell that brought Ann the news: her presence
    # reaches Bob at the next look, not after node 1's friends cache runs out (a minute).
    await bob.expect(Presence, where=lambda p: p.player == ann.player and p.state == "lobby")
    await befriend(cid, bob)

    # Bob's presence, from node 2, reaches Ann (node 1) and Cid (wherever the balancer put him).
    for friend in (ann, cid):
        await friend.expect(Presence, where=lambda p: p.player == bob.player and p.state == "lobby")

    made = await ann.call(Invite(player=bob.player))  # from the lobby: node 1 makes the room
    assert isinstance(made, RoomState)
    invited = await bob.expect(Invited)  # on node 2 (how fast: benchmarks/invitations.py)
    assert invited.room == made.room and invited.player == ann.player
    seated = await bob.call(AnswerInvite(invite=invited.invite, accept=True))
    assert isinstance(seated, RoomState) and seated.room == made.room
    assert sorted(r.player for r in seated.racers) == sorted([ann.player, bob.player])
    closed = await ann.expect(InviteClosed)
    assert closed.answer == "accepted"

    for friend in (ann, cid):
        moved = await friend.expect(Presence, where=lambda p: p.player == bob.player and p.state == "waiting")
        assert moved.room == made.room
    for client in (ann, bob, cid):
        await client.close()
