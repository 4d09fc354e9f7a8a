"""Ghost challenges through a real server: a finished race's run is challenged, accepted and raced.

Real parts throughout: RaceServers on loopback (memory store and a private redis-server), real
WebSocket racers, the records in a real database (a SQLite file and a PostgreSQL database of the
test's own), and the fake clock stepped to each recorded move's time: the ghost's moves must reach
its rival as ``progress`` exactly then, and the race must end on record with the ghost marked.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import sqlalchemy as sa

from protocol.enums import EndReason, Status
from protocol.errors import ErrorCode
from protocol.messages import (
    GHOST_PREFIX,
    AcceptChallenge,
    Challenge,
    ChallengeRequest,
    CreateRoom,
    JoinRoom,
    Leave,
    Members,
    Moved,
    MoveRequest,
    Ok,
    Progress,
    Ready,
    Resign,
    Result,
    RoomState,
    Started,
    Undo,
)
from seahaven import Board
from server.app import RaceServer
from server.http.openapi import document
from server.records.archive import Archive
from server.records.challenges import ChallengeRecords
from server.records.database import Database, open_database
from server.records.migrate import migrate
from server.records.reader import Reader
from server.records.schema import races
from tests.helpers import MakeServer, fake, url_of, wait_until
from tests.httpclient import get
from tests.pg_proc import PgProcess, create_database
from tests.racing import Line, room_with, solution, start_race
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

STEP_MS = 100
"""Between two of Ann's recorded moves."""
AUTO_DEAL = 5
"""A deal that opens with safe cards."""


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


async def recording(make: MakeServer, database: Database, **config: Any) -> tuple[RaceServer, ChallengeRecords]:
    """A server that archives its races into ``database``, keeps its challenges there and serves
    them on its read API, as ``seahaven-server`` does."""
    archive = Archive(database, now=wall_ms)
    book = ChallengeRecords(database, archive)
    reader = Reader(database, now=wall_ms)
    server = await make(archive=archive, challenges=book, records=reader, **config)
    # The factory makes the server's store: races not yet archived are there.
    book.live = reader.live = server.store
    return server, book


async def challenge_page(server: RaceServer, challenge: str) -> dict[str, Any]:
    """``GET /api/v1/challenges/{challenge}``, checked against the API's own document (its
    objects are closed: exactly the documented keys)."""
    answer = await get(server.port, f"/api/v1/challenges/{challenge}")
    assert answer.status == 200, answer
    page: dict[str, Any] = answer.json()
    schemas = document()["components"]["schemas"]
    assert set(page) == set(schemas["Challenge"]["required"])
    for result in page["results"]:
        assert set(result) == set(schemas["ChallengeResult"]["required"])
    return page


async def recorded_race(server: RaceServer) -> tuple[str, list[tuple[int, str]], WsClient, WsClient]:
    """Ann and Bob race: Bob plays one move at the start, Ann a move, an undo and then a whole win,
    one every ``STEP_MS``. The race's id, Ann's run (ms from the start, move), and the two racers."""
    clock = fake(server)
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    assert isinstance(await bob.call(MoveRequest(move=str(solution()[0]))), Moved)
    run: list[tuple[int, str]] = []
    for move in [str(solution()[0]), "undo", *map(str, solution())]:
        clock.advance(STEP_MS)
        reply = await ann.call(Undo() if move == "undo" else MoveRequest(move=move))
        assert isinstance(reply, Moved), reply
        run.append(((len(run) + 1) * STEP_MS, move))
    result = await ann.expect(Result)
    assert result.race_id is not None
    return result.race_id, run, ann, bob


async def challenged(client: WsClient, race: str, player: str | None = None) -> Challenge:
    made = await client.call(ChallengeRequest(race_id=race, player=player))
    assert isinstance(made, Challenge), made
    return made


