"""The route table: (method, path pattern) -> handler, looked up in order.

A pattern is a path whose ``{name}`` segments match one path segment each (anything but ``/``,
never empty), handed to the handler as given, still percent-encoded: what a parameter means
and how it is checked is the handler's business. A route for GET answers HEAD as well (the
door sends the headers only).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from server.http.reply import HttpRequest, Reply

Handler = Callable[[HttpRequest, dict[str, str]], Awaitable[Reply]]
"""``await handler(request, path_parameters)``."""

_PARAMETER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True, slots=True)
class Route:
    methods: frozenset[str]
    pattern: str
    regex: re.Pattern[str]
    handler: Handler


@dataclass(frozen=True, slots=True)
class Match:
    """The route found for a request, with its path parameters."""

    handler: Handler
    params: dict[str, str]


@dataclass(frozen=True, slots=True)
class NotAllowed:
    """The path is known, the method is not: the methods it takes (for ``Allow``)."""

    allow: tuple[str, ...]


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``/a/{x}/b`` -> a regex matching that path whole, with ``x`` one non-empty segment."""
    if not pattern.startswith("/"):
        raise ValueError(f"a route pattern starts with '/': {pattern!r}")
    parts = _PARAMETER.split(pattern)
    regex = "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>[^/]+)" for i, part in enumerate(parts))
    return re.compile(regex)


class Router:
    """Routes in the order they were added; the first whose pattern matches the path decides."""

    def __init__(self) -> None:
        self.routes: list[Route] = []

    def add(self, methods: Iterable[str], pattern: str, handler: Handler) -> None:
        chosen = frozenset(methods)
        if "GET" in chosen:
            chosen |= {"HEAD"}
        self.routes.append(Route(chosen, pattern, compile_pattern(pattern), handler))

    def match(self, method: str, path: str) -> Match | NotAllowed | None:
        """The route for ``method`` on ``path``; NotAllowed if the path is routed for other
        methods only; None if no pattern matches the path."""
        allowed: set[str] = set()
        for route in self.routes:
            found = route.regex.fullmatch(path)
            if found is None:
                continue
            if method in route.methods:
                return Match(route.handler, found.groupdict())
            allowed |= route.methods
        if allowed:
            return NotAllowed(tuple(sorted(allowed | {"OPTIONS"})))
        return None
