"""The server's wiring, read from the server it builds: every request type of the protocol has
exactly one handler (``hello`` is the connection's own, answered before any handler is asked), and
a second handler for a type is refused where it is registered."""

from __future__ import annotations

import pytest

from protocol.messages import REQUESTS, Hello, Ping
from server.app import RaceServer
from server.config import Config
from server.store.stores import MemoryStore


async def test_every_request_type_has_exactly_one_handler() -> None:
    server = RaceServer(Config(port=0), MemoryStore())
    try:
        handled = set(server.requests.handlers)
        expected = set(REQUESTS.values()) - {Hello}
        assert handled == expected, (
            f"without a handler: {sorted(k.TYPE for k in expected - handled)}; "
            f"handled but no request type: {sorted(k.TYPE for k in handled - expected)}"
        )

        async def other(asker: object, message: object) -> None:
            return None

        with pytest.raises(ValueError, match="ping has a handler already"):
            server.requests.handle(Ping, other)
    finally:
        await server.stop()
