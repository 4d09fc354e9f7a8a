"""docs/protocol.md's examples run: its byte-exact frames and its worked session, kept in
docs/protocol-examples.md (the guide's section 17 shows a few of the frames too), against the server.

Every byte-exact frame (the guide's section 17, the companion's section 1) must decode and encode
again to the very bytes shown. The companion's error frames (its section 3) that need no session
are sent to a running server, whose reply must be the bytes shown. Its complete session (section 2)
is replayed frame by frame against a running server (on a fake clock, with the document's
settings): every request is sent as shown and every frame the document shows must arrive on the
connections it names, in order, equal to the document's frame once the values that differ in every
run (tokens, player ids, room codes, times) are swapped in.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import SUBPROTOCOL, decode_request, decode_server, encode, encode_request
from protocol.messages import CreateRoom, JoinRoom, Ready, RoomState, Started
from seahaven import decode as decode_deal
from server.app import RaceServer
from server.config import Config
from server.shell.names import normalise_room_code
from server.store.stores import MemoryStore
from tests.fakeclock import FakeClock
from tests.protocol_doc import EXAMPLES_DOC, Example, examples, section
from tests.wsclient import WsClient

TIMES = frozenset({"server_time", "starts_at", "started_at", "ends_at", "elapsed_ms", "time_ms"})
"""Fields whose values differ in every run (only whether they are nil must agree)."""
IDS = frozenset({"token", "player", "you", "room", "race_id"})
"""Fields whose values are chosen at random by the server (mapped from the document's to the run's)."""
COUNTDOWN_MS = 500
"""The session's server ran with ``--countdown 0.5 --spectator-delay 0``."""


def code_blocks(text: str) -> Iterator[str]:
    yield from re.findall(r"\n```\n(.*?)\n```", text, re.S)


# -- byte-exact frames (section 17; the companion's section 1) ------------------------------------


EXAMPLES = examples()


def test_section_17_shows_every_message_type() -> None:
    titles = {e.title.split(" (")[0] for e in EXAMPLES}
    assert len(EXAMPLES) >= 25
    assert {"hello", "move", "room", "progress", "result", "error", "members", "started"} <= titles


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.title for e in EXAMPLES])
def test_section_17_examples_are_the_codecs_bytes(example: Example) -> None:
    assert len(example.data) == example.size
    assert example.items == example.data, "the item-by-item breakdown shows other bytes"
    frame = msgpack.unpackb(example.data)
    if "seq" in frame:  # a request: the codec reads it (and may write optional fields it leaves out)
        seq, request = decode_request(example.data)
        assert decode_request(encode_request(request, seq)) == (seq, request)
        assert {k: v for k, v in request.to_body().items() if k in frame["body"]} == frame["body"]
    else:  # a server message: the server writes exactly these bytes
        re_, message = decode_server(example.data)
        assert encode(message, re_) == example.data


# -- error frames (section 11; the companion's section 3) -----------------------------------------


@dataclass
class ErrorExample:
    title: str
    request: bytes | str
    reply: bytes


def error_examples() -> list[ErrorExample]:
    (block, *_) = [b for b in code_blocks(section(3, EXAMPLES_DOC)) if b.startswith("# ")]
    found = []
    for chunk in block.split("\n\n"):
        title, *lines = chunk.splitlines()
        sent, got = "\n".join(lines).split("\n← ")
        reply = bytes.fromhex("".join(got.splitlines()[1:]).replace(" ", ""))
        if sent.startswith("→ a text message: "):
            request: bytes | str = json.loads(sent.removeprefix("→ a text message: "))
        else:
            request = bytes.fromhex("".join(sent.splitlines()[1:]).replace(" ", ""))
        found.append(ErrorExample(title.removeprefix("# "), request, reply))
    return found


ERRORS = error_examples()
NEEDS_A_SESSION = ("sent by another client", "bad-seq: older", "illegal-move")


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    race = RaceServer(Config(port=0), MemoryStore(), FakeClock())
    await race.start()
    yield race
    await race.stop()


async def test_section_11_errors_that_need_no_session_are_the_servers_bytes(server: RaceServer) -> None:
    fresh = [e for e in ERRORS if not any(mark in e.title for mark in NEEDS_A_SESSION)]
    assert len(fresh) >= 7
    for example in fresh:
        async with connect(f"ws://127.0.0.1:{server.port}", subprotocols=[SUBPROTOCOL]) as ws:  # type: ignore[list-item]
            await ws.send(example.request)
            assert await asyncio.wait_for(ws.recv(), 5) == example.reply, example.title


