"""Records the frames a browser's page gets in a short race, for web/test/state.test.js.

A real server process (memory store); Ann creates a room on deal 1, Bob joins, both ready, Ann plays
the solver's first moves, one of them refused, and resigns; Bob leaves. Each client's frames are
written as [type, re, body] in order to web/test/frames.json (server times as the server sent them).

    PYTHONPATH=. python scripts/record_web_frames.py
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import SUBPROTOCOL
from seahaven import Board
from seahaven.solver import solve
from tests.server_proc import ServerProcess

OUT = Path(__file__).resolve().parent.parent / "web" / "test" / "frames.json"


class Recorder:
    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seq = 0
        self.frames: list[list[Any]] = []

    async def call(self, type_: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        self.seq += 1
        await self.ws.send(msgpack.packb({"type": type_, "seq": self.seq, "body": body or {}}))
        while True:
            frame = await self.read()
            if frame[1] == self.seq:
                reply: dict[str, Any] = frame[2]
                return reply

    async def read(self, wait: float = 5.0) -> list[Any]:
        msg = msgpack.unpackb(await asyncio.wait_for(self.ws.recv(), wait))
        frame = [msg["type"], msg["re"], msg["body"]]
        self.frames.append(frame)
        return frame

    async def until(self, type_: str) -> None:
        while (await self.read())[0] != type_:
            pass

    async def drain(self) -> None:
        try:
            while True:
                await self.read(0.3)
        except TimeoutError:
            pass


async def record(port: int) -> dict[str, list[list[Any]]]:
    url = f"ws://127.0.0.1:{port}/"
    async with connect(url, subprotocols=[SUBPROTOCOL]) as a, connect(url, subprotocols=[SUBPROTOCOL]) as b:  # type: ignore[list-item]
        ann, bob = Recorder(a), Recorder(b)
        await ann.call("hello", {"name": "Ann"})
        await bob.call("hello", {"name": "Bob"})
        room = await ann.call("create_room", {"deal_number": 1, "undo": True})
        await bob.call("join_room", {"room": room["room"]})
        await ann.call("ready", {"ready": True})
        await bob.call("ready", {"ready": True})
        await ann.until("started")
        await bob.until("started")
        moves = solve(Board.deal("seahaven", 1)).moves[:3]
        for move in moves:
            await ann.call("move", {"move": str(move)})
        await ann.call("move", {"move": "1h"})  # refused: not a move here
        await ann.call("undo")
        await ann.call("resign")
        await bob.drain()
        await bob.call("leave")
        await ann.drain()
        return {"ann": ann.frames, "bob": bob.frames}


def main() -> None:
    server = ServerProcess("--spectator-delay", "0")
    try:
        frames = asyncio.run(record(server.port))
    finally:
        server.close()
    OUT.write_text(json.dumps(frames, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: {sum(len(f) for f in frames.values())} frames")


if __name__ == "__main__":
    main()
