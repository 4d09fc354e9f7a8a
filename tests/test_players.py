"""Players that last (docs/protocol.md, section 21), on the wire: a real server on loopback (memory
store or a private redis-server), real WebSocket clients, and a real database (a SQLite file and a
PostgreSQL database of the test's own) behind ``Accounts``.

Register and come back with the key; two tabs or devices of one player stay connected together
and race on one seat, which moves when asked; forged, stale and deleted keys; handles and their
one name rule, two claims at once; a password and a sign-in on another device; attempts
rate-limited; deleting an account (its races stay, their racer is a "deleted player"); the export;
and a database that is down or absent, which stops no race.
"""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path

import asyncpg
import sqlalchemy as sa

from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import (
    EXPORT_MAX,
    REQUESTS,
    SERVER_MESSAGES,
    ClaimHandle,
    Countdown,
    CreateRoom,
    DeleteAccount,
    Error,
    Export,
    ExportData,
    Hello,
    Identity,
    JoinRoom,
    Leave,
    Limits,
    Moved,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    Ready,
    Register,
    Resign,
    Result,
    RoomState,
    SeatTaken,
    SetName,
    SetPassword,
    SignIn,
    Welcome,
)
from protocol.schema import Message
from server.app import RaceServer
from server.players.accounts import SIGN_INS_PER_HANDLE, export_json
from server.players.identities import MARK
from server.players.keys import read_key
from server.records.accounts import Accounts
from server.records.archive import Archive
from server.records.database import Database, open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from server.records.schema import player_keys, players, race_racers
from server.rooms.events import unpack
from server.rooms.history import races_of
from server.rooms.raceid import room_of
from server.shell.names import is_durable
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.pg_proc import PgProcess, scratch_database
from tests.protocol_doc import DOC, section
from tests.racing import room_with, solution, start_race
from tests.wsclient import WsClient

PASSWORD = "correct horse battery"


async def registered(server: RaceServer, name: str = "Ann") -> tuple[WsClient, Identity]:
    """A client that registered (its session still the anonymous one it said hello with)."""
    client = await WsClient.open(url_of(server), name)
    identity = await client.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None, identity
    return client, identity


async def keyed(server: RaceServer, identity: Identity, name: str = "Ann") -> WsClient:
    """A new connection saying hello with the identity's key."""
    assert identity.key is not None
    return await WsClient.open(url_of(server), name, key=identity.key)


async def refused(client: WsClient, hello: Hello) -> Error:
    answer = await client.call(hello)
    assert isinstance(answer, Error), answer
    return answer


# -- register, and the key at the next hello --------------------------------------------------------


async def test_a_registered_player_comes_back_with_the_key_to_the_same_session(
    make_server: MakeServer, database: Database
) -> None:
    server = await make_server(accounts=Accounts(database))
    first, identity = await registered(server)
    assert first.welcome is not None and not first.welcome.identified  # this session stays anonymous
    assert is_durable(identity.player) and identity.handle is None
    assert read_key(identity.key or "") is not None and identity.player != first.player

    second = await keyed(server, identity)
    welcome = second.welcome
    assert welcome is not None and welcome.identified and welcome.player == identity.player
    assert welcome.room is None and welcome.handle is None and welcome.seat is None
    bob = await WsClient.open(url_of(server), "Bob")
    (cid,), state = await room_with(server, "Cid")
    joined = await second.call(JoinRoom(room=state.room))
    assert isinstance(joined, RoomState) and [r.player for r in joined.racers] == [cid.player, identity.player]
    await second.close()  # the device goes (a restart, a crash): its seat waits for it

    def away() -> bool:
        held = server.path.rooms.get(state.room)
        return held is not None and not held.room.seats[identity.player].connected

    await wait_until(away)
    third = await keyed(server, identity, name="ignored when resuming")
    back = third.welcome
    assert back is not None and back.identified and back.player == identity.player
    assert back.token == welcome.token and back.room == state.room and back.last_seq == second.seq
    assert back.name == "Ann" and back.seat is None
    assert (await third.expect(RoomState)).room == state.room
    assert isinstance(await bob.call(Ping()), Pong)


