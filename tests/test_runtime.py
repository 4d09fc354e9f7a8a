"""The server process's runtime settings: the collector's thresholds and the frozen start-up heap."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from server.runtime import GC_THRESHOLDS, freeze_heap, tune_gc


@pytest.fixture
def collector() -> Iterator[None]:
    """Give the test process its collector back as it was."""
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_tune_gc_collects_the_young_generation_less_often(collector: None) -> None:
    tune_gc()
    assert gc.get_threshold() == GC_THRESHOLDS
    assert GC_THRESHOLDS[0] > 700  # CPython's default young threshold


def test_freeze_heap_keeps_what_exists_out_of_later_collections(collector: None) -> None:
    kept: list[list[int]] = [[] for _ in range(100)]  # tracked containers that exist at the freeze
    freeze_heap()
    assert gc.get_freeze_count() >= len(kept)
    walked = {id(o) for generation in range(3) for o in gc.get_objects(generation)}
    assert not walked & {id(x) for x in kept}
