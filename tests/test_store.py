"""The store contract, run on MemoryStore and RedisStore alike, plus Redis-only behaviour.

Time: the MemoryStore runs on a manual clock that ``later`` advances; the RedisStore really waits
(short TTLs) and checks for expiry by polling with a bounded wait.
"""

from __future__ import annotations

import asyncio
import math
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack
import pytest
import redis.asyncio as aioredis
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError

from server.store.base import LAYOUT_FORMAT, MEMO_FORMAT, Append, Behind, Duplicate, Request, Stored, chain
from server.store.scripts import APPEND_AT
from server.store.stores import DEAD_NODES_KEPT, MemoryStore, RedisStore, Store, StoreError, open_store
from tests.conftest import ManualClock
from tests.redis_proc import RedisProcess

SHORT = 0.3  # a TTL that runs out during a test
MARGIN = 0.05  # waited past a deadline before expecting expiry
LONG = 60.0  # a TTL that does not run out during a test

Later = Callable[[float], Awaitable[None]]


def event(n: int) -> bytes:
    """A realistic event: a small msgpack map."""
    return bytes(msgpack.packb({"t": "move", "seat": n % 8, "n": n, "mv": [n % 13, n % 7], "at": 1_000 + n}))


@pytest.fixture
def later(store: Store, clock: ManualClock) -> Later:
    """Let ``seconds`` pass for the store: advance the manual clock, or really sleep for Redis."""

    async def later(seconds: float) -> None:
        if isinstance(store, MemoryStore):
            clock.advance(seconds)
        else:
            await asyncio.sleep(seconds)

    return later


async def soon(store: Store, check: Callable[[], Awaitable[bool]], within: float = 3.0) -> None:
    """Assert ``check`` holds: at once for MemoryStore (its clock is exact), within ``within`` seconds for Redis."""
    if isinstance(store, MemoryStore):
        assert await check()
        return
    deadline = time.monotonic() + within
    while not await check():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


def new_room() -> str:
    return uuid.uuid4().hex[:10]


# --------------------------------------------------------------------------------------------------
# Contract: both stores


async def test_append_returns_length_and_load_keeps_order(store: Store) -> None:
    room = new_room()
    assert await store.load(room) == []
    assert await store.append(room, [event(1)], LONG) == 1
    assert await store.append(room, [event(2), event(3)], LONG) == 3
    assert await store.append(room, [event(4)], LONG) == 4
    assert await store.load(room) == [event(1), event(2), event(3), event(4)]
    assert await store.load(new_room()) == []


async def test_events_are_opaque_bytes(store: Store) -> None:
    room = new_room()
    odd = [b"", b"\x00", b"\r\n*1\r\n$4\r\nPING\r\n", bytes(range(256)), b"x" * 100_000]
    assert await store.append(room, odd, LONG) == len(odd)
    assert await store.load(room) == odd


async def test_rooms_are_separate(store: Store) -> None:
    a, b = new_room(), new_room()
    await store.append(a, [event(1)], LONG)
    await store.append(b, [event(2)], LONG)
    assert await store.load(a) == [event(1)]
    assert await store.load(b) == [event(2)]


async def test_append_nothing_refreshes_but_never_creates(store: Store, later: Later) -> None:
    room = new_room()
    assert await store.append(room, [], LONG) == 0
    assert await store.load(room) == []
    assert room not in await store.room_ids()
    await store.append(room, [event(1)], 1.0)
    await later(0.6)
    assert await store.append(room, [], 1.0) == 1
    await later(0.6)  # past the first deadline, before the refreshed one
    assert await store.load(room) == [event(1)]


async def test_log_expires(store: Store, later: Later) -> None:
    room = new_room()
    await store.append(room, [event(1)], SHORT)
    assert await store.load(room) == [event(1)]
    await later(SHORT + MARGIN)

    async def gone() -> bool:
        return await store.load(room) == [] and room not in await store.room_ids()

    await soon(store, gone)


async def test_append_refreshes_the_ttl(store: Store, later: Later) -> None:
    room = new_room()
    await store.append(room, [event(1)], 1.0)
    await later(0.6)
    await store.append(room, [event(2)], 1.0)
    await later(0.6)  # 1.2 s after the first append
    assert await store.load(room) == [event(1), event(2)]
    await later(0.4 + MARGIN)

    async def gone() -> bool:
        return await store.load(room) == []

    await soon(store, gone)


async def test_an_expired_room_starts_afresh(store: Store, later: Later) -> None:
    room = new_room()
    await store.append(room, [event(1), event(2)], SHORT)
    await later(SHORT + MARGIN)

    async def gone() -> bool:
        return await store.load(room) == []

    await soon(store, gone)
    assert await store.append(room, [event(3)], LONG) == 1
    assert await store.load(room) == [event(3)]


async def test_expire_after_finish_takes_everything_the_room_owns(store: Store, later: Later) -> None:
    room = new_room()
    await store.append(room, [event(1)], LONG)
    await store.set_listing(room, b"summary", LONG)
    await store.expire(room, SHORT)
    assert await store.load(room) == [event(1)]
    assert await store.listings() == {room: b"summary"}
    await later(SHORT + MARGIN)

    async def gone() -> bool:
        return await store.load(room) == [] and await store.listings() == {} and await store.room_ids() == []

    await soon(store, gone)


async def test_expire_can_extend(store: Store, later: Later) -> None:
    room = new_room()
    await store.append(room, [event(1)], SHORT)
    await store.set_listing(room, b"s", SHORT)
    await store.expire(room, LONG)
    await later(SHORT + 0.2)
    assert await store.load(room) == [event(1)]
    assert await store.listings() == {room: b"s"}


async def test_expire_or_delete_unknown_room_is_harmless(store: Store) -> None:
    room = new_room()
    await store.expire(room, LONG)
    await store.delete(room)
    assert await store.load(room) == []
    assert await store.room_ids() == []
    assert await store.listings() == {}


