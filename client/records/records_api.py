"""The server's public read API (docs/api.md) for the terminal client: a race on record with
every racer's moves and its analysis, a player's page, their races, rivals, rating history and arenas,
the leaderboards.

The client knows the server by its WebSocket URL; the API is on the same host and port over plain
HTTP(S) (``ws://`` is ``http://``, ``wss://`` is ``https://``). Each request runs the standard
library's ``urllib`` in a thread (``asyncio.to_thread``), so the screens never wait on it and the
client needs no HTTP dependency.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Final

from i18n import _

__all__ = ["Records", "RecordsError", "http_base"]

TIMEOUT_SECONDS: Final = 5.0
_SCHEMES: Final = {"ws": "http", "wss": "https"}


class RecordsError(Exception):
    """The API refused, or could not be reached: ``status`` (0: no answer), the API's ``code`` and
    its message (docs/api.md, Errors). ``passing``: asked again later, it may answer (no answer,
    or a 503 with ``Retry-After``: the records out of reach for a moment)."""

    def __init__(self, status: int, code: str, message: str, *, passing: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.passing = passing or status == 0


def http_base(ws_url: str) -> str:
    """The API's origin for the server at ``ws_url``: ``ws://h:p/...`` is ``http://h:p``."""
    parts = urllib.parse.urlsplit(ws_url)
    scheme = _SCHEMES.get(parts.scheme.lower())
    if scheme is None or not parts.netloc:
        raise ValueError(f"not a race server's address (ws://host:port or wss://host:port): {ws_url!r}")
    return f"{scheme}://{parts.netloc}"


class Records:
    """The read API of the server at ``base`` (``http_base``); every call a JSON document (a dict)
    or a RecordsError."""

    def __init__(self, base: str, timeout: float = TIMEOUT_SECONDS, tls: ssl.SSLContext | None = None) -> None:
        """``tls``: how an ``https://`` server is checked (the race connection's; None: the system's trust)."""
        self.base = base.rstrip("/")
        self.timeout = timeout
        self.tls = tls

    async def race(self, race_id: str) -> dict[str, Any]:
        return await self.get(f"/races/{quote(race_id)}")

    async def analysis(self, race_id: str) -> dict[str, Any]:
        """Where the race was won and lost (docs/api.md, "analysis"): ``status`` "pending" until it
        is on record and analysed, then "done" with ``analysis`` (or "failed"); 404 for no such race,
        and from a server older than the analysis."""
        return await self.get(f"/races/{quote(race_id)}/analysis")

    async def signed_race(self, race_id: str) -> dict[str, Any]:
        """The race's signed record (docs/fairness.md): 404 until it is archived."""
        return await self.get(f"/races/{quote(race_id)}/record")

    async def keys(self) -> dict[str, Any]:
        """The keys the server signs its records with."""
        return await self.get("/keys")

    async def player(self, player: str) -> dict[str, Any]:
        return await self.get(f"/players/{quote(player)}")

    async def player_races(self, player: str, cursor: str | None = None, limit: int = 20) -> dict[str, Any]:
        return await self.get(f"/players/{quote(player)}/races", self._page(cursor, limit))

    async def player_ratings(self, player: str, cursor: str | None = None, limit: int = 20) -> dict[str, Any]:
        """What rated races did to the player's ratings, newest first, a page at a time."""
        return await self.get(f"/players/{quote(player)}/ratings", self._page(cursor, limit))

    async def player_rivals(self, player: str, limit: int = 20) -> dict[str, Any]:
        """The people the player raced lately, the newest race together first, each head to head:
        wins and losses by place, and best times on the deals both finished (docs/api.md)."""
        return await self.get(f"/players/{quote(player)}/rivals", {"limit": limit})

    async def player_arenas(self, player: str, cursor: str | None = None, limit: int = 20) -> dict[str, Any]:
        """The finished arenas the player was in, the last to end first, a page at a time."""
        return await self.get(f"/players/{quote(player)}/arenas", self._page(cursor, limit))

    async def arena(self, code: str) -> dict[str, Any]:
        """``GET /api/v1/arenas/{code}``: an arena, live or on record (RecordsError 404: none)."""
        return await self.get(f"/arenas/{urllib.parse.quote(code)}")

    async def challenge(self, code: str) -> dict[str, Any]:
        """A ghost challenge: whose run, its time, and the races run against it."""
        return await self.get(f"/challenges/{quote(code)}")

    @staticmethod
    def _page(cursor: str | None, limit: int) -> dict[str, str | int]:
        query: dict[str, str | int] = {"limit": limit}
        if cursor is not None:
            query["cursor"] = cursor
        return query

    async def leaderboard(
        self, preset: str, period: str = "all", day: str | None = None, limit: int = 50
    ) -> dict[str, Any]:
        query: dict[str, str | int] = {"period": period, "limit": limit}
        if day is not None:
            query["day"] = day
        return await self.get(f"/leaderboards/{quote(preset)}", query)

    async def get(self, path: str, query: dict[str, str | int] | None = None) -> dict[str, Any]:
        """``GET /api/v1{path}?{query}`` in a thread."""
        url = f"{self.base}/api/v1{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        return await asyncio.to_thread(self.fetch, url)

    def fetch(self, url: str) -> dict[str, Any]:
        """The blocking request (run in a thread by ``get``)."""
        request = urllib.request.Request(url, headers={"Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=self.tls) as answer:
                document = json.loads(answer.read())
        except urllib.error.HTTPError as refused:
            with refused:
                raise refused_error(refused.code, refused.read(), "Retry-After" in refused.headers) from None
        except (OSError, ValueError) as error:  # URLError, timeouts and resets are OSErrors; bad JSON a ValueError
            raise RecordsError(
                0, "unreachable", _("the server's records cannot be read: {error}").format(error=error)
            ) from None
        if not isinstance(document, dict):
            raise RecordsError(200, "bad-reply", _("the server answered something else than a document"))
        return document


def refused_error(status: int, body: bytes, passing: bool = False) -> RecordsError:
    """The API's JSON error, or what can be said of an answer that is not one (a proxy's page)."""
    try:
        error = json.loads(body)["error"]
        return RecordsError(status, str(error["code"]), str(error["message"]), passing=passing)
    except (ValueError, KeyError, TypeError):
        return RecordsError(status, "http", _("the server answered {status}").format(status=status), passing=passing)


def quote(segment: str) -> str:
    """One path segment, percent-encoded (a handle may hold any letter)."""
    return urllib.parse.quote(segment, safe="")