async def test_another_tab_races_beside_the_seat_and_may_take_it(make_server: MakeServer, database: Database) -> None:
    """Two connections of one player stay connected together; the seat moves when asked, and the
    one that lost it is told, stays connected and may take it back."""
    server = await make_server(accounts=Accounts(database))
    _, identity = await registered(server)
    desk = await keyed(server, identity)
    (cid,), state = await room_with(server, "Cid")
    assert isinstance(await desk.call(JoinRoom(room=state.room)), RoomState)
    tab = await keyed(server, identity, name="Ann")
    assert tab.welcome is not None and desk.welcome is not None
    assert tab.welcome.player == identity.player and tab.welcome.token != desk.welcome.token
    assert tab.welcome.room is None and tab.welcome.seat == state.room  # racing on the other one
    assert isinstance(await desk.call(Ping()), Pong)  # nothing was closed

    busy = await tab.error(CreateRoom())  # one seat per player: not a second race meanwhile
    assert busy.code == ErrorCode.ALREADY_IN_ROOM and state.room in busy.message
    taken = await tab.call(JoinRoom(room=state.room))
    assert isinstance(taken, RoomState) and taken.room == state.room
    assert (await desk.expect(SeatTaken)).room == state.room
    assert isinstance(await desk.call(Ping()), Pong)  # still connected, in no room
    assert (await desk.error(Ready(ready=True))).code == ErrorCode.NOT_IN_ROOM
    assert isinstance(await tab.call(Ready(ready=True)), Ok)  # the tab counts its own seqs
    assert isinstance(await cid.call(Ready(ready=True)), Ok)
    await tab.expect(Countdown, where=lambda c: c.starts_at is not None)

    back = await desk.call(JoinRoom(room=state.room))  # and back again
    assert isinstance(back, RoomState) and back.room == state.room
    assert (await tab.expect(SeatTaken)).room == state.room
    assert [r.player for r in back.racers] == [cid.player, identity.player]
    assert all(r.connected for r in back.racers)


async def test_anonymous_welcomes_are_byte_for_byte_what_they_were() -> None:
    limits = Limits(max_frame=4096, rate=30, burst=60, grace_ms=30000)
    welcome = Welcome(token="T" * 32, player="pABCDEFGHJK", name="Ann", server_time=1, limits=limits)
    assert set(welcome.to_body()) == {"token", "player", "name", "server_time", "limits", "room", "last_seq"}
    assert b"identified" not in encode(welcome, 1) and b"handle" not in encode(welcome, 1)
    identified = Welcome(
        token="T" * 32, player="u" + "A" * 12, name="Ann", server_time=1, limits=limits, handle="ann", identified=True
    )
    assert list(identified.to_body())[-2:] == ["handle", "identified"]
    assert Hello(name="Ann").to_body() == {"name": "Ann", "token": None}  # no key: as before


async def test_hellos_at_once_with_one_key_are_sessions_of_one_player(
    make_server: MakeServer, database: Database
) -> None:
    server = await make_server(accounts=Accounts(database))
    _, identity = await registered(server)
    assert identity.key is not None
    clients = [await WsClient.open(url_of(server)) for _ in range(4)]
    answers = await asyncio.gather(*(c.call(Hello(name=f"Ann {i}", key=identity.key)) for i, c in enumerate(clients)))
    assert all(isinstance(a, Welcome) for a in answers), answers
    welcomes = [a for a in answers if isinstance(a, Welcome)]
    assert {w.player for w in welcomes} == {identity.player} and len({w.token for w in welcomes}) == 4
    assert [w.name for w in welcomes] == ["Ann"] * 4  # the player's name, whatever each device says
    assert await server.store.player_session(identity.player) in {w.token for w in welcomes}
    for client in clients:  # all connected at once
        assert isinstance(await client.call(Ping()), Pong)


async def test_another_node_takes_the_seat_and_the_first_is_told(
    make_redis_server: MakeServer, database: Database
) -> None:
    one = await make_redis_server(accounts=Accounts(database))
    other = await make_redis_server(accounts=Accounts(database))
    _, identity = await registered(one)
    phone = await keyed(one, identity)
    (bob,), state = await room_with(other, "Bob")
    assert isinstance(await phone.call(JoinRoom(room=state.room)), RoomState)
    laptop = await keyed(other, identity)  # on the other node: a session beside the phone's
    assert laptop.welcome is not None and phone.welcome is not None
    assert laptop.welcome.token != phone.welcome.token and laptop.welcome.seat == state.room
    taken = await laptop.call(JoinRoom(room=state.room))
    assert isinstance(taken, RoomState) and [r.player for r in taken.racers] == [bob.player, identity.player]
    assert (await phone.expect(SeatTaken)).room == state.room  # told through the session's doorbell
    assert isinstance(await phone.call(Ping()), Pong)
    assert (await phone.error(Ready(ready=True))).code == ErrorCode.NOT_IN_ROOM
    assert isinstance(await laptop.call(Ready(ready=True)), Ok)
    assert isinstance(await bob.call(Ping()), Pong)


