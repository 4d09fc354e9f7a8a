"""A room's tail lost in a real redis-server while another real node appends at that index (issue 20).

Ann and Bob race on node A, Sam watches there. After some moves of each, Redis takes a snapshot;
Ann's next moves are acknowledged; then Redis loses them (its keys rolled back to the snapshot, as
a replica promoted before it got the last writes holds them; or redis-server SIGKILLed and started
again from the snapshot while node A is SIGSTOPped). Bob takes his session to node B, which loads
the room as Redis now has it, Tom watches from B, and Bob moves there: B appends at the index where
Ann's lost moves were. The two histories commute (different racers), so node A, which still holds
Ann's moves, merges: nothing acknowledged is lost, the stored log replays legally with every move
judged again, and every racer and spectator on both nodes gets the same standings.
"""

from __future__ import annotations

import os
import signal
from collections.abc import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from protocol.errors import ErrorCode
from protocol.messages import (
    CreateRoom,
    Error,
    JoinRoom,
    Moved,
    MoveRequest,
    Result,
    RoomState,
    Undo,
)
from server.rooms.core import RoomCore
from server.rooms.events import Event, unpack
from server.rooms.events import Moved as MovedEvent
from tests.racing import solution
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

MOVES = [str(move) for move in solution()]


@pytest.fixture
def snapshot_redis() -> Iterator[RedisProcess]:
    """A redis-server without AOF: a restart loads its last RDB snapshot (SAVE), nothing later."""
    proc = RedisProcess(appendonly=False)
    try:
        yield proc.start()
    finally:
        proc.close()


@pytest.fixture
async def raw(snapshot_redis: RedisProcess) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(snapshot_redis.url)
    yield client
    await client.aclose()


@pytest.fixture
def nodes(snapshot_redis: RedisProcess) -> Iterator[list[ServerProcess]]:
    started = [ServerProcess("--redis", snapshot_redis.url, "--spectator-delay", "0") for _ in range(2)]
    try:
        yield started
    finally:
        for node in started:
            node.close()


ROOM_PARTS = ("log", "chain", "replies")
"""The keys of a room that hold its history."""


def room_key(code: str, part: str) -> str:
    return f"seahaven:{{room:{code}}}:{part}"


async def stored(raw: aioredis.Redis, code: str) -> list[Event]:
    return [unpack(bytes(d)) for d in await raw.lrange(room_key(code, "log"), 0, -1)]  # type: ignore[arg-type]


async def play(client: WsClient, moves: list[str]) -> int:
    """Play ``moves``, each acknowledged (a ``store-unavailable`` is resent with its seq, as the
    protocol says); the mover's move count after the last."""
    count = 0
    for move in moves:
        seq = None
        for _ in range(5):
            reply = await client.call(MoveRequest(move=move), seq=seq)
            if not (isinstance(reply, Error) and reply.code == ErrorCode.STORE_UNAVAILABLE):
                break
            seq = client.seq
        assert isinstance(reply, Moved), reply
        count = reply.moves
    return count


async def three_moves_each(node: ServerProcess) -> tuple[WsClient, WsClient, WsClient, str]:
    """Ann and Bob racing on ``node`` with Sam watching there, three moves each, all heard."""
    ann = await WsClient.open(node.url, "Ann")
    bob = await WsClient.open(node.url, "Bob")
    sam = await WsClient.open(node.url, "Sam")
    code = (await race_of_two(ann, bob, CreateRoom(deal_number=1), (sam,))).room
    await play(ann, MOVES[:3])
    await play(bob, MOVES[:3])
    await ann.settle()
    return ann, bob, sam, code


async def dump_room(raw: aioredis.Redis, code: str) -> dict[str, bytes | None]:
    """The room's keys (log, hash chain, replies) as DUMP gives them, to be put back later."""
    return {part: await raw.dump(room_key(code, part)) for part in ROOM_PARTS}


async def restore_room(raw: aioredis.Redis, code: str, dumps: dict[str, bytes | None]) -> None:
    """The room's keys rolled back to ``dumps``: whatever was written since is lost."""
    for part, dumped in dumps.items():
        assert dumped is not None, part
        await raw.restore(room_key(code, part), 0, dumped, replace=True)


async def bob_and_tom_on(node: ServerProcess, bob: WsClient, code: str) -> tuple[WsClient, RoomState, WsClient]:
    """Bob's session taken to ``node`` (the room as that node loads it), and Tom watching there."""
    moved = await WsClient.open(node.url, "Bob", token=bob.token)
    state = await moved.expect(RoomState)
    tom = await WsClient.open(node.url, "Tom")
    assert isinstance(await tom.call(JoinRoom(room=code, spectate=True)), RoomState)
    return moved, state, tom


def moves_of(log: list[Event], player: str) -> list[str]:
    return [e.move for e in log if isinstance(e, MovedEvent) and e.player == player]