async def test_delete_removes_log_and_listing(store: Store) -> None:
    room, other = new_room(), new_room()
    for r in (room, other):
        await store.append(r, [event(1)], LONG)
        await store.set_listing(r, r.encode(), LONG)
    await store.delete(room)
    assert await store.load(room) == []
    assert await store.room_ids() == [other]
    assert await store.listings() == {other: other.encode()}


async def test_room_ids_lists_live_logs_only(store: Store, later: Later) -> None:
    odd = ["a:b", "x*y", "q?[z]", "room:1:log", "ünï"]
    for room in odd:
        await store.append(room, [event(1)], LONG)
    doomed = new_room()
    await store.append(doomed, [event(2)], SHORT)
    assert await store.room_ids() == sorted([*odd, doomed])
    await later(SHORT + MARGIN)

    async def only_live() -> bool:
        return await store.room_ids() == sorted(odd)

    await soon(store, only_live)
    for room in odd:
        assert await store.load(room) == [event(1)]


async def test_listings_show_live_public_rooms_only(store: Store) -> None:
    public_a, private, public_b = new_room(), new_room(), new_room()
    for room in (public_a, private, public_b):
        await store.append(room, [event(1)], LONG)
    await store.set_listing(public_a, b"A", LONG)
    await store.set_listing(public_b, b"B", LONG)
    assert await store.listings() == {public_a: b"A", public_b: b"B"}
    await store.set_listing(public_a, b"A2", LONG)  # a new count replaces the entry
    assert await store.listings() == {public_a: b"A2", public_b: b"B"}


async def test_listing_removal(store: Store) -> None:
    room = new_room()
    await store.append(room, [event(1)], LONG)
    await store.set_listing(room, b"A", LONG)
    await store.set_listing(room, None, LONG)
    assert await store.listings() == {}
    await store.set_listing(room, None, LONG)  # removing twice is fine
    await store.set_listing(room, b"again", LONG)
    assert await store.listings() == {room: b"again"}
    assert await store.load(room) == [event(1)]  # the listing is not the room


async def test_listing_expires_on_its_own(store: Store, later: Later) -> None:
    room, stays = new_room(), new_room()
    for r in (room, stays):
        await store.append(r, [event(1)], LONG)
    await store.set_listing(room, b"A", SHORT)
    await store.set_listing(stays, b"B", LONG)
    await later(SHORT + MARGIN)

    async def expired() -> bool:
        return await store.listings() == {stays: b"B"}

    await soon(store, expired)
    assert await store.load(room) == [event(1)]
    await store.set_listing(room, b"A again", LONG)  # published again after expiry: listed again
    assert await store.listings() == {room: b"A again", stays: b"B"}


async def test_an_expired_room_never_appears_in_listings(store: Store, later: Later) -> None:
    room = new_room()
    await store.append(room, [event(1)], SHORT)
    await store.set_listing(room, b"A", LONG)  # listing outlives the log ...
    await later(SHORT + MARGIN)

    async def hidden() -> bool:
        return await store.listings() == {}  # ... but a dead room is never listed

    await soon(store, hidden)


async def test_a_listing_without_a_log_is_not_listed(store: Store) -> None:
    room = new_room()
    await store.set_listing(room, b"A", LONG)
    assert await store.listings() == {}
    await store.append(room, [event(1)], LONG)
    assert await store.listings() == {room: b"A"}


async def test_sessions(store: Store) -> None:
    token, other = uuid.uuid4().hex, uuid.uuid4().hex
    assert await store.get_session(token) is None
    await store.put_session(token, b"alice", LONG)
    await store.put_session(other, b"bob", LONG)
    assert await store.get_session(token) == b"alice"
    await store.put_session(token, b"alice v2", LONG)
    assert await store.get_session(token) == b"alice v2"
    await store.delete_session(token)
    assert await store.get_session(token) is None
    await store.delete_session(token)  # unknown: no error
    assert await store.get_session(other) == b"bob"


async def test_session_expires(store: Store, later: Later) -> None:
    token = uuid.uuid4().hex
    await store.put_session(token, b"alice", SHORT)
    assert await store.get_session(token) == b"alice"
    await later(SHORT + MARGIN)

    async def gone() -> bool:
        return await store.get_session(token) is None

    await soon(store, gone)


@pytest.mark.parametrize("ttl", [0, -1.0, math.nan, math.inf])
async def test_ttl_must_be_positive_and_finite(store: Store, ttl: float) -> None:
    room = new_room()
    with pytest.raises(ValueError):
        await store.append(room, [event(1)], ttl)
    with pytest.raises(ValueError):
        await store.expire(room, ttl)
    with pytest.raises(ValueError):
        await store.set_listing(room, b"A", ttl)
    with pytest.raises(ValueError):
        await store.put_session("t", b"x", ttl)
    assert await store.load(room) == []


async def test_ping(store: Store) -> None:
    assert await store.ping() is True


async def test_concurrent_appends_lose_nothing(store: Store) -> None:
    room = new_room()
    lengths = await asyncio.gather(*(store.append(room, [event(n)], LONG) for n in range(200)))
    assert sorted(lengths) == list(range(1, 201))
    assert sorted(await store.load(room)) == sorted(event(n) for n in range(200))


# --------------------------------------------------------------------------------------------------
# Contract: archive marks and the archivers' index


def race(room: str, number: int = 1) -> str:
    return f"{room}-{number}-abcdefgh"


async def test_a_mark_keeps_the_log_and_replies_past_their_ttl(store: Store, later: Later) -> None:
    room = new_room()
    assert await store.append_at(room, [event(1)], Append(LONG, 0, Request("p", 1, b"r1"), "node")) == Stored(1)
    ended = await store.append_at(room, [event(2)], Append(SHORT, 1, Request("p", 2, b"r2"), "node", [race(room)]))
    assert ended == Stored(2)
    assert await store.archive_marks(room) == [race(room)]
    await later(SHORT + MARGIN)
    await later(0.3)  # long enough for Redis to have expired it, had it a TTL
    assert await store.load(room) == [event(1), event(2)]
    assert await store.memo(room, "p") == (2, b"r2")
    assert room in await store.room_ids()
    # Later appends of the marked room (a new race) keep it without a TTL too.
    assert await store.append_at(room, [event(3)], Append(SHORT, 2, Request("p", 3, b"r3"), "node")) == Stored(3)
    await later(SHORT + MARGIN)
    assert await store.load(room) == [event(1), event(2), event(3)]


