"""The server process's runtime settings: the collector's thresholds, the frozen start-up heap and
the event loop."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from server.__main__ import parse_args
from server.runtime import GC_THRESHOLDS, freeze_heap, run, tune_gc, uvloop_factory


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


async def _loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_run_uses_asyncio_when_uvloop_is_turned_off() -> None:
    assert run(_loop_module(), uvloop=False).startswith("asyncio")


def test_run_uses_uvloop_when_installed() -> None:
    expected = "uvloop" if uvloop_factory() is not None else "asyncio"
    assert run(_loop_module(), uvloop=True).startswith(expected)


def test_uvloop_is_on_unless_the_flag_or_the_environment_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_args([])[0].uvloop
    assert not parse_args(["--no-uvloop"])[0].uvloop
    monkeypatch.setenv("SEAHAVEN_UVLOOP", "0")
    assert not parse_args([])[0].uvloop
