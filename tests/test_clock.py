"""The server's real clock."""

from __future__ import annotations

import time

from server.shell.clock import SystemClock


def test_the_system_clock_reads_wall_time_in_milliseconds_and_never_goes_back() -> None:
    clock = SystemClock()
    before = time.time_ns() // 1_000_000
    readings = [clock.now() for _ in range(1000)]
    assert readings == sorted(readings) and before <= readings[0] <= time.time_ns() // 1_000_000
