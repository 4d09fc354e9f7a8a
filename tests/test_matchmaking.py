"""Rating-matched quick match on real servers (memory and Redis; two nodes on one Redis), time
stepped on the shared fake clock: close ratings race at once, far ones once the window has
widened, nobody waits more than 10 s while anyone else waits, across nodes, each racer matched
once however many ask at the same time, and a racer who drops or leaves is matched with nobody."""

from __future__ import annotations

import asyncio
import random

from protocol.messages import Leave, Matching, Members, Ok, QuickMatch, RoomState
from protocol.schema import Message
from server.app import RaceServer
from server.play.matchmaking import LOOK_EVERY_MS, MATCH_WINDOW
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.wsclient import WsClient


async def racer(server: RaceServer, name: str, rating: int | None, preset: str = "seahaven") -> WsClient:
    client = await WsClient.open(url_of(server), name)
    if rating is not None:
        await server.store.put_rating(client.player, preset, rating, 3600)
    return client


async def wait_alone(client: WsClient, message: Message | None = None) -> RoomState:
    """Ask for a quick match that seats the racer alone, waiting (and the ``matching`` that says so)."""
    state = await client.call(message or QuickMatch())
    assert isinstance(state, RoomState) and len(state.racers) == 1, state
    await client.expect(Matching)
    return state


async def look(*servers: RaceServer, ms: int = LOOK_EVERY_MS) -> None:
    """Let ``ms`` pass on the servers' shared fake clock, and every look that fell due finish."""
    before = [s.matches.timer for s in servers]
    fake(servers[0]).advance(ms)

    def looked() -> bool:
        return all(
            not s.matches.looking and (s.matches.timer is not old or not s.matches.waiting)
            for s, old in zip(servers, before, strict=True)
        )

    await wait_until(looked, what="the nodes' looks at their queues")


def room_of(servers: tuple[RaceServer, ...], client: WsClient) -> str | None:
    """The room the racer is seated in, as the node holding their session sees it."""
    for server in servers:
        session = server.players.get(client.player)
        if session is not None and session.conn is not None:
            return session.room
    return None


def racers_in(servers: tuple[RaceServer, ...], code: str) -> int:
    return next((len(s.rooms[code].room.seats) for s in servers if code in s.rooms), 0)  # 0: no node holds it


