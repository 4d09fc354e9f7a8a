"""``RoomLog`` on Redis: ``P{room:ID}:log``, ``:chain``, ``:replies``, ``:holders`` (and ``:archive``'s marks)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.commands.core import AsyncScript

from server.store.base import (
    MEMO_FORMAT,
    Append,
    Appended,
    Behind,
    Duplicate,
    Forked,
    Stored,
    StoreError,
    chain,
    check_races,
    ttl_ms,
)
from server.store.link import ReplyError
from server.store.redis.base import RedisBase, as_bytes, deadline_ms
from server.store.scripts import APPEND, APPEND_AT, EXPIRE_ROOM, READ_FROM

__all__ = ["RedisRoomLog"]


def _appended(reply: list[Any]) -> Appended:
    """The append script's reply (scripts.APPEND_AT) as the tagged result."""
    if reply[0] == -2:
        return Duplicate(int(reply[1]), None if reply[2] is None else as_bytes(reply[2]))
    if reply[0] == -1:
        return Behind(int(reply[1]), [as_bytes(e) for e in reply[2]], as_bytes(reply[3]).decode())
    if reply[0] == -3:
        return Forked(int(reply[1]), [as_bytes(e) for e in reply[2]])
    return Stored(int(reply[0]))


def _memo_format(raw: bytes | str | None) -> int | None:
    """A memo's format (absent: 1); None when unreadable (a later code's idea of a version)."""
    if raw is None:
        return 1
    try:
        return int(raw)
    except ValueError:
        return None