async def test_clearing_the_last_mark_gives_the_room_its_ttl_back(store: Store, later: Later) -> None:
    room = new_room()
    first, second = race(room, 1), race(room, 2)
    await store.append_at(room, [event(1)], Append(SHORT, 0, Request("p", 1, b"r1"), None, [first]))
    await store.append_at(room, [event(2)], Append(SHORT, 1, None, None, [second]))
    assert await store.archive_marks(room) == [first, second]
    assert await store.clear_archive(room, [first], SHORT) == 1  # one left: still kept
    await later(SHORT + MARGIN)
    assert await store.load(room) == [event(1), event(2)]
    assert await store.clear_archive(room, [second, "unknown-1-abcdefgh"], SHORT) == 0
    assert await store.archive_marks(room) == []
    assert await store.load(room) == [event(1), event(2)]  # the TTL starts now
    await later(SHORT + MARGIN)

    async def gone() -> bool:
        return await store.load(room) == [] and await store.memo(room, "p") is None

    await soon(store, gone)
    assert await store.clear_archive(room, [first], SHORT) == 0  # nothing to clear: harmless


async def test_clearing_keeps_a_ttl_the_room_has(store: Store, later: Later) -> None:
    """A mark cleared on a room whose log has a TTL (a node that knows no marks gave it one, or the
    room was never marked) leaves that TTL as it is."""
    room = new_room()
    await store.append_at(room, [event(1)], Append(LONG, 0))
    assert await store.clear_archive(room, [race(room)], SHORT) == 0
    await later(SHORT + MARGIN)
    assert await store.load(room) == [event(1)]


async def test_the_index_hands_out_rooms_oldest_stamp_first(store: Store) -> None:
    rooms = [new_room() for _ in range(3)]
    assert await store.archive_due(10) == []
    assert await store.archive_backlog() == 0
    for room in rooms:
        await store.index_archive(room)
    assert await store.archive_backlog() == 3
    due = await store.archive_due(10)
    assert [room for room, _ in due] == rooms
    stamps = [stamp for _, stamp in due]
    assert all(isinstance(stamp, int) for stamp in stamps) and stamps == sorted(set(stamps))
    assert await store.archive_due(2) == due[:2]
    await store.index_archive(rooms[0])  # indexed again: a new, later stamp, and one entry still
    again = await store.archive_due(10)
    assert [room for room, _ in again] == [rooms[1], rooms[2], rooms[0]]
    assert again[2][1] > stamps[2] and await store.archive_backlog() == 3
    for room, stamp in again:
        assert await store.unindex_archive(room, stamp) is True
    assert await store.archive_due(10) == [] and await store.archive_backlog() == 0
    assert await store.unindex_archive(rooms[0], again[2][1]) is False  # gone already


async def test_a_room_indexed_again_after_due_stays_indexed(store: Store) -> None:
    room = new_room()
    await store.index_archive(room)
    [(_, stamp)] = await store.archive_due(10)
    await store.index_archive(room)  # another race ended meanwhile (or a sweep indexed it again)
    assert await store.unindex_archive(room, stamp) is False
    [(found, newer)] = await store.archive_due(10)
    assert found == room and newer > stamp
    assert await store.unindex_archive(room, newer) is True
    assert await store.archive_due(10) == []


async def test_unindex_refuses_while_marks_remain(store: Store) -> None:
    room = new_room()
    await store.append_at(room, [event(1)], Append(LONG, 0, None, None, [race(room)]))
    await store.index_archive(room)
    [(_, stamp)] = await store.archive_due(1)
    assert await store.unindex_archive(room, stamp) is False
    assert await store.archive_due(1) == [(room, stamp)]
    assert await store.clear_archive(room, [race(room)], LONG) == 0
    assert await store.unindex_archive(room, stamp) is True
    assert await store.archive_due(1) == []


async def test_marked_rooms_finds_marks_the_index_lacks(store: Store) -> None:
    """A node died between the marking append and index_archive: the sweep's scan finds the mark."""
    odd = ["a:b", "x*y", "q?[z]", "room:1:log", "ünï"]
    rooms = sorted([*odd, *(new_room() for _ in range(12))])  # on every master of a cluster
    for room in rooms:
        await store.append_at(room, [event(1)], Append(LONG, 0, None, None, [race("R")]))
    unmarked = new_room()
    await store.append_at(unmarked, [event(1)], Append(LONG, 0))
    assert await store.marked_rooms() == rooms
    assert await store.archive_due(100) == []  # never indexed
    await store.clear_archive(rooms[0], [race("R")], LONG)
    assert await store.marked_rooms() == rooms[1:]


async def test_an_append_that_ends_a_stay_forgets_the_players_memo(store: Store) -> None:
    """A leave (Request.stay_ended): nothing is checked, and the player's next stay starts with no
    memo, so its requests are new whatever their seq (a new page counts from 1 again)."""
    room = new_room()
    assert await store.append_at(room, [event(1)], Append(SHORT, 0, Request("p", 1, b"r1"))) == Stored(1)
    assert await store.append_at(room, [event(2)], Append(SHORT, 1, Request("p", 5, b"r5"))) == Stored(2)
    assert await store.append_at(room, [event(3)], Append(SHORT, 2, Request.stay_ended("p"))) == Stored(3)
    assert await store.memo(room, "p") is None
    assert await store.append_at(room, [event(4)], Append(SHORT, 3, Request("p", 1, b"again"))) == Stored(4)
    assert await store.memo(room, "p") == (1, b"again")
    assert await store.append_at(room, [event(4)], Append(SHORT, 4, Request("p", 1, b"again"))) == Duplicate(
        4, b"again"
    )


