"""Arenas over two nodes on one real redis-server, with real WebSocket clients: every free player is
in a new race within 10 s whenever another arena player is free too (the seconds each one waits
while another is free are counted), both nodes send the same standings, and killing the pairing
node (SIGKILL of a real server process) leaves the pairing to another node."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

import pytest
import redis.asyncio as aioredis

from protocol.enums import Phase
from protocol.errors import ErrorCode
from protocol.messages import (
    Arena,
    Countdown,
    CreateArena,
    Error,
    JoinArena,
    Members,
    Moved,
    MoveRequest,
    Podium,
    Resign,
    Result,
    RoomState,
    Started,
)
from protocol.schema import Message
from server.play.arena_rules import ArenaPlayer
from server.rooms.events import Ended, Event
from server.rooms.room import Room
from server.shell.clock import SystemClock
from server.shell.sessions import Session
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.racing import room_with, solution, start_race
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

SEATED_WITHIN = 10.0
"""The most a free player may wait for a race while another arena player is free too."""


@dataclass
class Racer:
    """A scripted arena player: joins, and resigns each race it is seated in at its start."""

    client: WsClient
    races: list[str] = field(default_factory=list)
    waits: list[float] = field(default_factory=list)
    """Seconds from each race's result to the next race's room state."""
    free: list[tuple[float, float]] = field(default_factory=list)
    """Each time the racer was free (the loop's clock): from joining or a race's result to the
    next race's room state."""
    since: float = field(default_factory=lambda: asyncio.get_running_loop().time())
    """Free since (joined at)."""
    arenas: list[Arena] = field(default_factory=list)
    racing: bool = True
    """False: stays in its next race without resigning (the arena goes quiet)."""
    step: str = "joined"
    """What the loop waits for now (said when it waited in vain)."""

    async def play(self) -> None:
        loop = asyncio.get_running_loop()
        freed_at: float | None = None
        while True:
            self.step = "a race's room state"
            state, earlier = await self.next_state()
            self.free.append((self.since, loop.time()))
            # A `started` that came before this race's state is an earlier race's (when this race's
            # came first, the state says racing); one that came after it, read meanwhile with
            # other frames (a result late from another node), is this race's: it stays.
            self.arenas += [e for e in earlier if isinstance(e, Arena)]
            if freed_at is not None:
                self.waits.append(loop.time() - freed_at)
            self.races.append(state.room)
            if not self.racing:
                return
            if state.phase != Phase.RACING:
                self.step = f"the start of {state.room}"
                await self.client.expect(Started, wait=30)
            await self.client.send(Resign())
            self.step = f"the result of {state.room}"
            await self.client.expect(Result, wait=30)
            freed_at = self.since = loop.time()
            self.arenas += [e for e in self.client.events if isinstance(e, Arena)]

    async def next_state(self) -> tuple[RoomState, list[Message]]:
        """The next room state, and the events that came before it."""
        events = self.client.events
        for i, event in enumerate(events):
            if isinstance(event, RoomState):
                self.client.events = events[i + 1 :]
                return event, events[:i]
        self.client.events = []
        state = await self.client.expect(RoomState, wait=60)
        earlier, self.client.events = self.client.events, []  # read while waiting: before the state
        return state, events + earlier

    async def last_arena(self) -> Arena:
        """The last standings the server sent (reading what is still unread)."""
        self.arenas += [e for e in await self.client.drain(0.3) if isinstance(e, Arena)]
        return self.arenas[-1]


def waits_while_another_is_free(racers: list[Racer]) -> list[float]:
    """For each time each racer was free: the seconds of it during which another arena player was
    free too (what must not pass 10 s: a player alone may wait for the next one to be free)."""
    found = []
    for racer in racers:
        others = sorted(span for other in racers if other is not racer for span in other.free)
        for start, end in racer.free:
            together, reached = 0.0, start
            for other_start, other_end in others:  # the overlaps, merged (others overlap each other)
                low, high = max(other_start, reached), min(other_end, end)
                if high > low:
                    together += high - low
                    reached = high
            found.append(together)
    return found


def stopped(racers: list[Racer], tasks: list[asyncio.Task[None]]) -> str:
    """Which racers' loops ended, and how: one that waited in vain says for what (its races stop
    counting, and only the count would show otherwise)."""
    ended = [
        f"racer {i} waiting for {racer.step}: {task.exception()!r}"
        for i, (racer, task) in enumerate(zip(racers, tasks, strict=True))
        if task.done() and not task.cancelled()
    ]
    return "; ".join(ended) or "every racer's loop still running"


@contextlib.asynccontextmanager
async def playing(racers: list[Racer]) -> AsyncIterator[list[asyncio.Task[None]]]:
    tasks = [asyncio.create_task(r.play()) for r in racers]
    try:
        yield tasks
    finally:
        await stop(tasks)
        for r in racers:
            await r.client.close()


async def stop(tasks: list[asyncio.Task[None]]) -> None:
    """The racers' loops ended: from here the test alone reads their sockets (a loop still in
    ``expect`` beside the test's own read was a ConcurrencyError)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def join_all(urls: list[str], names: list[str]) -> list[Racer]:
    """The first player opens an arena, the others join it by its code."""
    code: str | None = None
    racers = []
    for url, name in zip(urls, names, strict=True):
        client = await WsClient.open(url, name)
        if code is None:
            arena = await client.call(CreateArena(preset="seahaven", minutes=5))
        else:
            arena = await client.call(JoinArena(arena=code.lower()))  # read like a room code
        assert isinstance(arena, Arena), arena
        code = arena.arena
        assert arena.link_path == f"/a/{code}" and arena.phase == "running"
        racers.append(Racer(client))
    return racers


async def test_six_players_over_two_nodes_race_again_and_again_with_the_same_standings(
    make_redis_server: MakeServer,
) -> None:
    a = await make_redis_server(SystemClock())
    b = await make_redis_server(SystemClock())
    urls = [url_of(a), url_of(b)] * 3
    racers = await join_all(urls, ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"])
    async with playing(racers) as tasks:
        await wait_until(lambda: all(len(r.races) >= 4 for r in racers), 90, what="four races each")
        for r in racers:
            r.racing = False
        # Every wait for a new race was short: the six are always free together or nearly.
        waits = [w for r in racers for w in r.waits]
        assert waits and max(waits) < SEATED_WITHIN, waits
        together = waits_while_another_is_free(racers)
        assert len(together) >= 6 * 4 and max(together) <= SEATED_WITHIN, together
        # Races of 2-4, all seated from both nodes: rooms hold players of both nodes.
        assert len({room for r in racers for room in r.races}) >= 8
        await stop(tasks)
        # The races under way when they stopped end and are scored on either node; each scoring's
        # standings reach all six. Read until everyone's last standings are the same ones (a fixed
        # pause lost that race with a busy machine).
        finals: list[Arena] = []

        async def agreed() -> bool:
            finals[:] = [await r.last_arena() for r in racers]
            return all(f.standings == finals[0].standings for f in finals)

        await wait_until(agreed, 30, what=lambda: f"the same standings for all: {[f.standings for f in finals]}")
    standings = finals[0].standings
    assert [s.rank for s in standings] == [1, 2, 3, 4, 5, 6]
    assert sum(s.races for s in standings) >= 6 * 3
    assert [s.points for s in standings] == sorted((s.points for s in standings), reverse=True)
    # Exactly one node paired.
    assert [a.arenas.pairing, b.arenas.pairing].count(True) == 1


async def test_a_racer_on_the_pairing_node_gets_the_new_room_before_its_events(make_memory_server: MakeServer) -> None:
    """One node pairs and holds both players: each gets the arena race's room state first (as
    docs/protocol.md says), not its joins and countdown before it (they carry no room code)."""
    server = await make_memory_server()
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    try:
        created = await ann.call(CreateArena(preset="seahaven", minutes=5))
        assert isinstance(created, Arena)
        assert isinstance(await bob.call(JoinArena(arena=created.arena)), Arena)
        for client in (ann, bob):
            client.events = [e for e in client.events if not isinstance(e, (Members, Countdown))]
            state = await client.expect(RoomState, wait=10)
            early = [type(e).__name__ for e in client.events if isinstance(e, (Members, Countdown, Started))]
            assert early == [], f"{early} came before the room"
            assert state.phase == Phase.COUNTDOWN and sorted(r.name for r in state.racers) == ["Ann", "Bob"]
            await client.expect(Started, wait=10)  # then its events, as in any room
    finally:
        for client in (ann, bob):
            await client.close()


async def test_a_race_that_starts_while_the_next_racer_is_seated_starts_for_the_first(
    make_memory_server: MakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pairing node seats its own players one after another, each sent the room's state, and
    the seating awaits the store: a countdown that ends meanwhile (a busy machine, a slow store)
    starts the race for those already seated too. Their start was left out with the frames of the
    racers not yet seated, and they waited for a start that had come (the two-node arena test's
    failure under load). Here the store's session write yields for a moment, so the countdown
    (0 ms in tests) ends while the first racer's seating is under way."""
    server = await make_memory_server()
    save = server.table.save

    async def slow_save(session: Session) -> None:
        await asyncio.sleep(0.2)  # the store's round trip, long enough for the timer to fire
        await save(session)

    monkeypatch.setattr(server.table, "save", slow_save)
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    try:
        created = await ann.call(CreateArena(preset="seahaven", minutes=5))
        assert isinstance(created, Arena)
        assert isinstance(await bob.call(JoinArena(arena=created.arena)), Arena)
        phases = []
        for client in (ann, bob):
            client.events = [e for e in client.events if not isinstance(e, (Members, Countdown))]
            state = await client.expect(RoomState, wait=10)
            phases.append(state.phase)
            if state.phase != Phase.RACING:  # seated before the start: it must come
                await client.expect(Started, wait=10)
        assert Phase.COUNTDOWN in phases, f"{phases}: the start came before anyone was seated"
    finally:
        for client in (ann, bob):
            await client.close()


