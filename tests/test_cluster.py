"""Redis Cluster: the store's key layout and failure modes on a real local 3-master cluster, and the
server as a real process on it. (The store contract itself runs on the cluster via the ``store``
fixture in conftest.py.)"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import msgpack
import pytest
from redis.asyncio import Redis

from protocol.messages import (
    CreateRoom,
    ListRooms,
    Moved,
    MoveRequest,
    Result,
    Rooms,
    RoomState,
)
from seahaven import Board
from seahaven.solver import solve
from server.store.stores import RedisStore, StoreError, check_url, open_store
from tests.helpers import wait_until
from tests.redis_cluster import LocalCluster
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

LONG = 60.0


def event(n: int) -> bytes:
    return bytes(msgpack.packb({"t": "move", "n": n}))


@pytest.fixture
async def nodes(redis_cluster: LocalCluster) -> AsyncIterator[list[Redis]]:
    """A plain client on each master, to look at where keys landed."""
    clients = [Redis(host="127.0.0.1", port=port) for port in redis_cluster.ports]
    try:
        yield clients
    finally:
        for client in clients:
            await client.aclose()


@pytest.fixture
async def cluster_store(redis_cluster: LocalCluster) -> AsyncIterator[RedisStore]:
    store = RedisStore(redis_cluster.url, prefix=f"c{uuid.uuid4().hex[:8]}:")
    try:
        yield store
    finally:
        await store.close()


async def keys_by_node(nodes: list[Redis], prefix: str) -> list[set[str]]:
    found: list[set[str]] = []
    for node in nodes:
        found.append({key.decode() async for key in node.scan_iter(match=f"{prefix}*")})
    return found


async def test_a_rooms_keys_share_one_slot_and_rooms_spread_over_the_masters(
    cluster_store: RedisStore, nodes: list[Redis]
) -> None:
    rooms = [f"R{n:03d}" for n in range(60)]
    for room in rooms:
        await cluster_store.append(room, [event(1)], LONG)
        await cluster_store.set_listing(room, b"summary", LONG)
    await cluster_store.put_session("tok", b"S", LONG)

    for room in rooms:
        log, listing = cluster_store.log_key(room), cluster_store.listing_key(room)
        assert await nodes[0].cluster("KEYSLOT", log) == await nodes[0].cluster("KEYSLOT", listing)
    placed = await keys_by_node(nodes, cluster_store.prefix)
    assert all(placed), f"every master holds some rooms: {[len(keys) for keys in placed]}"
    for keys in placed:  # a room's log and listing always sit on the same master
        logs = {key for key in keys if key.endswith(":log")}
        assert {log.removesuffix(":log") + ":listing" for log in logs} <= keys
    # The server recovers every room, whichever master holds it, and the lobby sees them all.
    assert await cluster_store.room_ids() == rooms
    assert await cluster_store.listings() == dict.fromkeys(rooms, b"summary")
    assert await cluster_store.get_session("tok") == b"S"


async def test_an_append_is_one_script_call_on_the_rooms_master(cluster_store: RedisStore, nodes: list[Redis]) -> None:
    room = "RT"
    owner = nodes[await master_of(nodes, cluster_store.log_key(room))]
    assert await cluster_store.append(room, [event(0)], LONG) == 1  # loads the script on that master
    for node in nodes:
        await node.config_resetstat()
    n = 20
    for i in range(1, n + 1):
        assert await cluster_store.append(room, [event(i)], LONG) == i + 1
    for node in nodes:
        stats = await node.info("commandstats")
        calls = {name.removeprefix("cmdstat_"): s["calls"] for name, s in stats.items()}
        calls = {name: count for name, count in calls.items() if not name.startswith(("config", "info"))}
        assert calls == ({"evalsha": n, "llen": n, "rpush": n, "pexpire": n} if node is owner else {})
    assert await cluster_store.load(room) == [event(i) for i in range(n + 1)]


async def test_a_long_log_is_appended_in_one_call(cluster_store: RedisStore) -> None:
    """Healing writes a whole log back at once: longer than Lua's unpack() limit (~8000 values)."""
    events = [event(i) for i in range(20_000)]
    assert await cluster_store.append("LONG", events, LONG) == len(events)
    assert await cluster_store.load("LONG") == events


async def test_a_listing_published_again_during_a_prune_stays_listed(cluster_store: RedisStore) -> None:
    """listings() saw the listing gone, then it was published again before the prune ran: kept."""
    await cluster_store.append("R", [event(1)], LONG)
    await cluster_store.set_listing("R", b"again", LONG)  # the new deadline is ahead of "now"
    now_ms = time.time_ns() // 1_000_000
    assert await cluster_store._prune(keys=[cluster_store.index_key], args=[now_ms, "R"]) == 0
    assert await cluster_store.listings() == {"R": b"again"}
    # ...while one whose deadline has passed is pruned.
    later = now_ms + int(LONG * 1000) + 1
    assert await cluster_store._prune(keys=[cluster_store.index_key], args=[later, "R"]) == 1


async def master_of(nodes: list[Redis], key: str) -> int:
    """The index in ``nodes`` of the master serving ``key``'s slot."""
    slot = await nodes[0].cluster("KEYSLOT", key)
    port = next(primary[1] for start, end, primary, *_ in await nodes[0].cluster("SLOTS") if start <= slot <= end)
    return next(i for i, node in enumerate(nodes) if node.connection_pool.connection_kwargs["port"] == port)


