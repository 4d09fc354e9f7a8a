"""One pipelined connection to a Redis server: the rooms' hot path.

A move is one script call (``RedisStore.append_at``). Through redis-py's client each call costs
200-300 us of CPU on this project's machine (a pooled connection checked out and back, a timeout
task per read, its instrumentation), more than judging the move. ``Link`` instead keeps one
connection, writes every command issued during one turn of the event loop in one write, and hands
replies back in order as hiredis parses them: concurrent rooms' appends share a round trip (group
commit: nobody waits for it, a command goes out on the next turn). An append through the store then
costs ~30 us of CPU with 20 or 200 callers, ~80-100 us one at a time (``python -m
benchmarks.redislink`` measures both clients side by side).

It speaks to one server over TCP (``redis://``) or a Unix socket (``unix://``, cheaper for a Redis on
the same host: no TCP stack on either side of each round trip), with the URL's user, password and
db; a Redis Cluster, TLS and everything off the hot path stay on redis-py. Failures are redis-py's
exception types, so the store maps them like its other calls: :class:`LinkLost` (a
``ConnectionError``: the connection failed, calls in flight may or may not have run; the next call
connects again) and :class:`LinkTimeout` (no reply within ``timeout``: the connection is dropped).
"""

from __future__ import annotations

import asyncio
import collections
import socket
from collections.abc import Awaitable
from typing import Any, cast

import hiredis
from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["Link", "LinkLost", "LinkTimeout", "ReplyError", "link_url"]

Arg = bytes | str | int


class LinkLost(RedisConnectionError):
    """The connection failed or closed: commands in flight may or may not have run."""


class LinkTimeout(RedisTimeoutError):
    """A reply did not come within the timeout: the command may or may not have run."""


class ReplyError(ResponseError):
    """Redis answered the command with an error."""


def _pack(args: tuple[Arg, ...]) -> bytes:
    frame: bytes = hiredis.pack_command(args)  # type: ignore[arg-type]  # its stub says a 1-tuple
    return frame


def _copy(failure: Exception) -> Exception:
    """A fresh exception like ``failure``: one raised by many callers would gather all their
    tracebacks (and keep their frames alive)."""
    return type(failure)(*failure.args)


def link_url(url: str) -> bool:
    """Whether ``url`` names a server a :class:`Link` can talk to (one server, plain TCP or a Unix
    socket)."""
    return url.startswith(("redis://", "unix://"))


