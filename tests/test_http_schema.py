"""schemathesis against the running server: the OpenAPI document the server serves at
/api/v1/openapi.json, loaded from it, and every operation's answers to generated requests
checked against it (status codes, content types, headers and bodies).

The documents come from tests/helpers.py ``DictRecords`` (our own reader interface over plain
dicts; the real records are tested against the document by their own tests). The generated
requests are schema-valid, yet many are answered 400 or 404, rightly: an opaque cursor, or a
race id, of the right form is still unknown, and ``day`` goes with some periods only. So the
checks are the conformance ones, not ``positive_data_acceptance``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from protocol.messages import MoveRequest, Resign, Result
from server.records.archive import Archive
from server.records.database import Database
from server.records.reader import Reader
from tests.helpers import DictRecords, MakeServer, fake, wait_until
from tests.racing import room_with, solution, start_race

EXAMPLES = 12
"""Generated requests per operation and round (ten operations, two rounds: seconds in all)."""
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def run_every_operation(base: str, known: dict[str, dict[str, str]], before_each: Callable[[], None]) -> list[str]:
    """Load the document from the server and check each operation (blocking: run in a thread
    while the server runs on the event loop): once with every parameter generated (mostly
    unknown things: 400 and 404), once with the path parameters ``known`` gives it (documents
    there: 200). The operations checked, by their ids: all but the one serving the document
    itself, which schemathesis leaves out (tests/test_http_api.py fetches it)."""
    schema = schemathesis.openapi.from_url(f"{base}/api/v1/openapi.json", timeout=10)
    schema.validate()  # a valid OpenAPI 3.1 document (against its meta-schema)
    checked = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result.err()  # every operation of the document reads
        operation = result.ok()
        name = str(operation.definition.raw["operationId"])
        strategies = [operation.as_strategy()]
        if name in known:
            strategies.append(operation.as_strategy(path_parameters=known[name]))
        for strategy in strategies:

            @settings(
                max_examples=EXAMPLES,
                deadline=None,
                database=None,
                derandomize=True,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
            @given(case=strategy)
            def check(case: schemathesis.Case[Any]) -> None:
                before_each()
                case.call_and_validate(base_url=base, checks=CHECKS, timeout=10)

            check()
        checked.append(name)
    return checked


async def test_every_operation_answers_as_the_served_document_says(make_memory_server: MakeServer) -> None:
    records = DictRecords()
    server = await make_memory_server(records=records)
    race, player, challenge = next(iter(records.races)), next(iter(records.players)), next(iter(records.challenges))
    known = {
        "getRace": {"race_id": race},
        "getSignedRace": {"race_id": race},
        "getRaceAnalysis": {"race_id": race},
        "getPlayer": {"player": player},
        "getPlayerRaces": {"player": player},
        "getPlayerRivals": {"player": player},
        "getPlayerRatings": {"player": player},
        "getRatingBoard": {"preset": "seahaven"},
        "getChallenge": {"challenge": challenge},
        "getArena": {"code": next(iter(records.arenas))},
        "getPlayerArenas": {"player": player},
    }
    loop = asyncio.get_running_loop()
    clock = fake(server)

    def refill() -> None:
        """A second passes on the server's clock before each request: the rate limit never bites."""
        loop.call_soon_threadsafe(clock.advance, 1000)

    checked = await asyncio.to_thread(run_every_operation, f"http://127.0.0.1:{server.port}", known, refill)
    answered = {method for method, _ in records.asked}
    assert answered == {
        "race",
        "signed_race",
        "analysis",
        "keys",
        "player",
        "player_races",
        "player_rivals",
        "player_ratings",
        "leaderboard",
        "rating_board",
        "challenge",
        "arena",
        "recent_arenas",
        "player_arenas",
    }
    assert sorted(checked) == [
        "getArena",
        "getArenas",
        "getAsyncApi",
        "getChallenge",
        "getDealList",
        "getDealLists",
        "getKeys",
        "getLeaderboard",
        "getPlayer",
        "getPlayerArenas",
        "getPlayerRaces",
        "getPlayerRatings",
        "getPlayerRivals",
        "getRace",
        "getRaceAnalysis",
        "getRatingBoard",
        "getSignedRace",
    ]


async def test_the_real_records_answer_as_the_served_document_says(
    make_memory_server: MakeServer, database: Database
) -> None:
    """The same checks on the records themselves: a race raced, archived, then served."""
    server = await make_memory_server(
        archive=Archive(database, now=fake_wall_clock), records=Reader(database, now=fake_wall_clock)
    )
    clients, _ = await room_with(server, "Ann", "Bob")
    ann, bob = clients
    await start_race(clients)
    for move in solution()[:8]:
        await ann.call(MoveRequest(move=str(move)))
    await bob.call(Resign())
    await ann.call(Resign())
    result = await ann.expect(Result)
    assert result.race_id is not None
    reader = Reader(database, now=fake_wall_clock)

    async def archived() -> bool:
        view = await reader.race(str(result.race_id))
        return view is not None and view["archived"] is True

    await wait_until(archived)
    known = {
        "getRace": {"race_id": result.race_id},
        "getSignedRace": {"race_id": result.race_id},
        "getRaceAnalysis": {"race_id": result.race_id},
        "getPlayer": {"player": ann.player},
        "getPlayerRaces": {"player": ann.player},
        "getPlayerRivals": {"player": ann.player},
        "getPlayerRatings": {"player": ann.player},
    }
    loop = asyncio.get_running_loop()
    clock = fake(server)

    def refill() -> None:
        loop.call_soon_threadsafe(clock.advance, 1000)

    checked = await asyncio.to_thread(run_every_operation, f"http://127.0.0.1:{server.port}", known, refill)
    assert len(checked) == 17


def fake_wall_clock() -> int:
    """Archive and read times: the wall clock (the race's own times come from the server's)."""
    return time.time_ns() // 1_000_000
