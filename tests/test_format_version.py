"""The format version of stored events: older logs read exactly as before; a newer build's room
refused without harm, by one node of this build beside a node of the next one on one real Redis.

The next release is this code with ``FORMAT`` raised by one, run as its own server process: it
writes every event in the newer version and reads both, as a release that changed the log's form
would (the test cannot run code not yet written; what it checks is this build's side).
"""

from __future__ import annotations

import contextlib
import typing
from collections.abc import Awaitable, Callable, Iterator

import msgpack
import pytest
import redis.asyncio as aioredis
from websockets.exceptions import ConnectionClosed

from protocol.enums import Phase
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import CreateRoom, Error, Hello, JoinRoom, Moved, MoveRequest, Ok, Ready, RoomState, Started
from seahaven import Board
from seahaven.solver import solve
from server.app import RaceServer
from server.config import Config
from server.rooms import events
from server.rooms.core import RoomCore
from server.rooms.events import SPAN, Event, NewerFormat, pack, unpack
from server.rooms.events import Moved as MovedEvent
from server.rooms.room import Room
from server.rooms.settings import Settings
from server.store.base import LAYOUT_FORMAT, StoreError
from server.store.redisstore import RedisStore
from tests import httpclient
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess
from tests.roaming import closed_with
from tests.server_proc import NEXT_RELEASE, ServerProcess
from tests.wsclient import WsClient

OLD_LOG = """
    940000a64f4c443030318fa6707265736574a8736561686176656ea46465616c01a5736561747303a67075626c6963c3ad74696d655f6c696d69745f6d73ce000927c0a4756e646fc3ac636f756e74646f776e5f6d73cd03e6a867726163655f6d73cd7530b2737065637461746f725f64656c61795f6d73cd2710a8616e795f6465616cc2aa6465616c5f6772616465c0a663686f73656ec2a568696e7473c3ab6c6f73745f6e6f74696365c2a56461696c79c0
    950101a27031a3416e6ea57261636572
    950101a27032a3426f62a57261636572
    950101a27033a24379a57261636572
    950101a27331a3457665a9737065637461746f72
    940302a27031c3
    940303a27031c2
    940304a27031c3
    940305a27032c3
    940305a27033c3
    930405cd03eb
    9205cd03eb
    9406cd044ca27031a23363
    9406cd04b0a27031a23364
    9307cd0514a27031
    9406cd0578a27032a23363
    930ecd05dca27032
    940acd0640a27032c2
    940acd06a4a27032c3
    9302cd0708a27331
    9308cd076ca27032
    940acd079ea27033c2
    9309cd9c40a27033
    9406cd9c41a27031a23364
    9406cd9c42a27031a23323
    9406cd9c43a27031a23323
    9406cd9c44a27031a26123
    9406cd9c45a27031a23561
    9406cd9c46a27031a26435
    9406cd9c47a27031a23038
    9406cd9c48a27031a23130
    9406cd9c49a27031a23738
    9406cd9c4aa27031a23733
    9406cd9c4ba27031a23764
    9406cd9c4ca27031a23735
    9406cd9c4da27031a26137
    9406cd9c4ea27031a23161
    9406cd9c4fa27031a26431
    9406cd9c50a27031a431343a32
    9406cd9c51a27031a23231
    9406cd9c52a27031a23231
    9406cd9c53a27031a23223
    9406cd9c54a27031a23523
    9406cd9c55a27031a23523
    9406cd9c56a27031a23523
    9406cd9c57a27031a23223
    9406cd9c58a27031a23223
    9406cd9c59a27031a23623
    9406cd9c5aa27031a23923
    9406cd9c5ba27031a26123
    9406cd9c5ca27031a23123
    9406cd9c5da27031a23123
    9406cd9c5ea27031a23123
    9406cd9c5fa27031a23423
    9406cd9c60a27031a23423
    9406cd9c61a27031a23423
    9406cd9c62a27031a23161
    9406cd9c63a27031a23639
    9406cd9c64a27031a23637
    9406cd9c65a27031a23623
    9406cd9c66a27031a26236
    9406cd9c67a27031a436333a32
    9406cd9c68a27031a23537
    9406cd9c69a27031a23562
    9406cd9c6aa27031a23523
    9406cd9c6ba27031a23023
    9406cd9c6ca27031a23023
    9406cd9c6da27031a23023
    9406cd9c6ea27031a26323
    9406cd9c6fa27031a26130
    9406cd9c70a27031a23961
    9406cd9c71a27031a23963
    9406cd9c72a27031a23923
    9406cd9c73a27031a23923
    9406cd9c74a27031a23423
    9406cd9c75a27031a23023
    9406cd9c76a27031a23023
    9406cd9c77a27031a23923
    9406cd9c78a27031a23437
    9406cd9c79a27031a23430
    9406cd9c7aa27031a23430
    9406cd9c7ba27031a26231
    9406cd9c7ca27031a438303a33
    9406cd9c7da27031a23823
    9406cd9c7ea27031a26338
    9406cd9c7fa27031a23723
    9406cd9c80a27031a23723
    9406cd9c81a27031a23723
    9406cd9c82a27031a23723
    9406cd9c83a27031a23723
    9406cd9c84a27031a23023
    9406cd9c85a27031a23023
    9406cd9c86a27031a23023
    9406cd9c87a27031a23023
    9406cd9c88a27031a23023
    9406cd9c89a27031a23023
    9406cd9c8aa27031a26138
    9406cd9c8ba27031a438313a33
    9406cd9c8ca27031a23823
    9406cd9c8da27031a23823
    9406cd9c8ea27031a23323
    9406cd9c8fa27031a23323
    9406cd9c90a27031a23323
    9406cd9c91a27031a23323
    9406cd9c92a27031a23123
    9406cd9c93a27031a23123
    9406cd9c94a27031a23123
    9406cd9c95a27031a23123
    930bcd9c95a3776f6e
    930ccdea60a27031
    930ccdea61a27032
    930dcdea6107
    9304cdea61cdee47
"""
"""A race's log as the build before format versions wrote it (every event kind once at least:
joins, readiness, countdown, moves, an undo, a hint, a drop and return, a spectator leaving, a
resignation, a forfeit, the end, a rematch and its new deal), one entry in hex per line."""

