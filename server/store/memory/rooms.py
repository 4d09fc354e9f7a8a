"""``RoomLog`` in memory: each room's log and chain (``Log``), its replies' memos, its holders."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Sequence

from server.store.base import (
    Append,
    Appended,
    Behind,
    Duplicate,
    Forked,
    Stored,
    check_races,
    check_ttl,
    room_bell_data,
)
from server.store.base import chain as chain_of
from server.store.memory.base import Log, MemoryBase

__all__ = ["MemoryRoomLog"]


def _tip(log: Log, length: int) -> str:
    """The log's chain tip after its first ``length`` events ("" for none)."""
    return log.chain[length - 1] if length > 0 else ""


def _extend(log: Log, events: Sequence[bytes]) -> None:
    """Append ``events`` to the log and its chain."""
    added = [bytes(event) for event in events]
    log.chain.extend(chain_of(_tip(log, len(log.events)), added))
    log.events.extend(added)


class MemoryRoomLog(MemoryBase):
    """``RoomLog`` in memory: each room's log and chain (``Log``), its replies' memos, its holders."""

    def append(self, room: str, events: Sequence[bytes], ttl: float) -> Awaitable[int]:
        ttl = check_ttl(ttl)
        return self._run("append", lambda: self._append(room, events, ttl))

    def _append(self, room: str, events: Sequence[bytes], ttl: float) -> int:
        now = self._now()
        log = self._live_log(room, now)
        if log is None:
            if not events:
                return 0
            log = self._logs[room] = Log()
        _extend(log, events)
        log.deadline = now + ttl
        return len(log.events)

    def append_at(self, room: str, events: Sequence[bytes], append: Append) -> Awaitable[Appended]:
        # append.refresh: giving the TTL every time costs nothing here (an expiry time per room);
        # append.tips: the chain is kept beside the log here, computed from the events (no script to spare).
        ttl = check_ttl(append.ttl)
        races = check_races(append.archive) if append.archive else ()
        return self._run("append", lambda: self._append_at(room, events, ttl, append, races))

    def _append_at(
        self, room: str, events: Sequence[bytes], ttl: float, append: Append, archive: Sequence[str]
    ) -> Appended:
        expected, request, holder, tip = append.expected, append.request, append.holder, append.tip
        now = self._now()
        log = self._live_log(room, now)
        length = 0 if log is None else len(log.events)
        memos = self._memos.get(room, {}) if log is not None else {}
        memo = memos.get(request.player) if request is not None and not request.ends_stay else None
        if request is not None and memo is not None and memo[0] >= request.seq:
            seq, reply = memo
            return Duplicate(length, reply if seq == request.seq else None)
        if log is not None and tip is not None and expected <= length and _tip(log, expected) != tip:
            return Forked(length, list(log.events))
        if length != expected:
            if log is None:
                return Behind(length, [])
            return Behind(length, list(log.events[expected:]), _tip(log, length))
        before = "" if log is None else _tip(log, length)
        if log is None:
            log = self._logs[room] = Log()
            self._memos.pop(room, None)
        if archive:
            self._marks.setdefault(room, set()).update(archive)
        _extend(log, events)
        log.deadline = self._deadline(room, now, ttl)
        if request is not None and request.ends_stay:
            self._memos.get(room, {}).pop(request.player, None)
        elif request is not None:
            self._memos.setdefault(room, {})[request.player] = (request.seq, bytes(request.reply))
        if holder is not None:
            log.holders.add(holder)
        if len(log.holders) > (holder in log.holders):
            self._ring("room", room, room_bell_data(len(log.events), events, before))
        return Stored(len(log.events))

    def _deadline(self, room: str, now: float, ttl: float) -> float:
        """A room log's deadline ``ttl`` from ``now``: none while the room has archive marks."""
        return math.inf if room in self._marks else now + ttl

    def _held(self, room: str, holder: str | None) -> Log | None:
        log = self._live_log(room, self._now())
        if log is not None and holder is not None:
            log.holders.add(holder)
        return log

    def read_from(self, room: str, start: int, holder: str | None = None) -> Awaitable[tuple[int, list[bytes], str]]:
        return self._run("read_from", lambda: self._read_from(room, start, holder))

    def _read_from(self, room: str, start: int, holder: str | None) -> tuple[int, list[bytes], str]:
        log = self._held(room, holder)
        if log is None:
            return 0, [], ""
        return len(log.events), list(log.events[start:]), _tip(log, min(start, len(log.events)))

    def memo(self, room: str, player: str) -> Awaitable[tuple[int, bytes] | None]:
        return self._run("memo", lambda: self._memo(room, player))

    def _memo(self, room: str, player: str) -> tuple[int, bytes] | None:
        if self._live_log(room, self._now()) is None:
            return None
        return self._memos.get(room, {}).get(player)

    def load(self, room: str, holder: str | None = None) -> Awaitable[list[bytes]]:
        return self._run("load", lambda: self._load(room, holder))

    def _load(self, room: str, holder: str | None) -> list[bytes]:
        log = self._held(room, holder)
        return [] if log is None else list(log.events)

    def expire(self, room: str, ttl: float) -> Awaitable[None]:
        ttl = check_ttl(ttl)
        return self._run("expire", lambda: self._expire(room, ttl))

    def _expire(self, room: str, ttl: float) -> None:
        now = self._now()
        log = self._live_log(room, now)
        if log is not None:
            log.deadline = self._deadline(room, now, ttl)
        listing = self._live(self._listings, room, now)
        if listing is not None:
            listing.deadline = now + ttl

    def delete(self, room: str) -> Awaitable[None]:
        return self._run("delete", lambda: self._delete(room))

    def _delete(self, room: str) -> None:
        self._logs.pop(room, None)
        self._listings.pop(room, None)
        self._memos.pop(room, None)
        self._where.pop(room, None)
        self._marks.pop(room, None)

    def room_ids(self) -> Awaitable[list[str]]:
        return self._run("room_ids", self._room_ids)

    def _room_ids(self) -> list[str]:
        self.sweep()
        return sorted(self._logs)