async def accepted(server: RaceServer, challenge: str, name: str = "Cid") -> tuple[WsClient, RoomState, str]:
    """``name`` accepts the challenge and says ready once its ghost is seated ready: the racer, the
    room they got, the ghost's player id. The race has started."""
    racer = await WsClient.open(url_of(server), name)
    state = await racer.call(AcceptChallenge(challenge=challenge))
    assert isinstance(state, RoomState), state
    ghost = GHOST_PREFIX + challenge
    await racer.expect(Members, where=lambda m: any(r.player == ghost and r.status == Status.READY for r in m.racers))
    assert isinstance(await racer.call(Ready()), Ok)
    await racer.expect(Started)
    return racer, state, ghost


async def archived(db: Database, race: str) -> bool:
    async with db.read() as conn:
        return (await conn.execute(sa.select(races.c.race_id).where(races.c.race_id == race))).first() is not None


async def test_a_ghost_plays_the_recorded_run_at_its_recorded_times(
    make_server: MakeServer, database: Database
) -> None:
    server, book = await recording(make_server, database)
    clock = fake(server)
    race, run, ann, _ = await recorded_race(server)

    made = await challenged(ann, race)
    assert (made.race_id, made.player, made.name, made.status, made.progress) == (
        race,
        ann.player,
        "Ann",
        "finished",
        52,
    )
    assert made.time_ms == run[-1][0] and made.link_path == f"/c/{made.challenge}" and len(made.challenge) == 8

    cid = await WsClient.open(url_of(server), "Cid")
    code = made.challenge.lower()[:4] + " " + made.challenge.lower()[4:]  # typed by a person
    state = await cid.call(AcceptChallenge(challenge=code))
    assert isinstance(state, RoomState), state
    assert (state.public, state.seats, state.phase, state.deal) == (False, 2, "waiting", made.deal)
    assert [r.player for r in state.racers] == [cid.player]
    ghost = GHOST_PREFIX + made.challenge
    members = await cid.expect(Members, where=lambda m: any(r.status == Status.READY for r in m.racers))
    (shown,) = [r for r in members.racers if r.player == ghost]
    assert (shown.name, shown.ghost, shown.bot) == ("Ann", True, False)
    assert isinstance(await cid.call(Ready()), Ok)
    await cid.expect(Started)

    elapsed = 0
    for actions, (at, _move) in enumerate(run, start=1):
        clock.advance(at - 1 - elapsed)
        if actions <= 3:  # not a millisecond early
            assert not [e for e in await cid.drain() if isinstance(e, Progress)]
        clock.advance(1)
        elapsed = at
        progress = await cid.expect(Progress)
        assert (progress.player, progress.elapsed_ms, progress.moves, progress.move) == (ghost, at, actions, None)
    result = await cid.expect(Result)
    assert result.reason == EndReason.WON
    assert [(s.player, s.place, s.ghost, s.status) for s in result.standings] == [
        (ghost, 1, True, Status.FINISHED),
        (cid.player, 2, False, Status.RACING),
    ]
    assert result.standings[0].time_ms == run[-1][0] and result.race_id is not None

    await wait_until(lambda: archived(database, str(result.race_id)), what="the challenge race archived")
    view = await Reader(database, now=wall_ms).race(result.race_id)
    assert view is not None and view["chosen"] is True  # a known deal: never on a leaderboard
    racers = {r["player"]: r for r in view["racers"]}
    assert (racers[ghost]["ghost"], racers[cid.player]["ghost"]) == (True, False)
    assert racers[ghost]["moves"] == [[at, move] for at, move in run]
    assert racers[ghost]["proven"] is True

    page = await challenge_page(server, made.challenge)
    assert (page["challenge"], page["race_id"], page["player"], page["name"]) == (
        made.challenge,
        race,
        ann.player,
        "Ann",
    )
    results = page["results"]
    # Cid did not finish: no time (the standings' tie-break time is not a time to show).
    assert results == [{"player": cid.player, "name": "Cid", "race_id": result.race_id, "place": 2, "time_ms": None}]
    assert page["time_ms"] == run[-1][0]  # Ann's run, finished: its time to beat
    (mine,) = await book.of_player(ann.player)
    assert (mine["challenge"], mine["race_id"], mine["created_by"], mine["results"]) == (
        made.challenge,
        race,
        ann.player,
        results,
    )