class RedisRoomLog(RedisBase):
    """``RoomLog`` on Redis: ``P{room:ID}:log``, ``:chain``, ``:replies``, ``:holders`` (and ``:archive``'s marks)."""

    @functools.cached_property
    def _append(self) -> AsyncScript:
        return self._redis.register_script(APPEND)

    @functools.cached_property
    def _expire_room(self) -> AsyncScript:
        return self._redis.register_script(EXPIRE_ROOM)

    @functools.cached_property
    def _append_at_text(self) -> str:
        return _sharded(APPEND_AT) if self.cluster else APPEND_AT

    @functools.cached_property
    def _append_at(self) -> AsyncScript:
        return self._redis.register_script(self._append_at_text)

    @functools.cached_property
    def _read_from(self) -> AsyncScript:
        return self._redis.register_script(READ_FROM)

    def append(self, room: str, events: Sequence[bytes], ttl: float) -> Awaitable[int]:
        ms = ttl_ms(ttl)
        key = self.log_key(room)

        async def call() -> int:
            return int(await self._append(keys=[key], args=[ms, *events]))

        return self._run("append", f"append to room {room!r}", call, idempotent=not events)

    def append_at(self, room: str, events: Sequence[bytes], append: Append) -> Awaitable[Appended]:
        ttl = append.ttl
        ms = ttl_ms(ttl) if append.refresh else -ttl_ms(ttl)  # negative: leave the TTL (scripts.APPEND_AT)
        archive = append.archive
        races = " ".join(check_races(archive)) if archive else ""
        keys, bell = self._append_keys(room)
        # An empty reply (no frame is empty) asks the script to forget the player's memo: ends_stay.
        who: tuple[str, int, bytes] = ("", 0, b"")
        request = append.request
        if request is not None:
            who = (request.player, request.seq, b"" if request.ends_stay else request.reply)
        tip = append.tip
        named = "*" if tip is None else tip
        # The new links, so that the script computes no SHA-1 (a caller that has them, the room
        # path, saves computing them twice); with no tip named the script computes its own.
        links: Sequence[str] = ()
        if tip is not None and events:
            tips = append.tips
            links = chain(tip, events) if tips is None else tips
            if len(links) != len(events):
                raise ValueError(f"{len(links)} chain tips for {len(events)} events")
        node = append.holder or ""
        args: list[bytes | str | int] = [
            ms,
            append.expected,
            *who,
            bell,
            node,
            races,
            named,
            len(links),
            *links,
            *events,
        ]
        link = self._link
        call: Callable[[], Awaitable[Appended]]
        if self.replicas:
            call = functools.partial(self._append_replicated, room, keys, args)
        elif link is not None:

            async def call() -> Appended:
                return _appended(await link.script(self._append_at.sha, self._append_at_text, keys, args))

        else:

            async def call() -> Appended:
                return _appended(await self._append_at(keys=keys, args=args))

        # Safe to resend: the expected length (and the request) make a second run a no-op.
        return self._run("append", f"append to room {room!r}", call, pooled=link is None)

    async def _append_replicated(self, room: str, keys: list[str], args: list[bytes | str | int]) -> Appended:
        """The append, then ``WAIT replicas timeout`` on the same connection, sent together (one
        round trip); a Stored append that fewer replicas confirmed in time fails (StoreError): the
        move is on the master but not acknowledged (a resend of its request gets its reply once
        replicated, or is judged again if a failover lost it)."""
        waiting = (self.replicas, self._replica_ms)
        link = self._link
        if link is not None:
            sent = link.call("EVALSHA", self._append_at.sha, len(keys), *keys, *args)
            waited = link.call("WAIT", *waiting)  # same event-loop turn: one write with the append
            try:
                reply = await sent
            except ReplyError as exc:
                with contextlib.suppress(Exception):
                    await waited
                if not str(exc).startswith("NOSCRIPT"):
                    raise
                reply = await link.call("EVAL", APPEND_AT, len(keys), *keys, *args)
                waited = link.call("WAIT", *waiting)
            confirmed = await waited
        else:
            async with self._redis.pipeline(transaction=False) as pipe:
                await self._append_at(keys=keys, args=args, client=pipe)  # type: ignore[arg-type]  # queued in the pipeline
                pipe.execute_command("WAIT", *waiting)
                reply, confirmed = await pipe.execute()
        appended = _appended(reply)
        if isinstance(appended, Stored) and int(confirmed) < self.replicas:
            raise StoreError(
                f"redis store at {self._where}: append to room {room!r} reached {confirmed} of "
                f"{self.replicas} replica(s) within {self._replica_ms} ms: not acknowledged"
            )
        return appended

    @functools.lru_cache(maxsize=4096)  # noqa: B019 - the store lives as long as the process
    def _append_keys(self, room: str) -> tuple[list[str], str]:
        """The keys and doorbell channel of a room's appends, built once per live room."""
        keys = [
            self.log_key(room),
            self.replies_key(room),
            self.holders_key(room),
            self.archive_key(room),
            self.chain_key(room),
        ]
        return keys, self.bell("room", room)

    def _read(self, room: str, start: int, holder: str | None) -> Callable[[], Awaitable[tuple[int, list[bytes], str]]]:
        """The call reading the room's log from ``start`` (see ``read_from``)."""
        keys = [self.log_key(room), self.holders_key(room), self.chain_key(room)]
        args: list[bytes | str | int] = [start, holder or ""]
        link = self._link

        async def call() -> tuple[int, list[bytes], str]:
            if link is not None:
                length, events, tip = await link.script(self._read_from.sha, READ_FROM, keys, args)
            else:
                length, events, tip = await self._read_from(keys=keys, args=args)
            return int(length), [as_bytes(e) for e in events], as_bytes(tip).decode()

        return call

    def read_from(self, room: str, start: int, holder: str | None = None) -> Awaitable[tuple[int, list[bytes], str]]:
        call = self._read(room, start, holder)
        return self._run("read_from", f"read room {room!r}", call, pooled=self._link is None)

    def memo(self, room: str, player: str) -> Awaitable[tuple[int, bytes] | None]:
        async def call() -> tuple[int, bytes] | None:
            seq, reply, version = await self._redis.hmget(
                self.replies_key(room), [player, f"{player}:r", f"{player}:v"]
            )
            if seq is None or reply is None:
                return None
            memo_format = _memo_format(version)
            if memo_format is None or memo_format > MEMO_FORMAT:
                return None  # written by a newer node: not ours to serve
            return int(seq), as_bytes(reply)

        return self._run("memo", f"read replies of room {room!r}", call)

    def load(self, room: str, holder: str | None = None) -> Awaitable[list[bytes]]:
        if holder is not None:
            read = self._read(room, 0, holder)

            async def held() -> list[bytes]:
                return (await read())[1]

            return self._run("load", f"load room {room!r}", held, pooled=self._link is None)

        async def call() -> list[bytes]:
            return [as_bytes(event) for event in await self._redis.lrange(self.log_key(room), 0, -1)]

        return self._run("load", f"load room {room!r}", call)

    def expire(self, room: str, ttl: float) -> Awaitable[None]:
        ms = ttl_ms(ttl)

        async def call() -> None:
            # The room's keys at once (one slot), then the shared index.
            await self._expire_room(keys=self._marked_keys(room), args=[ms])
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self._index, {room: deadline_ms(ms)}, xx=True)
                self._keep_index(pipe, ms)
                await pipe.execute()

        return self._run("expire", f"expire room {room!r}", call)

    def delete(self, room: str) -> Awaitable[None]:
        async def call() -> None:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(*self.room_keys(room))  # one slot: one command (its archive marks too)
                pipe.zrem(self._index, room)
                await pipe.execute()

        return self._run("delete", f"delete room {room!r}", call)

    def room_ids(self) -> Awaitable[list[str]]:
        return self._run("room_ids", "list rooms", self._scan_rooms("log", "list"))


def _sharded(script: str) -> str:
    """The append script ringing its room's shard channel (``SPUBLISH``, in the slot it writes)."""
    plain = "redis.call('PUBLISH', "
    assert script.count(plain) == 1, "the append script rings its doorbell with one PUBLISH"
    return script.replace(plain, "redis.call('SPUBLISH', ")
