"""Issue 18, "Found from outside": what a tester found with a client written from docs/protocol.md
alone and a second server node on the same Redis, each shown on the wire.

- ``test_a_rival_on_the_other_node_gets_the_same_bytes_as_a_rival_on_the_movers_node``: frames
  derive from the log alone, identically on every node (fixed in server/rooms/).
- ``test_the_advice_reply_comes_before_the_members_frame_it_caused``: section 4, a reply comes
  before the events it caused (the counted hint's ``members`` used to come first).
- ``test_a_move_stored_through_a_stall_reaches_the_rival_without_another_move``: a resend answered
  ``moved`` from the store must also tell the room (the rival used to hear of the move only when
  the racer moved again).
"""

from __future__ import annotations

import asyncio
import os
import signal

from protocol.codec import decode_server
from protocol.errors import ErrorCode
from protocol.messages import (
    Advice,
    CreateRoom,
    Error,
    HintRequest,
    JoinRoom,
    Members,
    Moved,
    MoveRequest,
    Ok,
    Progress,
    Ready,
    RoomState,
    Started,
)
from protocol.schema import Message
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore
from tests.fakeclock import FakeClock
from tests.helpers import MakeServer, url_of
from tests.racing import room_with, solution, start_race
from tests.redis_proc import RedisProcess
from tests.wsclient import TIMEOUT, WsClient

MOVES = [str(move) for move in solution()]


async def next_event(client: WsClient) -> tuple[bytes, Message]:
    """The next frame ``client`` receives that is no reply, as sent and as read; replies on the
    way must be ``ok`` (a racer's ``ready``)."""
    while True:
        raw = await asyncio.wait_for(client.ws.recv(), TIMEOUT)
        assert isinstance(raw, bytes)
        re, message = decode_server(raw)
        if re is None:
            return raw, message
        assert isinstance(message, Ok), message


async def test_a_rival_on_the_other_node_gets_the_same_bytes_as_a_rival_on_the_movers_node(
    make_redis_server: MakeServer,
) -> None:
    """Ann and Bob on node one, Cleo on node two, whose clock reads 5 ms behind: every frame of
    the race that Bob and Cleo get is the same bytes, and a move's ``progress`` says the
    ``elapsed_ms`` its mover's ``moved`` said."""
    one = await make_redis_server(clock=FakeClock())
    two = await make_redis_server(clock=FakeClock(FakeClock().now() - 5))
    clocks = [one.clock, two.clock]
    ann, bob = [await WsClient.open(url_of(one), name) for name in ("Ann", "Bob")]
    cleo = await WsClient.open(url_of(two), "Cleo")
    state = await ann.call(CreateRoom(deal_number=1, seats=3))
    assert isinstance(state, RoomState)
    for rival in (bob, cleo):
        assert isinstance(await rival.call(JoinRoom(room=state.room)), RoomState)
    rivals = (bob, cleo)
    for rival in rivals:  # Cleo's join, told to both: the last frame before the readiness
        await rival.expect(Members, where=lambda m: len(m.racers) == 3)
        rival.events.clear()  # the joins before it

    # The readiness, the countdown and the start: Ann's ready, then Bob's, then Cleo's (her node
    # starts the race on its own clock).
    assert isinstance(await ann.call(Ready()), Ok)
    for rival in rivals:
        await rival.send(Ready())
        heard = [await next_event(r) for r in rivals]  # the ready's members frame, on both nodes
        assert heard[0][0] == heard[1][0]
    starts = []
    for rival in rivals:
        frames: list[tuple[bytes, Message]] = []
        while not frames or not isinstance(frames[-1][1], Started):
            frames.append(await next_event(rival))
        starts.append([raw for raw, _ in frames])
    assert starts[0] == starts[1]

    for move in MOVES[:10]:
        for clock in clocks:
            assert isinstance(clock, FakeClock)
            clock.advance(7)
        moved = await ann.call(MoveRequest(move=move))
        assert isinstance(moved, Moved)
        (near, progress), (far, _) = [await next_event(rival) for rival in rivals]
        assert near == far, f"after {move}: {decode_server(near)[1]} here, {decode_server(far)[1]} there"
        assert isinstance(progress, Progress) and progress.player == ann.player
        assert progress.elapsed_ms == moved.elapsed_ms and progress.moves == moved.moves
    for client in (ann, bob, cleo):
        await client.close()


async def test_the_advice_reply_comes_before_the_members_frame_it_caused() -> None:
    """A counted hint changes the racer's ``hints`` (a ``members`` frame to the room); the racer
    gets the ``advice`` reply first, as section 4 says of every reply and the events it caused."""
    config = Config(port=0, countdown_ms=0, rate=10_000, burst=10_000, spectator_delay_ms=0)
    server = RaceServer(config, MemoryStore(), FakeClock(), hint_seconds=20.0)
    await server.start()
    try:
        (ann, bob), _ = await room_with(server, "Ann", "Bob", hints=True)
        await start_race([ann, bob])
        await ann.settle()
        seq = await ann.send(HintRequest())
        raw = await asyncio.wait_for(ann.ws.recv(), 30)
        assert isinstance(raw, bytes)
        re, first = decode_server(raw)
        assert (re, type(first)) == (seq, Advice), f"first after the hint request: re={re} {first}"
        assert isinstance(first, Advice) and first.kind == "hint"
        for client in (ann, bob):
            await client.close()
    finally:
        await server.stop()


async def test_a_move_stored_through_a_stall_reaches_the_rival_without_another_move(
    make_redis_server: MakeServer, redis_proc: RedisProcess
) -> None:
    """Redis stalls (SIGSTOP) while Ann's move is on its way: the store times out, Ann hears
    ``store-unavailable``, and Redis runs the append once it resumes. Ann resends the same seq
    and gets ``moved``; Bob, her rival, must hear of that move then, not when Ann moves again."""
    server = await make_redis_server()
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    assert isinstance(await ann.call(MoveRequest(move=MOVES[0])), Moved)
    await bob.expect(Progress, where=lambda p: p.player == ann.player and p.moves == 1)

    os.kill(redis_proc.pid, signal.SIGSTOP)
    try:
        seq = await ann.send(MoveRequest(move=MOVES[1]))
        stalled = await ann.reply(seq)  # the store timed out; the append waits in Redis's socket
        assert isinstance(stalled, Error) and stalled.code == ErrorCode.STORE_UNAVAILABLE
    finally:
        os.kill(redis_proc.pid, signal.SIGCONT)
    # Resent until the store answers again (the stall breaker refuses at once until its probe
    # gets through), as the document says.
    answer = await ann.call(MoveRequest(move=MOVES[1]), seq=seq)
    for _ in range(100):
        if not (isinstance(answer, Error) and answer.code == ErrorCode.STORE_UNAVAILABLE):
            break
        await asyncio.sleep(0.1)
        answer = await ann.call(MoveRequest(move=MOVES[1]), seq=seq)
    assert isinstance(answer, Moved) and answer.moves == 2, answer
    heard = await bob.expect(Progress, wait=3, where=lambda p: p.player == ann.player and p.moves == 2)
    assert heard.elapsed_ms == answer.elapsed_ms
    for client in (ann, bob):
        await client.close()
