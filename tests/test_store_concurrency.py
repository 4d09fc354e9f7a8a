"""The store's contract for several nodes on every backend (memory, one Redis, a Redis Cluster):
appends only at the expected length, requests stored once with their reply, reads from an index,
and doorbells."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import pytest

from server.store.base import BELL_EVENTS, Append, Behind, Duplicate, Forked, Request, Stored, chain, room_bell
from server.store.interfaces import Store
from server.store.redisstore import RedisStore
from tests.redis_cluster import LocalCluster

TTL = 60.0


async def test_append_at_stores_only_at_the_expected_length(store: Store) -> None:
    assert (await store.append_at("R1", [b"a", b"b"], Append(TTL, 0))) == Stored(2)
    # Another node wrote first: nothing stored, the events it missed come back.
    behind = await store.append_at("R1", [b"x"], Append(TTL, 1))
    assert behind == Behind(2, [b"b"])
    # The log lost its tail (or expired): shorter than expected, no gap.
    ahead = await store.append_at("R1", [b"x"], Append(TTL, 5))
    assert ahead == Behind(2, [])
    assert await store.load("R1") == [b"a", b"b"]
    assert (await store.append_at("R1", [b"c"], Append(TTL, 2))) == Stored(3)
    assert await store.read_from("R1", 1) == (3, [b"b", b"c"], chain("", [b"a"])[-1])
    assert await store.read_from("R9", 0) == (0, [], "")


async def test_a_request_is_stored_once_and_its_reply_kept(store: Store) -> None:
    await store.append_at("R2", [b"created"], Append(TTL, 0))
    first = Request("p1", 7, b"reply-7")
    assert isinstance(await store.append_at("R2", [b"undo"], Append(TTL, 1, first)), Stored)
    assert await store.memo("R2", "p1") == (7, b"reply-7")
    # A resend (after a lost reply, a restart, on another node) stores nothing and gets the reply,
    # whatever length it expected.
    for expected in (1, 2):
        again = await store.append_at("R2", [b"undo"], Append(TTL, expected, Request("p1", 7, b"other")))
        assert again == Duplicate(2, b"reply-7")
    older = await store.append_at("R2", [b"move"], Append(TTL, 2, Request("p1", 6, b"reply-6")))
    assert older == Duplicate(2, None)
    assert await store.load("R2") == [b"created", b"undo"]
    assert await store.memo("R2", "p2") is None
    assert isinstance(await store.append_at("R2", [b"move"], Append(TTL, 2, Request("p1", 8, b"reply-8"))), Stored)
    assert await store.memo("R2", "p1") == (8, b"reply-8")


async def test_doorbells_ring_for_other_holders_appends_and_rings(store: Store) -> None:
    heard: asyncio.Queue[tuple[str, str, bytes]] = asyncio.Queue()
    listening = asyncio.get_running_loop().create_task(store.doorbells(lambda *bell: heard.put_nowait(bell)))
    try:
        assert await asyncio.wait_for(heard.get(), 10) == ("*", "", b"")  # subscribed from here on
        # A node hears the rooms and sessions it listens to (Redis: their own channels).
        await store.listen([("room", "R3"), ("room", "R5"), ("session", "TOKEN"), ("player", "p9")])
        # A node alone with its room hears no doorbell of its own appends...
        assert isinstance(await store.append_at("R3", [b"a"], Append(TTL, 0, holder="node-a")), Stored)
        assert isinstance(await store.append_at("R3", [b"b"], Append(TTL, 1, holder="node-a")), Stored)
        # ...until another node reads the room: from that instant on, every append rings.
        assert await store.load("R3", "node-b") == [b"a", b"b"]
        assert isinstance(await store.append_at("R3", [b"c"], Append(TTL, 2, holder="node-a")), Stored)
        assert await rung(heard) == ("R3", 3, [b"c"])  # the events ride along with the new length
        assert isinstance(
            await store.append_at("R3", [b"d", b"e"], Append(TTL, 3, holder="node-b")), Stored
        )  # for node-a
        assert await rung(heard) == ("R3", 5, [b"d", b"e"])
        many = [b"%d" % n for n in range(BELL_EVENTS + 1)]
        assert isinstance(await store.append_at("R3", many, Append(TTL, 5, holder="node-a")), Stored)
        assert await rung(heard) == ("R3", 5 + len(many), None)  # too many to carry: read them
        await store.append_at("R3", [b"x"], Append(TTL, 0, holder="node-a"))  # not stored: no doorbell
        await store.ring("session", "TOKEN", "node-b")
        assert await asyncio.wait_for(heard.get(), 10) == ("session", "TOKEN", b"node-b")
        # Reading from an index counts the reader too; an unknown room holds nobody.
        assert await store.read_from("R5", 0, "node-c") == (0, [], "")
        assert isinstance(await store.append_at("R5", [b"a"], Append(TTL, 0, holder="node-a")), Stored)
        assert (await store.read_from("R5", 1, "node-c"))[:2] == (1, [])
        assert isinstance(await store.append_at("R5", [b"b"], Append(TTL, 1, holder="node-a")), Stored)
        assert await rung(heard) == ("R5", 2, [b"b"])
        await store.ring("player", "p9", b"frame")
        assert await asyncio.wait_for(heard.get(), 10) == ("player", "p9", b"frame")
        await store.ring("wiped", "R5", "node-a")
        assert await asyncio.wait_for(heard.get(), 10) == ("wiped", "R5", b"node-a")
        await store.ring("arena", "ARENA1", "standings")  # every node hears the arenas
        assert await asyncio.wait_for(heard.get(), 10) == ("arena", "ARENA1", b"standings")
        assert heard.empty()
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening


async def rung(heard: asyncio.Queue[tuple[str, str, bytes]]) -> tuple[str, int, list[bytes] | None]:
    """The next room doorbell: its room, the length it announces, the events it carries."""
    kind, room, data = await asyncio.wait_for(heard.get(), 10)
    assert kind == "room"
    length, events, _ = room_bell(data)
    return room, length, events


async def test_nodes_beat_and_members_are_located(store: Store) -> None:
    await store.beat("node-a", 60)
    assert "node-a" in await store.alive()
    assert await store.located("R4") == {}
    await store.locate("R4", "p1", "node-a", TTL)
    await store.locate("R4", "p2", "node-b", TTL)
    await store.locate("R4", "p1", "node-b", TTL)  # p1 reconnected through node-b
    assert await store.located("R4") == {"p1": "node-b", "p2": "node-b"}
    await store.delete("R4")
    assert await store.located("R4") == {}


async def test_an_append_names_the_history_it_follows_by_its_chain_tip(store: Store) -> None:
    """A log that lost its tail and grew again by other events cannot pass for the old one: the
    tip at the index names every event before it (issue 20)."""
    ours = [b"created", b"a", b"b"]
    tips = chain("", ours)
    assert (await store.append_at("F1", ours[:2], Append(TTL, 0, tip=""))) == Stored(2)
    assert (await store.append_at("F1", ours[2:], Append(TTL, 2, tip=tips[1]))) == Stored(3)
    assert await store.read_from("F1", 3) == (3, [], tips[2])
    # A node that never saw b"a" and b"b" (the tail a replica lost) wrote its own at index 1.
    assert (await store.append_at("F2", [b"created", b"x", b"y"], Append(TTL, 0, tip=""))) == Stored(3)
    theirs = chain("", [b"created", b"x", b"y"])
    # Same length, other history: refused with the whole log, nothing stored.
    forked = await store.append_at("F2", [b"c"], Append(TTL, 3, Request("p", 1, b"r"), tip=tips[2]))
    assert forked == Forked(3, [b"created", b"x", b"y"])
    # Ours shorter but not a prefix of the stored log: refused too (at index 2 it holds b"y").
    assert await store.append_at("F2", [b"c"], Append(TTL, 2, tip=tips[1])) == Forked(3, [b"created", b"x", b"y"])
    # Ours longer: Behind, with the stored tip at its length, which is not ours there.
    behind = await store.append_at("F2", [b"c"], Append(TTL, 4, tip="whatever"))
    assert behind == Behind(3, []) and isinstance(behind, Behind) and behind.tip == theirs[2] != tips[2]
    # Ours a prefix of the stored log: Behind with the events that follow ours.
    assert await store.append_at("F2", [b"c"], Append(TTL, 1, tip=theirs[0])) == Behind(3, [b"x", b"y"])
    assert await store.load("F2") == [b"created", b"x", b"y"]
    assert await store.memo("F2", "p") is None
    # A reader hears the tip at its index: equal to its own, the events follow its log.
    assert await store.read_from("F2", 2) == (3, [b"y"], theirs[1])
    assert (await store.read_from("F2", 5))[2] == theirs[2]  # beyond the log: the tip at its length
    # The right tip stores, and the chain goes on from it; None checks the length only.
    assert (await store.append_at("F2", [b"z"], Append(TTL, 3, tip=theirs[2]))) == Stored(4)
    assert await store.read_from("F2", 4) == (4, [], chain(theirs[2], [b"z"])[0])
    assert (await store.append_at("F2", [b"w"], Append(TTL, 4))) == Stored(5)


async def test_a_doorbell_names_the_tip_its_events_follow(store: Store) -> None:
    heard: asyncio.Queue[tuple[str, str, bytes]] = asyncio.Queue()
    listening = asyncio.create_task(store.doorbells(lambda kind, key, data: heard.put_nowait((kind, key, data))))
    try:
        assert await asyncio.wait_for(heard.get(), 10) == ("*", "", b"")  # listening from here on
        await store.listen([("room", "F3")])
        assert (await store.append_at("F3", [b"created"], Append(TTL, 0, holder="node-a", tip=""))) == Stored(1)
        assert (
            await store.append_at("F3", [b"m"], Append(TTL, 1, holder="node-b", tip=chain("", [b"created"])[0]))
        ) == Stored(2)
        kind, room, data = await asyncio.wait_for(heard.get(), 10)
        assert (kind, room) == ("room", "F3")
        assert room_bell(data) == (2, [b"m"], chain("", [b"created"])[0])
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening


async def test_the_links_a_caller_gives_are_the_chain_it_names_and_a_doorbell_follows(store: Store) -> None:
    """The room path computes an append's new tips once (``base.chain`` from the tip it names) and
    hands them over, so Redis computes no SHA-1 (issue 42): the stored chain is the same as the
    one computed from the log, a reader's and a doorbell's tips follow it, and a wrong tip named is
    still refused before anything (links included) is written."""
    heard: asyncio.Queue[tuple[str, str, bytes]] = asyncio.Queue()
    listening = asyncio.create_task(store.doorbells(lambda kind, key, data: heard.put_nowait((kind, key, data))))
    try:
        assert await asyncio.wait_for(heard.get(), 10) == ("*", "", b"")
        await store.listen([("room", "L1")])
        log = [b"created", b"m1", b"m2", b"m3"]
        tips = chain("", log)
        assert await store.append_at("L1", log[:2], Append(TTL, 0, holder="node-a", tip="", tips=tips[:2])) == Stored(2)
        assert await store.append_at(
            "L1", log[2:3], Append(TTL, 2, holder="node-b", tip=tips[1], tips=tips[2:3])
        ) == Stored(3)
        kind, room, data = await asyncio.wait_for(heard.get(), 10)
        assert (kind, room) == ("room", "L1") and room_bell(data) == (3, [b"m2"], tips[1])
        assert await store.read_from("L1", 2) == (3, [b"m2"], tips[1])
        assert await store.read_from("L1", 3) == (3, [], tips[2])
        # Named from another history: refused, and neither the log nor its chain grew.
        other = chain("", [b"created", b"x", b"y"])
        assert await store.append_at(
            "L1", [b"z"], Append(TTL, 3, tip=other[2], tips=chain(other[2], [b"z"]))
        ) == Forked(3, log[:3])
        assert await store.append_at(
            "L1", log[3:], Append(TTL, 3, holder="node-b", tip=tips[2], tips=tips[3:])
        ) == Stored(4)
        assert await store.read_from("L1", 4) == (4, [], tips[3])
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening


@pytest.fixture(params=["redis", "cluster"])
async def redis_store(request: pytest.FixtureRequest) -> AsyncIterator[RedisStore]:
    """A RedisStore (unique prefix) on one redis-server or on the session's Redis Cluster."""
    if request.param == "redis":
        url: str = request.getfixturevalue("redis_url")
    else:
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        url = cluster.url
    backend = RedisStore(url, prefix=f"test-{uuid.uuid4().hex[:8]}:")
    try:
        yield backend
    finally:
        await backend.close()


