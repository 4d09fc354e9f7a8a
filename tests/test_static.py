"""The web client's files: what is served, with which headers, and that nothing else ever is."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator

import pytest

from server.app import RaceServer
from server.config import Config
from server.http.static import WEBROOT, static_response
from server.store.stores import MemoryStore
from tests.httpclient import get
from tests.wsclient import WsClient

TRAVERSALS = [
    "/../pyproject.toml",
    "/assets/../static.py",
    "/assets/../../server/app.py",
    "/assets/%2e%2e/static.py",
    "/assets/%2E%2E%2Fstatic.py",
    "/assets/..%2fstatic.py",
    "/assets/%252e%252e%252fstatic.py",
    "/assets/..\\static.py",
    "/assets\\..\\static.py",
    "/assets/%5c..%5cstatic.py",
    "//etc/passwd",
    "/assets//etc/passwd",
    "/assets/%2fetc%2fpasswd",
    "/etc/passwd",
    "/r/../../server/app.py",
    "/r/%2e%2e%2fstatic.py",
    "/assets/.hidden",
    "/index.html/../static.py",
    "/races/../../server/app.py",
    "/players/..",
    "/players/%2e%2e%2fstatic.py",
    "/players/../static.py",
    "/c/../../static.py",
    "/c/%2e%2e%2fstatic",
]


def _asset_names() -> list[str]:
    return sorted(p.name for p in (WEBROOT / "assets").iterdir())


def test_the_app_page_is_served_at_the_root_and_for_room_arena_and_challenge_links() -> None:
    root = static_response("/")
    assert root.status == 200
    assert root.header("Content-Type") == "text/html; charset=utf-8"
    assert root.header("Cache-Control") == "no-cache"
    assert root.body == (WEBROOT / "index.html").read_bytes()
    for link in (
        "/r/3R12R9",
        "/r/3r12r9",
        "/r/3R12R9?from=chat",
        "/?x=1",
        "/c/7KQ2M9XD",
        "/c/00000000?from=chat",
        "/a/7KQ2M9",
        "/a/7kq2m9",
        "/a/7KQ2M9?from=chat",
        "/solo/SH1-ST-0001G",
        "/solo/sh1-fc-0bpeh",
    ):
        page = static_response(link)
        assert page.status == 200 and page.body == root.body, link


def test_a_mistyped_room_link_gets_a_page_with_the_way_back() -> None:
    for link in ("/r/!!", "/r/", "/solo/SH1", "/c/x"):
        page = static_response(link)
        assert page.status == 404 and page.header("Content-Type") == "text/html; charset=utf-8", link
        assert b"No such link" in page.body and b'href="/"' in page.body
    assert static_response("/nope").body == b"not found\n"


def test_assets_are_served_with_their_type_and_cached_for_long() -> None:
    names = _asset_names()
    assert any(n.endswith(".js") for n in names) and any(n.endswith(".css") for n in names)
    for name in names:
        response = static_response(f"/assets/{name}")
        assert response.status == 200, name
        assert response.body == (WEBROOT / "assets" / name).read_bytes()
        assert response.header("Cache-Control") == "public, max-age=31536000, immutable"
        assert response.header("X-Content-Type-Options") == "nosniff"
        assert "default-src 'self'" in (response.header("Content-Security-Policy") or "")
    js = next(n for n in names if n.endswith(".js"))
    response = static_response(f"/assets/{js}")
    assert response.header("Content-Type") == "text/javascript; charset=utf-8"


def test_the_records_page_is_served_for_replays_players_and_boards() -> None:
    """One page for the three: it reads the race, player or board from /api/v1 (web/src/records.js)."""
    records = (WEBROOT / "records.html").read_bytes()
    assert records != (WEBROOT / "index.html").read_bytes()
    links = [
        "/races/3R12R9-1-abcdefgh",
        "/races/3R12R9-12-a2b3c4d7?racer=p0123456789&step=4",
        "/players/p0123456789",
        "/players/uABCDEFGHJKMN",
        "/players/bot-0a1b2c3d",
        "/players/ann_b.c-d",
        "/players/%C3%A9lodie",  # élodie: a handle beyond ASCII, percent-encoded
        "/boards",
        "/boards?preset=freecell&period=week&day=2026-05-18",
    ]
    for link in links:
        page = static_response(link)
        assert page.status == 200 and page.body == records, link
        assert page.header("Cache-Control") == "no-cache"
        assert page.header("Content-Security-Policy") == static_response("/").header("Content-Security-Policy")


@pytest.mark.parametrize(
    "path",
    [
        "/nope",
        "/assets/nope.js",
        "/assets/",
        "/r/",
        "/r/AB",
        "/r/3R12R9/x",
        "/index.html",
        "/favicon.ico",
        "/records.html",
        "/races/",
        "/races/3R12R9",
        "/races/3r12r9-1-abcdefgh",  # race ids are upper case, as result.race_id gives them
        "/races/3R12R9-0-abcdefgh",
        "/races/3R12R9-1-abcdefg1",
        "/races/3R12R9-1-abcdefgh/x",
        "/players/",
        "/players/ab",
        "/players/" + "a" * 97,
        "/players/ann/races",
        "/players/a%2Fb",  # an escaped slash is no handle's
        "/players/ann%20b",
        "/boards/",
        "/boards/seahaven",
        "/c/",
        "/solo/",
        "/solo/SH1-ST-01",
        "/solo/SH1-ST-0001G/x",
        "/solo/SH2-ST-0001G",
        "/c/7KQ2M9X",  # a challenge id has 8 characters of the room codes' alphabet
        "/c/7KQ2M9XDE",
        "/c/7kq2m9xd",
        "/c/7KQ2M9XI",  # I, L, O and U are not in it
        "/c/7KQ2M9XU",
        "/c/7KQ2M9XD/",
        "/c/7KQ2M9XD/x",
        "/a/",
        "/a/7KQ2M",  # an arena code has 6 characters
        "/a/7KQ2M9X",
        "/a/7KQ2M9/",
    ],
)
def test_unknown_paths_get_404(path: str) -> None:
    response = static_response(path)
    assert response.status == 404
    # A would-be link (/r/, /c/, /solo/) gets the page in words with the way back; the rest a bare 404.
    assert b"No such link" in response.body if re.match(r"/(r|c|solo)(/|$)", path) else response.body == b"not found\n"


@pytest.mark.parametrize("path", TRAVERSALS)
def test_nothing_outside_the_webroot_is_reachable(path: str) -> None:
    response = static_response(path)
    assert response.status == 404, path


@pytest.mark.parametrize("path", ["/healthz", "/metrics", "/metrics?x=1", "/api/v1/openapi.json"])
def test_the_servers_own_paths_are_no_files(path: str) -> None:
    """The router answers them before it asks for a file (tests/test_http_front.py), and the
    table has none of them whatever the webroot holds."""
    assert static_response(path).status == 404


@pytest.fixture
async def server() -> AsyncIterator[RaceServer]:
    race = RaceServer(Config(port=0), MemoryStore())
    await race.start()
    try:
        yield race
    finally:
        await race.stop()


async def _raw_get(port: int, target: str) -> tuple[int, bytes]:
    """A GET with the request target sent byte for byte (HTTP clients would tidy ``..`` away)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


async def test_the_server_serves_the_page_health_and_the_websocket_on_one_port(server: RaceServer) -> None:
    status, body = await _raw_get(server.port, "/r/ABCDEF")
    assert status == 200 and body == (WEBROOT / "index.html").read_bytes()
    status, body = await _raw_get(server.port, "/healthz")
    assert status == 200 and body.startswith(b"ok\n")
    assert (await _raw_get(server.port, "/nope"))[0] == 404
    for path in TRAVERSALS:
        status, body = await _raw_get(server.port, path)
        assert status == 404 and body == b"not found\n", path
    for name in _asset_names():  # the door frames each file by its length
        answer = await get(server.port, f"/assets/{name}")
        assert answer.status == 200 and answer.headers["content-length"] == str(len(answer.body)), name
    client = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Ann")
    assert client.welcome is not None
    await client.close()