async def test_a_key_outlives_its_expired_session(make_memory_server: MakeServer, database: Database) -> None:
    server = await make_memory_server(accounts=Accounts(database))
    _, identity = await registered(server)
    first = await keyed(server, identity)
    assert first.welcome is not None
    await first.close()
    await wait_until(lambda: first.welcome is not None and first.welcome.token not in server.table.by_token)
    await server.store.delete_session(first.welcome.token)  # as if it had expired
    again = await keyed(server, identity)
    assert again.welcome is not None and again.welcome.player == identity.player
    assert again.welcome.token != first.welcome.token and again.welcome.identified
    assert await server.store.player_session(identity.player) == again.welcome.token


async def test_a_cache_entry_that_does_not_read_sends_the_hello_to_the_database(
    make_memory_server: MakeServer, database: Database
) -> None:
    server = await make_memory_server(accounts=Accounts(database))
    _, identity = await registered(server)
    for garbage in (b"\x93\xc1", b"\x93\x01\x02\x03", b"\x93\x09\xc0\x90", b"plain bytes"):
        await server.store.mark_player(identity.player, garbage, 60)  # \x93 09: a newer format
        back = await keyed(server, identity)
        assert back.welcome is not None and back.welcome.player == identity.player, garbage


# -- keys that are no good -----------------------------------------------------------------------------


async def test_forged_and_unknown_keys_are_refused_and_the_hello_may_go_on(
    make_server: MakeServer, database: Database
) -> None:
    server = await make_server(accounts=Accounts(database))
    _, identity = await registered(server)
    assert identity.key is not None
    player, _, secret = identity.key.partition(".")
    other_secret = ("A" if secret[0] != "A" else "B") + secret[1:]
    client = await WsClient.open(url_of(server))
    for forged in (
        "not a key",
        f"{player}.{other_secret}",  # the right player, another secret
        f"u{'Z' * 12}.{secret}",  # nobody's id
        f"{player}.{secret}x",
        identity.key.replace("u", "p", 1),
    ):
        answer = await refused(client, Hello(name="Ann", key=forged))
        assert answer.code == ErrorCode.BAD_KEY, (forged, answer)
        assert answer.message == "unknown key: say hello without one (or sign in again)"
    welcome = await client.call(Hello(name="Ann"))  # the connection still waits for a hello
    assert isinstance(welcome, Welcome) and not welcome.identified


async def test_keys_tried_from_one_address_are_limited(make_memory_server: MakeServer, database: Database) -> None:
    server = await make_memory_server(accounts=Accounts(database))
    client = await WsClient.open(url_of(server))
    codes = []
    for n in range(32):  # ids the cache does not know: each read from the database
        answer = await refused(client, Hello(name="Eve", key=f"u{n:012d}.{'A' * 43}"))
        codes.append(answer.code)
    assert codes == [ErrorCode.BAD_KEY] * 30 + [ErrorCode.RATE_LIMITED] * 2


# -- handles --------------------------------------------------------------------------------------


async def test_handles_follow_the_one_name_rule(make_memory_server: MakeServer, database: Database) -> None:
    server = await make_memory_server(accounts=Accounts(database))
    anonymous = await WsClient.open(url_of(server), "Eve")
    assert (await anonymous.error(ClaimHandle(handle="Eve"))).code == ErrorCode.NOT_IDENTIFIED
    _, ann_id = await registered(server, "Ann")
    _, bob_id = await registered(server, "Bob")
    ann, bob = await keyed(server, ann_id), await keyed(server, bob_id, "Bob")
    for bad in ("ab", "ann lee", "12345", "Admin", "ann\u200b"):
        assert (await ann.error(ClaimHandle(handle=bad))).code == ErrorCode.BAD_HANDLE, bad
    claimed = await ann.call(ClaimHandle(handle="Ann"))
    assert claimed == Identity(player=ann_id.player, handle="Ann", key=None)
    for look_alike in ("ann", "\u0410nn", "\u0430NN", "\uff21nn"):  # case, Cyrillic A and a, full width
        assert (await bob.error(ClaimHandle(handle=look_alike))).code == ErrorCode.HANDLE_TAKEN, look_alike
    assert isinstance(await bob.call(ClaimHandle(handle="Anna")), Identity)  # another name
    assert await ann.call(ClaimHandle(handle="ANN")) == Identity(player=ann_id.player, handle="ANN", key=None)
    renamed = await ann.call(ClaimHandle(handle="Annie"))  # a new handle frees the old one
    assert isinstance(renamed, Identity) and renamed.handle == "Annie"
    assert isinstance(await bob.call(ClaimHandle(handle="ann")), Identity)
    back = await keyed(server, ann_id)  # the handle comes with the session
    assert back.welcome is not None and back.welcome.handle == "Annie"


