"""A task stopped in the middle of a store call stops: a node's graceful stop cancels its
background tasks (the doorbell listener, the heartbeat) and waits for them, so one that goes on
keeps the node running for ever. Found as a supervisor that never exited after a drain that came as
its workers started (1 run in 10 to 30): redis-py answered the cancellation inside its call with a
result, or with a connection error that the store's resend hid, and the task went on to wait or to
sleep and beat again."""

from __future__ import annotations

import asyncio

from server.store.base import StoreError
from server.store.redisstore import RedisStore

TRIALS = 80
STEP = 0.000_15
"""Seconds between the cancellation times tried: 80 of them cover the first 12 ms of a start."""


def ignore(kind: str, key: str, data: bytes) -> None:
    """Doorbells are not what this test is about."""


async def test_a_doorbell_listener_cancelled_at_any_moment_of_its_start_stops(redis_url: str) -> None:
    for trial in range(TRIALS):
        store = RedisStore(redis_url, prefix=f"stop{trial}:")
        listener = asyncio.create_task(store.doorbells(ignore))
        # Rooms and sessions listen while the listener starts, as they do when a node starts.
        listens: list[asyncio.Future[None]] = [
            asyncio.ensure_future(store.listen([("room", f"R{i}")])) for i in range(3)
        ]
        await asyncio.sleep(trial * STEP)
        listener.cancel()
        done, _ = await asyncio.wait([listener], timeout=3)
        for listen in listens:
            listen.cancel()
        await asyncio.gather(*listens, return_exceptions=True)
        await store.close()
        assert listener in done, f"still listening 3 s after its cancellation at {trial * STEP * 1000:.2f} ms"
        assert listener.cancelled()


async def test_a_loop_of_store_calls_cancelled_at_any_moment_stops(redis_url: str) -> None:
    # A heartbeat's shape: a store call, its StoreError logged, a sleep, again. redis-py may answer a
    # cancellation inside its call with a connection error (the store's resend then hides it) or a
    # result; either way the loop must stop, not sleep and beat on.
    store = RedisStore(redis_url, prefix="beats:")
    beats = 0

    async def beating() -> None:
        nonlocal beats
        while True:
            try:
                await store.beat("node", 10)
                beats += 1
            except StoreError:
                pass
            await asyncio.sleep(0.001)

    try:
        for trial in range(TRIALS):
            loop = asyncio.create_task(beating())
            await asyncio.sleep(trial * STEP)
            loop.cancel()
            done, _ = await asyncio.wait([loop], timeout=3)
            assert loop in done, f"still beating 3 s after its cancellation at {trial * STEP * 1000:.2f} ms"
            assert loop.cancelled()
        assert beats > 0  # the calls did run between the cancellations
    finally:
        await store.close()


async def test_a_store_call_in_clean_up_after_a_stop_still_runs(redis_url: str) -> None:
    # A stopped task that records something on its way out (in ``finally``) is not stopped again at
    # that call: only a stop that comes during a call is honoured there.
    store = RedisStore(redis_url, prefix="cleanup:")
    started, cleaned = asyncio.Event(), asyncio.Event()

    async def waits_then_cleans_up() -> None:
        try:
            started.set()
            await asyncio.Event().wait()
        finally:
            await store.beat("leaving", 10)
            cleaned.set()  # the clean-up goes on after its store call

    task = asyncio.create_task(waits_then_cleans_up())
    await started.wait()
    task.cancel()
    done, _ = await asyncio.wait([task], timeout=5)
    try:
        assert task in done and task.cancelled() and cleaned.is_set()
        assert "leaving" in await store.alive()  # the clean-up's call ran and was stored
    finally:
        await store.close()