def standing(arena: Arena, player: str) -> bool:
    """Whether ``player`` is active in ``arena``'s standings."""
    return next(s.active for s in arena.standings if s.player == player)


async def test_a_player_racing_in_another_room_is_not_taken_out_of_it(make_memory_server: MakeServer) -> None:
    """Ann races Carol in a room of their own while she is in an arena: when the arena pairs her
    with Bob, she stays in her race and steps out of the arena (told so), and Bob is paired again."""
    server = await make_memory_server()
    (ann, carol), _ = await room_with(server, "Ann", "Carol")
    await start_race([ann, carol])
    bob = await WsClient.open(url_of(server), "Bob")
    try:
        created = await ann.call(CreateArena(preset="seahaven", minutes=5))
        assert isinstance(created, Arena)
        assert isinstance(await bob.call(JoinArena(arena=created.arena)), Arena)
        out = await ann.expect(Arena, wait=10, where=lambda a: not standing(a, ann.player))
        assert standing(out, bob.player)
        assert isinstance(await ann.call(MoveRequest(move=str(solution()[0]))), Moved)  # still racing Carol
        assert not any(isinstance(e, RoomState) for e in ann.events)
        seated = await bob.expect(RoomState, wait=10)  # the race Ann stepped out of: Bob alone
        assert [r.name for r in seated.racers] == ["Bob"] or seated.phase == Phase.WAITING
        # Ann joins again once her race is over; then the arena pairs the two of them.
        for racer in (ann, carol):
            await racer.call(Resign())
        await ann.expect(Result, wait=10)
        assert isinstance(await ann.call(JoinArena(arena=created.arena)), Arena)
        await asyncio.sleep(1.5)  # the pairing has seen Bob's room waiting to start...
        fake(server).advance(4000)  # ...long enough to free him (it is stuck)
        state = await ann.expect(RoomState, wait=15)
        assert state.room != seated.room and sorted(r.name for r in state.racers) == ["Ann", "Bob"]
    finally:
        for client in (ann, bob, carol):
            await client.close()


