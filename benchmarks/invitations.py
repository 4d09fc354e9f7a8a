"""How fast an invitation and a presence change reach a friend on another node (issue 41).

Starts a private redis-server and two ``python -m server`` nodes on one records file, registers
``--pairs`` pairs of friends, each inviter on node A and each friend on node B, then sends
``--invitations`` invitations in turn (each inviter waiting in a room of theirs; the friend declines;
a player may send 10 a minute, so give at least a tenth as many pairs) and measures, from the
inviter's send, when the friend's ``invited`` arrives. Then each friend creates a room and leaves
it again, and it measures, from the friend's reply, when the inviter hears the friend's
``presence`` (a node looks every 0.5 s, so this one is up to half a second by design). Prints p50, p99 and max of each.

    .venv/bin/python -m benchmarks.invitations [--pairs 25] [--invitations 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol.messages import (
    AddFriend,
    AnswerInvite,
    CreateRoom,
    Friends,
    Invitation,
    Invite,
    InviteClosed,
    Invited,
    Leave,
    Presence,
    RoomState,
)
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, registered


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered):7.2f} ms  p99 {p99:7.2f} ms  max {ordered[-1]:7.2f} ms  (n={len(ordered)})"


async def pair(a_url: str, b_url: str, n: int) -> tuple[WsClient, WsClient]:
    inviter, friend = await registered(a_url, f"A{n}"), await registered(b_url, f"B{n}")
    assert isinstance(await inviter.call(AddFriend(player=friend.player)), Friends)
    assert isinstance(await friend.call(AddFriend(player=inviter.player)), Friends)
    return inviter, friend


async def invite_once(inviter: WsClient, friend: WsClient) -> float:
    """An invitation to the inviter's waiting room, declined."""
    sent = time.perf_counter()
    made = await inviter.send(Invite(player=friend.player))
    try:
        invited = await friend.expect(Invited, where=lambda i: i.player == inviter.player)
    except TimeoutError:
        raise SystemExit(f"no invitation: the inviter got {await inviter.reply(made)}") from None
    took = (time.perf_counter() - sent) * 1000
    assert isinstance(await inviter.reply(made), Invitation)
    await friend.call(AnswerInvite(invite=invited.invite, accept=False))
    await inviter.expect(InviteClosed)
    return took


async def presence_once(inviter: WsClient, friend: WsClient) -> float:
    assert isinstance(await friend.call(CreateRoom(deal_number=1)), RoomState)
    changed = time.perf_counter()
    await inviter.expect(Presence, where=lambda p: p.player == friend.player and p.state == "waiting")
    took = (time.perf_counter() - changed) * 1000
    await friend.call(Leave())
    await inviter.expect(Presence, where=lambda p: p.player == friend.player and p.state == "lobby")
    return took


async def main(pairs: int, invitations: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="seahaven-invitations-"))
    redis = RedisProcess().start()
    records = f"sqlite:///{folder / 'records.db'}"
    nodes = [ServerProcess("--redis", redis.url, "--database", records) for _ in range(2)]
    try:
        a_url, b_url = (f"{node.url}/" for node in nodes)
        couples = [await pair(a_url, b_url, n) for n in range(pairs)]
        await asyncio.sleep(1.0)  # the first presences told
        for inviter, friend in couples:
            await inviter.drain()
            await friend.drain()
        for inviter, _ in couples:  # each inviter waits in a room of their own (10 new rooms a minute)
            assert isinstance(await inviter.call(CreateRoom(deal_number=1)), RoomState)
        invited = [await invite_once(*couples[i % pairs]) for i in range(invitations)]
        for inviter, _ in couples:
            await inviter.call(Leave())
        seen = [await presence_once(*couples[i % pairs]) for i in range(pairs * 2)]
        print(f"two nodes, {pairs} pairs of friends (inviter on node A, friend on node B)")
        print(f"invitation delivery  {quantiles(invited)}")
        print(f"presence delivery    {quantiles(seen)}  (a node looks every 500 ms)")
        for inviter, friend in couples:
            await inviter.close()
            await friend.close()
    finally:
        for node in nodes:
            node.close()
        redis.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=25)
    parser.add_argument("--invitations", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main(args.pairs, args.invitations))
