"""The public API's OpenAPI 3.1 document, written as data: every route, parameter, response and
error shape of ``api.py``, exactly (objects are closed: ``additionalProperties: false``).

The parameter forms (patterns, bounds, choices) are defined here once and checked by ``api.py``
with the same values, so the document and the checks cannot drift apart. Served at
``/api/v1/openapi.json``; ``tests/test_http_schema.py`` runs schemathesis against it.
"""

from __future__ import annotations

from typing import Any, Final

from protocol.enums import EndReason, Status
from seahaven.rules import PRESETS
from seahaven.winnable import GRADES

RACE_ID: Final = r"^[0-9A-Z]{4,12}-[1-9][0-9]{0,8}-[a-z2-7]{8}$"
"""``CODE-N-TAG`` (server/rooms/raceid.py)."""
CHALLENGE_ID: Final = r"^[0-9A-Za-z_-]{1,64}$"
ARENA_CODE: Final = r"^[0-9A-HJKMNP-TV-Z]{6}$"
"""Six characters of the room codes' alphabet (server/shell/names.py), upper case."""
CURSOR: Final = r"^[0-9A-Za-z._~-]{1,200}$"
"""A page cursor as the reader gives it out: URL-safe as it stands."""
DAY: Final = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
PLAYER_MAX: Final = 64
LIMIT_DEFAULT: Final = 20
LIMIT_MAX: Final = 100
RIVALS_DEFAULT: Final = 20
RIVALS_MAX: Final = 50
"""A player's rivals: 20 unless asked, 50 at most (server/records/reader.py holds the same)."""
LATEST_DEALS: Final = 5
"""Shared deals a rival's head-to-head lists."""
OFFSET_MAX: Final = 10_000
PERIODS: Final = ("all", "week", "day")
"""Leaderboard periods; the first is the default."""

_ENVELOPE: Final = "#/components/schemas/"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": _ENVELOPE + name}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    """A closed object whose every property is required (a null is said, never left out)."""
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


_STR: Final = {"type": "string"}
_INT: Final = {"type": "integer"}
_COUNT: Final = {"type": "integer", "minimum": 0}
_BOOL: Final = {"type": "boolean"}
_MS: Final = {"type": "integer", "description": "Milliseconds since the Unix epoch (the server's clock)."}
_OPT_MS: Final = {
    "type": ["integer", "null"],
    "minimum": 0,
    "description": "Milliseconds from the start; null if none.",
}
_OPT_STR: Final = {"type": ["string", "null"]}
_PRESET: Final = {"type": "string", "enum": list(PRESETS)}
_DAY_VALUE: Final = {"type": "string", "pattern": DAY, "description": "A UTC day, YYYY-MM-DD."}
_OPT_DAY: Final = {"type": ["string", "null"], "pattern": DAY}
_OPT_GRADE: Final = {"type": ["string", "null"], "enum": [*GRADES, None]}
_MOVE: Final = {
    "type": "array",
    "description": "[ms from the start, the move in docs/notation.md or 'undo'], in the order applied.",
    "prefixItems": [{"type": "integer", "minimum": 0}, {"type": "string"}],
    "items": False,
    "minItems": 2,
    "maxItems": 2,
}

_ARENA: Final = {
    "code": {"type": "string", "pattern": ARENA_CODE, "description": "Its link is /a/CODE."},
    "name": {"type": "string", "description": "The operator's name for it ('' for a player's arena)."},
    "preset": _PRESET,
    "deal_grade": _OPT_GRADE,
    "created_by": {"type": "string", "description": "A player id, or 'operator'."},
    "starts_at": _MS,
    "ends_at": _MS,
    "phase": {"type": "string", "enum": ["waiting", "running", "finished"]},
    "link_path": _STR,
    "player_count": _COUNT,
    "archived": {"type": "boolean", "description": "In the database (false: still served from Redis)."},
}

_RACER: Final = {
    "player": _STR,
    "place": {"type": "integer", "minimum": 1},
    "status": {"type": "string", "enum": [s.value for s in Status]},
    "progress": {"type": "integer", "minimum": 0, "maximum": 52},
    "time_ms": _OPT_MS,
    "hints": _COUNT,
    "bot": _BOOL,
    "ghost": _BOOL,
    "moves": {"type": "array", "items": _MOVE},
    "auto": {
        "type": "array",
        "items": _COUNT,
        "description": "The indices in moves of what the server played for the racer: auto-moves, and the undos"
        " that took them back (the others are the racer's own).",
    },
}
"""A racer's fields in a race (``Racer``) and in its signed record (``SignedRacer``, ids only)."""