async def test_a_refused_append_marks_nothing(store: Store, later: Later) -> None:
    room = new_room()
    assert await store.append_at(room, [event(1)], Append(SHORT, 0, Request("p", 1, b"r1"))) == Stored(1)
    resent = await store.append_at(room, [event(1)], Append(SHORT, 1, Request("p", 1, b"r1"), None, [race(room)]))
    assert resent == Duplicate(1, b"r1")
    behind = await store.append_at(room, [event(2)], Append(SHORT, 5, Request("p", 2, b"r2"), None, [race(room)]))
    assert behind == Behind(1, [])
    assert await store.archive_marks(room) == []
    assert await store.marked_rooms() == []
    await later(SHORT + MARGIN)

    async def gone() -> bool:  # nothing took its TTL off either
        return await store.load(room) == []

    await soon(store, gone)


async def test_expire_leaves_a_marked_log_without_ttl(store: Store, later: Later) -> None:
    room = new_room()
    await store.append_at(room, [event(1)], Append(LONG, 0, None, None, [race(room)]))
    await store.set_listing(room, b"summary", LONG)
    await store.expire(room, SHORT)  # the race is over: the room's keys get the finished TTL...
    await later(SHORT + MARGIN)

    async def unlisted() -> bool:  # ... the listing's runs out ...
        return await store.listings() == {}

    await soon(store, unlisted)
    assert await store.load(room) == [event(1)]  # ... the log's does not, while marked
    await store.clear_archive(room, [race(room)], SHORT)
    await later(SHORT + MARGIN)

    async def gone() -> bool:
        return await store.load(room) == [] and room not in await store.room_ids()

    await soon(store, gone)


async def test_an_append_without_events_or_request_marks(store: Store, later: Later) -> None:
    """The race's end came with no event of its own to store (a timer, say): the marks alone."""
    room = new_room()
    await store.append_at(room, [event(1)], Append(LONG, 0))
    assert await store.append_at(room, [], Append(SHORT, 1, None, None, [race(room, 1), race(room, 2)])) == Stored(1)
    assert await store.archive_marks(room) == [race(room, 1), race(room, 2)]
    await later(SHORT + MARGIN)
    await later(0.3)
    assert await store.load(room) == [event(1)]


async def test_a_write_back_with_archive_marks_again(store: Store, later: Later) -> None:
    """The tail holding a race's end (and its mark, written in the same script) was lost: the node's
    write-back passes the race again and the mark is back."""
    room = new_room()
    events = [event(1), event(2)]
    await store.append_at(room, events, Append(LONG, 0, None, "node", [race(room)]))
    await store.delete(room)  # the log, its marks and all: what a lost tail looks like from here
    assert await store.archive_marks(room) == []
    assert await store.append_at(room, events, Append(SHORT, 0, None, "node", [race(room)])) == Stored(2)
    assert await store.archive_marks(room) == [race(room)]
    # A write-back over marks still there adds none twice.
    assert await store.append_at(room, [event(3)], Append(SHORT, 2, None, "node", [race(room)])) == Stored(3)
    assert await store.archive_marks(room) == [race(room)]
    await later(SHORT + MARGIN)
    assert await store.load(room) == [*events, event(3)]


async def test_archive_input_is_checked(store: Store) -> None:
    room = new_room()
    for bad in (race(room), ["with space-1-abcdefgh"], [""], ["tab\there"], [b"bytes"]):
        with pytest.raises(ValueError):
            await store.append_at(room, [event(1)], Append(LONG, 0, None, None, bad))  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            await store.clear_archive(room, bad, LONG)  # type: ignore[arg-type]
    for count in (0, -1):
        with pytest.raises(ValueError):
            await store.archive_due(count)
    with pytest.raises(ValueError):
        await store.clear_archive(room, [race(room)], 0)
    assert await store.load(room) == []
    assert await store.marked_rooms() == []


class Recorder:
    """An Observer keeping the operation names it is told of."""

    def __init__(self) -> None:
        self.operations: list[str] = []

    def observe(self, operation: str, seconds: float, failed: bool) -> None:
        self.operations.append(operation)


async def test_archive_calls_go_through_the_guarded_call(store: Store) -> None:
    recorder = Recorder()
    store.guard(None, recorder)
    room = new_room()
    await store.append_at(room, [event(1)], Append(LONG, 0, None, None, [race(room)]))
    await store.index_archive(room)
    [(_, stamp)] = await store.archive_due(1)
    await store.archive_marks(room)
    await store.marked_rooms()
    await store.clear_archive(room, [race(room)], LONG)
    await store.unindex_archive(room, stamp)
    assert recorder.operations == [
        "append",
        "index_archive",
        "archive_due",
        "archive_marks",
        "marked_rooms",
        "clear_archive",
        "unindex_archive",
    ]


# --------------------------------------------------------------------------------------------------
# MemoryStore only


async def test_memory_sweep_drops_untouched_expired_entries(clock: ManualClock) -> None:
    store = MemoryStore(clock=clock, sweep_interval=10.0)
    for n in range(100):
        await store.append(f"r{n}", [event(n)], 1.0)
        await store.set_listing(f"r{n}", b"s", 1.0)
        await store.put_session(f"t{n}", b"s", 1.0)
    await store.put_session("keeper", b"k", LONG)
    clock.advance(10.0)
    await store.get_session("keeper")  # any call past the interval sweeps
    assert (len(store._logs), len(store._listings), len(store._sessions)) == (0, 0, 1)


def test_open_store() -> None:
    assert isinstance(open_store(None, "p:"), MemoryStore)
    redis_store = open_store("redis://127.0.0.1:1/0", "p:")
    assert isinstance(redis_store, RedisStore)
    assert redis_store.prefix == "p:"


# --------------------------------------------------------------------------------------------------
# RedisStore only


@pytest.fixture
async def raw(redis_url: str) -> Any:
    """A plain client on the test server, to look at keys and server statistics."""
    client = aioredis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


