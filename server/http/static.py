"""The browser client's files, served on the race server's own port.

Only files found in ``server/http/webroot`` when the module first serves are ever sent: a
request names one by a strict pattern and is looked up in that table, never joined to a
filesystem path, so ``..``, encoded dots, backslashes and absolute paths cannot reach
anything else. ``/``, ``/r/CODE`` (a room link), ``/a/CODE`` (an arena's), ``/c/ID`` (a ghost
challenge's) and ``/solo/DEALCODE`` (practice alone on a deal) get the app page; ``/races/RACE_ID``,
``/players/PLAYER`` and ``/boards`` the records page (a replay, a
player's page, the leaderboards: it reads the rest from ``/api/v1``); hashed assets are cached for
a year, the pages are revalidated every time so a new build shows at once.
"""

from __future__ import annotations

import re
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Final, NamedTuple

from protocol.messages import CHALLENGE_LEN
from server.http.reply import TEXT, Reply
from server.shell.names import CODE_ALPHABET

WEBROOT: Final = Path(__file__).parent / "webroot"

_APP_PAGE: Final = "index.html"
_ROOM_LINK: Final = re.compile(r"/r/[0-9A-Za-z]{4,12}")
# An arena's code, read like a room code (any case: the page normalises it as join_arena does).
_ARENA_LINK: Final = re.compile(r"/a/[0-9A-Za-z]{6}")
# A ghost challenge's id as the challenge reply gives it (server/play/challenges.py).
_CHALLENGE_LINK: Final = re.compile(f"/c/[{CODE_ALPHABET}]{{{CHALLENGE_LEN}}}")
# Solo practice on a deal, named by its deal code (docs/deals.md: SH1, a preset tag, 4 to 8 base-32
# digits and a check character; any case, as people type them).
_SOLO_LINK: Final = re.compile(r"/solo/[Ss][Hh]1-[0-9A-Za-z]{2}-[0-9A-Za-z]{5,9}")
_RECORDS_PAGE: Final = "records.html"
_RECORDS_LINK: Final = re.compile(
    # A race id as result.race_id gives it: CODE-N-TAG (server/rooms/raceid.py).
    r"/races/[0-9A-Z]{4,12}-[1-9][0-9]{0,8}-[a-z2-7]{8}"
    # A player id (p or u and code characters, bot-HEX) or a handle (3 to 24 letters, digits and
    # _-. of any script): one path segment of those ASCII characters and percent-escaped bytes of
    # UTF-8 beyond ASCII (0x80 and up: an escaped slash or dot is no handle's).
    r"|/players/(?:[0-9A-Za-z_.-]|%[89A-Fa-f][0-9A-Fa-f]){3,96}"
    r"|/boards"
)
_ASSET: Final = re.compile(r"/assets/([0-9A-Za-z_-][0-9A-Za-z._-]{0,99})")
_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
}
_IMMUTABLE: Final = "public, max-age=31536000, immutable"
_REVALIDATE: Final = "no-cache"
# The page loads only its own files and talks only to its own server.
_CSP: Final = (
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; base-uri 'none'; form-action 'none'"
)


class _File(NamedTuple):
    body: bytes
    content_type: str


@cache
def _files() -> dict[str, _File]:
    """Every servable file by its name relative to the webroot ('index.html', 'assets/app-X.js')."""
    files: dict[str, _File] = {}
    if not WEBROOT.is_dir():
        return files
    for path in sorted(WEBROOT.rglob("*")):
        kind = _TYPES.get(path.suffix)
        if path.is_file() and kind is not None:
            files[path.relative_to(WEBROOT).as_posix()] = _File(path.read_bytes(), kind)
    return files


def static_response(path: str) -> Reply:
    """The reply to a GET of ``path``: the file it names, or 404.

    ``path`` is the request target as sent (a query string is ignored). The router answers the
    server's own routes (``/healthz``, ``/api/v1/...``) before it asks here; nothing outside the
    webroot is ever read.
    """
    route = path.split("?", 1)[0]
    files = _files()
    page_name = _page_of(route)
    if page_name is not None:
        page = files.get(page_name)
        if page is not None:
            return _response(HTTPStatus.OK, page, _REVALIDATE)
    else:
        asset = _ASSET.fullmatch(route)
        found = files.get(f"assets/{asset.group(1)}") if asset else None
        if found is not None:
            return _response(HTTPStatus.OK, found, _IMMUTABLE)
    if _MISTYPED_LINK.match(route):
        return _response(HTTPStatus.NOT_FOUND, _NO_SUCH_LINK, _REVALIDATE)
    return _response(HTTPStatus.NOT_FOUND, _File(b"not found\n", TEXT), _REVALIDATE)


# A link a person followed that is not one (a room link mistyped, cut or pasted with more): a page
# in words with the way back, not a bare text 404.
_MISTYPED_LINK: Final = re.compile(r"/(?:r|c|solo)(?:/|$)")
_NO_SUCH_LINK: Final = _File(
    b'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
    b'<meta name="viewport" content="width=device-width, initial-scale=1"><title>No such link</title></head>'
    b"<body><h1>No such link</h1><p>A room link looks like /r/3R12R9 and a deal's like /solo/SH1-ST-0001G:"
    b' check the one you were sent.</p><p><a href="/">Go to the lobby</a></p></body></html>\n',
    "text/html; charset=utf-8",
)


def _page_of(route: str) -> str | None:
    """The page ``route`` shows (the race client's or the records'), or None: not a page."""
    if route == "/" or any(link.fullmatch(route) for link in (_ROOM_LINK, _ARENA_LINK, _CHALLENGE_LINK, _SOLO_LINK)):
        return _APP_PAGE
    if _RECORDS_LINK.fullmatch(route):
        return _RECORDS_PAGE
    return None


def _response(status: HTTPStatus, file: _File, cache_control: str) -> Reply:
    headers = (
        ("Content-Type", file.content_type),
        ("Cache-Control", cache_control),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", _CSP),
    )
    return Reply(status, headers, file.body)