_DEAL_LIST: Final = {
    "preset": _PRESET,
    "sha256": {"type": "string", "description": "SHA-256 of the list's text: what a drawn race's record names."},
    "deals": _COUNT,
    "grades": _object({grade: _COUNT for grade in GRADES}),
    "path": _STR,
}
"""A published deal list as ``/api/v1/deal-lists`` names it (``DealList`` adds its text)."""

_MOVE_KINDS: Final = _object({kind: _COUNT for kind in ("cell", "column", "empty-column", "foundation", "undo")}) | {
    "description": "Counts by where the move went (a kind of move): the moves that lost, or lengthened the line."
}

SCHEMAS: Final[dict[str, Any]] = {
    "Error": _object(
        {
            "error": _object(
                {
                    "code": {
                        "type": "string",
                        "enum": [
                            "bad-request",
                            "not-found",
                            "method-not-allowed",
                            "payload-too-large",
                            "rate-limited",
                            "unavailable",
                            "internal",
                        ],
                    },
                    "message": _STR,
                }
            )
        }
    ),
    "Racer": _object(
        {
            **_RACER,
            "name": _STR,
            "undos": _COUNT,
            "proven": {"type": "boolean", "description": "The engine replayed this racer's moves to this result."},
        }
    ),
    # ``auto`` is newer than the first signed records: they go without it (none was played).
    "SignedRacer": {**_object(_RACER), "required": [name for name in _RACER if name != "auto"]},
    "SignedRace": _object(
        {
            "record": _object(
                {
                    "format": {"type": "string", "const": "seahaven-race/1"},
                    "race": {"type": "string", "pattern": RACE_ID},
                    "room": _STR,
                    "number": {"type": "integer", "minimum": 1},
                    "preset": _PRESET,
                    "deal": _INT,
                    "deal_code": _STR,
                    "draw": {
                        "type": "object",
                        "description": "How the deal came to be (docs/fairness.md).",
                        "properties": {"kind": {"type": "string", "enum": ["chosen", "daily", "picked", "drawn"]}},
                        "required": ["kind"],
                    },
                    "settings": {"type": "object", "description": "The room's settings for this race."},
                    "started_at": _MS,
                    "ended_at": _MS,
                    "end_reason": {"type": "string", "enum": [r.value for r in EndReason]},
                    "racers": {
                        "type": "array",
                        "description": "In the final standings' order; players by id only.",
                        "items": _ref("SignedRacer"),
                    },
                    "log": {
                        "oneOf": [
                            _object({"length": {"type": "integer", "minimum": 1}, "tip": _STR}),
                            {"type": "null"},
                        ],
                        "description": "The stored log at the race's end: its length and hash-chain tip.",
                    },
                    "signed_at": _MS,
                    "signer": _object(
                        {
                            "alg": {"type": "string", "const": "Ed25519"},
                            "id": {"type": "string", "description": "The key's fingerprint: SHA256:base64."},
                            "key": {"type": "string", "description": "The public key's 32 bytes in base64."},
                        }
                    ),
                }
            ),
            "signature": {"type": "string", "description": "Ed25519 over the record's RFC 8785 form, base64."},
        }
    ),
    "Analysis": _object(
        {
            "race_id": {"type": "string", "pattern": RACE_ID},
            "status": {
                "type": "string",
                "enum": ["done", "pending", "failed"],
                "description": "pending: the race ended and waits for its analysis (ask again later).",
            },
            "analysed_at": {"type": ["integer", "null"], "description": "When it was analysed (ms); null if not."},
            "analysis": {"oneOf": [_ref("RaceAnalysis"), {"type": "null"}]},
        }
    ),
    "RaceAnalysis": _object(
        {
            "race_id": {"type": "string", "pattern": RACE_ID},
            "preset": _PRESET,
            "deal": _INT,
            "solution": {"type": ["integer", "null"], "description": "The solver's line from the opening (moves)."},
            "shortest": {
                "oneOf": [
                    _object({"moves": _COUNT, "by": {"type": "string", "description": "A player id, or `solver`."}}),
                    {"type": "null"},
                ],
                "description": "The shortest winning line known: the solver's or a finisher's.",
            },
            "max_states": {"type": "integer", "minimum": 1, "description": "The search budget per position."},
            "racers": {"type": "array", "items": _ref("RacerAnalysis"), "description": "In the standings' order."},
        }
    ),
    "RacerAnalysis": _object(
        {
            "player": _STR,
            "opening": _ref("AnalysedPoint"),
            "points": {
                "type": "array",
                "items": _ref("AnalysedPoint"),
                "description": "The position after each entry of the racer's `moves`, in order.",
            },
            "lost_at": {"oneOf": [_ref("CostlyMove"), {"type": "null"}]},
            "costly": {"type": "array", "items": _ref("CostlyMove")},
            "against_winner": {
                "oneOf": [
                    _object(
                        {
                            "winner": _STR,
                            "common": _COUNT,
                            "parted_at": {"type": ["integer", "null"], "minimum": 0},
                            "winner_moves": _COUNT,
                            "racer_moves": _COUNT,
                        }
                    ),
                    {"type": "null"},
                ]
            },
        }
    ),
    "AnalysedPoint": _object(
        {
            "index": {"type": "integer", "minimum": -1, "description": "The entry of `moves`; -1 the opening."},
            "ms": _COUNT,
            "took_ms": _COUNT,
            "verdict": {"type": "string", "enum": ["won", "winnable", "lost", "unknown"]},
            "line": {"type": ["integer", "null"], "minimum": 0, "description": "The solver's line from here."},
        }
    ),
    "CostlyMove": _object(
        {
            "kind": {"type": "string", "enum": ["lost", "longer", "slow"]},
            "index": _COUNT,
            "own": {"type": "integer", "minimum": 1, "description": "The racer's own moves and undos up to it."},
            "ms": _COUNT,
            "move": {"type": "string", "description": "In docs/notation.md, or `undo`."},
            "to": {
                "type": "string",
                "enum": ["cell", "column", "empty-column", "foundation", "undo"],
                "description": "Where the move went: what kind of move it was.",
            },
            "by": {"type": "integer", "description": "longer: moves added to the line; slow: ms it took."},
        }
    ),
    "DealListSummary": _object(_DEAL_LIST),
    "DealLists": _object({"lists": {"type": "array", "items": _ref("DealListSummary")}}),
    "DealList": _object(
        {**_DEAL_LIST, "text": {"type": "string", "description": "The list as shipped: `NUMBER LETTER` lines."}}
    ),
    "Keys": _object(
        {
            "keys": {
                "type": "array",
                "items": _object(
                    {
                        "id": _STR,
                        "alg": {"type": "string", "const": "Ed25519"},
                        "key": _STR,
                        "since": _MS,
                        "until": {"type": ["integer", "null"], "description": "Retired after this (ms); null: in use."},
                    }
                ),
            }
        }
    ),
    "Race": _object(
        {
            "race_id": {"type": "string", "pattern": RACE_ID},
            "room": _STR,
            "number": {"type": "integer", "minimum": 1},
            "preset": _PRESET,
            "deal": _INT,
            "deal_code": _STR,
            "deal_grade": _OPT_GRADE,
            "chosen": {"type": "boolean", "description": "The room's creator chose the deal."},
            "daily": _OPT_DAY,
            "hints": {"type": "boolean", "description": "Racers could ask for hints."},
            "undo": {"type": "boolean", "description": "Racers could undo."},
            "time_limit_ms": {"type": ["integer", "null"], "minimum": 1},
            "started_at": _MS,
            "ended_at": _MS,
            "end_reason": {"type": "string", "enum": [r.value for r in EndReason]},
            "rated": {"type": "boolean", "description": "A rated race: its racers' ratings count it."},
            "archived": {"type": "boolean", "description": "In the database (false: still served from Redis)."},
            "racers": {"type": "array", "items": _ref("Racer"), "description": "In the final standings' order."},
        }
    ),
    "Best": _object(
        {
            "preset": _PRESET,
            "time_ms": _COUNT,
            "race_id": {"type": "string", "pattern": RACE_ID},
            "deal": _INT,
            "ended_at": _MS,
        }
    ),
    "RaceSummary": _object(
        {
            "race_id": {"type": "string", "pattern": RACE_ID},
            "preset": _PRESET,
            "deal": _INT,
            "ended_at": _MS,
            "place": {"type": "integer", "minimum": 1},
            "racers": {"type": "integer", "minimum": 1},
            "status": {"type": "string", "enum": [s.value for s in Status]},
            "time_ms": _OPT_MS,
        }
    ),
    "Rating": _object(
        {
            "preset": _PRESET,
            "rating": {"type": "integer", "description": "The shown rating (docs/ratings.md): 1500 for a new player."},
            "provisional": {"type": "boolean", "description": "Fewer than 10 rated races on this preset."},
            "races": {"type": "integer", "minimum": 1, "description": "Rated races on this preset."},
        }
    ),
    "RatingChange": _object(
        {
            "race_id": {"type": "string", "pattern": RACE_ID},
            "preset": _PRESET,
            "ended_at": _MS,
            "rating": {"type": "integer", "description": "The shown rating after this race."},
            "change": {"type": "integer", "description": "What this race changed it by."},
            "provisional": {"type": "boolean", "description": "Still provisional after this race."},
            "races": {"type": "integer", "minimum": 1, "description": "Rated races on the preset, this one counted."},
            "place": {"type": "integer", "minimum": 1},
            "racers": {"type": "integer", "minimum": 1},
        }
    ),
    "PlayerRatings": _object(
        {
            "player": _STR,
            "preset": {"type": ["string", "null"], "enum": [*PRESETS, None], "description": "null: every preset."},
            "history": {"type": "array", "items": _ref("RatingChange"), "description": "Newest first."},
            "next": {
                "type": ["string", "null"],
                "pattern": CURSOR,
                "description": "The cursor of the next page (null: this is the last).",
            },
        }
    ),
    "RatingEntry": _object(
        {
            "rank": {"type": "integer", "minimum": 1},
            "player": _STR,
            "name": _STR,
            "rating": _INT,
            "races": {"type": "integer", "minimum": 1},
        }
    ),
    "RatingBoard": _object(
        {
            "preset": _PRESET,
            "entries": {
                "type": "array",
                "items": _ref("RatingEntry"),
                "description": "Best first; provisional ratings are left out.",
            },
            "next_offset": {
                "type": ["integer", "null"],
                "minimum": 0,
                "description": "The offset of the next page (null: this is the last).",
            },
        }
    ),
    "Player": _object(
        {
            "player": _STR,
            "name": _STR,
            "handle": _OPT_STR,
            "races": _COUNT,
            "wins": _COUNT,
            "finished": _COUNT,
            "current_streak": _COUNT,
            "best_streak": _COUNT,
            "bests": {"type": "array", "items": _ref("Best"), "description": "Personal bests, one per preset."},
            "ratings": {
                "type": "array",
                "items": _ref("Rating"),
                "description": "The player's rating on each preset they were rated on.",
            },
            "recent": {"type": "array", "items": _ref("RaceSummary"), "description": "The latest races, newest first."},
            "mistakes": _object(
                {
                    "analysed": {**_COUNT, "description": "The newest analysed races summed (20 at most)."},
                    "lost": {**_COUNT, "description": "Of those, races in which the player's board was lost."},
                    "lost_by": _MOVE_KINDS,
                    "detours": _MOVE_KINDS,
                }
            ),
        }
    ),
    "PlayerRaces": _object(
        {
            "races": {"type": "array", "items": _ref("RaceSummary"), "description": "Newest first."},
            "next": {
                "type": ["string", "null"],
                "pattern": CURSOR,
                "description": "The cursor of the next page (null: this is the last).",
            },
        }
    ),
    "RivalDeal": _object(
        {
            "deal_code": {"type": "string", "description": "The deal (docs/deals.md)."},
            "mine_ms": {**_COUNT, "description": "The player's best time on it, in any race."},
            "theirs_ms": {**_COUNT, "description": "The rival's best time on it, in any race."},
        }
    ),
    "Rival": _object(
        {
            "player": _STR,
            "name": {"type": "string", "description": "Their account's name now, else their latest race's."},
            "handle": _OPT_STR,
            "races": {"type": "integer", "minimum": 1, "description": "Races both were racers in."},
            "wins": {**_COUNT, "description": "Of those, how often the player placed ahead."},
            "losses": {**_COUNT, "description": "Of those, how often the player placed behind."},
            "last_race": {"type": "string", "pattern": RACE_ID, "description": "The newest race together."},
            "last_raced_at": {**_MS, "description": "When it ended (ms since the Unix epoch)."},
            "deals": _object(
                {
                    "shared": {**_COUNT, "description": "Deals both finished, in any race (ghosts' runs aside)."},
                    "faster": {**_COUNT, "description": "Of those, where the player's best time is lower."},
                    "slower": {**_COUNT, "description": "Of those, where the player's best time is higher."},
                    "latest": {
                        "type": "array",
                        "items": _ref("RivalDeal"),
                        "maxItems": LATEST_DEALS,
                        "description": "The shared deals last finished (by either) first.",
                    },
                }
            ),
        }
    ),
    "PlayerRivals": _object(
        {
            "player": _STR,
            "rivals": {
                "type": "array",
                "items": _ref("Rival"),
                "maxItems": RIVALS_MAX,
                "description": "The people the player raced, the newest race together first (bots and ghosts are"
                " nobody's rivals).",
            },
        }
    ),
    "Entry": _object(
        {
            "rank": {"type": "integer", "minimum": 1},
            "player": _STR,
            "name": _STR,
            "time_ms": _COUNT,
            "race_id": {"type": "string", "pattern": RACE_ID},
            "deal": _INT,
            "ended_at": _MS,
        }
    ),
    "Leaderboard": _object(
        {
            "preset": _PRESET,
            "period": {"type": "string", "enum": list(PERIODS)},
            "grade": _OPT_GRADE,
            "day": _OPT_DAY,
            "entries": {"type": "array", "items": _ref("Entry"), "description": "Fastest first."},
            "next_offset": {
                "type": ["integer", "null"],
                "minimum": 0,
                "description": "The offset of the next page (null: this is the last).",
            },
        }
    ),
    "ArenaSummary": _object(_ARENA),
    "ArenaStanding": _object(
        {
            "place": {"type": "integer", "minimum": 1},
            "player": _STR,
            "name": _STR,
            "points": _COUNT,
            "wins": _COUNT,
            "races": _COUNT,
        }
    ),
    "Arena": _object(
        {
            **_ARENA,
            "standings": {
                "type": "array",
                "items": _ref("ArenaStanding"),
                "description": "Points, then wins, then fewer races, then who joined first (final once finished).",
            },
        }
    ),
    "Arenas": _object(
        {
            "live": {"type": "array", "items": _ref("ArenaSummary"), "description": "Running now, by start."},
            "upcoming": {"type": "array", "items": _ref("ArenaSummary"), "description": "Not started yet, by start."},
            "finished": {
                "type": "array",
                "items": _ref("ArenaSummary"),
                "description": "The newest finished arenas (limit at most), the last to end first.",
            },
        }
    ),
    "PlayerArena": _object(
        {
            **_ARENA,
            "place": {"type": "integer", "minimum": 1},
            "points": _COUNT,
            "wins": _COUNT,
            "races": _COUNT,
        }
    ),
    "PlayerArenas": _object(
        {
            "player": _STR,
            "arenas": {
                "type": "array",
                "items": _ref("PlayerArena"),
                "description": "Finished arenas, the last to end first.",
            },
            "next": {
                "type": ["string", "null"],
                "pattern": CURSOR,
                "description": "The cursor of the next page (null: this is the last).",
            },
        }
    ),
    "ChallengeResult": _object(
        {
            "player": _STR,
            "name": _STR,
            "race_id": {"type": "string", "pattern": RACE_ID},
            "place": {"type": "integer", "minimum": 1},
            "time_ms": _OPT_MS,
        }
    ),
    "Challenge": _object(
        {
            "challenge": {"type": "string", "pattern": CHALLENGE_ID},
            "race_id": {"type": "string", "pattern": RACE_ID},
            "player": _STR,
            "name": _STR,
            "preset": _PRESET,
            "deal": _INT,
            "time_ms": _OPT_MS,
            "created_at": _MS,
            "results": {"type": "array", "items": _ref("ChallengeResult")},
        }
    ),
}

