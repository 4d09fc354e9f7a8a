"""What a request handler is, and how it says which requests it answers: ``@handles(Move)`` on
the method, beside its code; ``handlers_of`` collects them from the parts the wiring built into
the one table ``Requests`` dispatches on (server/app.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

from protocol.schema import Message
from server.shell.held import Asker

Handler = Callable[[Asker, Any], Awaitable[Message | None]]
H = TypeVar("H", bound=Callable[..., Awaitable[Message | None]])
HANDLES: Final = "__handles__"
"""The attribute ``@handles`` puts on a handler: the request types it answers."""


def handles(*kinds: type[Message]) -> Callable[[H], H]:
    """Declares, on a handler method, the request types it answers (``handlers_of`` finds it)."""

    def declared(handler: H) -> H:
        setattr(handler, HANDLES, kinds)
        return handler

    return declared


def handlers_of(*parts: object) -> dict[type[Message], Handler]:
    """The handlers the parts declare (``@handles``), by request type. A type two handlers declare
    is a wiring bug, refused here, when the server is built."""
    table: dict[type[Message], Handler] = {}
    for part in parts:
        for name in dir(type(part)):
            for kind in getattr(getattr(type(part), name, None), HANDLES, ()):
                if kind in table:
                    raise ValueError(f"{kind.TYPE} has a handler already")
                table[kind] = getattr(part, name)
    return table
