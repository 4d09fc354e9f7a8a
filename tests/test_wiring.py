"""The server's wiring, read from the server it builds: every request type of the protocol has
exactly one handler (``hello`` is the connection's own, answered before any handler is asked),
each declared beside its code (``@handles``), and a type two handlers declare is refused when
the server is built."""

from __future__ import annotations

import pytest

from protocol.messages import REQUESTS, Hello, Ping
from server.app import RaceServer
from server.config import Config
from server.shell.handlers import HANDLES, handlers_of, handles
from server.shell.held import Asker
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
        for kind, handler in server.requests.handlers.items():
            # The handler is the method that declares the type, bound to a part the server built.
            assert kind in getattr(handler, HANDLES), f"{kind.TYPE}: {handler!r} does not declare it"
    finally:
        await server.stop()


class Pings:
    @handles(Ping)
    async def on_ping(self, asker: Asker, message: Ping) -> None:
        return None


def test_a_type_two_parts_declare_is_refused() -> None:
    assert set(handlers_of(Pings())) == {Ping}
    with pytest.raises(ValueError, match="ping has a handler already"):
        handlers_of(Pings(), Pings())
