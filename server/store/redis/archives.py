"""``Archives`` on Redis: ``P{room:ID}:archive`` (the marks) and ``P archive:due`` (the index)."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Sequence
from typing import Any

from redis.commands.core import AsyncScript

from server.store.base import check_count, check_races, ttl_ms
from server.store.redis.base import RedisBase, as_bytes
from server.store.scripts import CLEAR_ARCHIVE, INDEX_ARCHIVE, UNINDEX_ARCHIVE

__all__ = ["RedisArchives"]


class RedisArchives(RedisBase):
    """``Archives`` on Redis: ``P{room:ID}:archive`` (the marks) and ``P archive:due`` (the index)."""

    @functools.cached_property
    def _clear_archive(self) -> AsyncScript:
        return self._redis.register_script(CLEAR_ARCHIVE)

    @functools.cached_property
    def _index_archive(self) -> AsyncScript:
        return self._redis.register_script(INDEX_ARCHIVE)

    @functools.cached_property
    def _unindex_archive(self) -> AsyncScript:
        return self._redis.register_script(UNINDEX_ARCHIVE)

    @property
    def archive_index_key(self) -> str:
        return f"{self.prefix}archive:due"

    def index_archive(self, room: str) -> Awaitable[None]:
        async def call() -> None:
            await self._index_archive(keys=[self.archive_index_key], args=[room])

        # Resent after a lost connection: a second run only moves the stamp on, which the archivers allow.
        return self._run("index_archive", f"index room {room!r} for archiving", call)

    def archive_due(self, count: int) -> Awaitable[list[tuple[str, int]]]:
        check_count(count)

        async def call() -> list[tuple[str, int]]:
            rows: list[Any] = await self._redis.zrange(self.archive_index_key, 0, count - 1, withscores=True)
            return [(as_bytes(room).decode(), int(stamp)) for room, stamp in rows]

        return self._run("archive_due", "list rooms due for archiving", call)

    def archive_marks(self, room: str) -> Awaitable[list[str]]:
        async def call() -> list[str]:
            marks: set[Any] = await self._redis.smembers(self.archive_key(room))
            return sorted(as_bytes(race).decode() for race in marks)

        return self._run("archive_marks", f"read room {room!r} archive marks", call)

    def clear_archive(self, room: str, races: Sequence[str], ttl: float) -> Awaitable[int]:
        ms = ttl_ms(ttl)
        names = check_races(races)

        async def call() -> int:
            return int(await self._clear_archive(keys=self._marked_keys(room), args=[ms, *names]))

        return self._run("clear_archive", f"clear room {room!r} archive marks", call)

    def archive_backlog(self) -> Awaitable[int]:
        async def call() -> int:
            return int(await self._redis.zcard(self.archive_index_key))

        return self._run("archive_backlog", "count rooms due for archiving", call)

    def unindex_archive(self, room: str, stamp: int) -> Awaitable[bool]:
        async def call() -> bool:
            # The marks (the room's slot), then the index (its own): a mark added after the SCARD
            # comes with an index_archive after it, which either changes the stamp (this ZREM is
            # skipped) or indexes the room again after the ZREM.
            if await self._redis.scard(self.archive_key(room)):
                return False
            return bool(await self._unindex_archive(keys=[self.archive_index_key], args=[room, stamp]))

        return self._run("unindex_archive", f"unindex room {room!r} from archiving", call)

    def marked_rooms(self) -> Awaitable[list[str]]:
        return self._run("marked_rooms", "list rooms with archive marks", self._scan_rooms("archive", "set"))
