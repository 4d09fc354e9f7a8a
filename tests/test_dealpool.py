"""The deal pool: seeded from the shipped lists, popped atomically across nodes (real redis-server),
refilled by real worker processes; every deal it hands out is won by the solver."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor

import pytest

from seahaven import Board
from seahaven.solver import solve
from seahaven.winnable import GRADES, deal_list, grade_of
from server.play.dealpool import DealPool
from server.store.interfaces import Store
from server.store.memory import MemoryStore
from server.store.redisstore import RedisStore
from tests.helpers import wait_until
from tests.wins import assert_wins

PRESET = "seahaven-easy"


@pytest.fixture(params=["memory", "redis"])
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    pool: Store
    if request.param == "memory":
        pool = MemoryStore(rng=random.Random(1))
    else:
        pool = RedisStore(request.getfixturevalue("redis_url"), prefix=f"test-{uuid.uuid4().hex[:8]}:")
    try:
        yield pool
    finally:
        await pool.close()


def assert_winnable(preset: str, number: int, grade: str) -> None:
    board = Board.deal(preset, number)
    solution = solve(board, max_states=deal_list(preset).max_states)
    assert_wins(board, solution)
    assert grade_of(preset, solution.states) == grade


async def test_a_fresh_pool_is_seeded_from_the_shipped_lists(backend: Store) -> None:
    pool = DealPool(backend, presets=[PRESET], rng=random.Random(2))
    await pool.seed()
    book = deal_list(PRESET)
    for grade in GRADES:
        assert await backend.count_deals(PRESET, grade) == len(book.by_grade(grade))
    await pool.seed()  # seeding again adds nothing
    assert await backend.count_deals(PRESET, "gentle") == len(book.by_grade("gentle"))
    for grade in GRADES:
        deal = await pool.take(PRESET, grade)
        assert deal.source == "pool" and deal.grade == grade and deal.preset == PRESET
        assert deal.number in book.by_grade(grade)
        assert_winnable(PRESET, deal.number, grade)
        assert await backend.count_deals(PRESET, grade) == len(book.by_grade(grade)) - 1
    assert (await pool.take(PRESET)).grade in GRADES


async def test_an_empty_pool_deals_from_the_shipped_list_without_solving(backend: Store) -> None:
    pool = DealPool(backend, presets=[PRESET], rng=random.Random(3))  # no executor: nothing can solve
    deal = await pool.take(PRESET, "tricky")
    assert deal.source == "shipped" and deal.number in deal_list(PRESET).by_grade("tricky")
    assert await pool.refill_once() == 0


async def test_two_nodes_never_get_the_same_deal(redis_url: str) -> None:
    prefix = f"test-{uuid.uuid4().hex[:8]}:"
    nodes = [RedisStore(redis_url, prefix=prefix) for _ in range(2)]
    try:
        pools = [DealPool(b, presets=[PRESET], low=0) for b in nodes]
        ready = deal_list(PRESET).by_grade("fiendish")[:30]
        await nodes[0].add_deals(PRESET, "fiendish", ready)
        deals = await asyncio.gather(*(pools[i % 2].take(PRESET, "fiendish") for i in range(30)))
        assert sorted(d.number for d in deals) == sorted(ready)
        assert all(d.source == "pool" for d in deals)
        assert (await pools[1].take(PRESET, "fiendish")).source == "shipped"
    finally:
        for b in nodes:
            await b.close()


async def test_refill_solves_in_worker_processes(backend: Store, executor: ProcessPoolExecutor) -> None:
    pool = DealPool(
        backend,
        executor,
        presets=[PRESET],
        target=4,
        low=2,
        batch=24,
        rng=random.Random(4),
    )
    assert await pool.needs_refill()
    added = await pool.refill_once()
    sizes = {g: await backend.count_deals(PRESET, g) for g in GRADES}
    assert added == sum(sizes.values()) >= 1
    assert max(sizes.values()) <= 4
    for grade in GRADES:
        while (number := await backend.pop_deal(PRESET, grade)) is not None:
            assert number > 32000  # drawn at random, not from the shipped list
            assert_winnable(PRESET, number, grade)


async def test_taking_below_low_wakes_the_refill(backend: Store, executor: ProcessPoolExecutor) -> None:
    pool = DealPool(backend, executor, presets=[PRESET], target=3, low=1, batch=24)
    await backend.add_deals(PRESET, "gentle", deal_list(PRESET).by_grade("gentle")[:1])
    pool.start(interval=3600)  # only a wake-up can make it refill again within the test
    try:

        async def refilled() -> bool:
            return not await pool.needs_refill()

        await wait_until(refilled, 30, what="the first refill")
        await pool.take(PRESET, "gentle")  # drops gentle below low: take wakes the refill

        async def gentle_again() -> bool:
            return await backend.count_deals(PRESET, "gentle") > 0

        await wait_until(gentle_again, 30, what="the refill the take woke")
    finally:
        await pool.close()


async def test_bad_input() -> None:
    pool = DealPool(MemoryStore(), presets=[PRESET])
    with pytest.raises(ValueError, match="no deal pool for preset"):
        await pool.take("freecell")
    with pytest.raises(ValueError, match="unknown grade"):
        await pool.take(PRESET, "hard")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="low <= target"):
        DealPool(MemoryStore(), low=5, target=2)
    with pytest.raises(ValueError, match="unknown preset"):
        DealPool(MemoryStore(), presets=["spider"])