async def test_of_two_claims_at_once_exactly_one_wins(make_server: MakeServer, database: Database) -> None:
    server = await make_server(accounts=Accounts(database))
    claimants = []
    for name in ("Ann", "Bob", "Cid", "Dee"):
        _, identity = await registered(server, name)
        claimants.append(await keyed(server, identity, name))
    answers = await asyncio.gather(
        *(c.call(ClaimHandle(handle=h)) for c, h in zip(claimants, ("Zed", "zed", "ZED", "Z\u0435d"), strict=True))
    )
    assert sum(isinstance(a, Identity) for a in answers) == 1, answers
    assert sorted(a.code for a in answers if isinstance(a, Error)) == [ErrorCode.HANDLE_TAKEN] * 3
    async with database.read() as conn:
        held = (await conn.execute(sa.select(players.c.handle_key).where(players.c.handle_key.is_not(None)))).all()
    assert held == [("zed",)]


# -- passwords and another device ---------------------------------------------------------------------


async def test_a_password_signs_in_on_another_device(make_server: MakeServer, database: Database) -> None:
    server = await make_server(accounts=Accounts(database))
    _, identity = await registered(server)
    phone = await keyed(server, identity)
    assert isinstance(await phone.call(ClaimHandle(handle="Ann")), Identity)
    assert (await phone.error(SetPassword(password="x" * 7))).code == ErrorCode.BAD_FIELD  # 8 at least
    assert isinstance(await phone.call(SetPassword(password=PASSWORD)), Ok)

    laptop = await WsClient.open(url_of(server), "Ann on the laptop")
    signed = await laptop.call(SignIn(handle="ann", password=PASSWORD))  # any case of the handle
    assert isinstance(signed, Identity) and signed.player == identity.player and signed.handle == "Ann"
    assert signed.key is not None and signed.key != identity.key
    assert laptop.welcome is not None and not laptop.welcome.identified  # until the next hello
    second = await keyed(server, signed)
    assert second.welcome is not None and phone.welcome is not None
    assert second.welcome.player == phone.welcome.player and second.welcome.handle == "Ann"
    assert isinstance(await phone.call(Ping()), Pong)  # both devices stay connected
    async with database.read() as conn:
        kept = (await conn.execute(sa.select(player_keys.c.key_hash, players.c.password_hash).join(players))).all()
    assert len(kept) == 1 and kept[0][1].startswith("$argon2id$") and PASSWORD not in kept[0][1]
    assert (await keyed(server, identity)).welcome is not None  # the first device's key still works


async def test_wrong_passwords_are_refused_alike_and_rate_limited(
    make_memory_server: MakeServer, database: Database
) -> None:
    server = await make_memory_server(accounts=Accounts(database))
    _, identity = await registered(server)
    ann = await keyed(server, identity)
    await ann.call(ClaimHandle(handle="Ann"))
    await ann.call(SetPassword(password=PASSWORD))
    thief = await WsClient.open(url_of(server), "Eve")
    unknown = await thief.error(SignIn(handle="Nobody", password=PASSWORD))
    wrong = await thief.error(SignIn(handle="Ann", password="not " + PASSWORD))
    assert unknown == wrong == Error(code=ErrorCode.BAD_CREDENTIALS, message="no such handle, or a wrong password")
    for _ in range(SIGN_INS_PER_HANDLE - 1):
        assert (await thief.error(SignIn(handle="ANN", password="guess guess"))).code == ErrorCode.BAD_CREDENTIALS
    limited = await thief.error(SignIn(handle="Ann", password=PASSWORD))  # even the right one now
    assert limited.code == ErrorCode.RATE_LIMITED
    assert (await thief.error(SignIn(handle="\u0410nn", password=PASSWORD))).code == ErrorCode.RATE_LIMITED


