"""The load generator: racers on real WebSockets speaking docs/protocol.md, moves at a fixed rate.

Frames are built and read with plain msgpack from the document's wire names (not with the project's
``protocol`` package), so the generator keeps working whatever shape the server's code takes.
Each racer has one reader task; one scheduler sends every move at its planned time (open loop: a
slow server does not slow the offered rate down, so queueing shows up in the latencies).

Timings: move -> ack is from sending a ``move`` to its ``moved`` reply on the same socket; move ->
rival is from sending it to the rival's ``progress`` event with the mover's new move count.
A move whose answer never comes within the drain time counts as infinitely late.
"""

from __future__ import annotations

import asyncio
import gc
import math
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from .races import Script

SUBPROTOCOL = Subprotocol("seahaven.v1")
OPEN_TIMEOUT = 30.0
REPLY_TIMEOUT = 30.0
MAX_IN_FLIGHT = 8
"""Moves one racer may have unanswered; beyond it the scheduler skips the racer's turn (counted)."""
CONCURRENT_SETUP = 32
"""Connections opened, or rooms set up, at once."""


def clock() -> float:
    return time.perf_counter()


@dataclass
class Window:
    """Samples of moves sent between ``start`` and ``end`` (perf_counter seconds)."""

    start: float
    end: float = math.inf
    sent: int = 0
    sent_with_rival: int = 0
    skipped: int = 0
    ack: list[float] = field(default_factory=list)
    rival: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    max_lag: float = 0.0

    def holds(self, sent_at: float) -> bool:
        return self.start <= sent_at < self.end


class Racer:
    """One connection, one seat, one script."""

    def __init__(self, index: int, ws: ClientConnection, gen: Generator) -> None:
        self.index = index
        self.ws = ws
        self.gen = gen
        self.seq = 0
        self.player = ""
        self.room = ""
        self.script: Script | None = None
        self.rival: Racer | None = None
        self.played = 0
        """Moves sent so far; the next move is ``script.move(played)`` and will be move ``played + 1``."""
        self.replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.moves_in_flight: dict[int, float] = {}
        """seq -> send time of each unanswered move."""
        self.sent_at: dict[int, float] = {}
        """move count -> send time, until the rival hears of it."""
        self.started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.reader = asyncio.get_running_loop().create_task(self.read())

    async def call(self, kind: str, body: dict[str, object]) -> dict[str, Any]:
        """Send a request and wait for its reply (raises on ``error``)."""
        self.seq += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.replies[self.seq] = future
        await self.ws.send(msgpack.packb({"type": kind, "seq": self.seq, "body": body}))
        reply = await asyncio.wait_for(future, REPLY_TIMEOUT)
        if reply["type"] == "error":
            raise RuntimeError(f"{kind}: {reply['body']['code']}: {reply['body']['message']}")
        return reply

    async def send_move(self, now: float) -> None:
        assert self.script is not None
        self.seq += 1
        self.moves_in_flight[self.seq] = now
        self.played += 1
        if self.rival is not None:
            self.sent_at[self.played] = now
        frame = msgpack.packb({"type": "move", "seq": self.seq, "body": {"move": self.script.move(self.played - 1)}})
        await self.ws.send(frame)

    async def read(self) -> None:
        players: dict[str, Racer] = self.gen.by_player
        try:
            async for data in self.ws:
                now = clock()
                frame = msgpack.unpackb(data)
                kind = frame["type"]
                re = frame["re"]
                window = self.gen.window
                if kind == "progress":
                    body = frame["body"]
                    mover = players.get(body["player"])
                    if mover is not None:
                        sent = mover.sent_at.pop(body["moves"], None)
                        if sent is not None and window is not None and window.holds(sent):
                            window.rival.append(now - sent)
                elif re is not None and re in self.moves_in_flight:
                    sent = self.moves_in_flight.pop(re)
                    if window is not None and window.holds(sent):
                        if kind == "moved":
                            window.ack.append(now - sent)
                        else:
                            window.errors[str(frame["body"].get("code"))] += 1
                    if kind != "moved":
                        self.gen.errors[f"{frame['body'].get('code')}: {frame['body'].get('message')}"] += 1
                elif re is not None and re in self.replies:
                    self.replies.pop(re).set_result(frame)
                elif kind == "started" and not self.started.done():
                    self.started.set_result(None)
                else:
                    self.gen.event(self, frame)
        except ConnectionClosed:
            pass


