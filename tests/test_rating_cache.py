"""The store's ``RatingCache`` contract, on memory, one Redis and a Redis Cluster: each player's
shown rating per preset, replaced by the next put, gone when its TTL runs out."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

from server.store.stores import MemoryStore, RedisStore, Store
from tests.fakeclock import Seconds


async def test_a_rating_is_kept_per_player_and_preset(store: Store) -> None:
    assert await store.get_rating("uA", "classic") is None
    await store.put_rating("uA", "classic", 1523, 60)
    await store.put_rating("uA", "fortune", 1480, 60)
    await store.put_rating("uB", "classic", 1399, 60)
    assert await store.get_rating("uA", "classic") == 1523
    assert await store.get_rating("uA", "fortune") == 1480
    assert await store.get_rating("uB", "classic") == 1399
    assert await store.get_rating("uB", "fortune") is None
    await store.put_rating("uA", "classic", 1537, 60)  # the next race's number replaces it
    assert await store.get_rating("uA", "classic") == 1537
    await store.put_rating("uA", "classic", -3, 60)  # any int (a shown number may go low)
    assert await store.get_rating("uA", "classic") == -3


async def test_a_rating_expires(store: Store, clock: Seconds) -> None:
    await store.put_rating("uA", "classic", 1500, 0.2)
    if isinstance(store, MemoryStore):
        clock.advance(0.3)
    else:
        await asyncio.sleep(0.3)
    assert await store.get_rating("uA", "classic") is None


async def test_the_redis_key_is_the_players_own(redis_url: str) -> None:
    """Another build (the quick match's) may read the key itself: its name and form are the contract."""
    store = RedisStore(redis_url, prefix=f"test-{uuid.uuid4().hex[:8]}:")
    raw = aioredis.Redis.from_url(redis_url)
    try:
        await store.put_rating("uA", "classic", 1511, 60)
        assert await raw.get(f"{store.prefix}{{player:uA}}:rating:classic") == b"1511"
        assert 0 < await raw.pttl(f"{store.prefix}{{player:uA}}:rating:classic") <= 60_000
    finally:
        await raw.aclose()
        await store.close()


async def test_bad_input_is_refused(store: Store) -> None:
    bad: list[tuple[object, float]] = [(1500, 0), (1500, -1), (1500.5, 60), (True, 60), ("1500", 60)]
    for rating, ttl in bad:
        with pytest.raises(ValueError):
            await store.put_rating("uA", "classic", rating, ttl)  # type: ignore[arg-type]
    assert await store.get_rating("uA", "classic") is None