async def test_a_handle_without_a_password_cannot_sign_in(make_memory_server: MakeServer, database: Database) -> None:
    server = await make_memory_server(accounts=Accounts(database))
    _, identity = await registered(server)
    ann = await keyed(server, identity)
    await ann.call(ClaimHandle(handle="Ann"))
    other = await WsClient.open(url_of(server), "Eve")
    assert (await other.error(SignIn(handle="Ann", password=PASSWORD))).code == ErrorCode.BAD_CREDENTIALS


# -- deleting an account, exporting it ----------------------------------------------------------------


async def race_as(server: RaceServer, racer: WsClient) -> str:
    """``racer`` races Bob: three moves of a win, then both resign, and ``racer`` leaves. The race's id."""
    (bob,), state = await room_with(server, "Bob")
    assert isinstance(await racer.call(JoinRoom(room=state.room)), RoomState)
    await start_race([bob, racer])
    for move in solution()[:3]:
        assert isinstance(await racer.call(MoveRequest(move=str(move))), Moved)
    await racer.call(Resign())
    await bob.call(Resign())
    result = await racer.expect(Result)
    assert result.race_id is not None
    assert isinstance(await racer.call(Leave()), Ok)
    await bob.close()
    return result.race_id


async def test_a_deleted_account_keeps_its_races_as_a_deleted_player(
    make_memory_server: MakeServer, database: Database
) -> None:
    server = await make_memory_server(accounts=Accounts(database), archive=Archive(database, now=lambda: 1))
    _, identity = await registered(server)
    ann = await keyed(server, identity)
    await ann.call(ClaimHandle(handle="Ann"))
    await ann.call(SetPassword(password=PASSWORD))
    race = await race_as(server, ann)
    reader = Reader(database, now=lambda: 1)
    await wait_until(lambda: _archived(reader, race), what="the race archived")
    assert await ann.call(DeleteAccount()) == Ok()

    view = await reader.race(race)
    assert view is not None and len(view["racers"]) == 2  # the race is whole
    mine = [r for r in view["racers"] if r["player"] == identity.player]
    assert [r["name"] for r in mine] == ["deleted player"] and len(mine[0]["moves"]) == 3
    async with database.read() as conn:
        stored = (
            await conn.execute(sa.select(race_racers.c.name).where(race_racers.c.player == identity.player))
        ).all()
        row = (await conn.execute(sa.select(players).where(players.c.player == identity.player))).mappings().one()
        keys = (await conn.execute(sa.select(sa.func.count()).select_from(player_keys))).scalar_one()
    assert stored == [("deleted player",)]  # the name is gone from the rows too, not only shown so
    assert row["handle"] is None and row["password_hash"] is None and row["key_hash"] == ""
    assert row["display_name"] == "deleted player" and row["deleted_at"] is not None and keys == 0
    assert await reader.player(identity.player) is None

    assert isinstance(await ann.call(Ping()), Pong)  # the session goes on, anonymous
    assert (await ann.error(ExportData())).code == ErrorCode.NOT_IDENTIFIED
    again = await WsClient.open(url_of(server))
    assert identity.key is not None
    assert (await refused(again, Hello(name="Ann", key=identity.key))).code == ErrorCode.BAD_KEY
    thief = await WsClient.open(url_of(server), "Eve")
    assert (await thief.error(SignIn(handle="Ann", password=PASSWORD))).code == ErrorCode.BAD_CREDENTIALS
    _, newcomer = await registered(server, "Newcomer")  # the handle is free again
    assert isinstance(await (await keyed(server, newcomer)).call(ClaimHandle(handle="Ann")), Identity)


async def test_a_race_archived_after_the_deletion_has_a_deleted_player_too(
    make_memory_server: MakeServer, database: Database
) -> None:
    server = await make_memory_server(accounts=Accounts(database))  # no archiver: the race waits in the store
    _, identity = await registered(server)
    ann = await keyed(server, identity)
    race = await race_as(server, ann)
    assert await ann.call(DeleteAccount()) == Ok()
    (record,) = races_of([unpack(e) for e in await server.store.load(room_of(race))])
    assert await Archive(database, now=lambda: 1).write_race(record)
    async with database.read() as conn:
        names = (await conn.execute(sa.select(race_racers.c.player, race_racers.c.name))).all()
    assert sorted(name for player, name in names if player == identity.player) == ["deleted player"]
    assert sorted(name for player, name in names if player != identity.player) == ["Bob"]


