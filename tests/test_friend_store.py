"""The store's ``FriendStore`` contract, on memory, one Redis and a Redis Cluster: presences kept,
read in order and dropped only by who wrote them; invitations taken once, gone when they expire."""

from __future__ import annotations

import asyncio
import time

from server.store.memory import MemoryStore
from server.store.stores import Store
from tests.fakeclock import Seconds


async def test_presences_are_read_in_order_and_dropped_only_as_written(store: Store) -> None:
    await store.put_presence("ann", b"lobby n1", 60)
    await store.put_presence("bob", b"racing n2", 60)
    assert await store.presences(["bob", "cid", "ann"]) == [b"racing n2", None, b"lobby n1"]
    assert await store.presences([]) == []
    await store.put_presence("ann", b"waiting n2", 60)  # Ann moved to node 2
    assert await store.drop_presence("ann", b"lobby n1") is False  # node 1 drops only its own
    assert await store.presences(["ann"]) == [b"waiting n2"]
    assert await store.drop_presence("ann", b"waiting n2") is True
    assert await store.presences(["ann"]) == [None]


async def test_an_invitation_is_taken_once(store: Store) -> None:
    await store.put_invite("ABCDEFGHJKLM", b"ann bob ROOM01", 60)
    got = await asyncio.gather(*(store.take_invite("ABCDEFGHJKLM") for _ in range(5)))
    assert sorted(got, key=lambda g: g is None) == [b"ann bob ROOM01", None, None, None, None]
    assert await store.take_invite("NEVERMADE000") is None


async def test_presences_and_invitations_expire(store: Store, clock: Seconds) -> None:
    await store.put_presence("ann", b"lobby", 0.2)
    await store.put_invite("ABCDEFGHJKLM", b"x", 0.2)
    if isinstance(store, MemoryStore):
        clock.advance(0.25)
    else:
        deadline = time.monotonic() + 3
        while await store.presences(["ann"]) != [None]:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
    assert await store.presences(["ann"]) == [None]
    assert await store.take_invite("ABCDEFGHJKLM") is None
