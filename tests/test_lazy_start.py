"""A node that starts loads no room until someone needs it, and a dead node's racers still get their
drops recorded and their grace periods run: real server processes on one real redis-server.

Node A holds rooms whose racers are all on it and is killed (SIGKILL); node C holds a room of its
own racers all along; node B starts just before the kill. B never reads C's room (it is not among the
room's holders: nobody on B needed it), a racer of A resumes on B (B loads her room then), and every
racer of A who never comes back forfeits without anyone connecting for them (the survivors make A's
rooms due, load them, record the drops, and the grace periods run out).
"""

from __future__ import annotations

import redis.asyncio as aioredis

from protocol.messages import CreateRoom, Moved, MoveRequest, Progress, RoomState
from seahaven import Board
from seahaven.solver import solve
from server.rooms.events import Ended, Event, unpack
from tests.helpers import wait_until
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

MOVES = [str(move) for move in solve(Board.deal("seahaven", 1)).moves]
ROOMS_ON_A = 3


async def race(a: WsClient, b: WsClient) -> str:
    state = await race_of_two(a, b, CreateRoom(deal_number=1))
    assert isinstance(await a.call(MoveRequest(move=MOVES[0])), Moved)
    return state.room


async def stored(redis: aioredis.Redis, code: str) -> list[Event]:
    data = await redis.lrange(f"seahaven:{{room:{code}}}:log", 0, -1)
    return [unpack(d.encode() if isinstance(d, str) else bytes(d)) for d in data]


async def holders(redis: aioredis.Redis, code: str) -> set[str]:
    members = await redis.smembers(f"seahaven:{{room:{code}}}:holders")
    return {m if isinstance(m, str) else bytes(m).decode() for m in members}


async def test_a_started_node_loads_rooms_when_needed_and_a_dead_nodes_racers_still_forfeit(
    redis_proc: RedisProcess,
) -> None:
    redis = aioredis.Redis.from_url(redis_proc.url)
    a = ServerProcess("--redis", redis_proc.url, "--grace", "1")
    c = ServerProcess("--redis", redis_proc.url, "--grace", "1")
    b: ServerProcess | None = None
    clients: list[WsClient] = []
    try:
        pairs = [
            (await WsClient.open(a.url, f"Ann{n}"), await WsClient.open(a.url, f"Bob{n}")) for n in range(ROOMS_ON_A)
        ]
        clients += [x for pair in pairs for x in pair]
        rooms = [await race(ann, bob) for ann, bob in pairs]
        cid, dan = await WsClient.open(c.url, "Cid"), await WsClient.open(c.url, "Dan")
        clients += [cid, dan]
        own = await race(cid, dan)  # C's room: its racers stay connected to C throughout
        before = await holders(redis, own)

        # B starts before A dies: started after, a loaded machine's slow start let A's death be
        # noticed and Bob's one-second grace run out before Ann could come back (the race over).
        b = ServerProcess("--redis", redis_proc.url, "--grace", "1")
        a.kill()

        # A racer of A resumes on B: B loads her room for her, and she races on.
        ann, bob = pairs[0]
        back = await WsClient.open(b.url, "Ann0", token=ann.token)
        clients.append(back)
        state = await back.expect(RoomState)
        assert state.room == rooms[0] and state.phase == "racing"
        assert isinstance(await back.call(MoveRequest(move=MOVES[1])), Moved)
        # Bob never comes back: once A is counted dead his drop is recorded and his grace runs out.
        await back.expect(Progress, wait=40, where=lambda p: p.player == bob.player and p.status == "forfeit")

        # The other rooms of A: nobody came back, and still every racer forfeited (the race ended).
        async def all_ended() -> bool:
            logs = [await stored(redis, code) for code in rooms[1:]]
            return all(any(isinstance(e, Ended) for e in log) for log in logs)

        await wait_until(all_ended, timeout=40)
        # Nobody on B needed C's room: B never read it (it would be among its holders), and it races on.
        assert await holders(redis, own) == before
        assert isinstance(await dan.call(MoveRequest(move=MOVES[0])), Moved)
        await cid.expect(Progress, where=lambda p: p.player == dan.player and p.moves == 1)
    finally:
        for client in clients:
            await client.close()
        await redis.aclose()
        for node in (a, c, b):
            if node is not None:
                node.close()
