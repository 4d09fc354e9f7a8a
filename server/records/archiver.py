"""The archiver: finished races from the store's marks into the database, exactly once.

Off the move path. The append that stores a race's end marks the race in its room's own keys
(``Append.archive`` of ``append_at``); after the commit the room path puts the room in the archivers'
index and wakes this loop. Every node runs one; each pass takes the oldest indexed rooms and, for
each one:

    read the marks -> read the log -> replay it (the engine judges every move again) -> write each
    marked race in one transaction keyed by its id -> clear those marks -> unindex the room

A crash (or a failure) between any two steps leaves the mark, so the race is archived again by
whichever archiver comes next, and the database keeps the first write (a second changes nothing).
Two archivers on one room both write and both clear: still one row per race. A mark the index lost
(a node died between the commit and indexing it) is found by the sweep (``marked_rooms``, a scan)
at start and every ``SWEEP_SECONDS``. While the database is away, marks and their logs wait in the
store (a marked log keeps no TTL) and the loop backs off; racing goes on untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Protocol

from server.logs import log_event
from server.rooms.events import NewerFormat, unpack
from server.rooms.history import RaceRecord, races_of
from server.rooms.rated import Told
from server.store.base import StoreError, chain
from server.store.interfaces import Archives, RoomLog

BATCH: Final = 50
"""Rooms taken from the index per pass."""
POLL_SECONDS: Final = 5.0
"""How often an idle archiver looks at the index (a local end wakes it at once; this finds the
ends other nodes stored)."""
SWEEP_SECONDS: Final = 300.0
"""How often the marks are scanned for rooms the index lacks."""
BACKOFF_SECONDS: Final = (0.5, 1.0, 2.0, 5.0, 10.0)
"""Waits after consecutive failed passes (the database or the store away)."""


class RaceArchive(Protocol):
    """What the archiver asks of the database (``archive.py``'s ``Archive``): every finished race,
    written once (and its ratings updated once, in the same transaction: docs/ratings.md)."""

    rated: list[Told]
    """Told the rating changes of each rated race written, after its commit."""

    async def write_races(self, records: Sequence[RaceRecord]) -> None:
        """Write each race in its own transaction keyed by its id: a race already there is left
        as it is (a second write changes nothing). Raises ``OSError`` when the database cannot be
        reached (then nothing of the race that failed was written): the archiver tries again later."""
        ...


Archived = Callable[[Sequence[RaceRecord]], Awaitable[None]]
"""Told the races a pass wrote (for what follows a race on record: ratings, notices)."""


class ArchiveStore(RoomLog, Archives, Protocol):
    """What the archiver needs of the store: the logs and the archive's marks and index."""


class Archiver:
    """One node's archiver: ``run()`` as a background task, ``wake()`` when a race ended here."""

    def __init__(
        self, store: ArchiveStore, archive: RaceArchive, ttl: float, archived: Sequence[Archived] = ()
    ) -> None:
        self.store = store
        self.archive = archive
        self.ttl = ttl
        """The TTL a room's keys get back once its last mark is cleared (a finished room's)."""
        self.archived = tuple(archived)
        """Told the races each pass wrote (the analyst's queue is woken)."""
        self.written = 0
        """Races this archiver wrote (or found written) since it started."""
        self.failures = 0
        """Passes that failed since the last one that did not."""
        self._due = asyncio.Event()

    def wake(self, code: str = "") -> None:
        """A race ended: look at the index now."""
        self._due.set()

    async def run(self) -> None:
        """Archive until cancelled."""
        # Paced by the event loop's clock, which its waits below read too: an operator's seconds,
        # not the race's time (a test's frozen race clock must not stop the archiver).
        loop = asyncio.get_running_loop()
        swept = loop.time() - SWEEP_SECONDS
        while True:
            try:
                if loop.time() - swept >= SWEEP_SECONDS:
                    await self.sweep()
                    swept = loop.time()
                while await self.drain() == BATCH:
                    pass  # a full batch: there may be more
            except (OSError, StoreError) as exc:  # the database (OSError) or the store is away
                self.failures += 1
                if self.failures == 1:
                    log_event("archive.unavailable", error=str(exc))
                await asyncio.sleep(BACKOFF_SECONDS[min(self.failures, len(BACKOFF_SECONDS)) - 1])
                continue
            if self.failures:
                log_event("archive.resumed", after=self.failures)
                self.failures = 0
            self._due.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(POLL_SECONDS):
                    await self._due.wait()

    async def sweep(self) -> int:
        """Index every room holding a mark (those whose ending node died before indexing them)."""
        rooms = await self.store.marked_rooms()
        for room in rooms:
            await self.store.index_archive(room)
        return len(rooms)

    async def drain(self) -> int:
        """One pass over the oldest indexed rooms; how many it took."""
        due = await self.store.archive_due(BATCH)
        for room, stamp in due:
            await self.archive_room(room, stamp)
        return len(due)

    async def archive_room(self, room: str, stamp: int) -> None:
        """Write the room's marked races, then clear their marks and, if none is left, unindex it."""
        marks = await self.store.archive_marks(room)
        if marks:
            records = self._records(room, await self.store.load(room), set(marks))
            if records is None:
                return  # a newer build's room: its nodes archive it
            await self.archive.write_races(records)
            self.written += len(records)
            await self.store.clear_archive(room, marks, self.ttl)
            for hook in self.archived:
                await hook(records)
        await self.store.unindex_archive(room, stamp)

    @staticmethod
    def _records(room: str, data: list[bytes], marks: set[str]) -> list[RaceRecord] | None:
        """The marked races of a room's log (None: the log is not this build's to read)."""
        try:
            events = [unpack(d) for d in data]
            records = [r for r in races_of(events, chain("", data)) if r.race_id in marks] if data else []
        except NewerFormat as exc:
            log_event("archive.newer_format", room=room, error=str(exc))
            return None
        except ValueError as exc:  # a log that does not replay legally proves no race: nothing to write
            log_event("archive.corrupt", room=room, error=str(exc))
            records = []
        missing = marks - {r.race_id for r in records}
        if missing:  # a mark outlived its race's events: nothing left to write, so it goes
            log_event("archive.lost", room=room, races=sorted(missing))
        return records
