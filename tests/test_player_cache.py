"""The store's ``PlayerCache`` contract, on memory, one Redis and a Redis Cluster: registered
players' entries (filled only where none is, marked whatever is), each one's live session token
(swapped only from the one seen), and counted attempts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from server.store.stores import MemoryStore, Store
from tests.fakeclock import Seconds

Later = Callable[[float], Awaitable[None]]


@pytest.fixture
def later(store: Store, clock: Seconds) -> Later:
    """Let ``seconds`` pass for the store: the memory store's manual clock, or a real wait for Redis."""

    async def later(seconds: float) -> None:
        if isinstance(store, MemoryStore):
            clock.advance(seconds)
        else:
            await asyncio.sleep(seconds)

    return later


async def test_an_entry_is_filled_only_where_none_is(store: Store) -> None:
    assert await store.player_entry("uA") is None
    assert await store.fill_player("uA", b"first", 60) is True
    assert await store.fill_player("uA", b"second", 60) is False  # a fill never overwrites
    assert await store.player_entry("uA") == b"first"
    await store.mark_player("uA", b"", 60)  # a mark does
    assert await store.player_entry("uA") == b""
    assert await store.fill_player("uA", b"stale", 60) is False  # and keeps fills out
    assert await store.player_entry("uB") is None  # one player's entry is theirs only


async def test_an_entry_is_swapped_only_from_the_one_written(store: Store) -> None:
    assert await store.swap_player_entry("uA", b"!m1", b"fresh", 60) is False  # nothing there
    await store.mark_player("uA", b"!m1", 60)
    assert await store.swap_player_entry("uA", b"!m0", b"stale", 60) is False
    assert await store.player_entry("uA") == b"!m1"
    assert await store.swap_player_entry("uA", b"!m1", b"fresh", 60) is True
    assert await store.player_entry("uA") == b"fresh"
    assert await store.swap_player_entry("uA", b"!m1", b"again", 60) is False


async def test_entries_and_marks_expire(store: Store, later: Later) -> None:
    await store.mark_player("uA", b"", 0.2)
    await store.fill_player("uB", b"b", 0.2)
    await later(0.3)
    assert await store.player_entry("uA") is None and await store.player_entry("uB") is None
    assert await store.fill_player("uA", b"fresh", 60) is True
    assert await store.player_entry("uA") == b"fresh"


async def test_the_session_token_is_swapped_only_from_the_one_seen(store: Store) -> None:
    assert await store.player_session("uA") is None
    assert await store.swap_player_session("uA", None, "t1", 60) == "t1"
    assert await store.player_session("uA") == "t1"
    assert await store.swap_player_session("uA", None, "t2", 60) == "t1"  # someone else's is there
    assert await store.swap_player_session("uA", "t0", "t2", 60) == "t1"
    assert await store.swap_player_session("uA", "t1", "t2", 60) == "t2"
    assert await store.swap_player_session("uA", "t2", "t2", 60) == "t2"  # kept (its TTL renewed)
    assert await store.swap_player_session("uA", "t1", None, 60) == "t2"
    assert await store.swap_player_session("uA", "t2", None, 60) is None
    assert await store.player_session("uA") is None


async def test_two_swaps_at_once_agree_on_one_session(store: Store) -> None:
    kept = await asyncio.gather(*(store.swap_player_session("uA", None, f"t{n}", 60) for n in range(8)))
    assert len(set(kept)) == 1 and await store.player_session("uA") == kept[0]


async def test_a_session_token_expires(store: Store, later: Later) -> None:
    await store.swap_player_session("uA", None, "t1", 0.2)
    await later(0.3)
    assert await store.player_session("uA") is None


async def test_attempts_are_counted_in_windows(store: Store, later: Later) -> None:
    """A window starts at its first attempt and is not moved by later ones. With Redis the window
    runs on the real clock, so what an attempt must count is read from when it was made: a busy
    machine may put an attempt past the window, and then it starts a new one."""
    window = 2.0  # seconds: room for a busy machine between the first three attempts
    asked = time.monotonic()  # the first attempt's window ends after asked + window...
    assert await store.count_attempt("sign-in:ann", window) == 1
    answered = time.monotonic()  # ... and not after answered + window
    assert [await store.count_attempt("sign-in:ann", window) for _ in range(2)] == [2, 3]
    assert await store.count_attempt("sign-in:bob", window) == 1
    await later(0.2)
    sent = time.monotonic()
    fourth = await store.count_attempt("sign-in:ann", window)
    assert fourth in (1, 4)
    if isinstance(store, MemoryStore) or time.monotonic() < asked + window:
        assert fourth == 4  # within the first attempt's window
    elif sent > answered + window:
        assert fourth == 1  # the machine was slow: past it, a new window
    if fourth == 1:  # that new window is the one to outlast
        answered = time.monotonic()
    if isinstance(store, MemoryStore):
        await later(window)
    else:  # past the first attempt's window, not past one the later attempts would have moved
        await asyncio.sleep(max(0.0, answered + window + 0.05 - time.monotonic()))
    assert await store.count_attempt("sign-in:ann", window) == 1  # a new window


async def test_attempts_at_once_are_each_counted(store: Store) -> None:
    counts = await asyncio.gather(*(store.count_attempt("sign-in:ann", 60) for _ in range(20)))
    assert sorted(counts) == list(range(1, 21))


async def test_bad_ttls_are_refused(store: Store) -> None:
    for call in (
        lambda: store.fill_player("uA", b"x", 0),
        lambda: store.mark_player("uA", b"x", -1),
        lambda: store.swap_player_entry("uA", b"x", b"y", 0),
        lambda: store.swap_player_session("uA", None, "t", 0),
        lambda: store.count_attempt("x", 0),
    ):
        with pytest.raises(ValueError):
            await call()
