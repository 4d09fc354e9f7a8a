"""What the server tests share: the one server factory, waiting for a condition, a server's address.

Racing helpers (a room with racers, a started race, a known solution) are in tests/racing.py; the
fake clock is tests/fakeclock.py. The ``make_server`` fixtures (tests/conftest.py) are this
factory on a backend.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from server.app import RaceServer
from server.config import Config
from server.http.api import RecordsReader
from server.play.daily import DailyTimes
from server.play.dealpool import DealPool
from server.records.archiver import RaceArchive
from server.records.signing import SigningKey
from server.shell.clock import Clock
from server.shell.ports import Accounts, ArenaArchive, ChallengeBook
from server.store.stores import MemoryStore, RedisStore, Store
from tests.fakeclock import FakeClock

MakeServer = Callable[..., Awaitable[RaceServer]]
"""``await make(clock=None, *, bot_time_scale=0.0, archive=None, records=None, challenges=None,
accounts=None, **config)``: a started RaceServer (``archive``: finished races into that database;
``records``: what its read API reads; ``challenges``: the ghost challenges' records; ``accounts``:
its registered players)."""

HINT_SECONDS = 20.0
"""A solver worker starting on a busy machine is slow; its answer is not (the server's hint budget)."""


@asynccontextmanager
async def server_factory(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[MakeServer]:
    """Start RaceServers on free ports with fast test settings, and stop them all at the end.

    ``backend`` "memory": each server has its own MemoryStore and deal pool (the servers share one
    daily board, as Redis nodes do); "redis": the store, the deal pool and the daily board are all
    in the test's private redis-server (one key prefix per factory), as ``seahaven-server --redis``
    runs them. Settings: a countdown of 0 starts a race at once, no spectator delay, no rate limit
    in practice; any ``Config`` field can be given; ``records`` is what the public API reads;
    ``deals`` picks each deal the server picks (its rooms' deals stay secret, not chosen). The
    servers share one FakeClock unless given a clock, so time passes only when the test advances
    it; bots play without pauses unless given a ``bot_time_scale``.
    """
    servers: list[RaceServer] = []
    prefix = f"t{uuid.uuid4().hex[:8]}:"
    shared_clock = FakeClock()
    shared_daily = DailyTimes(MemoryStore())

    async def make(
        clock: Clock | None = None,
        *,
        bot_time_scale: float = 0.0,
        archive: RaceArchive | None = None,
        accounts: Accounts | None = None,
        records: RecordsReader | None = None,
        challenges: ChallengeBook | None = None,
        arena_archive: ArenaArchive | None = None,
        deals: Callable[[], int] | None = None,
        **overrides: Any,
    ) -> RaceServer:
        store: Store
        daily: DailyTimes | None
        if backend == "memory":
            store, daily = MemoryStore(), shared_daily
        else:  # the pool and the board in the store's own Redis, under its prefix
            store, daily = RedisStore(request.getfixturevalue("redis_url"), prefix=prefix), None
        settings: dict[str, Any] = {"port": 0, "countdown_ms": 0, "rate": 10_000, "burst": 10_000}
        settings["spectator_delay_ms"] = 0  # tests of the delay set it
        # A test's clients that are never closed (or read) do not answer a stop's closing handshake:
        # its wait for them is no test's subject (tests/test_connections.py sets its own).
        settings["close_timeout"] = 0.25
        settings.update(overrides)
        server = RaceServer(
            Config(**settings),
            store,
            clock if clock is not None else shared_clock,
            deals,
            pool=DealPool(store),
            bot_time_scale=bot_time_scale,
            hint_seconds=HINT_SECONDS,
            daily_board=daily,
            archive=archive,
            accounts=accounts,
            records=records,
            challenges=challenges,
            arena_archive=arena_archive,
        )
        await server.start()
        servers.append(server)
        return server

    try:
        yield make
    finally:
        for server in servers:
            await server.stop()


def fake(server: RaceServer) -> FakeClock:
    """The server's clock, to move it on."""
    assert isinstance(server.clock, FakeClock)
    return server.clock


def url_of(server: RaceServer) -> str:
    return f"ws://127.0.0.1:{server.port}"


async def wait_until(
    condition: Callable[[], bool | Awaitable[bool]],
    timeout: float = 10.0,  # noqa: ASYNC109 - a deadline for the failure message, not a cancellation
    *,
    what: str | Callable[[], str] | None = None,
    interval: float = 0.02,
) -> None:
    """Return once ``condition()`` (a plain or an async function) is true; fail if ``timeout``
    seconds pass first, saying what was awaited (``what``, or the condition's name) and for how long.

    For what gives no signal to await: a count in the server, a process gone, a key expired.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = condition()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return
        if loop.time() >= deadline:
            detail = what() if callable(what) else what or getattr(condition, "__qualname__", repr(condition))
            raise AssertionError(f"not reached within {timeout} s: {detail}")
        await asyncio.sleep(interval)


def cursor_page(items: list[dict[str, Any]], limit: int, before: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """``DictRecords``' paging: the ``limit`` items from the cursor ``before`` on (its cursors are
    ``i`` and an index; another is a ValueError, as the real reader's), and the next page's cursor
    (None: this is the last page)."""
    start = 0
    if before is not None:
        if not (before.startswith("i") and before[1:].isdigit()):
            raise ValueError(f"not a cursor of this reader: {before!r}")
        start = int(before[1:])
    more = start + limit < len(items)
    return items[start : start + limit], f"i{start + limit}" if more else None


class DictRecords:
    """``RecordsReader`` (server/http/api.py) over plain dicts, for the HTTP side's own tests:
    routing, parameter checks, caching, errors and rate limits, which do not depend on where the
    documents come from. It is a stand-in for our own interface, not for a real part: what the
    records hold and how they are read is tested against the real records (server/records/).

    ``failure``, when set, is raised by every call (an ``OSError``: the records are out of
    reach); ``hang`` makes every call wait forever (a database that stalls); ``asked`` lists
    every call as (method, arguments)."""

    def __init__(self) -> None:
        ann, bob = "pANN0000000", "pBOB0000000"
        self.races: dict[str, dict[str, Any]] = {
            "ABCDEF-1-abcdefgh": sample_race("ABCDEF-1-abcdefgh", archived=True, players=(ann, bob)),
            "ABCDEF-2-bcdefghi": sample_race("ABCDEF-2-bcdefghi", archived=False, players=(ann, bob)),
        }
        summaries = [summary(race, ann) for race in reversed(self.races.values())]
        self.players: dict[str, dict[str, Any]] = {
            ann: {
                "player": ann,
                "name": "Ann",
                "handle": "ann",
                "races": 2,
                "wins": 2,
                "finished": 2,
                "current_streak": 2,
                "best_streak": 2,
                "bests": [
                    {"preset": "seahaven", "time_ms": 61_000, "race_id": "ABCDEF-1-abcdefgh", "deal": 42, "ended_at": 1}
                ],
                "ratings": [{"preset": "seahaven", "rating": 1523, "provisional": True, "races": 2}],
                "recent": summaries,
                "mistakes": {
                    "analysed": 2,
                    "lost": 1,
                    "lost_by": {"cell": 1, "column": 0, "empty-column": 0, "foundation": 0, "undo": 0},
                    "detours": {"cell": 1, "column": 0, "empty-column": 0, "foundation": 0, "undo": 0},
                },
            }
        }
        self.rating_changes: dict[str, list[dict[str, Any]]] = {
            ann: [
                {
                    "race_id": race_id,
                    "preset": "seahaven",
                    "ended_at": race["ended_at"],
                    "rating": 1500 + 14 * (2 - n),
                    "change": 14,
                    "provisional": True,
                    "races": 2 - n,
                    "place": 1,
                    "racers": 2,
                }
                for n, (race_id, race) in enumerate(reversed(self.races.items()))
            ]
        }
        self.rating_entries: list[dict[str, Any]] = [
            {
                "rank": rank,
                "player": f"u{rank:012d}",
                "name": f"racer {rank}",
                "rating": 1900 - rank,
                "races": 10 + rank,
            }
            for rank in range(1, 26)
        ]
        self.player_pages: dict[str, list[dict[str, Any]]] = {ann: summaries * 3}
        self.board: list[dict[str, Any]] = [
            {
                "rank": rank,
                "player": f"p{rank:010d}",
                "name": f"racer {rank}",
                "time_ms": 60_000 + rank,
                "race_id": "ABCDEF-1-abcdefgh",
                "deal": 42,
                "ended_at": 1_700_000_000_000,
            }
            for rank in range(1, 26)
        ]
        self.challenges: dict[str, dict[str, Any]] = {
            "ch1": {
                "challenge": "ch1",
                "race_id": "ABCDEF-1-abcdefgh",
                "player": ann,
                "name": "Ann",
                "preset": "seahaven",
                "deal": 42,
                "time_ms": 61_000,
                "created_at": 1_700_000_000_000,
                "results": [
                    {"player": bob, "name": "Bob", "race_id": "GHOST1-1-cdefghij", "place": 2, "time_ms": None}
                ],
            }
        }
        arena = {
            "code": "ARENA1",
            "name": "Hourly",
            "preset": "seahaven",
            "deal_grade": None,
            "created_by": "operator",
            "starts_at": 1_700_000_000_000,
            "ends_at": 1_700_001_800_000,
            "phase": "finished",
            "link_path": "/a/ARENA1",
            "player_count": 2,
            "archived": True,
        }
        standing = {"points": 4, "wins": 2, "races": 2}
        self.arenas: dict[str, dict[str, Any]] = {
            "ARENA1": {
                **arena,
                "standings": [
                    {"place": 1, "player": ann, "name": "Ann", **standing},
                    {"place": 2, "player": bob, "name": "Bob", "points": 0, "wins": 0, "races": 2},
                ],
            }
        }
        self.player_arena_pages: dict[str, list[dict[str, Any]]] = {ann: [{**arena, "place": 1, **standing}] * 3}
        self.rivals: dict[str, list[dict[str, Any]]] = {
            ann: [
                {
                    "player": bob,
                    "name": "Bob",
                    "handle": None,
                    "races": 2,
                    "wins": 2,
                    "losses": 0,
                    "last_race": "ABCDEF-2-bcdefghi",
                    "last_raced_at": self.races["ABCDEF-2-bcdefghi"]["ended_at"],
                    "deals": {
                        "shared": 1,
                        "faster": 1,
                        "slower": 0,
                        "latest": [{"deal_code": "SH1-ST-001AX", "mine_ms": 61_000, "theirs_ms": 64_000}],
                    },
                }
            ]
        }
        self.failure: OSError | None = None
        self.hang = False
        self.asked: list[tuple[str, tuple[Any, ...]]] = []

    async def _ask(self, method: str, *args: Any) -> None:
        self.asked.append((method, args))
        if self.failure is not None:
            raise self.failure
        if self.hang:
            await asyncio.Event().wait()

    async def race(self, race_id: str) -> dict[str, Any] | None:
        await self._ask("race", race_id)
        return self.races.get(race_id)

    async def signed_race(self, race_id: str) -> str | None:
        await self._ask("signed_race", race_id)
        race = self.races.get(race_id)
        return json.dumps(sample_signed(race, SIGNER)) if race is not None and race["archived"] else None

    async def analysis(self, race_id: str) -> dict[str, Any] | None:
        await self._ask("analysis", race_id)
        race = self.races.get(race_id)
        if race is None:
            return None
        if not race["archived"]:
            return {"race_id": race_id, "status": "pending", "analysed_at": None, "analysis": None}
        return {
            "race_id": race_id,
            "status": "done",
            "analysed_at": race["ended_at"],
            "analysis": sample_analysis(race),
        }

    async def keys(self) -> dict[str, Any]:
        await self._ask("keys")
        return {"keys": [{"id": SIGNER.key_id, "alg": "Ed25519", "key": SIGNER.public, "since": 1, "until": None}]}

    async def player(self, player: str) -> dict[str, Any] | None:
        await self._ask("player", player)
        return self.players.get(player)

    async def player_races(self, player: str, limit: int, before: str | None) -> dict[str, Any]:
        await self._ask("player_races", player, limit, before)
        page, after = cursor_page(self.player_pages.get(player, []), limit, before)
        return {"races": page, "next": after}

    async def player_rivals(self, player: str, limit: int) -> dict[str, Any]:
        await self._ask("player_rivals", player, limit)
        return {"player": player, "rivals": self.rivals.get(player, [])[:limit]}

    async def leaderboard(
        self, preset: str, period: str, grade: str | None, day: str | None, limit: int, offset: int
    ) -> dict[str, Any]:
        await self._ask("leaderboard", preset, period, grade, day, limit, offset)
        entries = self.board[offset : offset + limit]
        more = offset + limit < len(self.board)
        return {
            "preset": preset,
            "period": period,
            "grade": grade,
            "day": day,
            "entries": entries,
            "next_offset": offset + limit if more else None,
        }

    async def challenge(self, challenge: str) -> dict[str, Any] | None:
        await self._ask("challenge", challenge)
        return self.challenges.get(challenge)

    async def player_ratings(self, player: str, preset: str | None, limit: int, before: str | None) -> dict[str, Any]:
        await self._ask("player_ratings", player, preset, limit, before)
        changes = [c for c in self.rating_changes.get(player, []) if preset is None or c["preset"] == preset]
        page, after = cursor_page(changes, limit, before)
        return {"player": player, "preset": preset, "history": page, "next": after}

    async def reachable(self) -> bool:
        return True

    async def arena(self, code: str) -> dict[str, Any] | None:
        await self._ask("arena", code)
        return self.arenas.get(code)

    async def recent_arenas(self, limit: int) -> list[dict[str, Any]]:
        await self._ask("recent_arenas", limit)
        return self.recent_arenas_view()[:limit]

    def recent_arenas_view(self) -> list[dict[str, Any]]:
        """The finished arenas as summaries (without standings)."""
        return [{k: v for k, v in a.items() if k != "standings"} for a in self.arenas.values()]

    async def player_arenas(self, player: str, limit: int, before: str | None) -> dict[str, Any]:
        await self._ask("player_arenas", player, limit, before)
        page, after = cursor_page(self.player_arena_pages.get(player, []), limit, before)
        return {"player": player, "arenas": page, "next": after}

    async def rating_board(self, preset: str, limit: int, offset: int) -> dict[str, Any]:
        await self._ask("rating_board", preset, limit, offset)
        more = offset + limit < len(self.rating_entries)
        return {
            "preset": preset,
            "entries": self.rating_entries[offset : offset + limit],
            "next_offset": offset + limit if more else None,
        }


SIGNER = SigningKey.generate()
"""The key ``DictRecords`` signs its sample records with."""


def sample_signed(race: dict[str, Any], key: SigningKey) -> dict[str, Any]:
    """The signed record of a sample race (server/http/openapi.py ``SignedRace``)."""
    fields = ("room", "number", "preset", "deal", "deal_code", "started_at", "ended_at", "end_reason")
    return key.sign(
        {
            "format": "seahaven-race/1",
            "race": race["race_id"],
            **{name: race[name] for name in fields},
            "draw": {"kind": "picked"},
            "settings": {"preset": race["preset"], "deal": race["deal"]},
            "racers": [
                {
                    name: r[name]
                    for name in ("player", "place", "status", "progress", "time_ms", "hints", "bot", "ghost", "moves")
                }
                for r in race["racers"]
            ],
            "log": {"length": 9, "tip": "0123456789abcdef"},
            "signed_at": race["ended_at"] + 5,
            "signer": {"alg": "Ed25519", "id": key.key_id, "key": key.public},
        }
    )


def sample_analysis(race: dict[str, Any]) -> dict[str, Any]:
    """An analysis in the API's shape (server/http/openapi.py ``RaceAnalysis``) of ``race``:
    every position winnable, the loser's line parting from the winner's at once."""

    def point(index: int, ms: int, took: int, line: int) -> dict[str, Any]:
        return {"index": index, "ms": ms, "took_ms": took, "verdict": "winnable", "line": line}

    racers = []
    for n, racer in enumerate(race["racers"]):
        times = [0] + [ms for ms, _ in racer["moves"]]
        slow = {
            "kind": "slow",
            "index": 0,
            "own": 1,
            "ms": times[1],
            "move": racer["moves"][0][1],
            "to": "column",
            "by": times[1],
        }
        racers.append(
            {
                "player": racer["player"],
                "opening": point(-1, 0, 0, 90),
                "points": [point(i, times[i + 1], times[i + 1] - times[i], 89 - i) for i in range(len(racer["moves"]))],
                "lost_at": None,
                "costly": [slow],
                "against_winner": None
                if n == 0
                else {
                    "winner": race["racers"][0]["player"],
                    "common": 0,
                    "parted_at": 0,
                    "winner_moves": 1,
                    "racer_moves": 1,
                },
            }
        )
    shortest = {"moves": 90, "by": "solver"}
    return {
        "race_id": race["race_id"],
        "preset": race["preset"],
        "deal": race["deal"],
        "solution": 90,
        "shortest": shortest,
        "max_states": 100_000,
        "racers": racers,
    }


def sample_race(race_id: str, *, archived: bool, players: tuple[str, str]) -> dict[str, Any]:
    """A race document in the API's shape (server/http/openapi.py ``Race``): two racers, one won."""
    winner, loser = players
    return {
        "race_id": race_id,
        "room": race_id.split("-")[0],
        "number": int(race_id.split("-")[1]),
        "preset": "seahaven",
        "deal": 42,
        "deal_code": "ST-42",
        "deal_grade": "gentle",
        "chosen": False,
        "daily": None,
        "hints": False,
        "undo": True,
        "time_limit_ms": None,
        "started_at": 1_700_000_000_000,
        "ended_at": 1_700_000_061_000,
        "end_reason": "won",
        "rated": False,
        "archived": archived,
        "racers": [
            {
                "player": winner,
                "name": "Ann",
                "place": 1,
                "status": "finished",
                "progress": 52,
                "time_ms": 61_000,
                "hints": 0,
                "undos": 1,
                "bot": False,
                "ghost": False,
                "proven": True,
                "moves": [[1_200, "3h"], [1_900, "undo"], [2_400, "3h"]],
                "auto": [],
            },
            {
                "player": loser,
                "name": "Bob",
                "place": 2,
                "status": "racing",
                "progress": 30,
                "time_ms": None,
                "hints": 0,
                "undos": 0,
                "bot": False,
                "ghost": False,
                "proven": True,
                "moves": [[1_500, "1a"]],
                "auto": [],
            },
        ],
    }


def summary(race: dict[str, Any], player: str) -> dict[str, Any]:
    """A race's line on a player's page (``RaceSummary``)."""
    mine = next(r for r in race["racers"] if r["player"] == player)
    return {
        "race_id": race["race_id"],
        "preset": race["preset"],
        "deal": race["deal"],
        "ended_at": race["ended_at"],
        "place": mine["place"],
        "racers": len(race["racers"]),
        "status": mine["status"],
        "time_ms": mine["time_ms"],
    }
