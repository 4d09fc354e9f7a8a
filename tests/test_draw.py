"""Deals nobody can choose (issue 37, item 2): a rated room commits to each race's server seed
before its racers give theirs, draws the deal at the start from the published list, reveals the
seed in the result, and the signed record lets anyone check the draw."""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from protocol.enums import Phase
from protocol.errors import ErrorCode
from protocol.messages import CreateRoom, Error, JoinRoom, Ok, Ready, Rematch, Resign, Result, RoomState, Started
from seahaven.verify import draw_candidates, passed, verify
from server.records.archive import Archive
from server.records.database import Database
from server.records.reader import Reader
from server.rooms.room import Room
from server.rooms.settings import Settings
from tests.forgery import forge
from tests.helpers import MakeServer, url_of, wait_until
from tests.wsclient import WsClient

SECRET = "ab" * 32


def drawn_room(seeds: tuple[str | None, str | None], grade: str | None = None) -> tuple[Room, str, Result]:
    """A drawn room's first race, both racers ready with ``seeds`` and resigning at once: the
    room, the commitment it showed before the start and its result."""
    room, _ = Room.create("DRAWN1", Settings("seahaven", 1, secret=SECRET, deal_grade=grade, countdown_ms=0), 0)
    room.join("p1", "Ann", False, 1)
    room.join("p2", "Bob", False, 1)
    shown = room.state_for("p1", 2).commitment
    assert shown is not None
    room.set_ready("p1", True, 3, seeds[0])
    events = room.set_ready("p2", True, 4, seeds[1]) + room.tick(5)
    assert room.phase == Phase.RACING, events
    assert room.state_for("p1", 6).commitment == shown  # while it runs: the running race's
    ended = room.resign("p1", 7) + room.resign("p2", 8)
    results = [m.message for e in ended for m in room.messages(e) if isinstance(m.message, Result)]
    assert isinstance(results[0], Result)
    return room, shown, results[0]


def test_the_seed_revealed_is_the_one_committed_to_and_the_deal_follows_the_racers_seeds() -> None:
    deals = set()
    for _ in range(12):
        room, shown, result = drawn_room((secrets.token_hex(16), secrets.token_hex(16)), grade="tricky")
        assert result.seed is not None and hashlib.sha256(bytes.fromhex(result.seed)).hexdigest() == shown
        assert room.settings.deal in draw_candidates("seahaven", "tricky")
        deals.add(room.settings.deal)
    # The server's seed is the same for every first race of this secret: the racers' seeds moved the deal.
    assert len(deals) > 6
    again, _, _ = drawn_room(("00" * 16, "11" * 16))
    same, _, _ = drawn_room(("00" * 16, "11" * 16))
    swapped, _, _ = drawn_room(("11" * 16, "00" * 16))
    assert again.settings.deal == same.settings.deal  # the same seeds in the same seats: the same deal
    assert swapped.draw is not None and swapped.draw.seeds == ("11" * 16, "00" * 16)  # in seat order


def test_a_rematch_commits_to_a_new_seed_and_takes_the_seeds_of_the_votes() -> None:
    room, first, result = drawn_room((None, None))
    assert room.draw is not None and room.draw.seeds == ()  # no seeds: the server's seed alone
    following = room.state_for("p1", 9).commitment
    assert following is not None and following != first and result.commitment == following
    room.vote_rematch("p1", 1, 10, "cd" * 16)
    room.vote_rematch("p2", 1, 11, "ef" * 16)
    room.tick(12)
    assert room.phase == Phase.RACING and room.races == 2
    second = room.draw
    assert second is not None and second.seeds == ("cd" * 16, "ef" * 16)
    assert hashlib.sha256(bytes.fromhex(second.seed)).hexdigest() == following


def test_a_room_that_is_not_drawn_shows_no_commitment() -> None:
    room, _ = Room.create("PLAIN1", Settings("seahaven", 7), 0)
    room.join("p1", "Ann", False, 1)
    assert room.state_for("p1", 2).commitment is None
    assert room.settings.secret is None


async def test_a_rated_race_is_drawn_revealed_signed_and_verified(
    make_memory_server: MakeServer, database: Database
) -> None:
    wall = lambda: time.time_ns() // 1_000_000  # noqa: E731
    server = await make_memory_server(archive=Archive(database, now=wall), records=Reader(database, now=wall))
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    state = await ann.call(CreateRoom(rated=True))
    assert isinstance(state, RoomState) and state.commitment is not None and state.deal is None
    joined = await bob.call(JoinRoom(room=state.room))
    assert isinstance(joined, RoomState) and joined.commitment == state.commitment
    # A seed that is not hex is refused with the reason, and changes nothing.
    refused = await ann.call(Ready(seed="zz" * 16))
    assert isinstance(refused, Error) and refused.code == ErrorCode.BAD_FIELD and "hex" in refused.message
    seeds = (secrets.token_hex(16), secrets.token_hex(16))
    for client, seed in zip((ann, bob), seeds, strict=True):
        assert isinstance(await client.call(Ready(seed=seed)), Ok)
    started = await ann.expect(Started)
    await bob.expect(Started)
    for client in (ann, bob):
        await client.send(Resign())
    result = await ann.expect(Result)
    assert result.seed is not None and hashlib.sha256(bytes.fromhex(result.seed)).hexdigest() == state.commitment
    assert result.race_id is not None
    # The result also commits to the rematch's seed, before anyone votes with theirs.
    assert result.commitment is not None and result.commitment != state.commitment

    async def signed() -> bool:
        return await Reader(database, now=wall).signed_race(result.race_id) is not None  # type: ignore[arg-type]

    await wait_until(signed)
    document = json.loads(await Reader(database, now=wall).signed_race(result.race_id) or "")
    draw = document["record"]["draw"]
    assert draw["kind"] == "drawn" and draw["seed"] == result.seed and draw["seeds"] == list(seeds)
    assert draw["commitment"] == state.commitment and document["record"]["deal_code"] == started.deal
    assert "secret" not in document["record"]["settings"]  # the room's secret never leaves the server
    checks = {c.name: c for c in verify(document)}
    assert checks["draw"].ok is True and passed(list(checks.values()))
    # Altered and signed again by a forger: another seed, or the racers' seeds swapped.
    forger = Ed25519PrivateKey.generate()
    for field, value in (
        ("seed", "00" * 32),
        ("seeds", list(reversed(draw["seeds"]))),
        ("commitment", "11" * 32),
    ):
        altered = copy.deepcopy(document)
        altered["record"]["draw"][field] = value
        found = {c.name: c for c in verify(forge(altered, forger))}
        assert found["draw"].ok is False, found["draw"]
    # The rematch: a new commitment before the votes; each vote's seed draws the next deal.
    for client in (ann, bob):
        await client.send(Rematch(seed=secrets.token_hex(16)))
    fresh = await ann.expect(RoomState, where=lambda s: s.phase != "finished")
    assert fresh.commitment == result.commitment
    for client in (ann, bob):
        await client.close()
