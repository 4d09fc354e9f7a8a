"""The floor: a bare ``websockets`` server that acks a move and forwards it to the rival.

What the race server could not do with less: read one msgpack frame, answer the mover and tell the
rival, nothing judged or stored. It speaks just enough of docs/protocol.md for the load generator
(``hello``, ``create_room``, ``join_room``, ``ready``, ``started``, ``move``) with frames of the same
shape as the real server's, so the generator drives both the same way. Rooms hold two racers.
No permessage-deflate (the cheapest choice: it buys nothing on 100-byte frames).

With ``--redis URL`` it also stores each move before acking it: one ``RPUSH`` of the move to its
room's list, through the race server's own pipelined link (server/store/link.py), awaited like the
race server awaits its append. Nothing is judged and there is no script, expiry or reply memory: it
is the least any server can do that keeps every acknowledged move in Redis, so its distance from the
plain floor is the price of the round trip itself on the server's CPU (``benchmarks/load.py``'s
``floor-redis`` target).

With ``--judge`` as well, each racer's moves are judged first on the racer's own ``seahaven.Board``
of the room's deal (parse the notation, ``is_legal``, play it; an illegal one is refused): the two
things no race server may skip, the engine's judgement and the stored move, and nothing else (no
exactly-once memory, no second node, no spectators, no metrics). ``benchmarks/load.py``'s
``floor-judged`` target: how close to the plain floor any server of this shape can come.

    .venv/bin/python -m benchmarks.floor [--port 0] [--uvloop] [--redis redis://127.0.0.1:6399/0 [--judge]]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import itertools
import signal
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgpack
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.typing import Subprotocol

from seahaven import Board, Move
from server.store.link import Link

SUBPROTOCOL = Subprotocol("seahaven.v1")


def frame(kind: str, re: int | None, body: dict[str, object]) -> bytes:
    data: bytes = msgpack.packb({"type": kind, "re": re, "body": body})
    return data


class Floor:
    """Rooms of two connections; nothing else (but each move stored first, given ``link``, and
    judged first, given ``judge``)."""

    def __init__(self, link: Link | None = None, judge: bool = False) -> None:
        self.link = link
        self.judge = judge
        self.ids = itertools.count(1)
        self.rooms: dict[str, list[ServerConnection]] = {}
        self.deals: dict[str, int] = {}
        self.ready: dict[str, set[ServerConnection]] = {}

    async def connection(self, ws: ServerConnection) -> None:
        player = f"p{next(self.ids):010d}"
        room: str | None = None
        board: Board | None = None
        moves = home = 0
        with contextlib.suppress(ConnectionClosed):
            async for data in ws:
                request = msgpack.unpackb(data)
                kind, seq, body = request["type"], request["seq"], request.get("body", {})
                if kind == "move":
                    if board is not None:
                        move = Move.parse(body["move"])
                        if not board.is_legal(move):
                            await ws.send(frame("error", seq, {"code": "illegal-move", "message": "illegal"}))
                            continue
                        board.push_legal(move)
                        home = board.progress
                    if self.link is not None:
                        await self.link.call("RPUSH", f"floor:{room}", body["move"])
                    moves += 1
                    ms = time.time_ns() // 1_000_000
                    await ws.send(
                        frame(
                            "moved",
                            seq,
                            {
                                "move": body["move"],
                                "undo": False,
                                "progress": home,
                                "moves": moves,
                                "status": "racing",
                                "elapsed_ms": ms,
                            },
                        )
                    )
                    progress = frame(
                        "progress",
                        None,
                        {
                            "player": player,
                            "progress": home,
                            "moves": moves,
                            "status": "racing",
                            "elapsed_ms": ms,
                            "time_ms": None,
                            "move": None,
                        },
                    )
                    for rival in self.rooms.get(room or "", ()):
                        if rival is not ws:
                            await rival.send(progress)
                elif kind == "hello":
                    await ws.send(frame("welcome", seq, {"player": player, "name": body.get("name", "")}))
                elif kind == "create_room":
                    room = f"R{next(self.ids):05d}"
                    self.rooms[room] = [ws]
                    self.deals[room] = int(body.get("deal_number") or 1)
                    board = Board.deal("seahaven", self.deals[room]) if self.judge else None
                    await ws.send(frame("room", seq, {"room": room, "you": player}))
                elif kind == "join_room":
                    room = str(body["room"])
                    self.rooms.setdefault(room, []).append(ws)
                    board = Board.deal("seahaven", self.deals.get(room, 1)) if self.judge else None
                    await ws.send(frame("room", seq, {"room": room, "you": player}))
                elif kind == "ready" and room is not None:
                    await ws.send(frame("ok", seq, {}))
                    ready = self.ready.setdefault(room, set())
                    ready.add(ws)
                    if len(ready) == len(self.rooms[room]) >= 2:
                        started = frame("started", None, {"started_at": time.time_ns() // 1_000_000})
                        for racer in self.rooms[room]:
                            await racer.send(started)
                else:
                    await ws.send(frame("ok", seq, {}))


async def main(args: argparse.Namespace) -> None:
    link = Link(args.redis) if args.redis else None
    floor = Floor(link, args.judge)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with serve(
        floor.connection,
        "127.0.0.1",
        args.port,
        subprotocols=[SUBPROTOCOL],
        compression=None,
        max_size=4096,
    ) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"listening on ws://127.0.0.1:{port}", flush=True)
        await stop.wait()
    if link is not None:
        await link.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--uvloop", action="store_true", help="run on uvloop (as the race server does when installed)")
    parser.add_argument("--redis", metavar="URL", help="store each move in this Redis before acking it")
    parser.add_argument("--judge", action="store_true", help="judge each move with the engine first")
    arguments = parser.parse_args()
    if arguments.uvloop:
        importlib.import_module("uvloop").install()
    asyncio.run(main(arguments))