async def test_a_player_whose_connection_closed_is_paired_again_once_back(make_memory_server: MakeServer) -> None:
    """Ann's connection closes before the arena starts: she is paired no more (no race is made
    for a player who is not there) until her hello brings her back, then she and Bob race."""
    server = await make_memory_server()
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    created = await ann.call(CreateArena(preset="seahaven", minutes=5, starts_in=2))
    assert isinstance(created, Arena)
    try:
        assert isinstance(await bob.call(JoinArena(arena=created.arena)), Arena)
        token, player = ann.token, ann.player
        await ann.close()
        away = await bob.expect(Arena, wait=10, where=lambda a: not standing(a, player))
        assert standing(away, bob.player)
        fake(server).advance(created.starts_at - server.clock.now())  # the arena runs
        await asyncio.sleep(2.5)  # two rounds of pairing (each second)
        assert not any(isinstance(e, RoomState) for e in bob.events), "a race was made for Ann while she was away"
        ann = await WsClient.open(url_of(server), "Ann", token=token)
        back = await ann.expect(Arena, wait=10)
        assert standing(back, player)
        for client in (ann, bob):
            state = await client.expect(RoomState, wait=10)
            assert sorted(r.name for r in state.racers) == ["Ann", "Bob"]
    finally:
        for client in (ann, bob):
            await client.close()


