"""The operator's arenas (server/play/arena_schedule.py, arena_command.py): ``seahaven-server arena
schedule`` and ``arena list`` as real processes on a real redis-server, and a real server process
(the pairing lease's holder) opening a series' next arena and the ``--arenas`` file's arenas."""

from __future__ import annotations

import asyncio
import datetime
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from protocol.messages import Arena, JoinArena
from server.play.arena_schedule import Series, load_series, make_series, parse_every, parse_time, series_code
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

ROOT = Path(__file__).resolve().parent.parent
HOUR = 3_600_000


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server", "arena", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def iso(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def test_a_series_is_due_at_its_running_or_next_arena() -> None:
    hourly = Series("k", "Hourly", "seahaven", None, 30, 1_000 * HOUR, HOUR)
    assert hourly.start_due(1_000 * HOUR - 1) == 1_000 * HOUR  # not started yet
    assert hourly.start_due(1_000 * HOUR + 29 * 60_000) == 1_000 * HOUR  # running
    assert hourly.start_due(1_000 * HOUR + 30 * 60_000) == 1_001 * HOUR  # over: the next one
    assert hourly.start_due(1_005 * HOUR + 31 * 60_000) == 1_006 * HOUR
    once = Series("k", "Once", "seahaven", None, 30, 1_000 * HOUR)
    assert once.start_due(1_000 * HOUR + 30 * 60_000) is None
    # Every node derives the same code for one arena of a series, another for the next.
    assert series_code("k", HOUR) == series_code("k", HOUR) != series_code("k", 2 * HOUR)
    assert hourly.meta(1_000 * HOUR).code == series_code("k", 1_000 * HOUR)


def test_what_the_operator_writes_is_checked() -> None:
    assert parse_every("1h") == HOUR and parse_every("1h30m") == 90 * 60_000 and parse_every("1d") == 24 * HOUR
    assert parse_time("2026-12-02T12:00Z") == parse_time("2026-12-02T12:00") == parse_time("2026-12-02T13:00+01:00")
    for bad in ("", "1", "h", "1m"):
        with pytest.raises(ValueError):
            parse_every(bad)
    with pytest.raises(ValueError, match="not a time"):
        parse_time("noon")
    with pytest.raises(ValueError, match="unknown preset"):
        make_series("k", "", "nope", None, 30, 0)
    with pytest.raises(ValueError, match="5 to 180 minutes"):
        make_series("k", "", "seahaven", None, 200, 0)
    with pytest.raises(ValueError, match="overlap"):
        make_series("k", "", "seahaven", None, 90, 0, HOUR)


