"""Rated races through the real server (docs/ratings.md): registered racers quick-match into rated
rooms, race, the archiver writes each race and rates it once, each racer hears a ``rating`` on the
node holding their connection, the store keeps the shown number for the quick match and the read
API shows the ratings. Real parts throughout: RaceServers on loopback (memory stores, or two nodes
on one private redis-server), WebSocket racers, a SQLite file and a PostgreSQL database."""

from __future__ import annotations

import time

import sqlalchemy as sa

from protocol.messages import (
    CreateRoom,
    JoinRoom,
    Leave,
    ListRooms,
    Members,
    Moved,
    MoveRequest,
    Ok,
    QuickMatch,
    RatingNotice,
    Resign,
    Result,
    Rooms,
    RoomState,
)
from server.app import RaceServer
from server.play.matchmaking import LOOK_EVERY_MS
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.database import Database
from server.records.reader import Reader
from server.records.schema import races, rating_history, ratings
from server.rooms.events import unpack
from server.rooms.history import races_of
from server.rooms.raceid import room_of
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.httpclient import get
from tests.racing import DEAL, solution, start_race
from tests.wsclient import WsClient, registered


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


def deal_one() -> int:
    """Every deal the servers pick is Seahaven #1 (secret all the same: not chosen), so Ann can win it."""
    return DEAL


async def counts(db: Database) -> tuple[int, int, dict[str, int]]:
    """Races on record, rating history rows, and each player's rated races."""
    async with db.read() as conn:
        raced = (await conn.execute(sa.select(sa.func.count()).select_from(races))).scalar_one()
        history = (await conn.execute(sa.select(sa.func.count()).select_from(rating_history))).scalar_one()
        rated = {row.player: row.races for row in await conn.execute(sa.select(ratings.c.player, ratings.c.races))}
    return int(raced), int(history), rated


async def ann_beats_bob(server: RaceServer, ann: WsClient, bob: WsClient) -> str:
    """Ann quick-matches into a new rated room, Bob quick-matches into hers (or, once their ratings
    have drifted apart, the two meet when the queue's window has widened enough); Ann plays the win,
    Bob a move then resigns. The race's id (both racers still in the room)."""
    opened = await ann.call(QuickMatch())
    assert isinstance(opened, RoomState) and opened.rated is True, opened
    lobby = await bob.call(ListRooms())
    assert isinstance(lobby, Rooms) and [r.rated for r in lobby.rooms if r.room == opened.room] == [True]
    joined = await bob.call(QuickMatch())
    assert isinstance(joined, RoomState) and joined.rated is True, joined
    rooms = [opened.room, joined.room]
    for _ in range(20):  # each waits in a room of their own until one of them moves to the other's
        if rooms[0] == rooms[1]:
            break
        fake(server).advance(LOOK_EVERY_MS)
        for i, client in enumerate((ann, bob)):
            rooms[i] = next((e.room for e in await client.drain(0.1) if isinstance(e, RoomState)), rooms[i])
    assert rooms[0] == rooms[1], rooms
    await start_race([ann, bob])
    assert isinstance(await bob.call(MoveRequest(move=str(solution()[0]))), Moved)
    assert isinstance(await bob.call(Resign()), Ok)
    for move in solution():
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
    result = await ann.expect(Result)
    assert result.race_id is not None and [s.player for s in result.standings] == [ann.player, bob.player]
    return result.race_id