async def test_a_racer_who_finishes_first_beats_the_ghost(make_memory_server: MakeServer, database: Database) -> None:
    server, _ = await recording(make_memory_server, database)
    clock = fake(server)
    race, _, ann, _ = await recorded_race(server)
    made = await challenged(ann, race)
    cid, _, ghost = await accepted(server, made.challenge)
    clock.advance(2 * STEP_MS)
    await cid.expect(Progress, where=lambda p: p.moves == 2)
    for move in solution():
        assert isinstance(await cid.call(MoveRequest(move=str(move))), Moved)
    result = await cid.expect(Result)
    assert [(s.player, s.place) for s in result.standings] == [(cid.player, 1), (ghost, 2)]
    assert result.standings[0].time_ms == 2 * STEP_MS
    await wait_until(lambda: archived(database, str(result.race_id)))
    page = await challenge_page(server, made.challenge)
    assert [(r["player"], r["place"], r["time_ms"]) for r in page["results"]] == [(cid.player, 1, 2 * STEP_MS)]


async def test_a_run_that_did_not_finish_is_raced_as_long_as_its_race_lasted(
    make_memory_server: MakeServer, database: Database
) -> None:
    server, _ = await recording(make_memory_server, database)
    clock = fake(server)
    race, run, ann, bob = await recorded_race(server)
    made = await challenged(ann, race, player=bob.player)  # Bob's run: one move, still racing at the end
    assert (made.player, made.name, made.status) == (bob.player, "Bob", Status.RACING)
    lasted = run[-1][0]  # the race ended with Ann's last move
    cid, state, ghost = await accepted(server, made.challenge)
    assert state.time_limit == lasted // 1000
    progress = await cid.expect(Progress)  # Bob's move, at the start
    assert (progress.player, progress.elapsed_ms) == (ghost, 0)
    clock.advance(lasted - 1)
    assert not [e for e in await cid.drain() if isinstance(e, Result)]
    clock.advance(1)
    result = await cid.expect(Result)
    assert result.reason == EndReason.TIME_LIMIT
    assert {s.player: s.status for s in result.standings} == {cid.player: Status.RACING, ghost: Status.RACING}
    # Bob's run did not finish: it has no time to beat ("0:00.0 to beat", said the clients).
    assert (await challenge_page(server, made.challenge))["time_ms"] is None


async def test_a_resigned_run_resigns_after_its_last_move(make_memory_server: MakeServer, database: Database) -> None:
    server, _ = await recording(make_memory_server, database)
    clock = fake(server)
    (ann, bob), _ = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    for move in solution()[:3]:
        clock.advance(STEP_MS)
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
    clock.advance(5000)
    assert isinstance(await ann.call(Resign()), Ok)
    assert isinstance(await bob.call(Resign()), Ok)
    result = await ann.expect(Result)
    assert result.race_id is not None

    made = await challenged(ann, result.race_id)
    assert made.status == Status.RESIGNED
    cid, _, ghost = await accepted(server, made.challenge)
    clock.advance(3 * STEP_MS)
    resigned = await cid.expect(Progress, where=lambda p: p.status == Status.RESIGNED)
    assert (resigned.player, resigned.moves, resigned.elapsed_ms) == (ghost, 3, 3 * STEP_MS)


async def test_a_spectator_sees_the_ghosts_moves_and_its_rival_does_not(
    make_memory_server: MakeServer, database: Database
) -> None:
    server, _ = await recording(make_memory_server, database)
    clock = fake(server)
    race, run, ann, _ = await recorded_race(server)
    made = await challenged(ann, race)
    cid, state, ghost = await accepted(server, made.challenge)
    sue = await WsClient.open(url_of(server), "Sue")
    assert isinstance(await sue.call(JoinRoom(room=state.room, spectate=True)), RoomState)
    clock.advance(run[0][0])
    seen = await sue.expect(Progress)
    assert (seen.player, seen.move) == (ghost, run[0][1])
    assert (await cid.expect(Progress)).move is None


