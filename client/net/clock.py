"""The server's clock seen from here: the local time in milliseconds (``now_ms``) and the offset
to the server's (``ServerClock``, synced from each frame that carries the server's time). The
race's countdown and clock, the arena's and an invitation's seconds left all read it."""

from __future__ import annotations

import time


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class ServerClock:
    """The server's clock seen from here: ``offset`` = server time - local time when last heard."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def sync(self, server_time: int) -> None:
        self.offset_ms = server_time - now_ms()

    def now(self) -> int:
        return now_ms() + self.offset_ms