_CACHE_HEADERS: Final = {
    "Cache-Control": {"schema": _STR, "required": True},
    "Access-Control-Allow-Origin": {"schema": {"type": "string", "const": "*"}, "required": True},
}
_DOCUMENT_HEADERS: Final = {
    **_CACHE_HEADERS,
    "ETag": {"schema": {"type": "string", "pattern": '^"[0-9a-f]{32}"$'}, "required": True},
}


def _error(description: str, **headers: Any) -> dict[str, Any]:
    return {
        "description": description,
        "headers": {**_CACHE_HEADERS, **headers},
        "content": {"application/json": {"schema": _ref("Error")}},
    }


_RETRY_AFTER: Final = {"schema": {"type": "string", "pattern": "^[1-9][0-9]*$"}, "required": True}

RESPONSES: Final[dict[str, Any]] = {
    "NotModified": {"description": "The client's copy (If-None-Match) is current.", "headers": _DOCUMENT_HEADERS},
    "BadRequest": _error("A parameter the API cannot take (the message says which)."),
    "NotFound": _error("No such race, player, preset, arena or challenge."),
    "RateLimited": _error(
        "Too many requests from this address: wait Retry-After seconds.", **{"Retry-After": _RETRY_AFTER}
    ),
    "Unavailable": _error(
        "Records are off on this server, or out of reach for now (then with Retry-After).",
        **{"Retry-After": {**_RETRY_AFTER, "required": False}},
    ),
}