async def test_close_ratings_race_at_once(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await racer(server, "Ann", 1500), await racer(server, "Bob", 1580)
    waiting = await ann.call(QuickMatch())
    assert isinstance(waiting, RoomState) and len(waiting.racers) == 1
    told = await ann.expect(Matching)
    assert told == Matching(preset="seahaven", rating=1500, window=100, widens=50, anyone_after_ms=9000, waited_ms=0)
    joined = await bob.call(QuickMatch())
    assert isinstance(joined, RoomState) and joined.room == waiting.room
    assert [r.player for r in joined.racers] == [ann.player, bob.player]
    await ann.expect(Members, where=lambda m: len(m.racers) == 2)
    assert not [e for e in await bob.settle() if isinstance(e, Matching)]  # paired: no wait to tell of


async def test_a_player_without_a_rating_counts_as_a_new_one(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await racer(server, "Ann", None), await racer(server, "Bob", 1590)
    await wait_alone(ann)
    joined = await bob.call(QuickMatch())
    assert isinstance(joined, RoomState) and len(joined.racers) == 2  # 1500 and 1590: within 100


async def test_far_ratings_wait_until_the_window_has_widened(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await racer(server, "Ann", 1500), await racer(server, "Bob", 1900)
    first = await wait_alone(ann)
    await look(server)
    second = await wait_alone(bob)
    assert second.room != first.room
    # 400 apart: ann's window (100 + 50 a second) reaches it after 6 s.
    for _ in range(10):
        await look(server)
    assert room_of((server,), bob) == second.room and racers_in((server,), first.room) == 1
    await look(server)
    # bob, the newer waiter, moves into ann's room: his room comes unasked, ann hears of him.
    moved = await bob.expect(RoomState)
    assert moved.room == first.room and [r.player for r in moved.racers] == [ann.player, bob.player]
    await ann.expect(Members, where=lambda m: len(m.racers) == 2)
    assert second.room not in server.rooms  # left empty, let go


async def test_nobody_waits_more_than_10_s_while_anyone_else_waits(make_server: MakeServer) -> None:
    """Racers of spread ratings arrive every 1.5 s; at every step, whenever two or more wait, the
    longest has waited 10 s at most."""
    server = await make_server()
    ratings = [1000, 3000, 1900, 2600, 1450, 2200, 700, 1700, 2900]
    clients: list[WsClient] = []
    since: dict[str, int] = {}
    clock = fake(server)
    for step in range(60):
        if step % 3 == 0 and len(clients) < len(ratings):
            client = await racer(server, f"R{len(clients)}", ratings[len(clients)])
            await client.call(QuickMatch())
            clients.append(client)
            since[client.player] = clock.now()
        await look(server)
        alone = [c for c in clients if (code := room_of((server,), c)) is not None and racers_in((server,), code) == 1]
        if len(alone) >= 2:
            waits = [clock.now() - since[c.player] for c in alone]
            assert max(waits) <= 10_000, (step, waits)
    assert len([c for c in clients if racers_in((server,), str(room_of((server,), c))) == 2]) == 8  # one left over


async def test_a_pair_across_two_nodes(make_redis_server: MakeServer) -> None:
    nodes = (await make_redis_server(), await make_redis_server())
    a, b = nodes
    # At once: bob's node joins him to ann's room, held by the other node.
    ann, bob = await racer(a, "Ann", 1500), await racer(b, "Bob", 1550)
    first = await wait_alone(ann)
    joined = await bob.call(QuickMatch())
    assert isinstance(joined, RoomState) and joined.room == first.room and len(joined.racers) == 2
    await ann.expect(Members, where=lambda m: len(m.racers) == 2)
    # Once the window has widened: whichever node looks first moves its racer to the other's room.
    cid, dan = await racer(a, "Cid", 1200), await racer(b, "Dan", 1800)
    await wait_alone(cid)
    await wait_alone(dan)
    for _ in range(20):
        await look(a, b)
        rooms = {room_of(nodes, cid), room_of(nodes, dan)}
        if len(rooms) == 1:
            break
    (code,) = rooms
    assert code is not None and racers_in(nodes, code) == 2


async def test_each_racer_is_matched_once_however_many_ask_at_once(make_redis_server: MakeServer) -> None:
    nodes = (await make_redis_server(), await make_redis_server())
    rng = random.Random(7)
    clients = [await racer(nodes[i % 2], f"R{i}", rng.randrange(1400, 1600)) for i in range(24)]
    answers = await asyncio.gather(*(c.call(QuickMatch()) for c in clients))
    assert all(isinstance(a, RoomState) for a in answers)
    rooms: list[str | None] = []

    async def all_seated() -> bool:
        """Those who asked in the same instant, or 200 apart, are paired at the next looks; a pair
        across the nodes is seated by the partner's node once its doorbell rings, in real time (a
        count of looks ran out before that on a loaded machine, and the test saw no room)."""
        await look(*nodes)
        rooms[:] = [room_of(nodes, c) for c in clients]
        return None not in rooms and all(racers_in(nodes, str(code)) == 2 for code in rooms)

    await wait_until(all_seated, 30, what=lambda: f"every racer seated in a room of two: {rooms}", interval=0.05)
    assert sorted(rooms.count(code) for code in set(rooms)) == [2] * 12, rooms
    for code in set(rooms):
        assert code is not None and racers_in(nodes, code) == 2


async def test_a_racer_who_dropped_is_matched_with_nobody(make_server: MakeServer) -> None:
    server = await make_server(grace_ms=60_000)
    ann, bob = await racer(server, "Ann", 1500), await racer(server, "Bob", 1500)
    first = await wait_alone(ann)
    await ann.close()
    await wait_until(lambda: not server.rooms[first.room].room.seats[ann.player].connected)
    second = await bob.call(QuickMatch())  # the queue may still hand ann out: her room says she is gone
    assert isinstance(second, RoomState) and second.room != first.room and len(second.racers) == 1
    for _ in range(24):  # past the hard bound: still nobody
        await look(server)
    assert racers_in((server,), second.room) == 1 and racers_in((server,), first.room) == 1


async def test_a_racer_back_in_their_room_waits_again(make_server: MakeServer) -> None:
    server = await make_server(grace_ms=60_000)
    ann, bob = await racer(server, "Ann", 1500), await racer(server, "Bob", 1500)
    first = await wait_alone(ann)
    await ann.close()
    await wait_until(lambda: not server.rooms[first.room].room.seats[ann.player].connected)
    await look(server)  # out of the queue while away
    back = await WsClient.open(url_of(server), "Ann", token=ann.token)
    await back.expect(RoomState)
    for _ in range(2):
        await look(server)
    told = await back.expect(Matching)  # in the queue again, the wait counted from the start
    assert told.waited_ms == 2 * LOOK_EVERY_MS and told.window == MATCH_WINDOW.width(told.waited_ms)
    joined = await bob.call(QuickMatch())
    assert isinstance(joined, RoomState) and joined.room == first.room


async def test_leaving_the_room_leaves_the_queue(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await racer(server, "Ann", 1500), await racer(server, "Bob", 1520)
    first = await wait_alone(ann)
    assert isinstance(await ann.call(Leave()), Ok)
    second = await bob.call(QuickMatch())
    assert isinstance(second, RoomState) and second.room != first.room and len(second.racers) == 1
    for _ in range(24):
        await look(server)
    assert racers_in((server,), second.room) == 1
    assert room_of((server,), ann) is None


async def test_a_bot_only_when_nobody_else_waits(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await racer(server, "Ann", 1500), await racer(server, "Bob", 2500)
    first = await wait_alone(ann, QuickMatch(bot_after=2))
    await wait_alone(bob)
    for _ in range(8):  # past ann's 2 s: bob waits too, so no bot (the hard bound will pair them)
        await look(server)
    assert list(server.rooms[first.room].room.seats) == [ann.player]
    assert isinstance(await bob.call(Leave()), Ok)
    await look(server)
    members = await ann.expect(Members, where=lambda m: len(m.racers) == 2)
    assert [r.bot for r in members.racers] == [False, True]


async def test_a_waiter_the_queue_lost_is_put_back(make_server: MakeServer) -> None:
    server = await make_server()
    ann, bob = await racer(server, "Ann", 1500), await racer(server, "Bob", 1500)
    first = await wait_alone(ann)
    mine = server.matches.waiting[ann.player].me
    assert await server.store.dequeue("seahaven", ann.player, mine.joined)  # as a join that then failed would
    await look(server)  # missing once: perhaps a join on its way
    assert not await server.store.dequeue("seahaven", ann.player, mine.joined)
    await look(server)  # missing twice: put back, with her wait as it was
    told = await ann.expect(Matching)
    assert told.waited_ms == 2 * LOOK_EVERY_MS
    joined = await bob.call(QuickMatch())
    assert isinstance(joined, RoomState) and joined.room == first.room