async def test_redis_key_layout_and_ttls(redis_url: str, raw: Any) -> None:
    store = RedisStore(redis_url, prefix="lay:")
    try:
        await store.append("R1", [event(1)], 30)
        await store.set_listing("R1", b"A", 20)
        await store.put_session("tok", b"S", 10)
        keys = sorted(k.decode() for k in await raw.keys("*"))  # KEYS is fine in a test, never in the store
        assert keys == ["lay:format", "lay:listings", "lay:{room:R1}:listing", "lay:{room:R1}:log", "lay:{session:tok}"]
        assert await raw.type("lay:{room:R1}:log") == b"list"
        assert await raw.zrange("lay:listings", 0, -1) == [b"R1"]
        # The index scores a listing by its deadline (unix ms).
        assert 19_000 < await raw.zscore("lay:listings", "R1") - time.time() * 1000 <= 20_000
        assert 29_000 < await raw.pttl("lay:{room:R1}:log") <= 30_000
        assert 19_000 < await raw.pttl("lay:{room:R1}:listing") <= 20_000
        assert 9_000 < await raw.pttl("lay:{session:tok}") <= 10_000
        # The index never outlives its need by much, and never dies before a listing.
        assert 19_000 < await raw.pttl("lay:listings") <= 20_000
        await store.set_listing("R2", b"B", 5)  # a shorter listing does not shorten the index
        assert 19_000 < await raw.pttl("lay:listings") <= 20_000
        await store.expire("R1", 40)  # expire() extends log, listing and index
        for key in ("lay:{room:R1}:log", "lay:{room:R1}:listing", "lay:listings"):
            assert 39_000 < await raw.pttl(key) <= 40_000
        assert 39_000 < await raw.zscore("lay:listings", "R1") - time.time() * 1000 <= 40_000
        await store.expire("R1", 0.5)
        assert 0 < await raw.pttl("lay:{room:R1}:log") <= 500
        assert 0 < await raw.pttl("lay:{room:R1}:listing") <= 500
    finally:
        await store.close()


async def test_redis_expired_listings_are_pruned_from_the_index(redis_url: str, raw: Any) -> None:
    store = RedisStore(redis_url, prefix="prune:")
    try:
        await store.append("R1", [event(1)], LONG)
        await store.append("R2", [event(1)], LONG)
        await store.set_listing("R1", b"A", SHORT)
        await store.set_listing("R2", b"B", LONG)
        deadline = time.monotonic() + SHORT + 3
        while await store.listings() != {"R2": b"B"}:  # until Redis expires R1's listing
            assert time.monotonic() < deadline, await store.listings()
            await asyncio.sleep(0.02)
        assert await raw.zrange("prune:listings", 0, -1) == [b"R2"]
        await store.set_listing("R2", None, LONG)
        assert not await raw.exists("prune:listings")  # nothing left behind
    finally:
        await store.close()


async def test_redis_nothing_left_behind_after_expiry(redis_url: str, raw: Any) -> None:
    store = RedisStore(redis_url, prefix="gone:")
    try:
        await store.append("R1", [event(1)], SHORT)
        await store.set_listing("R1", b"A", SHORT)
        await store.put_session("tok", b"S", SHORT)
        deadline = time.monotonic() + SHORT + 3
        # No call on the store: Redis alone must clean up (all but the layout's format marker).
        while await raw.keys("*") != [b"gone:format"]:
            assert time.monotonic() < deadline, await raw.keys("*")
            await asyncio.sleep(0.05)
    finally:
        await store.close()


async def test_redis_refuses_a_newer_key_layout_without_writing(redis_url: str, raw: Any) -> None:
    await raw.set("next:format", LAYOUT_FORMAT + 1)  # written by a node of a later version
    store = RedisStore(redis_url, prefix="next:")
    try:
        for _ in range(2):  # the first call and every later one
            with pytest.raises(StoreError, match=f"key layout is format {LAYOUT_FORMAT + 1}, newer than this node"):
                await store.room_ids()
        with pytest.raises(StoreError, match="newer"):
            await store.append_at("R", [event(1)], Append(LONG, 0))
        with pytest.raises(StoreError, match="newer"):
            await store.put_session("tok", b"S", LONG)
        assert await store.ping() is False  # /healthz says so too
        assert await raw.keys("*") == [b"next:format"]  # nothing written
        assert await raw.get("next:format") == str(LAYOUT_FORMAT + 1).encode()
    finally:
        await store.close()


async def test_redis_reads_todays_data_without_a_version(redis_url: str, raw: Any) -> None:
    """Keys as the store wrote them before it versioned anything: no format key, no memo format."""
    await raw.rpush("old:{room:R}:log", event(1), event(2))
    await raw.pexpire("old:{room:R}:log", 60_000)
    await raw.hset("old:{room:R}:replies", mapping={"p": 4, "p:r": b"reply-4"})
    store = RedisStore(redis_url, prefix="old:")
    try:
        assert await store.room_ids() == ["R"]
        assert await store.load("R") == [event(1), event(2)]
        assert await store.memo("R", "p") == (4, b"reply-4")
        again = await store.append_at("R", [event(3)], Append(LONG, 2, Request("p", 4, b"other")))
        assert again == Duplicate(2, b"reply-4")  # the stored frame, byte for byte
        assert await raw.get("old:format") == str(LAYOUT_FORMAT).encode()  # recorded from now on
        assert await store.append_at("R", [event(3)], Append(LONG, 2, Request("p", 5, b"reply-5"))) == Stored(3)
        assert await raw.hget("old:{room:R}:replies", "p:v") == str(MEMO_FORMAT).encode()
        assert await store.memo("R", "p") == (5, b"reply-5")
    finally:
        await store.close()


