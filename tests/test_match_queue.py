"""The store's ``MatchQueues`` contract, on memory, one Redis and a Redis Cluster: who is paired
with whom as the window widens, each waiter taken out once, dead nodes' waiters dropped; and the
Redis script agreeing with the Python rule (server/store/matching.py) on random queues."""

from __future__ import annotations

import asyncio
import random

import pytest
import redis.asyncio as aioredis

from server.store.matching import Matched, Waiter, Window, pair_up
from server.store.stores import MemoryStore, RedisStore, Store
from tests.fakeclock import Seconds

WINDOW = Window(base=100, widens=50, anyone_after_ms=9000)
T0 = 1_700_000_000_000
ALIVE = ("nodeA", "nodeB")


def waiter(player: str, rating: int, joined: int = T0, node: str = "nodeA") -> Waiter:
    return Waiter(player, rating, joined, node, f"R{player.upper()}")


async def test_close_ratings_pair_at_once_and_far_ones_wait(store: Store) -> None:
    assert await store.enqueue("classic", waiter("ann", 1500), WINDOW, T0, ALIVE, wait=True) is None
    assert await store.enqueue("classic", waiter("bob", 1750), WINDOW, T0, ALIVE, wait=True) is None  # 250 apart
    partner = await store.enqueue("classic", waiter("cid", 1580), WINDOW, T0, ALIVE, wait=True)
    assert partner == waiter("ann", 1500)  # within 100 of cid: the nearest, taken out
    assert await store.enqueue("classic", waiter("dan", 1560), WINDOW, T0, ALIVE, wait=False) is None  # bob: too far
    # Another queue is another kind of race: nobody there.
    assert await store.enqueue("freecell", waiter("eve", 1750), WINDOW, T0, ALIVE, wait=False) is None
    assert await store.match_waiters("classic", "nodeA", ALIVE, ["bob"], WINDOW, T0) == Matched([], [], 1)


async def test_the_window_widens_with_the_longer_wait_until_anyone_goes(store: Store) -> None:
    await store.enqueue("classic", waiter("ann", 1500, T0), WINDOW, T0, ALIVE, wait=True)
    await store.enqueue("classic", waiter("bob", 1800, T0 + 1000), WINDOW, T0 + 1000, ALIVE, wait=True)
    await store.enqueue("classic", waiter("cid", 3000, T0 + 2000), WINDOW, T0 + 2000, ALIVE, wait=True)
    # 300 apart: ann's wait must reach 4 s (100 + 50 * 4 = 300).
    at = T0 + 3999
    assert await store.match_waiters("classic", "nodeA", ALIVE, ["ann", "bob", "cid"], WINDOW, at) == Matched([], [], 3)
    at = T0 + 4000
    matched = await store.match_waiters("classic", "nodeA", ALIVE, ["ann", "bob", "cid"], WINDOW, at)
    # Both on this node: the newer moves into the older's room.
    assert matched == Matched([(waiter("bob", 1800, T0 + 1000), waiter("ann", 1500, T0))], [], 1)
    dan = waiter("dan", 1000, T0 + 5000)
    assert await store.enqueue("classic", dan, WINDOW, T0 + 5000, ALIVE, wait=True) is None  # 2000 from cid
    # cid has waited 9 s: anyone goes, whatever the ratings.
    matched = await store.match_waiters("classic", "nodeA", ALIVE, ["cid", "dan"], WINDOW, T0 + 11_000)
    assert matched == Matched([(dan, waiter("cid", 3000, T0 + 2000))], [], 0)


async def test_only_pairs_with_a_waiter_of_the_asking_node_are_taken(store: Store) -> None:
    await store.enqueue("classic", waiter("ann", 1500, T0, "nodeB"), WINDOW, T0, ALIVE, wait=True)
    await store.enqueue("classic", waiter("bob", 2000, T0 + 1, "nodeB"), WINDOW, T0, ALIVE, wait=True)
    await store.enqueue("classic", waiter("dan", 2600, T0 + 3, "nodeA"), WINDOW, T0, ALIVE, wait=True)
    # ann and bob are both nodeB's: nodeA leaves them (and their pair) to nodeB.
    later = T0 + 20_000
    matched = await store.match_waiters("classic", "nodeA", ALIVE, ["dan", "gone"], WINDOW, later)
    assert matched == Matched([], ["gone"], 3)
    matched = await store.match_waiters("classic", "nodeB", ALIVE, ["ann", "bob"], WINDOW, later)
    # ann (the oldest) takes the nearest rating, bob; both are nodeB's, so the newer, bob, moves.
    assert matched == Matched([(waiter("bob", 2000, T0 + 1, "nodeB"), waiter("ann", 1500, T0, "nodeB"))], [], 1)


async def test_a_pair_across_nodes_moves_the_asking_nodes_waiter(store: Store) -> None:
    ann = waiter("ann", 1500, T0, "nodeB")
    bob = waiter("bob", 1900, T0 + 100, "nodeA")
    await store.enqueue("classic", ann, WINDOW, T0, ALIVE, wait=True)
    await store.enqueue("classic", bob, WINDOW, T0 + 100, ALIVE, wait=True)
    matched = await store.match_waiters("classic", "nodeA", ALIVE, ["bob"], WINDOW, T0 + 6000)
    assert matched == Matched([(bob, ann)], [], 0)  # bob, of nodeA, moves though ann is older