async def test_a_node_hears_only_what_it_listens_to(redis_store: RedisStore) -> None:
    """On Redis (one server or a cluster: shard channels) a room's doorbell reaches only the nodes
    listening to its channel, and stops once they let go of it."""
    store = redis_store
    heard: asyncio.Queue[tuple[str, str, bytes]] = asyncio.Queue()
    listening = asyncio.get_running_loop().create_task(store.doorbells(lambda *bell: heard.put_nowait(bell)))
    try:
        assert await asyncio.wait_for(heard.get(), 10) == ("*", "", b"")
        await store.listen([("room", "H1")])
        assert isinstance(await store.append_at("H1", [b"a"], Append(TTL, 0, holder="node-a")), Stored)
        assert isinstance(await store.append_at("H2", [b"a"], Append(TTL, 0, holder="node-a")), Stored)
        for room in ("H1", "H2"):
            assert await store.load(room, "node-b") == [b"a"]
            assert isinstance(await store.append_at(room, [b"b"], Append(TTL, 1, holder="node-a")), Stored)
        await store.ring("session", "NOT-HERE", "node-b")
        await store.ring("player", "nobody-here", b"frame")
        assert await rung(heard) == ("H1", 2, [b"b"])  # H2 rang too, on a channel nobody here hears
        store.unlisten([("room", "H1")])
        await asyncio.sleep(0.2)  # the unsubscription goes out in the background
        assert isinstance(await store.append_at("H1", [b"c"], Append(TTL, 2, holder="node-a")), Stored)
        await store.listen([("room", "H2")])
        assert isinstance(await store.append_at("H2", [b"c"], Append(TTL, 2, holder="node-a")), Stored)
        assert await rung(heard) == ("H2", 3, [b"c"])
        assert heard.empty()
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening


