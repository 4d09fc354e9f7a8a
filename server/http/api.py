"""The public read API under ``/api/v1/``: races, players, ratings, leaderboards, arenas and challenges as JSON.

Every document comes from a ``RecordsReader`` (the records part implements it:
``server/records/reader.py``), the live arenas from ``LiveArenas`` (the arenas' part:
``server/play/arenas.py``, reading the store); this module checks the request's parameters, asks the reader once,
and renders the answer: compact UTF-8 JSON, a ``Cache-Control`` by what the document is, an
``ETag`` (a hash of the body) honoured by ``If-None-Match`` with 304. The routes, parameters,
shapes and errors are described exactly in ``openapi.py``, served at ``/api/v1/openapi.json``
(docs/api.md says the same in prose). The rate limit and CORS headers are the router's
(``routes.py``), for every ``/api/v1`` answer alike.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import re
import unicodedata
import urllib.parse
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any, Final, Protocol, TypeVar

from protocol import asyncapi
from seahaven.rules import PRESETS
from seahaven.winnable import GRADES, deal_list
from server.http.openapi import (
    ARENA_CODE,
    CHALLENGE_ID,
    CURSOR,
    DAY,
    LIMIT_DEFAULT,
    LIMIT_MAX,
    OFFSET_MAX,
    PERIODS,
    PLAYER_MAX,
    RACE_ID,
    RIVALS_DEFAULT,
    RIVALS_MAX,
    document,
)
from server.http.reply import HttpRequest, Reply, error_document, json_body, json_reply
from server.http.router import Handler, Router
from server.store.base import StoreError

T = TypeVar("T")

READ_TIMEOUT: Final = 5.0
"""Seconds a reader call may take before the request is answered 503 (the database is slow)."""
RETRY_AFTER: Final = 5
"""Seconds a client is asked to wait after a 503."""

ARCHIVED: Final = "public, max-age=3600"
"""An archived race: it changes no more, except that a deleted account's name is taken out."""
RECENT: Final = "public, max-age=10"
"""What the next race can change (players, their races, challenges, a race not archived yet)."""
BOARD: Final = "public, max-age=30"
NOT_FOUND: Final = "public, max-age=10"
"""A race id seen before its record lands, a handle claimed a moment later: ask again soon."""
DESCRIPTION: Final = "public, max-age=300"
NO_STORE: Final = "no-store"

_RACE_ID: Final = re.compile(RACE_ID)
_CHALLENGE_ID: Final = re.compile(CHALLENGE_ID)
_ARENA_CODE: Final = re.compile(ARENA_CODE)
_CURSOR: Final = re.compile(CURSOR)
_DAY: Final = re.compile(DAY)
_ENTITY_TAG: Final = re.compile(r'(?:W/)?"[^"]*"')


class RecordsReader(Protocol):
    """What the API reads: one call per request, each answering a document in the shapes of
    ``openapi.py`` (None: no such thing). A call raises ``OSError`` when the records are out of
    reach for now (answered 503); ``player_races`` raises ``ValueError`` for a cursor it did not
    give out (answered 400). Anything else it raises is a bug (answered 500, logged)."""

    async def race(self, race_id: str) -> dict[str, Any] | None: ...

    async def signed_race(self, race_id: str) -> str | None:
        """The race's signed record as stored (JSON text; None: none on record)."""
        ...

    async def analysis(self, race_id: str) -> dict[str, Any] | None:
        """Where the race was won and lost, or that it is still to be analysed (None: no such race)."""
        ...

    async def keys(self) -> dict[str, Any]:
        """``{"keys": [...]}``: the keys that signed races here."""
        ...

    async def player(self, player: str) -> dict[str, Any] | None: ...

    async def player_races(self, player: str, limit: int, before: str | None) -> dict[str, Any]:
        """``{"races": [summary, ...], "next": cursor | None}``, newest first, ``limit`` at most,
        from the cursor ``before`` on (None: from the newest)."""
        ...

    async def player_rivals(self, player: str, limit: int) -> dict[str, Any]:
        """``{"player", "rivals": [rival, ...]}``: the last ``limit`` people the player raced, the
        newest race together first, each with their head-to-head."""
        ...

    async def leaderboard(
        self, preset: str, period: str, grade: str | None, day: str | None, limit: int, offset: int
    ) -> dict[str, Any]: ...

    async def challenge(self, challenge: str) -> dict[str, Any] | None: ...

    async def player_ratings(self, player: str, preset: str | None, limit: int, before: str | None) -> dict[str, Any]:
        """``{"player", "preset", "history": [change, ...], "next": cursor | None}``: what rated races
        did to the player's ratings (on ``preset``; None: every preset), newest first, paged like
        ``player_races``."""
        ...

    async def rating_board(self, preset: str, limit: int, offset: int) -> dict[str, Any]:
        """``{"preset", "entries": [...], "next_offset"}``: the settled ratings of ``preset``, best first."""
        ...

    async def reachable(self) -> bool:
        """Whether the database answers a trivial query now (``/healthz``): never raises."""
        ...

    async def arena(self, code: str) -> dict[str, Any] | None:
        """A finished arena on record, with its final standings."""
        ...

    async def recent_arenas(self, limit: int) -> list[dict[str, Any]]:
        """The ``limit`` newest finished arenas on record, the last to end first."""
        ...

    async def player_arenas(self, player: str, limit: int, before: str | None) -> dict[str, Any]:
        """``{"player", "arenas": [...], "next": cursor | None}``: the finished arenas the player was
        in, the last to end first, paged like ``player_races``."""
        ...