async def test_an_unknown_arena_is_refused_with_its_code(make_redis_server: MakeServer) -> None:
    server = await make_redis_server()
    client = await WsClient.open(url_of(server), "Ann")
    answer = await client.call(JoinArena(arena="ZZZZZZ"))
    assert isinstance(answer, Error) and answer.code == ErrorCode.ARENA_NOT_FOUND
    await client.close()


@pytest.fixture
def first_node(redis_proc: RedisProcess) -> Iterator[ServerProcess]:
    node = ServerProcess("--redis", redis_proc.url)
    try:
        yield node
    finally:
        node.close()


async def test_killing_the_pairing_node_leaves_the_pairing_to_the_others(
    redis_proc: RedisProcess, first_node: ServerProcess
) -> None:
    """Six players over two nodes, paired by a third (the lease holder) until it is killed; then
    by one of the two. Every free player waits at most 10 s while another is free, the takeover
    included, and both nodes send the same standings."""
    redis = aioredis.Redis.from_url(redis_proc.url)

    async def holder() -> bytes | None:
        value = await redis.get("seahaven:arena:lease")
        return None if value is None else value.encode() if isinstance(value, str) else bytes(value)

    async def held() -> bool:
        return await holder() is not None

    await wait_until(held, 10, what="the first node holds the pairing lease")
    first = await holder()
    second_node = ServerProcess("--redis", redis_proc.url)
    third_node = ServerProcess("--redis", redis_proc.url)
    try:
        # Every player on the second and third nodes: the first (the lease holder) pairs them from afar.
        urls = [second_node.url, third_node.url] * 3
        racers = await join_all(urls, ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"])
        async with playing(racers) as tasks:
            await wait_until(lambda: all(len(r.races) >= 2 for r in racers), 60, what="two races each")
            assert await holder() == first
            first_node.kill()
            before = {room for r in racers for room in r.races}
            await wait_until(
                lambda: all(len(r.races) >= 5 for r in racers),
                60,
                what=lambda: (
                    f"three more races each (races: {[len(r.races) for r in racers]}; {stopped(racers, tasks)})"
                ),
            )
            after = {room for r in racers for room in r.races} - before
            assert len(after) >= 6
            taken = await holder()
            assert taken is not None and taken != first
            for r in racers:
                r.racing = False
            # The takeover costs at most the lease's life and a pairing round on top of a race's start.
            waits = [w for r in racers for w in r.waits]
            assert max(waits) < SEATED_WITHIN, waits
            together = waits_while_another_is_free(racers)
            assert len(together) >= 6 * 5 and max(together) <= SEATED_WITHIN, together
            await stop(tasks)
            await asyncio.sleep(2.5)  # the last scoring's standings reach everyone
            finals = [await r.last_arena() for r in racers]
        # The same standings from both nodes.
        assert all(f.standings == finals[0].standings for f in finals), [f.standings for f in finals]
        assert sum(s.races for s in finals[0].standings) >= 6 * 4
    finally:
        second_node.close()
        third_node.close()
        await redis.aclose()


async def test_a_race_its_pairing_node_never_started_frees_its_players(make_memory_server: MakeServer) -> None:
    """A pairing node killed mid-round leaves its racers claimed by a room that never starts: the
    next holder frees them (unscored) once it has waited ``LEASE_SECONDS``, and pairs them again."""
    server = await make_memory_server()
    clock = fake(server)
    ann, bob = await WsClient.open(url_of(server), "Ann"), await WsClient.open(url_of(server), "Bob")
    created = await ann.call(CreateArena(preset="seahaven", minutes=5, starts_in=60))
    assert isinstance(created, Arena) and created.phase == "waiting"
    code = created.arena
    assert isinstance(await bob.call(JoinArena(arena=code)), Arena)
    # What a dead node's round left: both claimed by a room it made, nobody joined or ready in it.
    stuck = await server.path.create(await server.dealing.settings("seahaven", None, seats=2, public=False))
    _, stored = await server.store.arena(code)
    claimed = {p: dataclasses.replace(ArenaPlayer.load(e), room=stuck.room.code).dump() for p, e in stored.items()}
    assert await server.store.write_arena(code, dict(stored), claimed, 3600) == 1
    clock.advance(60_000)  # the arena starts
    await asyncio.sleep(2.5)  # pairing rounds see the room waiting: not yet given up
    _, kept = await server.store.arena(code)
    assert {ArenaPlayer.load(e).room for e in kept.values()} == {stuck.room.code}
    clock.advance(3_000)  # the lease's life
    state = await ann.expect(RoomState, wait=10)
    assert state.room != stuck.room.code
    assert (await bob.expect(RoomState, wait=10)).room == state.room
    _, now = await server.store.arena(code)
    assert {(e.room, e.races, e.points) for e in map(ArenaPlayer.load, now.values())} == {(state.room, 0, 0)}
    for client in (ann, bob):
        await client.close()


async def test_an_arena_race_ends_with_the_arena_unscored_and_none_starts_in_its_last_seconds(
    make_memory_server: MakeServer,
) -> None:
    """Issue 38, bug 7: a race still running at the arena's end ran on, though it is not scored.
    Its time limit is the arena's end now; and a player freed in the last 30 s is not paired into
    a race that would end as it began."""
    server = await make_memory_server()
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    try:
        created = await ann.call(CreateArena(preset="seahaven", minutes=5))
        assert isinstance(created, Arena)
        assert isinstance(await bob.call(JoinArena(arena=created.arena)), Arena)
        for client in (ann, bob):
            await client.expect(RoomState, wait=10)
            started = await client.expect(Started, wait=10)
            assert started.ends_at == created.ends_at, "the race's clock runs out with the arena"
        assert isinstance(await ann.call(MoveRequest(move=str(solution()[0]))), Moved)
        fake(server).advance(created.ends_at - server.clock.now())
        for client in (ann, bob):
            result = await client.expect(Result, wait=10)
            assert result.reason == "time-limit"
        podium = await ann.expect(Podium, wait=10)
        assert podium.podium == (), "a race the arena's end stopped is not scored"

        # Another arena: Ann and Bob's race ends 20 s before the arena does; no race follows.
        created = await ann.call(CreateArena(preset="seahaven", minutes=5))
        assert isinstance(created, Arena)
        assert isinstance(await bob.call(JoinArena(arena=created.arena)), Arena)
        for client in (ann, bob):
            await client.expect(RoomState, wait=10)
            await client.expect(Started, wait=10)
        fake(server).advance(created.ends_at - server.clock.now() - 20_000)
        for client in (ann, bob):
            await client.call(Resign())
        scored = await ann.expect(Arena, wait=10, where=lambda a: any(s.races for s in a.standings))
        assert sorted(s.races for s in scored.standings) == [1, 1]
        await asyncio.sleep(2.5)  # two rounds of pairing (each second)
        assert not any(isinstance(e, RoomState) for e in ann.events + bob.events), "a race 20 s long was made"
    finally:
        for client in (ann, bob):
            await client.close()


async def test_a_racer_hears_the_last_races_result_before_the_next_race_seats_them(
    make_memory_server: MakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command that ends a race sends its result after its hooks have run. An arena pairing
    round in between scored the race and seated its racers in the next one, leaving out every
    room frame to them meanwhile: the loser never heard the result (a loaded CI run showed it).
    Here the race's end hook is slowed to make that gap wide."""
    server = await make_memory_server(deals=lambda: 1)  # the deal Bob's moves solve

    record_race = server.daily_board.record_race  # what the path's observer runs before a lifecycle answer

    async def slow_end(room: Room, events: list[Event]) -> None:
        await record_race(room, events)
        if any(isinstance(e, Ended) for e in events):
            await asyncio.sleep(2.5)  # two pairing rounds (each second)

    monkeypatch.setattr(server.daily_board, "record_race", slow_end)
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    try:
        created = await ann.call(CreateArena(preset="seahaven", minutes=5))
        assert isinstance(created, Arena)
        assert isinstance(await bob.call(JoinArena(arena=created.arena)), Arena)
        first = await bob.expect(RoomState, wait=10)
        await bob.expect(Started, wait=10)
        for move in solution():
            assert isinstance(await bob.call(MoveRequest(move=str(move))), Moved)
        # Ann's frames, in order, until the next race's room: the last race's result among them, first.
        heard: list[str] = []
        while "next room" not in heard:
            events = await ann.drain(wait=5)
            assert events, f"nothing more came: {heard}"
            for event in events:
                if isinstance(event, Result):
                    heard.append("result")
                elif isinstance(event, RoomState) and event.room != first.room:
                    heard.append("next room")
        assert heard == ["result", "next room"]
    finally:
        for client in (ann, bob):
            await client.close()
