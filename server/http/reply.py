"""One plain HTTP request as the router sees it, and the reply a route gives.

Both are plain data: the front door (``front.py``) parses the bytes with h11 and writes the
reply back; routes never see a socket. A reply carries its whole body (every answer here is
small), and the door adds what belongs to the connection: ``Date``, ``Content-Length``,
``Connection``, and no body for HEAD.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Final

TEXT: Final = "text/plain; charset=utf-8"
JSON: Final = "application/json"


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """A request head (a body, if announced, is never read)."""

    method: str
    """Upper case, as sent (``GET``, ``HEAD``, ``OPTIONS``, ...)."""
    path: str
    """The request target up to ``?``, as sent (never percent-decoded here)."""
    query: str
    """The target after ``?`` ("" if none)."""
    headers: tuple[tuple[str, str], ...]
    """Names in lower case, in the order sent."""
    peer: str
    """The IP address of the TCP peer ("?" if the socket no longer says)."""
    has_body: bool = False
    """The request announced a body (the door never reads it: no route takes one)."""

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (lower case); several are joined with ", " (RFC 9110 5.3)."""
        values = [value for key, value in self.headers if key == name]
        return ", ".join(values) if values else None

    def all(self, name: str) -> list[str]:
        """Every value of header ``name`` (lower case), in order."""
        return [value for key, value in self.headers if key == name]


@dataclass(frozen=True, slots=True)
class Reply:
    """A whole response: status, headers (without the connection's own) and body."""

    status: HTTPStatus
    headers: tuple[tuple[str, str], ...]
    body: bytes = b""

    def header(self, name: str) -> str | None:
        """The value of header ``name`` (any case), None if absent."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key.lower() == wanted), None)

    def with_headers(self, *extra: tuple[str, str]) -> Reply:
        """This reply with ``extra`` headers added (a header already there is replaced)."""
        names = {key.lower() for key, _ in extra}
        kept = tuple((key, value) for key, value in self.headers if key.lower() not in names)
        return Reply(self.status, kept + extra, self.body)


def text_reply(status: HTTPStatus, text: str, *headers: tuple[str, str]) -> Reply:
    """A plain text reply (the answer outside ``/api/v1``), never cached unless ``headers`` say."""
    defaults = (("Content-Type", TEXT), ("Cache-Control", "no-store"))
    return Reply(status, defaults, text.encode()).with_headers(*headers)


def json_body(document: Any) -> bytes:
    """Compact UTF-8 JSON, the API's one encoding."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def json_reply(status: HTTPStatus, document: Any, *headers: tuple[str, str]) -> Reply:
    return Reply(status, (("Content-Type", JSON),), json_body(document)).with_headers(*headers)


def error_document(code: str, message: str) -> dict[str, Any]:
    """The API's one error shape: ``{"error": {"code": ..., "message": ...}}``."""
    return {"error": {"code": code, "message": message}}
