"""server/shell/metrics.py: the exposition parsed back with prometheus_client's own parser."""

from __future__ import annotations

import pytest

from server.shell.metrics import LATENCY_BUCKETS, LiveCounts, Metrics
from server.store.base import StoreError
from server.store.guarded import Breaker
from server.store.memory import MemoryStore
from server.store.redisstore import RedisStore
from tests.metrics_scrape import scrape, value
from tests.redis_proc import RedisProcess


def test_a_fresh_node_exposes_every_metric_at_zero() -> None:
    metrics = Metrics("node-a")
    samples = scrape(metrics)
    assert samples[("seahaven_node_info", (("node", "node-a"),))] == 1
    for gauge in ("seahaven_rooms", "seahaven_racers", "seahaven_spectators", "seahaven_connections"):
        assert samples[(gauge, ())] == 0
    assert samples[("seahaven_moves_accepted_total", ())] == 0
    assert samples[("seahaven_move_latency_seconds_count", ())] == 0
    assert samples[("seahaven_move_latency_seconds_bucket", (("le", "+Inf"),))] == 0
    # Labelled families appear once a label value is used; their help and type are there already.
    body = metrics.exposition()[0].decode()
    for family in (
        "seahaven_moves_refused",
        "seahaven_store_errors",
        "seahaven_store_latency_seconds",
        "seahaven_doorbells_received",
    ):
        assert f"# HELP {family}" in body and f"# TYPE {family}" in body


def test_live_gauges_are_read_at_scrape_time() -> None:
    counts = LiveCounts(rooms=2, racers=5, spectators=1, connections=7)
    metrics = Metrics("n", live=lambda: counts)
    assert [value(metrics, f"seahaven_{name}") for name in LiveCounts._fields] == [2, 5, 1, 7]
    counts = LiveCounts(rooms=0, racers=0, spectators=0, connections=1)
    assert [value(metrics, f"seahaven_{name}") for name in LiveCounts._fields] == [0, 0, 0, 1]
    assert value(Metrics("n"), "seahaven_rooms") == 0  # without ``live``: zeros


def test_moves_are_counted_by_outcome_with_their_latency() -> None:
    metrics = Metrics("n")
    for seconds in (0.0002, 0.0007, 0.003):
        metrics.move_accepted(seconds)
    metrics.move_refused("illegal-move", 0.0004)
    metrics.move_refused("illegal-move", 0.0004)
    metrics.move_refused("store-unavailable", 2.0)
    metrics.move_refused("no such code {reason}", 0.001)  # a bug's reason: bounded to "other"
    samples = scrape(metrics)
    assert samples[("seahaven_moves_accepted_total", ())] == 3
    refused = {labels[0][1]: v for (name, labels), v in samples.items() if name == "seahaven_moves_refused_total"}
    assert refused == {"illegal-move": 2, "store-unavailable": 1, "other": 1}
    assert samples[("seahaven_move_latency_seconds_count", ())] == 7
    observed = (0.0002, 0.0007, 0.003, 0.0004, 0.0004, 2.0, 0.001)
    assert samples[("seahaven_move_latency_seconds_sum", ())] == pytest.approx(sum(observed))
    buckets = {
        labels[0][1]: v for (name, labels), v in samples.items() if name == "seahaven_move_latency_seconds_bucket"
    }
    assert buckets["0.00025"] == 1 and buckets["0.0005"] == 3 and buckets["0.001"] == 5 and buckets["+Inf"] == 7
    assert len(buckets) == len(LATENCY_BUCKETS) + 1


def test_nodes_in_one_process_keep_separate_registries() -> None:
    a, b = Metrics("a"), Metrics("b")
    a.move_accepted(0.001)
    assert value(a, "seahaven_moves_accepted_total") == 1
    assert value(b, "seahaven_moves_accepted_total") == 0
    assert ("seahaven_node_info", (("node", "a"),)) not in scrape(b)


async def test_a_guarded_store_times_every_call_and_changes_nothing() -> None:
    metrics = Metrics("n")
    store = MemoryStore()
    store.guard(Breaker(), metrics)
    assert await store.append("R", [b"e1", b"e2"], 60) == 2
    assert await store.load("R") == [b"e1", b"e2"]
    await store.set_listing("R", b"summary", 60)
    assert await store.listings() == {"R": b"summary"}
    await store.put_session("tok", b"S", 60)
    assert await store.get_session("tok") == b"S"
    assert await store.room_ids() == ["R"]
    assert await store.ping()
    with pytest.raises(ValueError):  # bad input is the caller's error: refused before the store (not counted)
        await store.append("R", [b"e3"], -1)
    assert await store.load("R") == [b"e1", b"e2"]
    samples = scrape(metrics)
    counts = {
        labels[0][1]: v for (name, labels), v in samples.items() if name == "seahaven_store_latency_seconds_count"
    }
    assert counts == {
        "append": 1,
        "load": 2,
        "set_listing": 1,
        "listings": 1,
        "put_session": 1,
        "get_session": 1,
        "room_ids": 1,
        "ping": 1,
    }
    assert not [key for key in samples if key[0] == "seahaven_store_errors_total"]
    await store.close()


async def test_a_guarded_store_counts_failures_of_a_dead_redis() -> None:
    nowhere = RedisProcess(appendonly=False)  # a free port, never started
    metrics = Metrics("n")
    store = RedisStore(nowhere.url)
    store.guard(None, metrics)  # no breaker: each call tries (a refused one would count the same)
    try:
        with pytest.raises(StoreError):
            await store.append("R", [b"e"], 60)
        for _ in range(2):
            with pytest.raises(StoreError):
                await store.get_session("tok")
        assert await store.ping() is False
        assert value(metrics, "seahaven_store_errors_total", operation="append") == 1
        assert value(metrics, "seahaven_store_errors_total", operation="get_session") == 2
        assert value(metrics, "seahaven_store_errors_total", operation="ping") == 1
        assert value(metrics, "seahaven_store_latency_seconds_count", operation="get_session") == 2
    finally:
        await store.close()
        nowhere.close()


def test_doorbells_are_counted_by_kind_and_unknown_kinds_as_other() -> None:
    metrics = Metrics("n")
    for kind in ("room", "room", "player", "no-such-kind"):
        metrics.doorbell(kind)
    assert value(metrics, "seahaven_doorbells_received_total", kind="room") == 2
    assert value(metrics, "seahaven_doorbells_received_total", kind="player") == 1
    assert value(metrics, "seahaven_doorbells_received_total", kind="other") == 1
