"""Several nodes, one set of rooms: real server processes on one real redis-server.

Racers on different nodes share a room (by code and by quick match), see each other's progress and
get the same standings; a spectator watches from the other node; a node is killed mid-race and its
racer finishes on the other one. Nothing acknowledged is lost or applied twice: Redis losing its
tail (LTRIM) or everything (FLUSHALL) is written back, and an undo whose store call stalled (SIGSTOP
of redis-server past the store timeout) is applied once however often it is resent.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed

from protocol.errors import CloseCode, ErrorCode
from protocol.messages import (
    CreateRoom,
    Error,
    Moved,
    MoveRequest,
    Progress,
    QuickMatch,
    Result,
    RoomState,
    Undo,
)
from seahaven import Board
from seahaven.solver import solve
from server.rooms.events import Event, Undone, unpack
from server.rooms.events import Moved as MovedEvent
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

MOVES = [str(move) for move in solve(Board.deal("seahaven", 1)).moves]


@pytest.fixture
def nodes(redis_proc: RedisProcess) -> Iterator[list[ServerProcess]]:
    """Two nodes on one Redis; spectators see moves live."""
    started = [ServerProcess("--redis", redis_proc.url, "--spectator-delay", "0") for _ in range(2)]
    try:
        yield started
    finally:
        for node in started:
            node.close()


def log_key(code: str) -> str:
    return f"seahaven:{{room:{code}}}:log"


async def stored(redis: aioredis.Redis, code: str) -> list[Event]:
    """The room's log as Redis holds it."""
    return [unpack(bytes(data)) for data in await redis.lrange(log_key(code), 0, -1)]  # type: ignore[arg-type]


async def race(a: WsClient, b: WsClient, *watchers: WsClient) -> str:
    """``a`` creates a room on its node, ``b`` joins it from its own; both ready; started."""
    return (await race_of_two(a, b, CreateRoom(deal_number=1), watchers)).room


async def play(client: WsClient, moves: list[str]) -> int:
    """Play ``moves``; every one acknowledged; the mover's move count after the last."""
    count = 0
    for move in moves:
        reply = await client.call(MoveRequest(move=move))
        assert isinstance(reply, Moved), reply
        count = reply.moves
    return count


async def test_racers_on_two_nodes_share_a_room_and_a_spectator_watches_from_the_other(
    nodes: list[ServerProcess],
) -> None:
    a, b = nodes
    ann = await WsClient.open(a.url, "Ann")
    bob = await WsClient.open(b.url, "Bob")
    eve = await WsClient.open(a.url, "Eve")  # watches Bob's moves, made on the other node
    await race(ann, bob, eve)

    await play(bob, MOVES[:5])
    seen = await ann.expect(Progress, where=lambda p: p.player == bob.player and p.moves == 5)
    assert seen.moves == 5
    watched = await eve.expect(Progress, where=lambda p: p.player == bob.player and p.moves == 5)
    assert watched.move == MOVES[4]  # spectators see the moves themselves

    await play(ann, MOVES)
    results = [await client.expect(Result) for client in (ann, bob, eve)]
    assert results[0].standings == results[1].standings == results[2].standings
    assert [s.player for s in results[0].standings] == [ann.player, bob.player]
    assert results[0].standings[0].progress == 52
    for client in (ann, bob, eve):
        await client.close()


async def test_quick_match_finds_a_room_of_the_other_node(nodes: list[ServerProcess]) -> None:
    a, b = nodes
    ann = await WsClient.open(a.url, "Ann")
    bob = await WsClient.open(b.url, "Bob")
    first = await ann.call(QuickMatch())
    second = await bob.call(QuickMatch())
    assert isinstance(first, RoomState) and isinstance(second, RoomState)
    assert first.room == second.room
    for client in (ann, bob):
        await client.close()


async def test_a_killed_nodes_racer_finishes_on_the_other_node_with_nothing_lost_or_doubled(
    nodes: list[ServerProcess], redis: aioredis.Redis
) -> None:
    a, b = nodes
    ann = await WsClient.open(a.url, "Ann")
    bob = await WsClient.open(b.url, "Bob")
    code = await race(ann, bob)
    half = len(MOVES) // 2
    acked = await play(ann, MOVES[:half])
    last_seq = ann.seq

    a.kill()
    back = await WsClient.open(b.url, "Ann", token=ann.token)
    assert back.welcome is not None and back.welcome.last_seq == last_seq  # the reply memory is in Redis
    state = await back.expect(RoomState)
    lost = acked - len(state.history)
    assert lost == 0
    # The last move resent with its seq gets its original reply, not a second application.
    again = await back.call(MoveRequest(move=MOVES[half - 1]), seq=last_seq)
    assert isinstance(again, Moved) and again.moves == acked
    await play(back, MOVES[half:])
    result = await bob.expect(Result)
    assert [s.player for s in result.standings] == [ann.player, bob.player]
    winner = result.standings[0]
    assert (winner.progress, winner.moves) == (52, len(MOVES))
    # Every acknowledged move is in the log once, in order: 0 lost, 0 applied twice.
    moved = [e.move for e in await stored(redis, code) if isinstance(e, MovedEvent) and e.player == ann.player]
    lost, doubled = max(0, len(MOVES) - len(moved)), max(0, len(moved) - len(MOVES))
    assert (lost, doubled) == (0, 0) and moved == MOVES
    for client in (back, bob):
        await client.close()