class _Pipe(asyncio.Protocol):
    """One open connection: frames queued this turn, and the calls waiting for replies, in order."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.loop = asyncio.get_running_loop()
        self.reader = hiredis.Reader(replyError=ReplyError)
        self.waiting: collections.deque[tuple[asyncio.Future[Any], float]] = collections.deque()
        self.out: list[bytes] = []
        self.transport: asyncio.Transport | None = None
        self.failure: Exception | None = None
        self.timer: asyncio.TimerHandle | None = None

    @property
    def open(self) -> bool:
        return self.failure is None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not an asyncio.Transport subclass
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family != socket.AF_UNIX:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        try:
            while (reply := self.reader.gets()) is not False:
                future = self.waiting.popleft()[0]
                if future.done():  # its caller was cancelled
                    continue
                if isinstance(reply, ReplyError):
                    future.set_exception(reply)
                else:
                    future.set_result(reply)
        except (hiredis.ProtocolError, IndexError) as exc:  # not Redis, or a reply nobody asked for
            self.fail(LinkLost(f"unreadable reply: {exc}"))

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(LinkLost(f"connection lost: {exc}" if exc else "connection closed by the server"))

    def call(self, frame: bytes) -> asyncio.Future[Any]:
        future: asyncio.Future[Any] = self.loop.create_future()
        if self.failure is not None:
            future.set_exception(_copy(self.failure))
            return future
        deadline = self.loop.time() + self.timeout
        self.waiting.append((future, deadline))
        if not self.out:
            self.loop.call_soon(self.flush)
        self.out.append(frame)
        if self.timer is None:
            self.timer = self.loop.call_at(deadline, self.check)
        return future

    def flush(self) -> None:
        """Everything queued this turn, in one write."""
        if self.out and self.transport is not None and self.failure is None:
            self.transport.write(b"".join(self.out))
        self.out.clear()

    def check(self) -> None:
        """The oldest call's deadline came: its reply is late (drop the connection), or it was
        answered and the timer moves on to the next oldest."""
        self.timer = None
        if not self.waiting:
            return
        deadline = self.waiting[0][1]
        if self.loop.time() >= deadline:
            self.fail(LinkTimeout(f"no reply within {self.timeout:g} s"))
        else:
            self.timer = self.loop.call_at(deadline, self.check)

    def fail(self, failure: Exception) -> None:
        """Close for good: every call in flight fails with ``failure``, later ones at once."""
        if self.failure is not None:
            return
        self.failure = failure
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        while self.waiting:
            future = self.waiting.popleft()[0]
            if not future.done():
                future.set_exception(_copy(failure))
        self.out.clear()
        if self.transport is not None:
            self.transport.abort()


class Link:
    """A pipelined connection to the Redis server at ``url``, (re)connected on demand.

    ``timeout`` bounds connecting and every reply (seconds).
    """

    def __init__(self, url: str, *, timeout: float = 2.0) -> None:
        if not link_url(url):
            raise ValueError("a Link speaks to redis:// and unix:// servers")
        options = parse_url(url)
        self.path: str | None = options.get("path")
        """The Unix socket (``unix://``), else None: TCP to ``host``:``port``."""
        self.host: str = options.get("host", "localhost")
        self.port: int = int(options.get("port", 6379))
        self.db: int = int(options.get("db", 0) or 0)
        self.username: str | None = options.get("username")
        self.password: str | None = options.get("password")
        self.timeout = timeout
        self._pipe: _Pipe | None = None
        """The connection: open, or failed and replaced by the next call."""
        self._connecting = asyncio.Lock()
        self._tries = 0
        """Connection attempts so far."""
        self._refusal: Exception | None = None
        """Why the last attempt failed (None once one succeeds)."""
        self._closed = False

    def call(self, *args: Arg) -> Awaitable[Any]:
        """Send one command; its reply (bytes, int, None or a list of them), or an exception."""
        frame = _pack(args)
        pipe = self._pipe
        if pipe is not None and pipe.open:
            return pipe.call(frame)  # no coroutine on the hot path
        return self._call_connected(frame)

    async def _call_connected(self, frame: bytes) -> Any:
        return await (await self._connected()).call(frame)

    async def script(self, sha: str, source: str, keys: list[str], args: list[Arg]) -> Any:
        """Run the Lua ``source`` (SHA1 ``sha``) by its digest, by its text when the server does not
        know it (a restarted or flushed Redis): NOSCRIPT means it did not run, so sending it again is safe."""
        try:
            return await self.call("EVALSHA", sha, len(keys), *keys, *args)
        except ReplyError as exc:
            if not str(exc).startswith("NOSCRIPT"):
                raise
        return await self.call("EVAL", source, len(keys), *keys, *args)

    async def _connected(self) -> _Pipe:
        tries = self._tries
        async with self._connecting:
            if self._closed:
                raise LinkLost("closed")
            pipe = self._pipe
            if pipe is not None and pipe.open:
                return pipe
            if self._tries != tries and self._refusal is not None:
                # Another call tried while this one waited, and failed: fail with it rather than
                # queue one more attempt (against an unreachable host each would take the timeout).
                raise _copy(self._refusal)
            self._tries += 1
            self._refusal = None
            loop = asyncio.get_running_loop()
            fresh: _Pipe | None = None
            ready = False
            try:
                async with asyncio.timeout(self.timeout):
                    if self.path is not None:
                        _, fresh = await loop.create_unix_connection(lambda: _Pipe(self.timeout), self.path)
                    else:
                        _, fresh = await loop.create_connection(lambda: _Pipe(self.timeout), self.host, self.port)
                    if self.password is not None:
                        auth = (self.username, self.password) if self.username else (self.password,)
                        await fresh.call(_pack(("AUTH", *auth)))
                    if self.db:
                        await fresh.call(_pack(("SELECT", self.db)))
                ready = not self._closed
            except (OSError, TimeoutError, RedisTimeoutError, LinkLost) as exc:
                self._refusal = LinkLost(f"cannot connect: {exc or type(exc).__name__}")
                raise self._refusal from exc
            except ReplyError as exc:
                self._refusal = exc
                raise
            finally:
                # Not kept (failed, refused, its caller cancelled mid-handshake, or the link closed
                # meanwhile): not left open either.
                if fresh is not None and not ready:
                    fresh.fail(LinkLost("handshake did not finish"))
            if not ready or fresh is None:
                raise LinkLost("closed")
            self._pipe = fresh
            return fresh

    async def close(self) -> None:
        """Fail the calls in flight; later calls fail at once (no reconnection)."""
        self._closed = True
        if self._pipe is not None:
            self._pipe.fail(LinkLost("closed"))
            self._pipe = None