async def test_rooms_fall_due_are_claimed_once_a_lease_and_a_dead_nodes_rooms_are_handed_over(store: Store) -> None:
    await store.set_due("D1", 1_000)
    await store.set_due("D2", 5_000)
    await store.set_due("D3", 2_000)
    await store.set_due("D3", None)  # nothing to time any more
    assert await store.claim_due(900, 10_000, 10) == []
    assert await store.claim_due(6_000, 10_000, 1) == ["D1"]  # the earliest first, at most ``count``
    assert await store.claim_due(6_000, 10_000, 10) == ["D2"]  # D1 is put off while it is loaded
    assert await store.claim_due(16_000, 10_000, 10) == ["D1", "D2"]  # its claimer died: it comes back
    await store.set_due("D1", None)
    await store.set_due("D2", None)
    # A node's rooms (where it located members) become due once it is handed over, once.
    await store.locate("D4", "p1", "node-x", TTL)
    await store.locate("D5", "p2", "node-x", TTL)
    await store.locate("D5", "p3", "node-y", TTL)
    await store.set_due("D5", 100)  # due earlier already: kept earlier
    assert await store.hand_over("node-x", 30_000) == 2
    assert await store.hand_over("node-x", 30_000) == 0
    assert sorted(await store.claim_due(30_000, 1_000, 10)) == ["D4", "D5"]