async def test_waiters_of_dead_nodes_are_dropped(store: Store) -> None:
    await store.enqueue("classic", waiter("ann", 1500, T0, "nodeB"), WINDOW, T0, ALIVE, wait=True)
    assert await store.enqueue("classic", waiter("bob", 1500), WINDOW, T0, ["nodeA"], wait=True) is None
    # ann is gone for good, not only skipped: nodeB coming back does not bring her back.
    assert await store.enqueue("classic", waiter("cid", 1500), WINDOW, T0, ALIVE, wait=False) == waiter("bob", 1500)
    assert await store.match_waiters("classic", "nodeB", ALIVE, ["ann"], WINDOW, T0) == Matched([], ["ann"], 0)


async def test_waiting_again_replaces_the_entry_and_dequeue_needs_the_same_wait(store: Store) -> None:
    await store.enqueue("classic", waiter("ann", 1500, T0), WINDOW, T0, ALIVE, wait=True)
    # Her own entry is no partner: she waits again, once.
    assert await store.enqueue("classic", waiter("ann", 1500, T0 + 5), WINDOW, T0 + 5, ALIVE, wait=True) is None
    assert not await store.dequeue("classic", "ann", T0)  # that wait is over
    assert await store.dequeue("classic", "ann", T0 + 5)
    assert not await store.dequeue("classic", "ann", T0 + 5)
    assert await store.match_waiters("classic", "nodeA", ALIVE, ["ann"], WINDOW, T0) == Matched([], ["ann"], 0)


async def test_a_queue_expires_when_nobody_calls(clock: Seconds) -> None:
    store = MemoryStore(clock=clock)
    await store.enqueue("classic", waiter("ann", 1500), WINDOW, T0, ALIVE, wait=True)
    clock.advance(119)
    await store.match_waiters("classic", "nodeA", ALIVE, ["ann"], WINDOW, T0)  # renews it
    clock.advance(119)
    assert await store.match_waiters("classic", "nodeA", ALIVE, ["ann"], WINDOW, T0) == Matched([], [], 1)
    clock.advance(121)
    assert await store.enqueue("classic", waiter("bob", 1500), WINDOW, T0, ALIVE, wait=False) is None


async def test_the_redis_queue_is_one_hash_with_a_ttl(redis_url: str, redis: aioredis.Redis) -> None:
    """The key layout (redisstore's docstring): one key per queue, renewed by every call."""
    store = RedisStore(redis_url, prefix="layout:")
    try:
        await store.enqueue("classic", waiter("ann", 1500), WINDOW, T0, ALIVE, wait=True)
        key = store.queue_key("classic")
        assert key == "layout:{match:classic}"
        assert await redis.hgetall(key) == {b"ann": f"1500 {T0} nodeA RANN".encode()}
        assert 110_000 < await redis.pttl(key) <= 120_000
    finally:
        await store.close()


async def test_concurrent_enqueues_take_each_waiter_once(store: Store) -> None:
    players = [waiter(f"p{i:03d}", 1500 + i % 7) for i in range(60)]
    found = await asyncio.gather(*(store.enqueue("classic", p, WINDOW, T0, ALIVE, wait=True) for p in players))
    partners = [f.player for f in found if f is not None]
    assert len(partners) == len(set(partners)) == 30  # every second one found the one before
    takers = {p.player for p, f in zip(players, found, strict=True) if f is not None}
    assert not takers & set(partners)  # who took a partner never waited, so nobody took them
    assert await store.match_waiters("classic", "nodeA", ALIVE, [], WINDOW, T0) == Matched([], [], 0)


def test_a_waiter_is_checked() -> None:
    for bad in (("a b", 1, 1, "n", "R"), ("a", 1, 1, "", "R"), ("a", 1.5, 1, "n", "R"), ("a", True, 1, "n", "R")):
        with pytest.raises(ValueError):
            Waiter(*bad)
    with pytest.raises(ValueError):
        Window(-1, 50, 9000)
    assert Window(100, 50, 9000).width(3500) == 275


async def test_the_script_pairs_as_the_python_rule_does(redis_url: str, redis: aioredis.Redis) -> None:
    store = RedisStore(redis_url, prefix="twin:")
    rng = random.Random(23)
    try:
        for round_ in range(40):
            queue = f"q{round_}"
            entries = [
                Waiter(
                    f"{rng.choice('aAbB')}{i}",
                    rng.randrange(1200, 1900, 25),
                    T0 + rng.randrange(0, 8000, 500),
                    rng.choice(ALIVE),
                    f"R{i}",
                )
                for i in range(rng.randrange(2, 14))
            ]
            for entry in entries:  # as they stand, whatever pairs they allow: the script decides
                await redis.hset(store.queue_key(queue), entry.player, entry.entry())
            now = T0 + rng.randrange(0, 12_000)
            mine = [e.player for e in entries if e.node == "nodeA"]
            matched = await store.match_waiters(queue, "nodeA", ALIVE, mine, WINDOW, now)
            expected = [
                (newer, older) if newer.node == "nodeA" else (older, newer)
                for older, newer in pair_up(entries, WINDOW, now)
                if "nodeA" in (older.node, newer.node)
            ]
            assert matched.pairs == expected, (round_, entries, now)
            assert matched.left == len(entries) - 2 * len(expected)
    finally:
        await store.close()