class Generator:
    """Every racer of one benchmark target, and the scheduler that makes them move."""

    def __init__(self, urls: list[str], deflate: bool, source: str | None = None) -> None:
        """``source``: the loopback address connections come from (each holds about 28,000 ports to
        one server port), the kernel's pick when None."""
        self.urls = urls
        self.deflate = deflate
        self.source = source
        self.racers: list[Racer] = []
        self.by_player: dict[str, Racer] = {}
        self.window: Window | None = None
        self.errors: Counter[str] = Counter()

    async def _bounded(self, jobs: list[Callable[[], Awaitable[None]]]) -> None:
        gate = asyncio.Semaphore(CONCURRENT_SETUP)

        async def run(job: Callable[[], Awaitable[None]]) -> None:
            async with gate:
                await job()

        await asyncio.gather(*(run(job) for job in jobs))

    def event(self, racer: Racer, frame: dict[str, Any]) -> None:
        """A frame the racer's reader does not use itself (``result``, ``members``, ...)."""

    async def connect(self, count: int, first: int = 0) -> None:
        """Open ``count`` connections (spread over the URLs) and say hello on each; their indices
        (and names) go from ``first`` on."""

        async def one(index: int) -> None:
            ws = await connect(
                self.urls[index % len(self.urls)],
                subprotocols=[SUBPROTOCOL],
                compression="deflate" if self.deflate else None,
                open_timeout=OPEN_TIMEOUT,
                max_size=None,
                local_addr=(self.source, 0) if self.source else None,
            )
            racer = Racer(index, ws, self)
            welcome = await racer.call("hello", {"name": f"bench{index}"})
            racer.player = welcome["body"]["player"]
            self.racers.append(racer)
            self.by_player[racer.player] = racer

        await self._bounded([lambda i=i: one(i) for i in range(first, first + count)])  # type: ignore[misc]

    async def seat(self, scripts: list[Script]) -> None:
        """Pair the racers into two-racer rooms (creator and joiner on consecutive connections,
        so on different nodes when there are two), each room on a script's deal, and start them."""
        self.racers.sort(key=lambda r: r.index)
        pairs = [(self.racers[i], self.racers[i + 1]) for i in range(0, len(self.racers) - 1, 2)]

        async def room(index: int, a: Racer, b: Racer) -> None:
            script = scripts[index % len(scripts)]
            state = await a.call("create_room", {"deal_number": script.deal, "public": False})
            code = state["body"]["room"]
            await b.call("join_room", {"room": code})
            for racer, rival in ((a, b), (b, a)):
                racer.script, racer.rival, racer.room = script, rival, code
            await a.call("ready", {"ready": True})
            await b.call("ready", {"ready": True})
            await asyncio.wait_for(asyncio.gather(a.started, b.started), REPLY_TIMEOUT)

        await self._bounded([lambda i=i, a=a, b=b: room(i, a, b) for i, (a, b) in enumerate(pairs)])  # type: ignore[misc]

    async def run(
        self, rate: float, warmup: float, measure: float, drain: float, probe: Callable[[], None] = lambda: None
    ) -> Window:
        """Offer ``rate`` moves/s for ``warmup + measure`` seconds; samples of the measured part.
        ``probe`` is called as the measured part begins and as it ends (to read CPU counters)."""
        racers = [r for r in self.racers if r.script is not None and r.started.done()]
        if not racers:
            raise RuntimeError("no racer is racing")
        # The generator's own collections (a full one took 15-67 ms here) would stall every racer
        # at once and land in the tail of whichever side is loaded: collect now, none while loading.
        gc.collect()
        gc.disable()
        try:
            return await self._run(racers, rate, warmup, measure, drain, probe)
        finally:
            gc.enable()

    async def _run(
        self, racers: list[Racer], rate: float, warmup: float, measure: float, drain: float, probe: Callable[[], None]
    ) -> Window:
        start = clock()
        window = self.window = Window(start + warmup, start + warmup + measure)
        sent = 0
        turn = 0
        end = window.end
        probed = False
        while True:
            now = clock()
            if now >= end:
                break
            if not probed and now >= window.start:
                probe()
                probed = True
            due = int((now - start) * rate)
            while sent < due:
                planned = start + sent / rate
                sent += 1
                racer = racers[turn % len(racers)]
                turn += 1
                in_window = window.holds(now)
                if len(racer.moves_in_flight) >= MAX_IN_FLIGHT:
                    if in_window:
                        window.skipped += 1
                    continue
                if in_window:
                    window.sent += 1
                    window.sent_with_rival += racer.rival is not None
                    window.max_lag = max(window.max_lag, now - planned)
                await racer.send_move(now)
            await asyncio.sleep(0.0005)
        if not probed:
            probe()
        probe()
        # Let the answers to the measured moves come in (polled: a few checks a second are enough).
        deadline = clock() + drain
        while clock() < deadline and any(  # noqa: ASYNC110
            window.holds(t) for r in racers for t in (*r.moves_in_flight.values(), *r.sent_at.values())
        ):
            await asyncio.sleep(0.05)
        self.window = None
        for r in racers:  # forget what never came, so the next run starts clean
            r.moves_in_flight.clear()
            r.sent_at.clear()
        return window

    async def close(self) -> None:
        for racer in self.racers:
            racer.reader.cancel()
        await asyncio.gather(*(r.ws.close() for r in self.racers), return_exceptions=True)
        await asyncio.gather(*(r.reader for r in self.racers), return_exceptions=True)