class LiveArenas(Protocol):
    """The arenas the store holds (waiting, running, or finished and not yet on record). Each call
    raises ``StoreError`` when the store is out of reach (answered 503)."""

    async def live_arenas(self) -> list[dict[str, Any]]:
        """Every live arena as ``ArenaSummary``, by start."""
        ...

    async def live_arena(self, code: str) -> dict[str, Any] | None:
        """The arena ``code`` as ``Arena``, its standings as they stand (None: not in the store)."""
        ...


Page = Callable[[RecordsReader, int, str | None], Awaitable[dict[str, Any]]]
"""A reader's call for one page of a player's list: the records, ``limit`` and the cursor."""


class BadRequest(Exception):
    """A parameter the API cannot take: answered 400 with this message."""


class Api:
    """The ``/api/v1`` handlers over a reader (None: records are off, every read is 503)."""

    def __init__(
        self, records: RecordsReader | None, read_timeout: float = READ_TIMEOUT, arenas: LiveArenas | None = None
    ) -> None:
        self.records = records
        self.arenas = arenas
        """The live arenas (None: this server lists none)."""
        self.read_timeout = read_timeout
        self.description = json_body(document())
        self.protocol = json_body(asyncapi.document())
        """The WebSocket protocol as an AsyncAPI document (protocol/asyncapi.py), built once."""
        lists = {name: deal_list(name).to_text() for name in PRESETS}
        self.lists = json_body({"lists": [list_summary(name, text) for name, text in lists.items()]})
        self.list_texts = {name: json_body({**list_summary(name, text), "text": text}) for name, text in lists.items()}
        """Each preset's published deal list (``seahaven/winnable``): read once, answered as it is."""

    def add_routes(self, router: Router) -> None:
        for pattern, handler in (
            ("/api/v1/openapi.json", self.openapi),
            ("/api/v1/asyncapi.json", self.asyncapi),
            ("/api/v1/races/{race_id}", self.race),
            ("/api/v1/races/{race_id}/record", self.signed_race),
            ("/api/v1/races/{race_id}/analysis", self.analysis),
            ("/api/v1/keys", self.keys),
            ("/api/v1/players/{player}", self.player),
            ("/api/v1/players/{player}/races", self.player_races),
            ("/api/v1/players/{player}/rivals", self.player_rivals),
            ("/api/v1/players/{player}/ratings", self.player_ratings),
            ("/api/v1/players/{player}/arenas", self.player_arenas),
            ("/api/v1/arenas", self.arena_list),
            ("/api/v1/arenas/{code}", self.arena),
            ("/api/v1/leaderboards/{preset}", self.leaderboard),
            ("/api/v1/ratings/{preset}", self.rating_board),
            ("/api/v1/challenges/{challenge}", self.challenge),
            ("/api/v1/deal-lists", self.deal_lists),
            ("/api/v1/deal-lists/{preset}", self.deal_list),
        ):
            router.add(["GET"], pattern, answering(handler))

    # -- the routes -----------------------------------------------------------------------------

    async def openapi(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        query(request, set())
        return document_reply(request, self.description, DESCRIPTION)

    async def asyncapi(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        query(request, set())
        return document_reply(request, self.protocol, DESCRIPTION)

    async def deal_lists(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        """The published lists a drawn room's deal comes from (docs/fairness.md), with their digests."""
        query(request, set())
        return document_reply(request, self.lists, DESCRIPTION)

    async def deal_list(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        query(request, set())
        found = self.list_texts.get(params["preset"])
        if found is None:
            return not_found(f"no published deal list for {params['preset']!r}")
        return document_reply(request, found, DESCRIPTION)

    async def race(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        race_id = identifier(params["race_id"], _RACE_ID, "race id")
        query(request, set())
        records = self.reader()
        found = await self.read(records.race(race_id))
        if found is None:
            return not_found(f"no race {race_id}")
        return document_reply(request, json_body(found), ARCHIVED if found.get("archived") else RECENT)

    async def signed_race(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        race_id = identifier(params["race_id"], _RACE_ID, "race id")
        query(request, set())
        found = await self.read(self.reader().signed_race(race_id))
        if found is None:
            return not_found(f"no signed record of race {race_id} (not archived yet, or archived before signing)")
        return document_reply(request, found.encode(), ARCHIVED)

    async def analysis(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        race_id = identifier(params["race_id"], _RACE_ID, "race id")
        query(request, set())
        found = await self.read(self.reader().analysis(race_id))
        if found is None:
            return not_found(f"no race {race_id}")
        return document_reply(request, json_body(found), ARCHIVED if found["status"] == "done" else RECENT)

    async def keys(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        query(request, set())
        return document_reply(request, json_body(await self.read(self.reader().keys())), RECENT)

    async def player(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        player = player_name(params["player"])
        query(request, set())
        found = await self.read(self.reader().player(player))
        if found is None:
            return not_found(f"no player {player}")
        return document_reply(request, json_body(found), RECENT)

    async def player_races(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        player = player_name(params["player"])
        given = query(request, {"limit", "cursor"})
        return await self.player_page(
            request, player, given, lambda records, limit, cursor: records.player_races(player, limit, cursor)
        )

    async def player_rivals(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        """The player's recent rivals (one list, no pages): ``limit`` checked, then 404 for a
        player the records do not know, as ``player_page``."""
        player = player_name(params["player"])
        limit = integer(query(request, {"limit"}), "limit", RIVALS_DEFAULT, 1, RIVALS_MAX)
        records = self.reader()
        if await self.read(records.player(player)) is None:
            return not_found(f"no player {player}")
        found = await self.read(records.player_rivals(player, limit))
        return document_reply(request, json_body(found), RECENT)

    async def player_ratings(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        player = player_name(params["player"])
        given = query(request, {"preset", "limit", "cursor"})
        preset = given.get("preset")
        if preset is not None and preset not in PRESETS:
            raise BadRequest(f"preset must be one of {', '.join(PRESETS)}, not {preset!r}")
        return await self.player_page(
            request, player, given, lambda records, limit, cursor: records.player_ratings(player, preset, limit, cursor)
        )

    async def player_arenas(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        player = player_name(params["player"])
        given = query(request, {"limit", "cursor"})
        return await self.player_page(
            request, player, given, lambda records, limit, cursor: records.player_arenas(player, limit, cursor)
        )

    async def player_page(self, request: HttpRequest, player: str, given: dict[str, str], page: Page) -> Reply:
        """One page of a player's list (races, rating changes, arenas), newest first: ``limit`` and
        ``cursor`` checked, then 404 for a player the records do not know (rather than the empty
        page the reader would give), then the page the reader gives from the cursor on."""
        limit = integer(given, "limit", LIMIT_DEFAULT, 1, LIMIT_MAX)
        cursor = given.get("cursor")
        if cursor is not None and not _CURSOR.fullmatch(cursor):
            raise BadRequest(f"cursor {cursor!r} is not one this API gives out")
        records = self.reader()
        if await self.read(records.player(player)) is None:
            return not_found(f"no player {player}")
        try:
            found = await self.read(page(records, limit, cursor))
        except ValueError as exc:  # a cursor of the right form that the reader never gave out
            raise BadRequest(str(exc)) from None
        return document_reply(request, json_body(found), RECENT)

    async def arena_list(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        """Live and upcoming from the store; finished from the records (and those the store still
        holds that are not on record yet). Without records, the store's alone."""
        limit = integer(query(request, {"limit"}), "limit", LIMIT_DEFAULT, 1, LIMIT_MAX)
        live = await self.read(self.arenas.live_arenas()) if self.arenas is not None else []
        recorded = await self.read(self.records.recent_arenas(limit)) if self.records is not None else []
        codes = {a["code"] for a in recorded}
        finished = recorded + [a for a in live if a["phase"] == "finished" and a["code"] not in codes]
        finished.sort(key=lambda a: (a["ends_at"], a["code"]), reverse=True)
        found = {
            "live": [a for a in live if a["phase"] == "running"],
            "upcoming": [a for a in live if a["phase"] == "waiting"],
            "finished": finished[:limit],
        }
        return document_reply(request, json_body(found), RECENT)

    async def arena(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        """A live arena from the store; a finished one from the records (the store's copy until
        it is on record, or while the records are out of reach)."""
        code = identifier(params["code"], _ARENA_CODE, "arena code")
        query(request, set())
        live = await self.read(self.arenas.live_arena(code)) if self.arenas is not None else None
        found = live
        if (live is None or live["phase"] == "finished") and self.records is not None:
            try:
                found = await self.read(self.records.arena(code)) or live
            except Unavailable:
                if live is None:
                    raise
                # The database is away: the store keeps a finished arena until it is on record.
        if found is None:
            return not_found(f"no arena {code}")
        return document_reply(request, json_body(found), ARCHIVED if found["archived"] else RECENT)

    async def rating_board(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        preset = params["preset"]
        given = query(request, {"limit", "offset"})
        if preset not in PRESETS:
            return not_found(f"no preset {preset!r}; presets: {', '.join(PRESETS)}")
        limit = integer(given, "limit", LIMIT_DEFAULT, 1, LIMIT_MAX)
        offset = integer(given, "offset", 0, 0, OFFSET_MAX)
        found = await self.read(self.reader().rating_board(preset, limit, offset))
        return document_reply(request, json_body(found), BOARD)

    async def leaderboard(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        preset = params["preset"]  # preset names need no percent-encoding: none is decoded
        given = query(request, {"period", "grade", "day", "limit", "offset"})
        if preset not in PRESETS:
            return not_found(f"no preset {preset!r}; presets: {', '.join(PRESETS)}")
        period = choice(given, "period", PERIODS)
        grade = given.get("grade")
        if grade is not None and grade not in GRADES:
            raise BadRequest(f"grade must be one of {', '.join(GRADES)}, not {grade!r}")
        day = given.get("day")
        if day is not None:
            calendar_day(day)
            if period == "all":
                raise BadRequest("day names a day or a week: give it with period=day or period=week")
        limit = integer(given, "limit", LIMIT_DEFAULT, 1, LIMIT_MAX)
        offset = integer(given, "offset", 0, 0, OFFSET_MAX)
        found = await self.read(self.reader().leaderboard(preset, period, grade, day, limit, offset))
        return document_reply(request, json_body(found), BOARD)

    async def challenge(self, request: HttpRequest, params: dict[str, str]) -> Reply:
        challenge = identifier(params["challenge"], _CHALLENGE_ID, "challenge id")
        query(request, set())
        found = await self.read(self.reader().challenge(challenge))
        if found is None:
            return not_found(f"no challenge {challenge}")
        return document_reply(request, json_body(found), RECENT)

    # -- reading --------------------------------------------------------------------------------

    def reader(self) -> RecordsReader:
        if self.records is None:
            raise Unavailable("records are off on this server", retry=False)
        return self.records

    async def read(self, call: Awaitable[T]) -> T:
        """The reader's answer, bounded in time; Unavailable when the records are out of reach."""
        try:
            async with asyncio.timeout(self.read_timeout):
                return await call
        except TimeoutError:
            raise Unavailable("the records did not answer in time", retry=True) from None
        except OSError as exc:
            raise Unavailable(f"the records are out of reach ({type(exc).__name__})", retry=True) from None
        except StoreError:
            raise Unavailable("the live store is out of reach", retry=True) from None


class Unavailable(Exception):
    """The records cannot be read: answered 503 (with ``Retry-After`` when it may pass)."""

    def __init__(self, message: str, *, retry: bool) -> None:
        super().__init__(message)
        self.retry = retry


def answering(handler: Handler) -> Handler:
    """``handler`` with its refusals answered: BadRequest 400, Unavailable 503."""

    async def answer(request: HttpRequest, params: dict[str, str]) -> Reply:
        try:
            return await handler(request, params)
        except BadRequest as exc:
            return api_error(HTTPStatus.BAD_REQUEST, "bad-request", str(exc))
        except Unavailable as exc:
            return unavailable_reply(exc)

    return answer


def api_error(status: HTTPStatus, code: str, message: str, cache_control: str = NO_STORE) -> Reply:
    """An error answer of the API: the one JSON shape, with its code."""
    return json_reply(status, error_document(code, message), ("Cache-Control", cache_control))


def list_summary(preset: str, text: str) -> dict[str, Any]:
    """A published deal list as ``/api/v1/deal-lists`` names it: the SHA-256 a drawn race's
    signed record names (``seahaven.verify.list_digest``), the deals in it by grade."""
    grades = [line.split()[1] for line in text.splitlines() if line[:1].isdigit()]
    return {
        "preset": preset,
        "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "deals": len(grades),
        "grades": {grade: grades.count(grade[0]) for grade in GRADES},
        "path": f"/api/v1/deal-lists/{preset}",
    }


def not_found(message: str) -> Reply:
    return api_error(HTTPStatus.NOT_FOUND, "not-found", message, NOT_FOUND)


def unavailable_reply(exc: Unavailable) -> Reply:
    reply = api_error(HTTPStatus.SERVICE_UNAVAILABLE, "unavailable", str(exc))
    return reply.with_headers(("Retry-After", str(RETRY_AFTER))) if exc.retry else reply


# -- parameters ---------------------------------------------------------------------------------


def query(request: HttpRequest, known: set[str]) -> dict[str, str]:
    """The query's parameters, each at most once and each one of ``known``."""
    try:
        pairs = urllib.parse.parse_qsl(request.query, keep_blank_values=True, errors="strict", max_num_fields=10)
    except ValueError as exc:  # a bad percent-encoding, or too many fields
        raise BadRequest(f"the query string cannot be read: {exc}") from None
    given: dict[str, str] = {}
    for name, value in pairs:
        if name not in known:
            allowed = f"; this route takes {', '.join(sorted(known))}" if known else "; this route takes none"
            raise BadRequest(f"unknown parameter {name!r}{allowed}")
        if name in given:
            raise BadRequest(f"parameter {name!r} is given twice")
        given[name] = value
    return given


def integer(given: dict[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = given.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6) or not low <= int(raw) <= high:
        raise BadRequest(f"{name} must be a whole number from {low} to {high}, not {raw!r}")
    return int(raw)


def choice(given: dict[str, str], name: str, choices: tuple[str, ...]) -> str:
    """The parameter's value among ``choices`` (the first is the default)."""
    raw = given.get(name, choices[0])
    if raw not in choices:
        raise BadRequest(f"{name} must be one of {', '.join(choices)}, not {raw!r}")
    return raw


def calendar_day(raw: str) -> None:
    if not _DAY.fullmatch(raw):
        raise BadRequest(f"day must be a date as YYYY-MM-DD, not {raw!r}")
    try:
        datetime.date.fromisoformat(raw)
    except ValueError:
        raise BadRequest(f"day {raw!r} is not a day of the calendar") from None


def identifier(raw: str, pattern: re.Pattern[str], what: str) -> str:
    """A path parameter of a fixed form (no percent-encoding needed, so none is decoded)."""
    if not pattern.fullmatch(raw):
        raise BadRequest(f"{urllib.parse.unquote(raw)!r} is not a {what}")
    return raw


def player_name(raw: str) -> str:
    """A player id or handle: percent-decoded UTF-8, 1 to PLAYER_MAX characters, no control
    characters (handles may be any script; the reader normalises them)."""
    try:
        player = urllib.parse.unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise BadRequest("the player is not UTF-8") from None
    if not 1 <= len(player) <= PLAYER_MAX or any(unicodedata.category(ch) == "Cc" for ch in player):
        raise BadRequest(f"a player is 1 to {PLAYER_MAX} characters with no control characters")
    return player


# -- caching ------------------------------------------------------------------------------------


def entity_tag(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def matches(if_none_match: str | None, tag: str) -> bool:
    """Whether ``If-None-Match`` names ``tag`` (weak comparison, RFC 9110 13.1.2), or is ``*``."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    return any(found.removeprefix("W/") == tag for found in _ENTITY_TAG.findall(if_none_match))


def document_reply(request: HttpRequest, body: bytes, cache_control: str) -> Reply:
    """200 with the JSON ``body``, or 304 (no body) when the client holds it already."""
    tag = entity_tag(body)
    headers = (("Cache-Control", cache_control), ("ETag", tag))
    if matches(request.header("if-none-match"), tag):
        return Reply(HTTPStatus.NOT_MODIFIED, headers)
    return Reply(HTTPStatus.OK, (("Content-Type", "application/json"), *headers), body)