async def test_three_rated_races_ann_beats_bob_each_counted_once(
    make_memory_server: MakeServer, database: Database
) -> None:
    archive = Archive(database, now=wall_ms)
    server = await make_memory_server(
        accounts=Accounts(database), archive=archive, records=Reader(database, now=wall_ms), deals=deal_one
    )
    ann, bob = await registered(url_of(server), "Ann"), await registered(url_of(server), "Bob")
    heard: dict[str, list[RatingNotice]] = {ann.player: [], bob.player: []}
    race_ids = []
    for _ in range(3):
        fake(server).advance(60_000)  # a minute between races: the history's order is theirs
        race = await ann_beats_bob(server, ann, bob)
        race_ids.append(race)
        for client in (ann, bob):  # told once the archiver wrote and rated the race
            notice = await client.expect(RatingNotice)
            assert notice.race_id == race and notice.preset == "seahaven" and notice.provisional
            heard[client.player].append(notice)
            assert isinstance(await client.call(Leave()), Ok)

    for mine in heard.values():  # each notice carries on from the one before
        assert [n.rating - n.change for n in mine[1:]] == [n.rating for n in mine[:-1]]
    assert heard[ann.player][0].rating - heard[ann.player][0].change == 1500
    assert all(n.change > 0 for n in heard[ann.player]) and all(n.change < 0 for n in heard[bob.player])

    # The player pages, over HTTP: Ann above Bob, three races each.
    pages = {}
    for client in (ann, bob):
        answer = await get(server.port, f"/api/v1/players/{client.player}")
        assert answer.status == 200
        pages[client.player] = {r["preset"]: r for r in answer.json()["ratings"]}
    ann_rating, bob_rating = pages[ann.player]["seahaven"], pages[bob.player]["seahaven"]
    assert ann_rating["rating"] > 1500 > bob_rating["rating"]
    assert ann_rating["races"] == bob_rating["races"] == 3 and ann_rating["provisional"] is True
    assert ann_rating["rating"] == heard[ann.player][-1].rating
    history = (await get(server.port, f"/api/v1/players/{ann.player}/ratings?preset=seahaven")).json()
    assert [e["race_id"] for e in history["history"]] == race_ids[::-1]
    # The store has each one's shown number for the quick match.
    assert await server.store.get_rating(ann.player, "seahaven") == ann_rating["rating"]
    assert await server.store.get_rating(bob.player, "seahaven") == bob_rating["rating"]

    # Archived again, from the rooms' logs as the archiver read them: nothing changes, nobody is told.
    before = await counts(database)
    assert before == (3, 6, {ann.player: 3, bob.player: 3})
    for race in race_ids:
        records = races_of([unpack(e) for e in await server.store.load(room_of(race))])
        await archive.write_races([r for r in records if r.race_id == race])
    assert server.archiver is not None
    for race in race_ids:
        await server.archiver.archive_room(room_of(race), 0)
    assert await counts(database) == before
    assert [m for m in await ann.drain(0.2) if isinstance(m, RatingNotice)] == []


async def test_the_rating_reaches_a_racer_connected_to_another_node(
    make_redis_server: MakeServer, database: Database
) -> None:
    """Ann on node A (which archives), Bob on node B (which does not): B hears Bob's rating from
    A's archive through the player's doorbell, and B's store (the same Redis) has his number."""
    accounts = Accounts(database)
    first = await make_redis_server(accounts=accounts, archive=Archive(database, now=wall_ms), deals=deal_one)
    second = await make_redis_server(accounts=accounts, deals=deal_one)
    assert second.archiver is None
    ann, bob = await registered(url_of(first), "Ann"), await registered(url_of(second), "Bob")
    race = await ann_beats_bob(first, ann, bob)
    told = await bob.expect(RatingNotice)
    assert told.race_id == race and told.rating < 1500 and told.change == told.rating - 1500
    assert (await ann.expect(RatingNotice)).rating > 1500
    assert await second.store.get_rating(bob.player, "seahaven") == told.rating
    assert bob.player in second.players and bob.player not in first.players  # B sent it: Bob is there only


async def test_unrated_rooms_and_bot_races_rate_nobody(make_memory_server: MakeServer, database: Database) -> None:
    server = await make_memory_server(
        accounts=Accounts(database), archive=Archive(database, now=wall_ms), deals=deal_one
    )
    ann, bob = await registered(url_of(server), "Ann"), await registered(url_of(server), "Bob")

    # A friends' room (create_room: unrated by default), two registered racers.
    state = await ann.call(CreateRoom())
    assert isinstance(state, RoomState) and state.rated is False
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    await start_race([ann, bob])
    assert isinstance(await bob.call(Resign()), Ok)
    for move in solution():
        await ann.call(MoveRequest(move=str(move)))
    await ann.expect(Result)
    for client in (ann, bob):
        assert isinstance(await client.call(Leave()), Ok)

    # A rated room with a bot: one human, rated by nobody.
    rated = await ann.call(CreateRoom(rated=True, bot="stroll"))
    assert isinstance(rated, RoomState) and rated.rated is True
    await ann.expect(Members, where=lambda m: any(r.bot and r.status == "ready" for r in m.racers))
    await start_race([ann])
    for move in solution():  # whoever finishes first ends it (then Ann's last moves are refused)
        await ann.call(MoveRequest(move=str(move)))
    await ann.expect(Result)

    await wait_until(lambda: _races_on_record(database, 2), what="both races archived")
    assert await counts(database) == (2, 0, {})
    assert [m for m in await ann.drain(0.3) + await bob.drain(0.1) if isinstance(m, RatingNotice)] == []


async def _races_on_record(database: Database, count: int) -> bool:
    return (await counts(database))[0] == count