MOVES = [str(move) for move in solve(Board.deal("seahaven", 1)).moves]


def old_entries() -> list[bytes]:
    return [bytes.fromhex(line) for line in OLD_LOG.split()]


def in_version(entry: bytes, number: int) -> bytes:
    """``entry`` with the head of format version ``number``: the same event and fields."""
    head, *fields = msgpack.unpackb(entry, raw=False)
    return bytes(msgpack.packb([head % SPAN + number * SPAN, *fields]))


def newer(entry: bytes) -> bytes:
    """``entry`` as the next release would write it: the same event, one format version newer
    than this build's."""
    return in_version(entry, events.FORMAT + 1)


def version(entry: bytes) -> int:
    head = msgpack.unpackb(entry, raw=False)[0]
    assert isinstance(head, int)
    return head // SPAN


def test_this_build_writes_version_3_and_reads_version_0_as_it_always_was() -> None:
    # 1: the rooms' settings gained ``rated``; 2: the draw (``secret``, seeds); 3: auto-move
    assert events.FORMAT == 3
    assert pack(MovedEvent(1100, "p1", "3h")) == msgpack.packb([6 + 3 * SPAN, 1100, "p1", "3h", []])
    entries = old_entries()
    rewritten = [pack(unpack(entry)) for entry in entries]
    # Read and written back: every event as it was, in version 3; the ready and rematch events
    # gain a seed, none, and ``auto``, false; a move gains its auto-moves, none, and an undo the
    # auto-moves it took back, 0; the room's settings gain ``rated``, false (a version-0 room is
    # unrated), ``auto``, true, and ``secret``, none (its deal is the one it names).
    gained: dict[int, list[object]] = {
        type_index(events.ReadySet): [None, False],
        type_index(events.RematchVoted): [None, False],
        type_index(MovedEvent): [[]],
        type_index(events.Undone): [0],
    }
    expected = []
    for entry in entries[1:]:
        head, *fields = msgpack.unpackb(entry, raw=False)
        expected.append(bytes(msgpack.packb([head + 3 * SPAN, *fields, *gained.get(head, [])])))
    assert rewritten[1:] == expected
    head, *fields = msgpack.unpackb(entries[0], raw=False)
    settings = {**fields[-1], "rated": False, "auto": True, "secret": None}
    assert msgpack.unpackb(rewritten[0], raw=False) == [head + 3 * SPAN, *fields[:-1], settings]
    assert [unpack(entry) for entry in rewritten] == [unpack(entry) for entry in entries]
    first = unpack(entries[0])
    assert isinstance(first, events.Created) and first.settings.rated is False and first.settings.secret is None


def type_index(kind: type) -> int:
    """An event kind's number in a version-0 head."""
    extras: dict[type, list[object]] = {events.ReadySet: [True], MovedEvent: ["3h"]}
    extra = extras.get(kind, [])
    head = msgpack.unpackb(pack(kind(0, "p", *extra)), raw=False)[0]
    assert isinstance(head, int)
    return head % SPAN