async def test_redis_does_not_serve_a_memo_of_a_newer_format(redis_url: str, raw: Any) -> None:
    store = RedisStore(redis_url, prefix="memo:")
    try:
        assert await store.append_at("R", [event(1)], Append(LONG, 0, Request("p", 1, b"reply-1"))) == Stored(1)
        await raw.hset("memo:{room:R}:replies", mapping={"p:r": b"\x00new", "p:v": MEMO_FORMAT + 1})
        assert await store.memo("R", "p") is None  # can't serve it: not a crash, not its bytes
        again = await store.append_at("R", [event(2)], Append(LONG, 1, Request("p", 1, b"other")))
        assert again == Duplicate(1, None)  # still not stored twice
        await raw.hset("memo:{room:R}:replies", "p:v", "not a version")
        assert await store.memo("R", "p") is None
        assert await store.load("R") == [event(1)]
    finally:
        await store.close()


async def test_redis_prefix_isolation(redis_url: str) -> None:
    a = RedisStore(redis_url, prefix="alpha:")
    b = RedisStore(redis_url, prefix="beta:")
    try:
        await a.append("R", [event(1)], LONG)
        await a.set_listing("R", b"A", LONG)
        await a.put_session("tok", b"S", LONG)
        assert await b.load("R") == []
        assert await b.room_ids() == []
        assert await b.listings() == {}
        assert await b.get_session("tok") is None
        await b.append("R", [event(2)], LONG)
        await b.delete("R")
        await b.delete_session("tok")
        assert await a.load("R") == [event(1)]
        assert await a.room_ids() == ["R"]
        assert await a.listings() == {"R": b"A"}
        assert await a.get_session("tok") == b"S"
    finally:
        await a.close()
        await b.close()


async def test_redis_prefix_with_glob_characters(redis_url: str) -> None:
    star = RedisStore(redis_url, prefix="s*:")
    plain = RedisStore(redis_url, prefix="sx:")
    try:
        await plain.append("R", [event(1)], LONG)
        assert await star.room_ids() == []
        await star.append("Q", [event(1)], LONG)
        assert await star.room_ids() == ["Q"]
        assert await plain.room_ids() == ["R"]
    finally:
        await star.close()
        await plain.close()


def counting_connection() -> tuple[type[Connection], list[int]]:
    """A connection class counting writes to the socket: one write (then its replies) = one round trip."""
    sends = [0]

    class CountingConnection(Connection):
        async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
            sends[0] += 1
            await super().send_packed_command(command, check_health)

    return CountingConnection, sends


@pytest.mark.parametrize("pipelined", [True, False], ids=["link", "pooled"])
async def test_an_append_that_leaves_the_ttl_gives_it_to_the_keys_it_creates(
    redis_url: str, raw: Any, pipelined: bool
) -> None:
    """``refresh=False`` (the room path gave the TTL lately) leaves the room's TTLs as they are,
    and so spares their commands, but a key the append creates gets it: no key is left forever."""
    store = RedisStore(redis_url, prefix="ref:", pipelined=pipelined)
    keys = [f"ref:{{room:R}}:{k}" for k in ("log", "chain", "replies", "holders")]
    try:
        first = await store.append_at("R", [event(1)], Append(30, 0, Request("p", 1, b"r"), "node", refresh=False))
        assert first == Stored(1)
        for key in keys:  # a new log: every key new, each given the TTL all the same
            assert 29_000 < await raw.pttl(key) <= 30_000, key
        for key in keys:
            await raw.pexpire(key, 10_000)
        await store.append_at("R", [event(2)], Append(30, 1, Request("p", 2, b"r"), "node", refresh=False))
        for key in keys:  # nothing new: left as they were
            assert 9_000 < await raw.pttl(key) <= 10_000, key
        await store.append_at("R", [event(3)], Append(30, 2, Request("q", 1, b"r"), "node", refresh=False))
        for key in keys:  # a new player's memo: the TTL for all
            assert 29_000 < await raw.pttl(key) <= 30_000, key
        for key in keys:
            await raw.pexpire(key, 10_000)
        await store.append_at("R", [event(4)], Append(30, 3, Request("q", 2, b"r"), "other", refresh=False))
        for key in keys:  # a new holder: the TTL for all
            assert 29_000 < await raw.pttl(key) <= 30_000, key
        for key in keys:
            await raw.pexpire(key, 10_000)
        await store.append_at("R", [event(5)], Append(30, 4, Request("q", 3, b"r"), "other"))
        for key in keys:  # refresh=True: the TTL
            assert 29_000 < await raw.pttl(key) <= 30_000, key
        await store.append_at(
            "R", [event(6)], Append(30, 5, Request("q", 4, b"r"), "other", ["R-1-abcdefgh"], refresh=False)
        )
        for key in keys:  # marked: kept whatever the refresh
            assert await raw.pttl(key) == -1, key
        await store.append_at("R", [event(7)], Append(30, 6, Request("q", 5, b"r"), "other", refresh=False))
        for key in keys:
            assert await raw.pttl(key) == -1, key
        assert await raw.llen("ref:{room:R}:log") == 7
    finally:
        await store.close()


