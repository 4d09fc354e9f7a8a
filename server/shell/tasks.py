"""The shell's background tasks: kept while they run, cancelled together on stop."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class Tasks:
    """``spawn`` runs a coroutine in the background; ``cancel`` ends every one still running."""

    def __init__(self) -> None:
        self.running: set[asyncio.Task[None]] = set()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.running.add(task)
        task.add_done_callback(self.running.discard)

    async def cancel(self) -> None:
        for task in list(self.running):
            task.cancel()
        await asyncio.gather(*self.running, return_exceptions=True)