def test_a_rated_room_reads_back_rated() -> None:
    room, log = Room.create("RATED1", Settings("seahaven", 1, rated=True), 0)
    (created,) = [unpack(pack(event)) for event in log]
    assert isinstance(created, events.Created) and created.settings.rated is True
    assert version(pack(created)) == 3 and room.state_for("p1", 0).rated is True


def old_race() -> tuple[Room, list[Event]]:
    """The race ``OLD_LOG`` holds, played again by this build's room."""
    room, log = Room.create(
        "OLD001", Settings("seahaven", 1, seats=3, countdown_ms=998, hints=True, time_limit_ms=600_000), 0
    )
    for player, name in (("p1", "Ann"), ("p2", "Bob"), ("p3", "Cy")):
        log += room.join(player, name, False, 1)
    log += room.join("s1", "Eve", True, 1)
    log += room.set_ready("p1", True, 2) + room.set_ready("p1", False, 3) + room.set_ready("p1", True, 4)
    log += room.set_ready("p2", True, 5) + room.set_ready("p3", True, 5)
    log += room.tick(1003)
    log += room.move("p1", MOVES[0], 1100) + room.move("p1", MOVES[1], 1200) + room.undo("p1", 1300)
    log += room.move("p2", MOVES[0], 1400) + room.use_hint("p2", 1500)
    log += room.disconnect("p2", 1600) + room.reconnect("p2", 1700)
    log += room.leave("s1", 1800) + room.resign("p2", 1900) + room.disconnect("p3", 1950)
    log += room.tick(40_000)  # p3's grace ran out
    for i, move in enumerate(MOVES[1:]):
        log += room.move("p1", move, 40_001 + i)
    log += room.vote_rematch("p1", 7, 60_000) + room.vote_rematch("p2", 7, 60_001)
    return room, log


def test_an_old_log_loads_and_replays_exactly_as_the_room_played() -> None:
    entries = old_entries()
    log = [unpack(entry) for entry in entries]
    # Every kind is in the fixture but those newer than it: the server's auto-moves at the start.
    assert {type(e) for e in log} == set(typing.get_args(Event)) - {events.AutoMoved}
    room, played = old_race()
    assert log == played
    replayed = Room.replay(log)
    assert replayed.settings.deal == 7 and replayed.phase == Phase.COUNTDOWN  # the rematch's new deal
    core = RoomCore.load(log, 100_000)
    for player in ("p1", "p2", "p3"):
        assert replayed.state_for(player, 100_000) == room.state_for(player, 100_000)
        assert core.state_for(player, 100_000) == room.state_for(player, 100_000)


def test_a_log_with_one_newer_entry_is_refused_on_load_not_called_corrupt() -> None:
    entries = old_entries()
    entries[5] = newer(entries[5])
    with pytest.raises(NewerFormat) as refused:
        RoomCore.load([unpack(entry) for entry in entries], 100_000)
    assert refused.value.version == events.FORMAT + 1
    # A corrupt entry is a plain ValueError, never taken for a newer build's.
    for corrupt in (b"\xc1", msgpack.packb([SPAN - 1, 5]), msgpack.packb([-1, 5]), msgpack.packb(["x", 5])):
        with pytest.raises(ValueError) as bad:
            unpack(corrupt)
        assert not isinstance(bad.value, NewerFormat)


@pytest.fixture
def builds(redis_proc: RedisProcess) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """A node of this build and a node of the next release on one Redis."""
    older = ServerProcess("--redis", redis_proc.url, "--spectator-delay", "0")
    try:
        newest = ServerProcess("--redis", redis_proc.url, "--spectator-delay", "0", launch=NEXT_RELEASE)
    except BaseException:
        older.close()
        raise
    try:
        yield older, newest
    finally:
        older.close()
        newest.close()


async def stored(redis: aioredis.Redis, code: str) -> list[bytes]:
    """The room's log as Redis holds it, byte for byte."""
    return [bytes(entry) for entry in await redis.lrange(f"seahaven:{{room:{code}}}:log", 0, -1)]  # type: ignore[arg-type]


def outdated(node: ServerProcess) -> Callable[[], Awaitable[bool]]:
    """Whether ``node`` says it is outdated (a newer build's node is alive: new connections go there)."""

    async def says() -> bool:
        health = await httpclient.get(node.port, "/healthz")
        return health.status == 503 and health.body.startswith(b"outdated")

    return says


