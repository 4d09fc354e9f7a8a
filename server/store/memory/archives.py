"""``Archives`` in memory: each room's marks (``_marks``) and the archivers' index (``_due``)."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Sequence

from server.store.base import check_count, check_races, check_ttl
from server.store.memory.base import MemoryBase

__all__ = ["MemoryArchives"]


class MemoryArchives(MemoryBase):
    """``Archives`` in memory: each room's marks (``_marks``) and the archivers' index (``_due``)."""

    def index_archive(self, room: str) -> Awaitable[None]:
        return self._run("index_archive", lambda: self._index_archive(room))

    def _index_archive(self, room: str) -> None:
        self._due[room] = next(self._stamps)  # increasing: a room indexed again gets a new stamp

    def archive_due(self, count: int) -> Awaitable[list[tuple[str, int]]]:
        check_count(count)
        return self._run("archive_due", lambda: sorted(self._due.items(), key=lambda item: item[1])[:count])

    def archive_backlog(self) -> Awaitable[int]:
        return self._run("archive_backlog", lambda: len(self._due))

    def archive_marks(self, room: str) -> Awaitable[list[str]]:
        return self._run("archive_marks", lambda: sorted(self._marks.get(room, ())))

    def clear_archive(self, room: str, races: Sequence[str], ttl: float) -> Awaitable[int]:
        ttl = check_ttl(ttl)
        names = check_races(races)
        return self._run("clear_archive", lambda: self._clear_archive(room, names, ttl))

    def _clear_archive(self, room: str, races: Sequence[str], ttl: float) -> int:
        marks = self._marks.get(room)
        if marks is None:
            return 0
        marks.difference_update(races)
        if marks:
            return len(marks)
        del self._marks[room]
        log = self._logs.get(room)
        if log is not None and log.deadline == math.inf:  # kept for its marks: its TTL starts now
            log.deadline = self._now() + ttl
        return 0

    def unindex_archive(self, room: str, stamp: int) -> Awaitable[bool]:
        return self._run("unindex_archive", lambda: self._unindex_archive(room, stamp))

    def _unindex_archive(self, room: str, stamp: int) -> bool:
        if room in self._marks or self._due.get(room) != stamp:
            return False
        del self._due[room]
        return True

    def marked_rooms(self) -> Awaitable[list[str]]:
        return self._run("marked_rooms", lambda: sorted(self._marks))