async def test_a_ghost_leaves_with_its_rival_and_the_room_goes(make_server: MakeServer, database: Database) -> None:
    server, _ = await recording(make_server, database)
    clock = fake(server)
    race, run, ann, _ = await recorded_race(server)
    made = await challenged(ann, race)
    cid, state, ghost = await accepted(server, made.challenge)
    clock.advance(run[0][0])
    await cid.expect(Progress)
    assert isinstance(await cid.call(Leave()), Ok)
    await wait_until(lambda: state.room not in server.rooms, what="the ghost left and the room was let go")
    # Both gave up: the race ended, and went on record with the ghost's one move.
    await wait_until(lambda: _raced_in(database, state.room), what="the abandoned race archived")
    (abandoned,) = await _races_of_room(database, state.room)
    view = await Reader(database, now=wall_ms).race(abandoned)
    assert view is not None and view["end_reason"] == EndReason.ALL_DONE
    racers = {r["player"]: r for r in view["racers"]}
    assert racers[ghost]["status"] == racers[cid.player]["status"] == Status.RESIGNED
    assert racers[ghost]["moves"] == [list(run[0])]


async def _raced_in(db: Database, room: str) -> bool:
    return bool(await _races_of_room(db, room))


async def _races_of_room(db: Database, room: str) -> list[str]:
    async with db.read() as conn:
        return list((await conn.execute(sa.select(races.c.race_id).where(races.c.room == room))).scalars())


async def test_a_recorded_move_the_room_refuses_stops_the_ghost(
    make_memory_server: MakeServer, database: Database
) -> None:
    """A record that does not replay (a forged move at the third step): the ghost plays up to it,
    then resigns; the race goes on for its rival."""
    server, book = await recording(make_memory_server, database)
    clock = fake(server)
    race, _, ann, _ = await recorded_race(server)
    record = await book.race(race)
    assert record is not None
    first, second = (str(move) for move in solution()[:2])
    forged_run = dataclasses.replace(record.racers[0], moves=((100, first), (200, second), (300, "9#"), (400, "3#")))
    forged = dataclasses.replace(record, race_id="FORGED-1-aaaaaaaa", room="FORGED", racers=(forged_run,))
    assert await book.add("F0RGED00", forged, forged_run.player, ann.player, clock.now())
    cid, _, ghost = await accepted(server, "F0RGED00")
    clock.advance(300)
    resigned = await cid.expect(Progress, where=lambda p: p.status == Status.RESIGNED)
    assert (resigned.player, resigned.moves) == (ghost, 2)
    clock.advance(100)
    assert isinstance(await cid.call(MoveRequest(move=str(solution()[0]))), Moved)
    assert not [e for e in await cid.drain() if isinstance(e, Progress) and e.moves > 2]


# -- what is refused --------------------------------------------------------------------------