async def test_a_master_down_fails_its_calls_with_store_error_then_recovers() -> None:
    """No replicas: while one master is down its rooms fail fast (then, once the cluster marks it failed,
    every room: full slot coverage is required), ping says so, and all comes back with the master."""
    with LocalCluster(appendonly=True) as cluster:
        nodes = [Redis(host="127.0.0.1", port=port) for port in cluster.ports]
        store = RedisStore(cluster.url, prefix="down:")
        try:
            rooms = [f"R{n}" for n in range(12)]
            for room in rooms:
                await store.append(room, [event(1)], LONG)
            homes = {room: await master_of(nodes, store.log_key(room)) for room in rooms}
            assert set(homes.values()) == {0, 1, 2}
            victim = next(room for room, home in homes.items() if home == 1)
            cluster.nodes[1].stop()
            async with asyncio.timeout(10):  # a failure, never a hang
                with pytest.raises(StoreError, match="unavailable"):
                    await store.append(victim, [event(2)], LONG)
                assert await store.ping() is False
            cluster.nodes[1].start()  # same port, same nodes.conf, its AOF: same slots, same data

            async def appended() -> bool:
                try:
                    return await store.append(victim, [event(2)], LONG) == 2
                except StoreError:
                    return False

            # The cluster takes a moment to take the master back.
            await wait_until(appended, 20, what="the store to recover", interval=0.1)
            assert await store.ping() is True
            assert await store.room_ids() == sorted(rooms)
            assert await store.load(victim) == [event(1), event(2)]
        finally:
            await store.close()
            for node in nodes:
                await node.aclose()


def test_cluster_urls_are_checked_and_open_a_cluster_store() -> None:
    store = open_store("redis+cluster://127.0.0.1:7000,127.0.0.1:7001", "p:")
    assert isinstance(store, RedisStore) and store.cluster
    assert not RedisStore("redis://127.0.0.1:7000/0").cluster
    assert check_url("rediss+cluster://u:p@[::1]:7000?ssl_cert_reqs=none") == (
        "rediss+cluster://u:p@[::1]:7000?ssl_cert_reqs=none"
    )
    bad = {
        "redis+cluster://127.0.0.1": "host:port",
        "redis+cluster://127.0.0.1:7000,": "host:port",
        "redis+cluster://:7000": "host:port",
        "redis+cluster://127.0.0.1:99999": "host:port",
        "redis+cluster://127.0.0.1:7000/1": "database 0 only",
        "http://127.0.0.1:7000": "must start with",
    }
    for url, reason in bad.items():
        with pytest.raises(ValueError, match=reason):
            check_url(url)
    with pytest.raises(ValueError) as caught:
        check_url("redis+cluster://alice:s3cret@127.0.0.1:7000/2")
    assert "s3cret" not in str(caught.value) and "alice" not in str(caught.value)


async def test_an_unreachable_cluster_fails_fast_with_store_error() -> None:
    nowhere = RedisProcess(appendonly=False)  # a free port, never started
    try:
        store = RedisStore(f"redis+cluster://alice:s3cret@127.0.0.1:{nowhere.port}")
        started = time.monotonic()
        with pytest.raises(StoreError, match="unavailable") as caught:
            await store.load("R")
        assert time.monotonic() - started < 3.0
        assert f"127.0.0.1:{nowhere.port}" in str(caught.value) and "s3cret" not in str(caught.value)
        assert await store.ping() is False
        await store.close()
    finally:
        nowhere.close()


# --------------------------------------------------------------------------------------------------
# The server as a real process on the cluster


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.close()


async def test_a_race_on_a_cluster_survives_a_server_crash(
    redis_cluster: LocalCluster, nodes: list[Redis], servers: list[ServerProcess]
) -> None:
    prefix = f"s{uuid.uuid4().hex[:8]}:"
    args = ("--redis", redis_cluster.url, "--prefix", prefix)
    servers.append(first := ServerProcess(*args))
    # Several public rooms, so the lobby has rooms from several hash slots to gather.
    hosts = [await WsClient.open(first.url, f"Host{n}") for n in range(6)]
    codes = []
    for host in hosts:
        created = await host.call(CreateRoom(deal_number=2))
        assert isinstance(created, RoomState)
        codes.append(created.room)
    ann = await WsClient.open(first.url, "Ann")
    bob = await WsClient.open(first.url, "Bob")
    await race_of_two(ann, bob, CreateRoom(deal_number=1, public=False))
    moves = solve(Board.deal("seahaven", 1)).moves
    half = len(moves) // 2
    for move in moves[:half]:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
    viewer = await WsClient.open(first.url, "Viewer")
    listed = await viewer.call(ListRooms())
    assert isinstance(listed, Rooms) and sorted(r.room for r in listed.rooms) == sorted(codes)
    assert sum(1 for keys in await keys_by_node(nodes, prefix) if keys) >= 2, "rooms on several masters"

    first.kill()
    servers.append(second := ServerProcess(*args))

    ann2 = await WsClient.open(second.url, "Ann", token=ann.token)
    resumed = await ann2.expect(RoomState)
    assert resumed.phase == "racing" and len(resumed.history) == half
    bob2 = await WsClient.open(second.url, "Bob", token=bob.token)
    await bob2.expect(RoomState)
    for move in moves[half:]:
        reply = await ann2.call(MoveRequest(move=str(move)))
        assert isinstance(reply, Moved), reply
    result = await bob2.expect(Result)
    assert result.standings[0].player == ann.player and result.standings[0].progress == 52
    for client in (*hosts, ann, bob, viewer, ann2, bob2):
        await client.close()