async def test_an_older_node_moves_a_newer_builds_room_to_the_newer_node_and_takes_no_new_connections(
    builds: tuple[ServerProcess, ServerProcess], redis: aioredis.Redis
) -> None:
    older, newest = builds
    ann = await WsClient.open(older.url, "Ann")
    bob = await WsClient.open(newest.url, "Bob")
    created = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    code = created.room
    written = await stored(redis, code)
    assert [version(e) for e in written] == [events.FORMAT] * 2  # this build's Created and Joined
    assert (await httpclient.get(older.port, "/healthz")).status == 200

    # The next release's node seats Bob: its Joined is the room's first newer entry.
    assert isinstance(await bob.call(JoinRoom(room=code)), RoomState)
    before = await stored(redis, code)
    assert [version(e) for e in before] == [events.FORMAT, events.FORMAT, events.FORMAT + 1]

    # The older node lets the room go (whether a doorbell or Ann's next request told it first) and
    # closes Ann's connection with "try another node"; nothing is written. From then on it is
    # outdated: /healthz says so (the balancer sends it nobody new) and new connections go elsewhere.
    with contextlib.suppress(ConnectionClosed):  # closed already if the doorbell came first
        await ann.send(Ready())
    assert await closed_with(ann) == CloseCode.TRY_ANOTHER_NODE
    await wait_until(outdated(older), what="the older node outdated")
    cy = await WsClient.open(older.url)
    assert await closed_with(cy) == CloseCode.TRY_ANOTHER_NODE
    assert await stored(redis, code) == before  # same length, same bytes: not healed, not dropped

    # The newer node serves the room on: Ann resumes there, both ready, the race runs.
    ann2 = await WsClient.open(newest.url, "Ann", token=ann.token)
    assert ann2.welcome is not None and ann2.welcome.room == code
    for client in (ann2, bob):
        assert isinstance(await client.call(Ready()), Ok)
    for client in (ann2, bob):
        await client.expect(Started)
    moved = await bob.call(MoveRequest(move=MOVES[0]))
    assert isinstance(moved, Moved) and moved.moves == 1
    after = await stored(redis, code)
    assert after[: len(before)] == before and len(after) > len(before)
    assert all(version(e) == events.FORMAT + 1 for e in after[len(before) :])  # the older node wrote none of it
    for client in (ann2, bob):
        await client.close()


async def test_an_older_node_sends_a_racer_resuming_into_a_newer_room_to_another_node(
    builds: tuple[ServerProcess, ServerProcess], redis: aioredis.Redis
) -> None:
    """A hello that resumes into a room the older node cannot read is not refused with an error
    (a client would give up): it is closed with 4003, and the client reconnects elsewhere."""
    older, newest = builds
    ann = await WsClient.open(newest.url, "Ann")
    created = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    await ann.close()
    back = await WsClient.open(older.url)
    await back.send(Hello(name="Ann", token=ann.token))
    assert await closed_with(back) == CloseCode.TRY_ANOTHER_NODE
    assert {version(e) for e in await stored(redis, created.room)} == {events.FORMAT + 1}  # none written here


async def test_an_older_node_is_outdated_only_while_a_newer_node_is_alive(
    builds: tuple[ServerProcess, ServerProcess],
) -> None:
    """After a rollback (the newer build's nodes gone, its rooms left in the store) the older nodes
    stay in service: only the newer rooms' racers are sent away."""
    older, newest = builds
    bob = await WsClient.open(newest.url, "Bob")
    created = await bob.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    ann = await WsClient.open(older.url, "Ann")
    refused = await ann.call(JoinRoom(room=created.room))
    assert isinstance(refused, Error) and refused.code == ErrorCode.ROOM_UNAVAILABLE
    assert await closed_with(ann) == CloseCode.TRY_ANOTHER_NODE
    await wait_until(outdated(older), what="the older node outdated")
    await bob.close()

    assert newest.terminate() == 0  # rolled back: the newer build's node leaves the store's node list

    async def in_service() -> bool:
        return (await httpclient.get(older.port, "/healthz")).status == 200

    await wait_until(in_service, 15, what="the older node back in service")
    cy = await WsClient.open(older.url, "Cy")
    assert isinstance(await cy.call(CreateRoom()), RoomState)
    await cy.close()


async def test_a_node_does_not_start_on_a_store_with_a_newer_key_layout(redis_url: str, redis: aioredis.Redis) -> None:
    """The store's key layout has a version too: a node that meets a newer one than it knows
    refuses to start (before any background task holds a connection), and writes nothing."""
    await redis.set("later:format", LAYOUT_FORMAT + 1)  # a later release's nodes run here
    node = RaceServer(Config(port=0), RedisStore(redis_url, prefix="later:"))
    with pytest.raises(StoreError, match="newer than this node"):
        await node.start()
    assert node.tasks.running == set()
    await node.stop()
    assert await redis.keys("later:*") == [b"later:format"]