@pytest.mark.parametrize("pipelined", [True, False], ids=["link", "pooled"])
async def test_redis_archive_keys_and_ttls(redis_url: str, raw: Any, pipelined: bool) -> None:
    """The keys and TTLs, on either path of the append (the pipelined link, redis-py's pool)."""
    store = RedisStore(redis_url, prefix="arc:", pipelined=pipelined)
    try:
        await store.append_at("R", [event(1)], Append(30, 0, Request("p", 1, b"r"), "node"))
        await store.append_at("R", [event(2)], Append(30, 1, Request("p", 2, b"r"), "node", ["R-1-abcdefgh"]))
        await store.locate("R", "p", "node", 30)
        await store.set_listing("R", b"A", 30)
        await store.index_archive("R")
        keys = sorted(k.decode() for k in await raw.keys("arc:*"))
        assert keys == [
            "arc:archive:due",
            "arc:format",
            "arc:listings",
            "arc:{node:node}:rooms",  # the node's rooms, for a hand-over once it stops
            "arc:{room:R}:archive",
            "arc:{room:R}:chain",
            "arc:{room:R}:holders",
            "arc:{room:R}:listing",
            "arc:{room:R}:log",
            "arc:{room:R}:replies",
            "arc:{room:R}:where",
        ]
        assert await raw.smembers("arc:{room:R}:archive") == {b"R-1-abcdefgh"}
        # The stamp is Redis's clock in microseconds.
        assert abs(await raw.zscore("arc:archive:due", "R") - time.time() * 1e6) < 60e6
        assert (store._link is not None) == pipelined
        kept = (
            "arc:{room:R}:log",
            "arc:{room:R}:replies",
            "arc:{room:R}:holders",
            "arc:{room:R}:chain",
            "arc:{room:R}:archive",
        )
        for key in kept:
            assert await raw.pttl(key) == -1, key
        await raw.pexpire("arc:{room:R}:log", 30_000)  # what a node that knows no marks would do
        await store.expire("R", 20)
        for key in kept:
            assert await raw.pttl(key) == -1, key  # healed
        for key in ("arc:{room:R}:listing", "arc:{room:R}:where"):
            assert 19_000 < await raw.pttl(key) <= 20_000, key
        assert await store.clear_archive("R", ["R-1-abcdefgh"], 10) == 0
        assert not await raw.exists("arc:{room:R}:archive")
        for key in kept[:4]:
            assert 9_000 < await raw.pttl(key) <= 10_000, key
        for key in ("arc:{room:R}:listing", "arc:{room:R}:where"):  # they had a TTL: kept
            assert 19_000 < await raw.pttl(key) <= 20_000, key
    finally:
        await store.close()