PARAMETERS: Final[dict[str, Any]] = {
    "IfNoneMatch": {
        "name": "If-None-Match",
        "in": "header",
        "required": False,
        "description": "ETags the client holds: 304 if the document's is among them.",
        "schema": {"type": "string"},
    },
    "Limit": {
        "name": "limit",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 1, "maximum": LIMIT_MAX, "default": LIMIT_DEFAULT},
    },
}


def _ok(schema: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "headers": _DOCUMENT_HEADERS,
        "content": {"application/json": {"schema": _ref(schema)}},
    }


def _operation(operation_id: str, summary: str, schema: str, parameters: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "parameters": [*parameters, {"$ref": "#/components/parameters/IfNoneMatch"}],
            "responses": {
                "200": _ok(schema, summary),
                "304": {"$ref": "#/components/responses/NotModified"},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "404": {"$ref": "#/components/responses/NotFound"},
                "429": {"$ref": "#/components/responses/RateLimited"},
                "503": {"$ref": "#/components/responses/Unavailable"},
            },
        }
    }


def _path(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "description": description, "schema": schema}


_LIMIT: Final = {"$ref": "#/components/parameters/Limit"}
_PLAYER: Final = _path("player", {"type": "string", "minLength": 1, "maxLength": PLAYER_MAX}, "A player id or handle.")
"""The player of every ``/players/{player}`` route."""
_CURSOR: Final = {
    "name": "cursor",
    "in": "query",
    "required": False,
    "description": "The `next` of the page before (absent: the newest page).",
    "schema": {"type": "string", "pattern": CURSOR},
}
"""The cursor of a player's paged lists (races, ratings, arenas)."""