async def _archived(reader: Reader, race: str) -> bool:
    view = await reader.race(race)
    return view is not None and bool(view["archived"])


async def test_the_export_holds_the_player_and_their_races(make_memory_server: MakeServer, database: Database) -> None:
    server = await make_memory_server(accounts=Accounts(database), archive=Archive(database, now=lambda: 1))
    _, identity = await registered(server)
    ann = await keyed(server, identity)
    await ann.call(ClaimHandle(handle="Ann"))
    await ann.call(SetPassword(password=PASSWORD))
    races = []
    for _ in range(2):
        races.append(await race_as(server, ann))
        fake(server).advance(1000)  # the second race ends later
    reader = Reader(database, now=lambda: 1)
    for race in races:
        await wait_until(functools.partial(_archived, reader, race), what="the races archived")
    export = await ann.call(ExportData())
    assert isinstance(export, Export)
    data = json.loads(export.data)
    assert data["truncated"] is False
    assert data["player"] == {
        "player": identity.player,
        "handle": "Ann",
        "display_name": "Ann",
        "created_at": data["player"]["created_at"],
        "devices": 1,
    }
    assert [r["race_id"] for r in data["races"]] == races[::-1]  # newest first
    for race in data["races"]:
        assert race["you"]["player"] == identity.player and len(race["you"]["moves"]) == 3
        assert sorted(r["name"] for r in race["racers"]) == ["Ann", "Bob"]
    assert "argon2" not in export.data and "key_hash" not in export.data and "password" not in export.data


def test_an_export_too_big_for_its_frame_keeps_the_newest_races() -> None:
    player = {"player": "u" + "A" * 12, "handle": "Ann"}
    races = [{"race_id": f"R{n:05d}", "you": {"moves": [[n, "3c"]] * 100}} for n in range(2000)]
    data = export_json(player, races)
    assert len(data) <= EXPORT_MAX and data.isascii()
    read = json.loads(data)
    assert read["truncated"] is True and read["player"] == player
    kept = read["races"]
    assert 10 < len(kept) < 2000 and kept == races[: len(kept)]
    small = json.loads(export_json(player, races[:3]))
    assert small == {"player": player, "races": races[:3], "truncated": False}
    assert json.loads(export_json(player, [])) == {"player": player, "races": [], "truncated": False}


# -- without the database ----------------------------------------------------------------------------


async def test_without_a_database_racing_goes_on_and_accounts_are_unavailable(make_server: MakeServer) -> None:
    server = await make_server()  # no accounts at all
    ann = await WsClient.open(url_of(server), "Ann")
    needs_records: tuple[Message, ...] = (Register(), SignIn(handle="Ann", password=PASSWORD))
    for request in needs_records:
        assert (await ann.error(request)).code == ErrorCode.RECORDS_UNAVAILABLE
    needs_a_key: tuple[Message, ...] = (
        ClaimHandle(handle="Ann"),
        SetPassword(password=PASSWORD),
        DeleteAccount(),
        ExportData(),
    )
    for request in needs_a_key:
        assert (await ann.error(request)).code == ErrorCode.NOT_IDENTIFIED
    key = f"u{'A' * 12}.{'A' * 43}"
    answer = await refused(await WsClient.open(url_of(server)), Hello(name="Ann", key=key))
    assert answer.code == ErrorCode.RECORDS_UNAVAILABLE
    assert answer.message == "the player records are unavailable; try again later"
    await race_as(server, ann)