@pytest.mark.parametrize("loss", ["replica", "restart"])
async def test_a_lost_tail_and_a_foreign_append_merge_with_nothing_lost(
    loss: str, nodes: list[ServerProcess], snapshot_redis: RedisProcess, raw: aioredis.Redis
) -> None:
    a, b = nodes
    ann, bob, sam, code = await three_moves_each(a)

    # The snapshot, then Ann's acknowledged moves that Redis will lose.
    dumps = await dump_room(raw, code)
    await raw.save()
    kept = await raw.llen(room_key(code, "log"))
    assert await play(ann, MOVES[3:8]) == 8
    assert await raw.llen(room_key(code, "log")) == kept + 5

    if loss == "replica":  # the room's keys as a replica promoted before the last writes has them
        await restore_room(raw, code, dumps)
    else:  # node A stopped through it; redis-server killed and started from its snapshot
        os.kill(a.proc.pid, signal.SIGSTOP)
        os.kill(snapshot_redis.pid, signal.SIGKILL)
        snapshot_redis.stop()
        snapshot_redis.start()
        await raw.connection_pool.disconnect()
    assert await raw.llen(room_key(code, "log")) == kept  # the tail is lost

    try:
        # Node B never saw Ann's last moves: it loads the room as stored and appends at that index.
        moved, state, tom = await bob_and_tom_on(b, bob, code)
        assert state.room == code
        assert await play(moved, MOVES[3:9]) == 9
    finally:
        if loss == "restart":
            os.kill(a.proc.pid, signal.SIGCONT)

    # Node A still holds Ann's moves: her next move finds the other history and merges.
    assert await play(ann, MOVES[8:]) == len(MOVES)
    results = [await client.expect(Result) for client in (ann, sam, moved, tom)]
    assert results[0].standings == results[1].standings == results[2].standings == results[3].standings
    first, second = results[0].standings
    assert (first.player, first.progress, first.moves) == (ann.player, 52, len(MOVES))
    assert (second.player, second.moves) == (bob.player, 9)

    log = await stored(raw, code)
    RoomCore.load(log, 0)  # replays, every move judged again
    assert moves_of(log, ann.player) == MOVES  # 0 lost, 0 doubled
    assert moves_of(log, bob.player) == MOVES[:9]
    # Merged, not written back: Bob's moves on B come first after the snapshot, then Ann's lost ones.
    after = [(e.player, e.move) for e in log[kept:] if isinstance(e, MovedEvent)]
    assert after.index((bob.player, MOVES[3])) < after.index((ann.player, MOVES[3]))
    for client in (ann, bob, sam, moved, tom):
        await client.close()


async def test_a_lost_tail_that_cannot_merge_gives_way_to_the_stored_history(
    nodes: list[ServerProcess], raw: aioredis.Redis
) -> None:
    """Bob's moves are in both histories (his lost ones on A, new ones on B): no merge. The stored
    history wins, as documented: node A loads it, its members are sent the room as stored (Ann's
    board goes back to the snapshot), and the race goes on from there, one history on every node."""
    a, b = nodes
    ann, bob, sam, code = await three_moves_each(a)
    dumps = await dump_room(raw, code)
    kept = await raw.llen(room_key(code, "log"))
    await play(ann, MOVES[3:8])
    await play(bob, MOVES[3:5])
    await restore_room(raw, code, dumps)

    moved, state, tom = await bob_and_tom_on(b, bob, code)
    assert len(state.history) == 3  # B serves what is stored: Bob's two lost moves are gone
    assert await play(moved, MOVES[3:6]) == 6

    # Ann's next command on A (an undo: legal on either history) finds the other history.
    await ann.settle()
    undone = await ann.call(Undo())
    assert (
        isinstance(undone, Moved) and undone.undo and undone.moves == 4
    )  # judged on the stored history: 3 moves, 1 undo
    resync = await ann.expect(RoomState)
    assert list(resync.history) == MOVES[:3]  # the room as stored, sent before the answer
    assert await play(ann, MOVES[2:]) == 4 + len(MOVES) - 2
    results = [await client.expect(Result) for client in (ann, sam, moved, tom)]
    assert results[0].standings == results[1].standings == results[2].standings == results[3].standings
    assert [s.player for s in results[0].standings] == [ann.player, bob.player]

    log = await stored(raw, code)
    RoomCore.load(log, 0)  # one history, replayed legally
    assert moves_of(log, ann.player) == MOVES[:3] + MOVES[2:]  # her five lost moves are the documented loss
    assert moves_of(log, bob.player) == MOVES[:6]
    assert len(log) == kept + 1 + 3 + 1 + len(MOVES) - 2 + 1  # Tom, Bob's 3, Ann's undo and moves, the end
    for client in (ann, bob, sam, moved, tom):
        await client.close()