def test_an_arenas_file_is_read_and_refused_when_wrong(tmp_path: Path) -> None:
    good = tmp_path / "arenas.toml"
    good.write_text(
        '[[arena]]\nname = "Hourly"\npreset = "seahaven"\nat = 2026-12-02T12:00:00Z\nevery = "1h"\n\n'
        '[[arena]]\nname = "Daily tricky"\npreset = "seahaven"\ngrade = "tricky"\nminutes = 60\n'
        'at = "2026-12-02T18:00Z"\n'
        'every = "1d"\n'
    )
    hourly, daily = load_series(good)
    assert (hourly.key, hourly.minutes, hourly.at, hourly.every) == (
        "file:Hourly",
        30,
        parse_time("2026-12-02T12:00Z"),
        HOUR,
    )
    assert (daily.grade, daily.minutes, daily.every) == ("tricky", 60, 24 * HOUR)
    bad = tmp_path / "bad.toml"
    for text, said in (
        ('[[arena]]\nname = "x"\npreset = "seahaven"\n', "arena 1: it needs at"),  # no start
        ('[[arena]]\nname = "x"\npreset = "seahaven"\nat = "2026-12-02T12:00Z"\ncolour = 1\n', "unknown keys"),
        ('[[arena]]\nname = "x"\npreset = "seahaven"\nat = "2026-12-02T12:00Z"\n' * 2, "share a name"),
        ("[arena\n", "bad.toml"),
    ):
        bad.write_text(text)
        with pytest.raises(ValueError, match=said):
            load_series(bad)
    started = subprocess.run(
        [sys.executable, "-m", "server", "--arenas", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert started.returncode == 2 and "--arenas" in started.stderr


def test_the_operator_schedules_arenas_and_the_lease_holder_opens_them(
    redis_proc: RedisProcess, tmp_path: Path
) -> None:
    now = now_ms()
    start = now - 60_000  # started a minute ago: running at once
    done = arena("--redis", redis_proc.url, "schedule", "--preset", "seahaven", "--minutes", "30",
                 "--at", iso(start), "--every", "1h", "--name", "Hourly")  # fmt: skip
    assert done.returncode == 0, done.stderr
    code = re.search(r"arena ([0-9A-Z]{6}) ", done.stdout)
    assert code is not None, done.stdout
    first = code.group(1)
    assert f"/a/{first}" in done.stdout
    listed = arena("--redis", redis_proc.url, "list")
    assert listed.returncode == 0 and re.search(
        rf"^{first} running .* by=operator 'Hourly' every 60m$", listed.stdout, re.M
    )
    assert len(listed.stdout.splitlines()) == 1  # no server yet: nobody opened the next one

    # A server started with an --arenas file, and the arena just scheduled.
    file = tmp_path / "arenas.toml"
    file.write_text(f'[[arena]]\nname = "Quarterly"\npreset = "seahaven"\nminutes = 5\nat = "{iso(now + HOUR)}"\n')
    expected = series_code("file:Quarterly", parse_time(iso(now + HOUR)))
    server = ServerProcess("--redis", redis_proc.url, "--arenas", str(file))
    try:
        lines: list[str] = []

        def opened() -> bool:
            lines[:] = arena("--redis", redis_proc.url, "list").stdout.splitlines()
            return len(lines) == 3

        wait_until_sync(opened, 20, "the next hourly arena and the file's arena opened")
        by_code = {line.split()[0]: line for line in lines}
        assert re.search(r" running .*'Hourly' every 60m$", by_code[first])
        assert re.search(r" waiting .* 5m seahaven .*by=operator 'Quarterly'$", by_code[expected])
        (following,) = set(by_code) - {first, expected}
        assert re.search(r" waiting .*'Hourly' every 60m$", by_code[following])
        assert iso(start + HOUR)[:16] in by_code[following]

        async def join() -> Arena:
            client = await WsClient.open(server.url, "Ann")
            answer = await client.call(JoinArena(arena=first.lower()))
            await client.close()
            assert isinstance(answer, Arena), answer
            return answer

        joined = asyncio.run(join())
        assert joined.arena == first and joined.phase == "running" and joined.standings[0].name == "Ann"
        # Opened once: another round of the lease holder (and a second look) adds nothing.
        time.sleep(2.5)
        assert len(arena("--redis", redis_proc.url, "list").stdout.splitlines()) == 3
    finally:
        server.close()


def test_the_arena_command_says_what_is_wrong(redis_proc: RedisProcess) -> None:
    missing = subprocess.run(
        [sys.executable, "-m", "server", "arena", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env={k: v for k, v in {**os.environ, "PYTHONPATH": str(ROOT)}.items() if k != "SEAHAVEN_REDIS_URL"},
    )
    assert missing.returncode == 2 and "--redis is needed" in missing.stderr
    over = arena("--redis", redis_proc.url, "schedule", "--preset", "seahaven", "--at", "2020-01-01T00:00Z")
    assert over.returncode == 2 and "over already" in over.stderr
    bad = arena("--redis", redis_proc.url, "schedule", "--preset", "seahaven", "--at", "soon")
    assert bad.returncode == 2 and "not a time" in bad.stderr
    assert arena("--redis", redis_proc.url, "list").stdout == "no arenas\n"


def wait_until_sync(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """``tests.helpers.wait_until`` for a plain test (the commands are blocking processes)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached within {timeout} s: {what}")
        time.sleep(0.5)