async def test_a_database_outage_stops_no_race_and_known_keys_still_work(
    make_server: MakeServer, private_postgres: PgProcess, tmp_path: Path
) -> None:
    db = open_database(private_postgres.url, tmp_path)
    await migrate(db)
    try:
        server = await make_server(accounts=Accounts(db))
        _, known = await registered(server)
        _, unseen = await registered(server, "Bob")
        first = await keyed(server, known)
        await first.close()
        await server.store.mark_player(unseen.player, MARK, 60)  # as if the cache had lost Bob
        private_postgres.stop()

        anonymous = await WsClient.open(url_of(server), "Cid")
        assert (await anonymous.error(Register())).code == ErrorCode.RECORDS_UNAVAILABLE
        assert (await anonymous.error(SignIn(handle="x" * 3, password=PASSWORD))).code == ErrorCode.RECORDS_UNAVAILABLE
        back = await keyed(server, known)  # from the cache (filled by the registration): no database needed
        assert back.welcome is not None and back.welcome.identified
        assert (await back.error(ClaimHandle(handle="Ann"))).code == ErrorCode.RECORDS_UNAVAILABLE
        assert (await back.error(ExportData())).code == ErrorCode.RECORDS_UNAVAILABLE
        assert unseen.key is not None
        loop = asyncio.get_running_loop()
        started = loop.time()
        answer = await refused(await WsClient.open(url_of(server)), Hello(name="Bob", key=unseen.key))
        assert answer.code == ErrorCode.RECORDS_UNAVAILABLE and loop.time() - started < 3
        await race_as(server, back)  # a registered player races on, and so does everyone else
        await race_as(server, anonymous)

        private_postgres.start()
        bob = await keyed(server, unseen, "Bob")
        assert bob.welcome is not None and bob.welcome.player == unseen.player
    finally:
        await db.close()


async def test_a_hello_waits_at_most_half_a_second_for_a_stalled_database(
    make_memory_server: MakeServer, pg_server: str, tmp_path: Path
) -> None:
    async with scratch_database(pg_server) as url:
        db = open_database(url, tmp_path)
        await migrate(db)
        try:
            server = await make_memory_server(accounts=Accounts(db))
            _, identity = await registered(server)
            await server.store.mark_player(identity.player, MARK, 60)  # the server must ask the database
            assert identity.key is not None
            locker = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
            try:
                stall = locker.transaction()
                await stall.start()
                await locker.execute("LOCK TABLE players IN ACCESS EXCLUSIVE MODE")  # every read of it waits
                loop = asyncio.get_running_loop()
                started = loop.time()
                answer = await refused(await WsClient.open(url_of(server)), Hello(name="Ann", key=identity.key))
                waited = loop.time() - started
                assert answer.code == ErrorCode.RECORDS_UNAVAILABLE and 0.4 < waited < 2.0, waited
                ann = await WsClient.open(url_of(server), "Ann")  # anonymous racing does not wait
                assert isinstance(await ann.call(Ping()), Pong)
                await stall.rollback()
            finally:
                await locker.close()
            back = await keyed(server, identity)
            assert back.welcome is not None and back.welcome.player == identity.player
        finally:
            await db.close()


# -- the contract ---------------------------------------------------------------------------------------


def test_the_contract_documents_every_code_request_and_message() -> None:
    assert [c.value for c in ErrorCode if f"| `{c.value}` |" not in section(11)] == []
    assert [t for t in REQUESTS if f"### `{t}`" not in section(6)] == []
    assert [t for t in SERVER_MESSAGES if f"### `{t}`" not in section(7)] == []
    assert "Thirty-five request types" in section(6) and len(REQUESTS) == 35
    assert "Twenty-nine message types" in section(7) and len(SERVER_MESSAGES) == 29
    for field in ("`key` *(optional)*", "`handle` *(optional)*", "`identified` *(optional)*"):
        assert field in section(6) + section(7), field
    assert "## 21. Players that last" in DOC


async def test_a_players_name_is_theirs_on_every_device_until_they_change_it(
    make_server: MakeServer, database: Database
) -> None:
    server = await make_server(accounts=Accounts(database))
    _, identity = await registered(server, "Ann")  # registered with the session's name
    desk = await keyed(server, identity, name="Ann")
    phone = await keyed(server, identity, name="player")  # another device, which calls her otherwise
    assert phone.welcome is not None and phone.welcome.name == "Ann"
    assert await phone.call(SetName(name="  Ann  Lee ")) == Ok()  # on purpose: hers everywhere now
    later = await keyed(server, identity, name="whatever this device says")
    assert later.welcome is not None and later.welcome.name == "Ann Lee"
    async with database.read() as conn:
        stored = (await conn.execute(sa.select(players.c.display_name))).scalars().all()
    assert stored == ["Ann Lee"]
    _, state = await room_with(server, "Cid")
    joined = await later.call(JoinRoom(room=state.room))
    assert isinstance(joined, RoomState) and [r.name for r in joined.racers] == ["Cid", "Ann Lee"]
    guest = await WsClient.open(url_of(server), "Guest")  # a guest renames only its session
    assert await guest.call(SetName(name="Gus")) == Ok()
    assert isinstance(await desk.call(Ping()), Pong)