async def test_redis_index_stamps_grow_within_a_microsecond(redis_url: str, raw: Any) -> None:
    """Redis's clock gives a room indexed again in the same microsecond (or after a clock set back)
    the same stamp or an older one: the script moves it on regardless."""
    store = RedisStore(redis_url, prefix="stamp:")
    try:
        future = (time.time_ns() // 1000) + 3_600_000_000  # an hour ahead of Redis's clock
        await raw.zadd("stamp:archive:due", {"R": future})
        await store.index_archive("R")
        assert await store.archive_due(1) == [("R", future + 1)]
        assert await store.unindex_archive("R", future) is False
        assert await store.unindex_archive("R", future + 1) is True
    finally:
        await store.close()


async def test_redis_append_is_one_round_trip(redis_url: str, raw: Any) -> None:
    connection_class, sends = counting_connection()
    store = RedisStore(redis_url, prefix="rt:", connection_class=connection_class)
    try:
        # Connect (handshake) and load the append script (once per Redis server) outside the count.
        assert await store.append("R", [event(0)], LONG) == 1
        await raw.config_resetstat()
        sends[0] = 0
        n = 50
        for i in range(1, n + 1):
            assert await store.append("R", [event(i)], LONG) == i + 1
        assert sends[0] == n
        stats = await raw.info("commandstats")
        calls = {name.removeprefix("cmdstat_"): s["calls"] for name, s in stats.items()}
        calls = {name: n for name, n in calls.items() if not name.startswith(("config", "info"))}  # ours
        # One script call each; RPUSH and PEXPIRE run inside it (LLEN too, for the length).
        assert calls == {"evalsha": n, "llen": n, "rpush": n, "pexpire": n}
    finally:
        await store.close()


async def test_redis_chain_is_one_list_whoever_computes_its_links(redis_url: str, raw: Any) -> None:
    """The links the caller gives (issue 42) and those the script computes itself (a write with
    none, as every write was before) make one chain, ``base.chain`` of the log: nodes of either
    build share a room, each checking the other's tips. A caller's links that do not match its
    events in number are refused before anything is sent."""
    store = RedisStore(redis_url, prefix="links:")
    keys = [f"links:{{room:R}}:{k}" for k in ("log", "replies", "holders", "archive", "chain")]
    bell = store.bell("room", "R")
    try:
        log = [event(n) for n in range(6)]
        tips = chain("", log)
        assert await store.append_at("R", log[:2], Append(LONG, 0, tip="", tips=tips[:2])) == Stored(2)
        # No links given: the script computes them (a SHA-1 each), as the previous build's did.
        args = [60_000, 2, "", 0, b"", bell, "old-node", "", tips[1], 0, *log[2:4]]
        assert await raw.eval(APPEND_AT, len(keys), *keys, *args) == [4]
        assert await store.append_at(
            "R", log[4:], Append(LONG, 4, Request("p", 1, b"r"), "node", tip=tips[3])
        ) == Stored(6)
        assert [t.decode() for t in await raw.lrange("links:{room:R}:chain", 0, -1)] == tips
        assert await store.read_from("R", 6) == (6, [], tips[5])
        with pytest.raises(ValueError, match="2 chain tips for 1 events"):
            store.append_at("R", [event(9)], Append(LONG, 6, tip=tips[5], tips=tips[:2]))
        assert await raw.llen("links:{room:R}:log") == 6
    finally:
        await store.close()


async def test_redis_room_ids_uses_scan_not_keys(redis_url: str, raw: Any) -> None:
    store = RedisStore(redis_url, prefix="scan:")
    try:
        rooms = [f"R{n:04d}" for n in range(1500)]  # more than one SCAN page
        for start in range(0, len(rooms), 100):
            async with raw.pipeline(transaction=False) as pipe:
                for room in rooms[start : start + 100]:
                    pipe.rpush(store.log_key(room), b"e")
                await pipe.execute()
        await raw.set("scan:{room:fake}:log", b"not a list")
        await raw.config_resetstat()
        assert await store.room_ids() == rooms
        stats = await raw.info("commandstats")
        assert "cmdstat_keys" not in stats
        assert stats["cmdstat_scan"]["calls"] >= 1
    finally:
        await store.close()


async def test_redis_stopped_raises_store_error_then_recovers(redis_proc: RedisProcess) -> None:
    store = RedisStore(redis_proc.url, prefix="down:")
    try:
        assert await store.append("R", [event(1)], LONG) == 1
        await store.set_listing("R", b"A", LONG)
        await store.put_session("tok", b"S", LONG)
        redis_proc.stop()

        calls: list[Callable[[], Awaitable[object]]] = [
            lambda: store.append("R", [event(2)], LONG),
            lambda: store.load("R"),
            lambda: store.expire("R", LONG),
            lambda: store.room_ids(),
            lambda: store.set_listing("R", b"B", LONG),
            lambda: store.set_listing("R", None, LONG),
            lambda: store.listings(),
            lambda: store.put_session("tok", b"S2", LONG),
            lambda: store.get_session("tok"),
            lambda: store.delete_session("tok"),
            lambda: store.delete("R"),
        ]
        for call in calls:
            started = time.monotonic()
            with pytest.raises(StoreError, match="unavailable") as caught:
                await call()
            assert time.monotonic() - started < 1.0, "a dead Redis must fail fast"
            assert isinstance(caught.value.__cause__, RedisConnectionError)
        assert await store.ping() is False

        redis_proc.start()  # same port; appendonly: the data survived
        assert await store.ping() is True
        assert await store.append("R", [event(2)], LONG) == 2  # the caller's retry works
        assert await store.load("R") == [event(1), event(2)]
        assert await store.listings() == {"R": b"A"}
        assert await store.get_session("tok") == b"S"
    finally:
        await store.close()


async def test_redis_first_call_after_a_restart_succeeds(redis_proc: RedisProcess) -> None:
    store = RedisStore(redis_proc.url, prefix="restart:")
    try:
        await asyncio.gather(*(store.append("R", [event(n)], LONG) for n in range(5)))  # several pooled connections
        redis_proc.stop()  # the process is gone: its end of every connection is closed
        for _ in range(3):  # a running server's event loop (a few turns of it) sees them close
            await asyncio.sleep(0)
        redis_proc.start()
        # Pooled connections died with the old server: they are replaced, not used.
        assert await store.append("R", [event(5)], LONG) == 6
        assert len(await store.load("R")) == 6
        assert await store.room_ids() == ["R"]
    finally:
        await store.close()


async def test_redis_data_survives_restart_with_appendonly(redis_proc: RedisProcess) -> None:
    assert redis_proc.appendonly
    store = RedisStore(redis_proc.url, prefix="aof:")
    try:
        events = [event(n) for n in range(100)]
        for e in events:
            await store.append("R", [e], LONG)
        await store.set_listing("R", b"A", LONG)
        await store.put_session("tok", b"S", LONG)
    finally:
        await store.close()
    redis_proc.stop()
    redis_proc.start()
    store = RedisStore(redis_proc.url, prefix="aof:")
    try:
        assert await store.room_ids() == ["R"]
        assert await store.load("R") == events
        assert await store.listings() == {"R": b"A"}
        assert await store.get_session("tok") == b"S"
    finally:
        await store.close()


async def test_redis_without_appendonly_loses_data_on_restart() -> None:
    """The fixture's own check: without persistence a restart is a blank server (so the test above means something)."""
    with RedisProcess(appendonly=False) as proc:
        store = RedisStore(proc.url, prefix="mem:")
        try:
            await store.append("R", [event(1)], LONG)
            proc.stop()
            proc.start()
            assert await store.load("R") == []
        finally:
            await store.close()


async def test_redis_unreachable_from_the_start() -> None:
    port_with_nothing = RedisProcess(appendonly=False)  # a free port, never started
    try:
        store = RedisStore(port_with_nothing.url)
        with pytest.raises(StoreError, match="unavailable"):
            await store.load("R")
        assert await store.ping() is False
        await store.close()
    finally:
        port_with_nothing.close()


async def test_redis_append_is_never_resent_after_a_lost_reply(redis_url: str) -> None:
    """The transaction reached Redis but its reply was lost: StoreError, and the event is stored once."""
    armed = [False]

    class LossyConnection(Connection):
        async def read_response(self, *args: Any, **kwargs: Any) -> Any:
            if armed[0]:
                armed[0] = False
                await self.disconnect()
                raise RedisConnectionError("reply lost (simulated)")
            return await super().read_response(*args, **kwargs)

    store = RedisStore(redis_url, prefix="lossy:", connection_class=LossyConnection)
    try:
        assert await store.append("R", [event(1)], LONG) == 1
        armed[0] = True
        with pytest.raises(StoreError):
            await store.append("R", [event(2)], LONG)
        deadline = time.monotonic() + 3
        while len(await store.load("R")) < 2:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        # A resend would have gone before the failed call returned: none can land after this.
        assert await store.load("R") == [event(1), event(2)]
    finally:
        await store.close()


async def test_redis_store_error_message_hides_credentials() -> None:
    nowhere = RedisProcess(appendonly=False)  # a free port, never started
    try:
        store = RedisStore(f"redis://alice:s3cret@127.0.0.1:{nowhere.port}/0")
        with pytest.raises(StoreError) as caught:
            await store.get_session("tok")
        message = str(caught.value)
        assert f"127.0.0.1:{nowhere.port}" in message
        assert "s3cret" not in message
        assert "alice" not in message
        await store.close()
    finally:
        nowhere.close()


async def test_a_node_that_leaves_is_dead_at_once_and_an_unknown_one_stays_unknown(store: Store) -> None:
    await store.beat("steady", LONG)
    await store.beat("stopping", LONG)
    await store.leave("stopping")
    await store.leave("never-beat")
    assert await store.alive() == {"steady"}
    assert "stopping" in await store.dead() and "never-beat" not in await store.dead()


async def test_a_node_that_stops_beating_is_listed_dead_for_a_minute(store: Store, later: Later) -> None:
    await store.beat("steady", LONG)
    await store.beat("gone", SHORT)
    assert "gone" in await store.alive() and not await store.dead()
    await later(SHORT + MARGIN)

    async def dead() -> bool:
        return await store.dead() == {"gone"} and await store.alive() == {"steady"}

    await soon(store, dead)
    if isinstance(store, MemoryStore):  # a minute of real time is too long to wait for Redis
        await store.beat("steady", 10 * LONG)
        await later(DEAD_NODES_KEPT)
        assert await store.dead() == set()