@pytest.mark.parametrize("example", ERRORS, ids=[e.title for e in ERRORS])
def test_section_11_examples_are_the_codecs_bytes(example: ErrorExample) -> None:
    re_, message = decode_server(example.reply)
    assert encode(message, re_) == example.reply
    if isinstance(example.request, bytes) and "envelope" not in example.title:
        assert msgpack.unpackb(example.request).get("seq") == re_


# -- the complete session (section 18; the companion's section 2) ---------------------------------


@dataclass
class Frame:
    sender: str | None
    """Who sent it (None: the server)."""
    receivers: tuple[str, ...]
    size: int
    value: dict[str, Any]
    data: bytes | None
    """The bytes, where the document shows them."""


@dataclass
class Step:
    title: str
    frames: list[Frame] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    """Moves the document does not show frame by frame ("... more moves like these")."""
    mover: str = ""
    first_seq: int = 0


HEADER = re.compile(r"^(?:(?P<sender>[A-Z]) → server|server → (?P<receivers>[A-Z, ]+?))\s+\((?P<size>\d+) bytes\)$")


def session() -> list[Step]:
    steps = []
    for title, body in re.findall(r"\n\*\*(\d+\. .+?)\*\*\n(.*?)(?=\n\*\*\d+\. |\Z)", section(2, EXAMPLES_DOC), re.S):
        step = Step(title)
        for block in code_blocks(body):
            lines = block.splitlines()
            i = 0
            while i < len(lines):
                line = lines[i]
                if line.startswith("... "):
                    told = re.search(r"seq (\d+) to (\d+), each answered by `moved` to ([A-Z])", line)
                    assert told is not None, line
                    step.first_seq, step.mover = int(told[1]), told[3]
                    step.moves = " ".join(lines[i + 2 :]).split()
                    assert len(step.moves) == int(told[2]) - int(told[1]) + 1
                    break
                head = HEADER.match(line)
                assert head is not None, line
                text: list[str] = []
                hexed: list[str] = []
                i += 1
                while i < len(lines) and lines[i].startswith("      "):
                    part = lines[i].strip()
                    if text and _balanced("".join(text)) and re.fullmatch(r"[0-9a-f]+", part):
                        hexed.append(part)
                    else:
                        text.append(part)
                    i += 1
                receivers = tuple(r.strip() for r in (head["receivers"] or "").split(",") if r.strip())
                data = bytes.fromhex("".join(hexed)) if hexed else None
                value = json.loads(" ".join(text))
                step.frames.append(Frame(head["sender"], receivers, int(head["size"]), value, data))
        steps.append(step)
    return steps


def _balanced(text: str) -> bool:
    return text.count("{") == text.count("}") and text.count("[") == text.count("]")


SESSION = session()


def test_section_18_frames_agree_with_their_bytes() -> None:
    assert len(SESSION) >= 25
    for step in SESSION:
        for frame in step.frames:
            packed = msgpack.packb(frame.value)
            assert len(packed) == frame.size, (step.title, frame.value)
            if frame.data is not None:
                assert packed == frame.data, (step.title, frame.value)