def _document(operation: str, summary: str, answer: str) -> dict[str, Any]:
    """A document served as it is (any JSON object), with its ETag: 200, or 304 for the same tag."""
    return {
        "get": {
            "operationId": operation,
            "summary": summary,
            "parameters": [{"$ref": "#/components/parameters/IfNoneMatch"}],
            "responses": {
                "200": {
                    "description": answer,
                    "headers": _DOCUMENT_HEADERS,
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
                "304": {"$ref": "#/components/responses/NotModified"},
                "400": {"$ref": "#/components/responses/BadRequest"},
                "429": {"$ref": "#/components/responses/RateLimited"},
            },
        }
    }


PATHS: Final[dict[str, Any]] = {
    "/api/v1/openapi.json": _document("getOpenApi", "This document.", "This document."),
    "/api/v1/asyncapi.json": _document(
        "getAsyncApi",
        "The WebSocket protocol as an AsyncAPI 3.0 document, generated from the server's message specs.",
        "The AsyncAPI document (protocol/asyncapi.py; the guide is docs/protocol.md).",
    ),
    "/api/v1/races/{race_id}": _operation(
        "getRace",
        "A race on record: its settings, deal and every racer's moves with their server times.",
        "Race",
        [_path("race_id", {"type": "string", "pattern": RACE_ID}, "The race's id, as `result` gave it.")],
    ),
    "/api/v1/races/{race_id}/record": _operation(
        "getSignedRace",
        "A race's signed record, for `seahaven verify` (docs/fairness.md); 404 until it is archived.",
        "SignedRace",
        [_path("race_id", {"type": "string", "pattern": RACE_ID}, "The race's id, as `result` gave it.")],
    ),
    "/api/v1/races/{race_id}/analysis": _operation(
        "getRaceAnalysis",
        "Where a race was won and lost: each racer's position after each move judged by the solver.",
        "Analysis",
        [_path("race_id", {"type": "string", "pattern": RACE_ID}, "The race's id, as `result` gave it.")],
    ),
    "/api/v1/keys": _operation(
        "getKeys",
        "The public keys that signed this server's race records, with their validity.",
        "Keys",
        [],
    ),
    "/api/v1/players/{player}": _operation(
        "getPlayer",
        "A player's page: races, wins, streaks, personal bests and the latest races.",
        "Player",
        [_PLAYER],
    ),
    "/api/v1/players/{player}/races": _operation(
        "getPlayerRaces",
        "A player's races, newest first, a page at a time.",
        "PlayerRaces",
        [
            _PLAYER,
            _LIMIT,
            _CURSOR,
        ],
    ),
    "/api/v1/players/{player}/rivals": _operation(
        "getPlayerRivals",
        "A player's recent rivals, newest first, head to head: places in their races together, best times on"
        " the deals both finished.",
        "PlayerRivals",
        [
            _PLAYER,
            {
                "name": "limit",
                "in": "query",
                "required": False,
                "description": "How many rivals at most.",
                "schema": {"type": "integer", "minimum": 1, "maximum": RIVALS_MAX, "default": RIVALS_DEFAULT},
            },
        ],
    ),
    "/api/v1/players/{player}/ratings": _operation(
        "getPlayerRatings",
        "What rated races did to a player's ratings, newest first, a page at a time.",
        "PlayerRatings",
        [
            _PLAYER,
            {
                "name": "preset",
                "in": "query",
                "required": False,
                "description": "Only this preset's ratings (absent: every preset).",
                "schema": _PRESET,
            },
            _LIMIT,
            _CURSOR,
        ],
    ),
    "/api/v1/players/{player}/arenas": _operation(
        "getPlayerArenas",
        "The finished arenas a player was in, with their place and points, a page at a time.",
        "PlayerArenas",
        [
            _PLAYER,
            _LIMIT,
            _CURSOR,
        ],
    ),
    "/api/v1/arenas": _operation(
        "getArenas",
        "The arenas running now and to come (from the live store) and the newest finished ones.",
        "Arenas",
        [_LIMIT],
    ),
    "/api/v1/arenas/{code}": _operation(
        "getArena",
        "An arena and its standings: live ones as they stand, finished ones final.",
        "Arena",
        [_path("code", {"type": "string", "pattern": ARENA_CODE}, "The arena's code (in its link /a/CODE).")],
    ),
    "/api/v1/ratings/{preset}": _operation(
        "getRatingBoard",
        "The best ratings of a preset: registered players with 10 rated races or more.",
        "RatingBoard",
        [
            _path("preset", _PRESET, "The rules preset."),
            _LIMIT,
            {
                "name": "offset",
                "in": "query",
                "required": False,
                "schema": {"type": "integer", "minimum": 0, "maximum": OFFSET_MAX, "default": 0},
            },
        ],
    ),
    "/api/v1/deal-lists": _operation(
        "getDealLists",
        "The published lists of proven-winnable deals a drawn room's deal comes from, with their SHA-256.",
        "DealLists",
        [],
    ),
    "/api/v1/deal-lists/{preset}": _operation(
        "getDealList",
        "One preset's published deal list, its text as the engine ships it (docs/fairness.md).",
        "DealList",
        [_path("preset", _PRESET, "The rules preset.")],
    ),
    "/api/v1/leaderboards/{preset}": _operation(
        "getLeaderboard",
        "The fastest proven wins of a preset: human racers, no hints, deals the server picked.",
        "Leaderboard",
        [
            _path("preset", _PRESET, "The rules preset."),
            {
                "name": "period",
                "in": "query",
                "required": False,
                "description": "all: all time; week: the week (Monday first, UTC) of `day`; day: `day`'s daily deal.",
                "schema": {"type": "string", "enum": list(PERIODS), "default": PERIODS[0]},
            },
            {
                "name": "grade",
                "in": "query",
                "required": False,
                "description": "Only deals of this grade.",
                "schema": {"type": "string", "enum": list(GRADES)},
            },
            {
                "name": "day",
                "in": "query",
                "required": False,
                "description": "With period day or week (400 with period all): the day, UTC; absent: today.",
                "schema": {"type": "string", "format": "date", "pattern": DAY},
            },
            _LIMIT,
            {
                "name": "offset",
                "in": "query",
                "required": False,
                "schema": {"type": "integer", "minimum": 0, "maximum": OFFSET_MAX, "default": 0},
            },
        ],
    ),
    "/api/v1/challenges/{challenge}": _operation(
        "getChallenge",
        "A ghost challenge: the recorded run, and the races run against it.",
        "Challenge",
        [_path("challenge", {"type": "string", "pattern": CHALLENGE_ID}, "The challenge's id (in its link /c/ID).")],
    ),
}


def document() -> dict[str, Any]:
    """The whole OpenAPI document (its parts are this module's constants: read, never change)."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Seahaven race server: public read API",
            "version": "1",
            "description": (
                "Races on record, players, their ratings, leaderboards, arenas and ghost challenges, read-only. "
                "JSON (UTF-8); "
                "CORS open to every origin; rate-limited per client address (429 with Retry-After). "
                "See docs/api.md."
            ),
        },
        "paths": PATHS,
        "components": {"schemas": SCHEMAS, "responses": RESPONSES, "parameters": PARAMETERS},
    }
