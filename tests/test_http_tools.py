"""HTTP as tools expect it: HEAD answers wherever GET does (every route of the router, the pages and
assets, the errors), with GET's status and headers and no body; a bug while answering is a 500,
never a connection dropped without a word; /healthz says how the database and the archive
backlog are."""

from __future__ import annotations

import asyncio
import re
import urllib.request
from http import HTTPStatus

from server.app import RaceServer
from server.http.front import Doors
from server.http.reply import HttpRequest, Reply, text_reply
from server.http.static import WEBROOT
from tests.helpers import DictRecords, MakeServer
from tests.httpclient import Answer, raw, request
from tests.redis_proc import free_port
from tests.server_proc import ServerProcess

SAMPLE = {"race_id": "r1", "player": "p1", "preset": "seahaven", "challenge": "c1"}
"""A value for each route parameter (any value: HEAD must answer as GET does, found or not)."""


def sample_path(pattern: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: SAMPLE.get(m.group(1), "x"), pattern)


def same_but_the_body(get: Answer, head: Answer, what: str) -> None:
    assert head.status == get.status, what
    assert head.body == b"", what
    assert {k: v for k, v in head.headers.items() if k != "date"} == {
        k: v for k, v in get.headers.items() if k != "date"
    }, what
    assert int(head.headers.get("content-length", "0")) == len(get.body), what


async def test_head_answers_as_get_on_every_route_page_and_error(make_memory_server: MakeServer) -> None:
    server: RaceServer = await make_memory_server(records=DictRecords())
    routes = [route.pattern for route in server.http.router.routes if "GET" in route.methods]
    assert "/healthz" in routes and "/metrics" in routes and any(r.startswith("/api/v1/") for r in routes)
    asset = next(p.name for p in (WEBROOT / "assets").iterdir())
    pages = ["/", "/r/ABCDEF", "/c/c1", "/races/r1", "/players/p1", "/boards", f"/assets/{asset}"]
    errors = ["/nope", "/api/v1/nope", "/assets/nope.js"]
    for path in [*map(sample_path, routes), *pages, *errors]:
        if path == "/metrics":
            continue  # its body changes with each request (the HTTP counter): below
        get = await request(server.port, "GET", path)
        head = await request(server.port, "HEAD", path)
        same_but_the_body(get, head, path)
    metrics = await request(server.port, "HEAD", "/metrics")
    assert metrics.status == 200 and metrics.body == b"" and metrics.headers["content-type"].startswith("text/plain")


async def test_healthz_says_how_the_database_and_the_backlog_are(make_memory_server: MakeServer) -> None:
    records = DictRecords()
    server = await make_memory_server(records=records)
    answer = await request(server.port, "GET", "/healthz")
    assert (answer.status, answer.body) == (200, b"ok\nstore: ok\ndatabase: ok\narchive backlog: 0\n")
    await server.store.index_archive("ROOM1")  # a room whose finished race waits for the archivers
    answer = await request(server.port, "GET", "/healthz")
    assert answer.body.endswith(b"archive backlog: 1\n")
    metrics = await request(server.port, "GET", "/metrics")
    assert b"\nseahaven_archive_backlog 1.0\n" in metrics.body
    assert b'seahaven_http_requests_total{code="200"}' in metrics.body


class Unreachable(DictRecords):
    async def reachable(self) -> bool:
        return False


async def test_healthz_with_the_database_away_is_still_200(make_memory_server: MakeServer) -> None:
    server = await make_memory_server(records=Unreachable())
    answer = await request(server.port, "GET", "/healthz")
    assert answer.status == 200 and b"database: unavailable\n" in answer.body


async def broken(request: HttpRequest) -> Reply:
    """A route whose answer h11 cannot send (a header value with a line break): a bug in the door's
    path, after the routes answered."""
    return text_reply(HTTPStatus.OK, "fine\n", ("X-Bad", "two\r\nlines"))


async def test_a_bug_while_answering_is_a_500_not_a_dropped_connection() -> None:
    from websockets.asyncio.server import ServerConnection, serve

    async def never(ws: ServerConnection) -> None:
        await ws.close()

    doors = Doors(broken)
    async with serve(never, "127.0.0.1", 0, create_connection=doors.as_factory()) as ws_server:
        port = next(iter(ws_server.sockets)).getsockname()[1]
        answer = await raw(port, b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 500 Internal Server Error\r\n"), answer
        assert answer.endswith(b"Internal Server Error: internal error\n")
        # And the server serves on.
        again = await asyncio.wait_for(raw(port, b"GET /y HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), 10)
        assert again.startswith(b"HTTP/1.1 500")
        doors.close()


def healthz_of(server: ServerProcess) -> tuple[int, bytes]:
    with urllib.request.urlopen(f"{server.http}/healthz", timeout=10) as response:
        return response.status, bytes(response.read())


async def test_healthz_of_real_records_on_sqlite_and_on_a_database_that_is_away() -> None:
    """The probe on the records' real database: a node's own SQLite file answers; a PostgreSQL that
    refuses connections is said, and the node is still healthy (racing does not need it)."""
    here = ServerProcess()
    away = ServerProcess("--database", f"postgresql://seahaven@127.0.0.1:{free_port()}/seahaven")
    try:
        assert await asyncio.to_thread(healthz_of, here) == (
            200,
            b"ok\nstore: ok\ndatabase: ok\narchive backlog: 0\n",
        )
        assert await asyncio.to_thread(healthz_of, away) == (
            200,
            b"ok\nstore: ok\ndatabase: unavailable\narchive backlog: 0\n",
        )
    finally:
        here.close()
        away.close()