class Replay:
    """The document's session, played against a running server."""

    def __init__(self, server: RaceServer, clock: FakeClock) -> None:
        self.server = server
        self.clock = clock
        self.conns: dict[str, ClientConnection] = {}
        self.said_hello: set[str] = set()
        self.ids: dict[str, str] = {}
        """The document's tokens, player ids and room codes -> this run's."""

    async def send(self, who: str, value: dict[str, Any]) -> None:
        if value["type"] == "hello" and who in self.said_hello:
            self.conns.pop(who, None)  # a hello again: on a new connection
        if who not in self.conns:
            url = f"ws://127.0.0.1:{self.server.port}"
            self.conns[who] = await connect(url, subprotocols=[SUBPROTOCOL])  # type: ignore[list-item]
        if value["type"] == "hello":
            self.said_hello.add(who)
        await self.conns[who].send(msgpack.packb(self.swap(value)))

    async def expect(self, who: str, frame: Frame, where: str) -> None:
        data = await asyncio.wait_for(self.conns[who].recv(), 5)
        assert isinstance(data, bytes)
        got = msgpack.unpackb(data)
        expected = self.match(frame.value, got, where)
        assert got == expected, f"{where}: the server sent {got}"
        assert list(_keys(got)) == list(_keys(expected)), f"{where}: keys in another order"
        assert data == msgpack.packb(expected), where

    async def drop(self, who: str) -> None:
        await self.conns.pop(who).close()

    def swap(self, value: Any, key: str = "") -> Any:
        """The document's request with this run's ids."""
        if isinstance(value, dict):
            return {k: self.swap(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.swap(v, key) for v in value]
        if key == "room" and isinstance(value, str) and normalise_room_code(value) in self.ids:
            # The code as the document typed it, with this run's characters.
            typed = self.ids[normalise_room_code(value)]
            if value != normalise_room_code(value):
                typed = typed.lower()
                if " " in value:
                    typed = typed[: value.index(" ")] + " " + typed[value.index(" ") :]
            return typed
        return self.ids.get(value, value) if key in IDS else value

    def match(self, doc: Any, got: Any, where: str, key: str = "") -> Any:
        """The document's frame with this run's ids and times: what the server must have sent."""
        if isinstance(doc, dict) and isinstance(got, dict):
            return {k: self.match(v, got.get(k), f"{where}.{k}", k) for k, v in doc.items()}
        if isinstance(doc, list) and isinstance(got, list) and len(doc) == len(got):
            return [self.match(d, g, where, key) for d, g in zip(doc, got, strict=True)]
        if key in TIMES and doc is not None and got is not None:
            return got
        if (key in IDS or key == "rematch") and isinstance(doc, str) and isinstance(got, str):
            known = self.ids.setdefault(doc, got)
            assert known == got, f"{where}: {doc} was {known} before, now {got}"
            return got
        return doc


def _keys(value: Any, path: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield f"{path}.{k}"
            yield from _keys(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _keys(v, f"{path}[{i}]")


async def another_race(url: str, clock: FakeClock) -> list[WsClient]:
    """The race going on elsewhere that the session's lobby shows (the companion's section 2, step 3)."""
    bots = [await WsClient.open(url, name) for name in ("Xan", "Yul")]
    state = await bots[0].call(CreateRoom())
    assert isinstance(state, RoomState)
    assert isinstance(await bots[1].call(JoinRoom(room=state.room)), RoomState)
    for bot in bots:
        await bot.call(Ready())
    clock.advance(COUNTDOWN_MS)
    await bots[0].expect(Started)
    return bots


async def test_section_18_session_runs_against_the_server() -> None:
    rematch = [f for s in SESSION for f in s.frames if f.value["type"] == "started"][-1]
    _, rematch_deal = decode_deal(rematch.value["body"]["deal"])
    clock = FakeClock()
    config = Config(port=0, countdown_ms=COUNTDOWN_MS, spectator_delay_ms=0)
    server = RaceServer(config, MemoryStore(), clock, deals=lambda: rematch_deal)
    await server.start()
    replay = Replay(server, clock)
    bots = await another_race(f"ws://127.0.0.1:{server.port}", clock)
    try:
        for step in SESSION:
            if "connection drops" in step.title:
                await replay.drop(step.title.split(". ")[1][0])
            elif step.frames and step.frames[0].sender is None:
                clock.advance(COUNTDOWN_MS)  # a step the clock causes: the countdown ends
            for n, frame in enumerate(step.frames):
                where = f"step {step.title} frame {n + 1}"
                if frame.sender is not None:
                    await replay.send(frame.sender, frame.value)
                for receiver in frame.receivers:
                    await replay.expect(receiver, frame, where)
            await play_elided(replay, step)
    finally:
        for bot in bots:
            await bot.close()
        await server.stop()


async def play_elided(replay: Replay, step: Step) -> None:
    """The moves a step lists without their frames: each answered by ``moved`` to the mover
    and a ``progress`` to everyone else, as the frames before them were."""
    if not step.moves:
        return
    shown = [f for f in step.frames if f.value["type"] in ("moved", "progress")][-3:]
    for seq, move in enumerate(step.moves, start=step.first_seq):
        replay.clock.advance(40)  # as a person plays: within the rate limit
        await replay.send(step.mover, {"type": "move", "seq": seq, "body": {"move": move}})
        for frame in shown:
            for receiver in frame.receivers:
                data = await asyncio.wait_for(replay.conns[receiver].recv(), 5)
                assert isinstance(data, bytes)
                got = msgpack.unpackb(data)
                assert got["type"] == frame.value["type"] and set(got["body"]) == set(frame.value["body"])
                assert got["body"]["move"] in (move, None), (seq, move, got)