async def test_a_lost_tail_is_written_back(nodes: list[ServerProcess], redis: aioredis.Redis) -> None:
    a, b = nodes
    ann = await WsClient.open(a.url, "Ann")
    bob = await WsClient.open(b.url, "Bob")
    code = await race(ann, bob)
    acked = await play(ann, MOVES[:6])
    stored = await redis.llen(log_key(code))
    await redis.ltrim(log_key(code), 0, -4)  # an everysec power cut: the last 3 events are gone
    await play(ann, MOVES[6:7])
    assert await redis.llen(log_key(code)) == stored + 1
    await bob.settle()
    # The other node serves the whole history.
    again = await WsClient.open(b.url, "Ann", token=ann.token)
    state = await again.expect(RoomState)
    assert len(state.history) == acked + 1
    for client in (ann, bob, again):
        await client.close()


async def test_a_wiped_redis_gets_logs_and_sessions_back(nodes: list[ServerProcess], redis: aioredis.Redis) -> None:
    a, b = nodes
    ann = await WsClient.open(a.url, "Ann")
    bob = await WsClient.open(b.url, "Bob")
    code = await race(ann, bob)
    acked = await play(ann, MOVES[:4])
    await redis.flushall()
    acked = await play(ann, MOVES[4:6])
    await play(bob, MOVES[:1])
    await ann.settle()
    assert await redis.llen(log_key(code)) > 0
    # Both racers' sessions were written back (each by the node holding it): tokens work anywhere.
    for client, node in ((ann, b), (bob, a)):
        assert await redis.exists(f"seahaven:{{session:{client.token}}}")
        again = await WsClient.open(node.url, "X", token=client.token)
        assert again.player == client.player
        state = await again.expect(RoomState)
        mine = [r for r in state.racers if r.player == ann.player]
        assert mine[0].moves == acked
        await again.close()


async def test_a_node_that_only_watches_still_hears_the_room_after_a_wipe(
    nodes: list[ServerProcess], redis: aioredis.Redis
) -> None:
    """The wipe took the room's holders; the node that writes the log back rings, and the node
    that never writes (its only member watches) reads the room again and hears its moves."""
    a, b = nodes
    ann = await WsClient.open(a.url, "Ann")
    bob = await WsClient.open(a.url, "Bob")
    eve = await WsClient.open(b.url, "Eve")
    await race(ann, bob, eve)
    await play(ann, MOVES[:2])
    await eve.expect(Progress, where=lambda p: p.player == ann.player and p.moves == 2)
    await redis.flushall()
    for count, move in enumerate(MOVES[2:5], start=3):
        await play(ann, [move])
        await eve.expect(Progress, where=lambda p, n=count: p.player == ann.player and p.moves == n)  # type: ignore[misc]
    for client in (ann, bob, eve):
        await client.close()


async def test_an_undo_stalled_past_the_store_timeout_is_applied_once(
    nodes: list[ServerProcess], redis_proc: RedisProcess, redis: aioredis.Redis
) -> None:
    a, b = nodes
    ann = await WsClient.open(a.url, "Ann")
    bob = await WsClient.open(b.url, "Bob")
    code = await race(ann, bob)
    acked = await play(ann, MOVES[:3])
    pid = redis_proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        seq = await ann.send(Undo())
        stalled = await ann.reply(seq)  # the store timed out: Redis runs the append when it resumes
        assert isinstance(stalled, Error) and stalled.code == ErrorCode.STORE_UNAVAILABLE
    finally:
        os.kill(pid, signal.SIGCONT)
    # Resent, as the document says, until the store answers again (the node's stall breaker keeps
    # answering store-unavailable at once until its probe ping gets through), then twice more.
    answers = []

    async def answered() -> bool:
        answers.append(await ann.call(Undo(), seq=seq))
        return not (isinstance(answers[-1], Error) and answers[-1].code == ErrorCode.STORE_UNAVAILABLE)

    await wait_until(answered, what="the store to answer the resent undo", interval=0.1)
    replies = [answers[-1]] + [await ann.call(Undo(), seq=seq) for _ in range(2)]
    assert all(isinstance(r, Moved) and r.moves == acked + 1 for r in replies), replies
    undos = [e for e in await stored(redis, code) if isinstance(e, Undone)]
    assert len(undos) == 1
    for client in (ann, bob):
        await client.close()


async def test_sigterm_answers_the_request_in_flight_then_closes_with_1012(nodes: list[ServerProcess]) -> None:
    a, b = nodes
    ann = await WsClient.open(a.url, "Ann")
    bob = await WsClient.open(b.url, "Bob")
    await race(ann, bob)
    seq = await ann.send(MoveRequest(move=MOVES[0]))
    a.proc.send_signal(signal.SIGTERM)
    assert isinstance(await ann.reply(seq), Moved)
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(ann.ws.recv(), 10)
    assert ann.ws.close_code == CloseCode.SERVICE_RESTART
    assert a.proc.wait(10) == 0
    await bob.close()


async def test_a_racer_of_a_killed_node_who_never_returns_forfeits_on_the_other_node(
    redis_proc: RedisProcess,
) -> None:
    """The survivor notices the dead node (its heartbeat runs out), records its racer's drop, and the
    grace period and the forfeit run on the survivor's timers."""
    a, b = (ServerProcess("--redis", redis_proc.url, "--grace", "1") for _ in range(2))
    try:
        ann = await WsClient.open(a.url, "Ann")
        bob = await WsClient.open(b.url, "Bob")
        await race(ann, bob)
        await play(ann, MOVES[:2])
        a.kill()
        forfeit = await bob.expect(Progress, wait=30, where=lambda p: p.player == ann.player and p.status == "forfeit")
        assert forfeit.moves == 2
        await bob.close()
    finally:
        a.close()
        b.close()