async def test_without_records_challenges_are_unavailable(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    ann = await WsClient.open(url_of(server), "Ann")
    for request in (ChallengeRequest(race_id="3R12R9-1-aaaaaaaa"), AcceptChallenge(challenge="7KQ2M9XD")):
        error = await ann.error(request)
        assert (error.code, error.message) == (
            ErrorCode.RECORDS_UNAVAILABLE,
            "this server keeps no records: no challenges",
        )


async def test_unknown_races_runs_and_challenges_are_refused(
    make_memory_server: MakeServer, database: Database
) -> None:
    server, _ = await recording(make_memory_server, database)
    race, _, ann, _ = await recorded_race(server)
    cid = await WsClient.open(url_of(server), "Cid")
    for race_id in ("ZZZZZZ-1-aaaaaaaa", "not a race"):
        error = await cid.error(ChallengeRequest(race_id=race_id))
        assert (error.code, error.message) == (ErrorCode.RACE_NOT_FOUND, f"no finished race {race_id!r} on record")
    error = await cid.error(ChallengeRequest(race_id=race))
    assert (error.code, error.message) == (ErrorCode.BAD_FIELD, f"you did not race in {race}: name a racer (player)")
    error = await cid.error(ChallengeRequest(race_id=race, player="pNOBODY"))
    assert (error.code, error.message) == (ErrorCode.BAD_FIELD, f"body.player: 'pNOBODY' did not race in {race}")
    for code in ("ZZZZZZZZ", "not-a-code!"):
        error = await cid.error(AcceptChallenge(challenge=code))
        assert (error.code, error.message) == (ErrorCode.CHALLENGE_NOT_FOUND, f"no challenge {code!r}: check the code")
    # In a room already: the challenge waits.
    made = await challenged(ann, race)
    error = await ann.error(AcceptChallenge(challenge=made.challenge))
    assert error.code == ErrorCode.ALREADY_IN_ROOM


async def test_a_race_still_on_is_not_finished(make_server: MakeServer, database: Database) -> None:
    server, _ = await recording(make_server, database)
    (ann, bob), state = await room_with(server, "Ann", "Bob")
    await start_race([ann, bob])
    race = server.rooms[state.room].room.race_id()
    error = await ann.error(ChallengeRequest(race_id=race))
    assert (error.code, error.message) == (
        ErrorCode.NOT_FINISHED,
        f"race {race} is still on: challenge it once it is over",
    )


async def test_a_ghosts_run_is_not_challenged_again(make_memory_server: MakeServer, database: Database) -> None:
    server, _ = await recording(make_memory_server, database)
    clock = fake(server)
    race, run, ann, _ = await recorded_race(server)
    made = await challenged(ann, race)
    cid, _, ghost = await accepted(server, made.challenge)
    assert isinstance(await cid.call(Resign()), Ok)
    clock.advance(run[-1][0])  # every recorded move falls due: the ghost wins
    result = await cid.expect(Result)
    assert result.race_id is not None
    error = await cid.error(ChallengeRequest(race_id=result.race_id, player=ghost))
    assert (error.code, error.message) == (
        ErrorCode.BAD_FIELD,
        "that run is a ghost's: challenge the race it came from",
    )
    assert isinstance(await cid.call(ChallengeRequest(race_id=result.race_id)), Challenge)  # Cid's own run


async def test_a_database_away_makes_challenges_unavailable_and_racing_goes_on(
    make_memory_server: MakeServer, private_postgres: PgProcess, tmp_path: Any
) -> None:
    db = open_database(await create_database(private_postgres.url), tmp_path)
    await migrate(db)
    try:
        server, _ = await recording(make_memory_server, db)
        race, _, ann, bob = await recorded_race(server)
        for client in (ann, bob):
            assert isinstance(await client.call(Leave()), Ok)
        private_postgres.stop()
        for request in (ChallengeRequest(race_id=race), AcceptChallenge(challenge="7KQ2M9XD")):
            error = await bob.error(request)
            assert (error.code, error.message) == (
                ErrorCode.RECORDS_UNAVAILABLE,
                "the records are unavailable: try again later",
            )
        # Racing needs no database.
        state = await ann.call(CreateRoom(deal_number=1))
        assert isinstance(state, RoomState)
        assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
        await start_race([ann, bob])
        assert isinstance(await ann.call(MoveRequest(move=str(solution()[0]))), Moved)
    finally:
        await db.close()


async def test_the_command_keeps_challenges_in_its_records() -> None:
    """``seahaven-server`` on its default SQLite records: a race is challenged and its ghost raced,
    on the real clock."""
    server = ServerProcess()
    try:
        (ann, bob), _ = await processes_race(server.url)
        for move in solution():
            assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
        result = await ann.expect(Result)
        assert result.race_id is not None
        made = await challenged(ann, result.race_id)
        cid = await WsClient.open(server.url, "Cid")
        assert isinstance(await cid.call(AcceptChallenge(challenge=made.challenge)), RoomState)
        ghost = GHOST_PREFIX + made.challenge
        await cid.expect(Members, where=lambda m: any(r.player == ghost and r.status == Status.READY for r in m.racers))
        assert isinstance(await cid.call(Ready()), Ok)
        raced = await cid.expect(Result)
        assert [(s.player, s.ghost) for s in raced.standings] == [(ghost, True), (cid.player, False)]
        for client in (ann, bob, cid):
            await client.close()
        assert server.terminate() == 0
    finally:
        server.close()


async def processes_race(url: str) -> tuple[tuple[WsClient, WsClient], RoomState]:
    """Ann and Bob in a room of deal 1 on the server at ``url``, the race started."""
    ann, bob = await WsClient.open(url, "Ann"), await WsClient.open(url, "Bob")
    state = await race_of_two(ann, bob, CreateRoom(deal_number=1))
    return (ann, bob), state


async def test_a_run_with_auto_moves_is_raced_again_move_for_move(
    make_memory_server: MakeServer, database: Database
) -> None:
    """A run whose racer let the server play auto-moves (the opening's too, and an undo of a move
    with them): the ghost asks for the same, so its race on record is the run's, entry for entry,
    and counts the same moves."""
    server, _ = await recording(make_memory_server, database)
    clock = fake(server)
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    created = await ann.call(CreateRoom(deal_number=AUTO_DEAL))
    assert isinstance(created, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=created.room)), RoomState)
    assert isinstance(await ann.call(Ready(auto=True)), Ok) and isinstance(await bob.call(Ready()), Ok)
    await ann.expect(Started)
    line = Line(Board.deal("seahaven", AUTO_DEAL))
    line.board.autoplay()
    undone = False
    requests = 0
    while not line.board.is_won():
        clock.advance(STEP_MS)
        move = line.next()
        reply = await ann.call(MoveRequest(move=str(move), auto=True))
        assert isinstance(reply, Moved), reply
        requests += 1
        if reply.auto and not undone:  # once: an undo of a move and its auto-moves, then the move again
            undone = True
            clock.advance(STEP_MS)
            assert isinstance(await ann.call(Undo()), Moved)
            clock.advance(STEP_MS)
            assert isinstance(await ann.call(MoveRequest(move=str(move), auto=True)), Moved)
            requests += 2
        line.board.push(move)
        line.board.autoplay()
    result = await ann.expect(Result)
    assert result.race_id is not None and undone
    made = await challenged(ann, result.race_id)
    cid, _, ghost = await accepted(server, made.challenge)
    opening = await cid.expect(Progress, where=lambda p: p.player == ghost)  # the opening's, at the start
    assert opening.moves == 0 and opening.progress > 0
    for _ in range(requests):  # the ghost's moves at their recorded times, one a step as Ann's were
        clock.advance(STEP_MS)
        await cid.expect(Progress, where=lambda p: p.player == ghost)
    again = await cid.expect(Result)
    assert again.race_id is not None
    (ran,) = [s for s in again.standings if s.player == ghost]
    (was,) = [s for s in result.standings if s.player == ann.player]
    assert (ran.status, ran.time_ms, ran.moves) == (Status.FINISHED, was.time_ms, was.moves)
    reader = Reader(database, now=wall_ms)
    await wait_until(lambda: archived(database, str(again.race_id)), what="the ghost's race archived")
    original, raced = await reader.race(result.race_id), await reader.race(again.race_id)
    assert original is not None and raced is not None
    (run,) = [r for r in original["racers"] if r["player"] == ann.player]
    (replayed,) = [r for r in raced["racers"] if r["player"] == ghost]
    assert run["auto"] and run["auto"][0] == 0, "the opening's, then the rest"
    assert replayed["moves"] == run["moves"], (replayed["moves"][:8], run["moves"][:8])
    assert (replayed["auto"], replayed["undos"]) == (run["auto"], run["undos"])
    assert run["undos"] == 1
