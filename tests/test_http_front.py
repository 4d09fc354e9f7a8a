"""The front door (server/http/front.py) and the router on a live server: plain HTTP with HEAD,
OPTIONS, keep-alive and proper errors on the WebSocket port, and WebSocket upgrades handed to
websockets unchanged."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import time

import pytest

from protocol.codec import SUBPROTOCOL
from server.app import RaceServer
from server.config import Config
from server.http.static import WEBROOT
from server.store.stores import MemoryStore
from tests.helpers import MakeServer, url_of
from tests.httpclient import get_line, raw, read_response, request, status_of
from tests.wsclient import WsClient

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


async def test_head_answers_the_get_headers_without_the_body(make_memory_server: MakeServer) -> None:
    """``curl -I`` on the page and on /healthz: 200 with the GET's headers, no body."""
    server = await make_memory_server()
    page = (WEBROOT / "index.html").read_bytes()
    head = await request(server.port, "HEAD", "/")
    assert head.status == 200 and head.body == b""
    assert head.headers["content-type"] == "text/html; charset=utf-8"
    assert head.headers["content-length"] == str(len(page))
    assert head.headers["cache-control"] == "no-cache" and "date" in head.headers
    health = await request(server.port, "HEAD", "/healthz")
    full = await request(server.port, "GET", "/healthz")
    assert (health.status, health.headers["content-length"], health.body) == (200, str(len(full.body)), b"")
    # On the wire: nothing after the head, and the connection closes when asked to.
    answer = await raw(server.port, b"HEAD /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and answer.endswith(b"\r\n\r\n")
    assert b"connection: close" in answer.lower()


async def test_a_connection_is_kept_alive_and_answers_in_order(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(get_line("/healthz") + get_line("/nope") + get_line("/metrics", "Connection: close"))
    answers = [await read_response(reader) for _ in range(3)]
    assert [a.status for a in answers] == [200, 404, 200]
    assert answers[0].body.startswith(b"ok\n") and answers[1].body == b"not found\n"
    assert b"seahaven_" in answers[2].body and answers[2].headers["connection"] == "close"
    assert await asyncio.wait_for(reader.read(), 5) == b""  # closed, as asked
    writer.close()


async def test_options_is_the_cors_preflight_on_the_api(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    headers = {"Origin": "https://example.org", "Access-Control-Request-Method": "GET"}
    preflight = await request(server.port, "OPTIONS", "/api/v1/races/ABCDEF-1-abcdefgh", headers)
    assert preflight.status == 204 and preflight.body == b""
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert preflight.headers["access-control-allow-methods"] == "GET, HEAD, OPTIONS"
    assert "If-None-Match" in preflight.headers["access-control-allow-headers"]
    assert preflight.headers["allow"] == "GET, HEAD, OPTIONS"
    page = await request(server.port, "OPTIONS", "/")
    assert page.status == 204 and page.headers["allow"] == "GET, HEAD, OPTIONS"
    assert "access-control-allow-origin" not in page.headers  # CORS is the API's only
    assert (await request(server.port, "OPTIONS", "/api/v1/nothing")).status == 404
    assert (await request(server.port, "OPTIONS", "/nothing")).status == 404


@pytest.mark.parametrize(
    ("method", "path", "api"),
    [
        ("POST", "/healthz", False),
        ("PUT", "/", False),
        ("DELETE", "/assets/missing.js", None),  # not a file: 404, not 405
        ("DELETE", "/api/v1/races/ABCDEF-1-abcdefgh", True),
        ("PATCH", "/api/v1/openapi.json", True),
    ],
)
async def test_other_methods_get_405_with_allow(
    make_memory_server: MakeServer, method: str, path: str, api: bool | None
) -> None:
    server = await make_memory_server()
    answer = await request(server.port, method, path)
    if api is None:
        assert answer.status == 404
        return
    assert answer.status == 405 and answer.headers["allow"] == "GET, HEAD, OPTIONS"
    if api:
        assert answer.error_code() == "method-not-allowed"
        assert answer.headers["access-control-allow-origin"] == "*"
    else:
        assert answer.headers["content-type"] == "text/plain; charset=utf-8"
        assert answer.body.startswith(f"{method} is not allowed".encode())


async def test_unknown_paths_are_404_json_under_the_api_and_text_elsewhere(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    api = await request(server.port, "GET", "/api/v1/nothing/here")
    assert api.status == 404 and api.error_code() == "not-found"
    assert (await request(server.port, "GET", "/api/v1")).error_code() == "not-found"
    page = await request(server.port, "GET", "/nothing")
    assert (page.status, page.body, page.headers["content-type"]) == (404, b"not found\n", "text/plain; charset=utf-8")


@pytest.mark.parametrize(
    ("junk", "status"),
    [
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n", 400),
        (b"GET http://elsewhere/ HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        (b"GET /\xff HTTP/1.1\r\nHost: x\r\n\r\n", 400),
        (b"GET / HTTP/1.1\r\n\r\n", 400),  # HTTP/1.1 without Host
        (b"GET / HTTP/9.9\r\nHost: x\r\n\r\n", 505),
    ],
)
async def test_malformed_http_gets_4xx_a_close_and_one_log_line(
    make_memory_server: MakeServer, caplog: pytest.LogCaptureFixture, junk: bytes, status: int
) -> None:
    server = await make_memory_server()
    caplog.set_level(logging.INFO, logger="seahaven")
    answer = await raw(server.port, junk)  # returns once the server has closed
    assert status_of(answer) == status and b"connection: close" in answer.lower()
    rejected = [r.getMessage() for r in caplog.records if "handshake.rejected" in r.getMessage()]
    assert len(rejected) == 1 and "peer=127.0.0.1" in rejected[0] and "\n" not in rejected[0]
    assert (await request(server.port, "GET", "/healthz")).status == 200  # and the server serves on


async def test_an_oversized_head_gets_431(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    answer = await raw(server.port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 17_000)
    assert status_of(answer) == 431
    fits = await request(server.port, "GET", "/healthz", {"X-Big": "a" * 15_000})
    assert fits.status == 200


async def test_a_head_that_never_ends_is_closed(make_memory_server: MakeServer) -> None:
    """Slowloris: a head sent a byte at a time never completes; the door closes it at its deadline."""
    server = await make_memory_server()
    server.doors.head_timeout = 0.5
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    began = time.monotonic()
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")
    for _ in range(3):  # still dribbling when the deadline passes
        await asyncio.sleep(0.2)
        writer.write(b"X")
    # Closed with a dribbled byte arriving after it (late on a busy machine), the kernel answers
    # that byte with a reset instead of the end of the stream, or the next byte's write finds the
    # pipe broken (the read then raises that): closed all the same.
    with contextlib.suppress(ConnectionResetError, BrokenPipeError):
        assert await asyncio.wait_for(reader.read(), 5) == b""
    assert 0.45 <= time.monotonic() - began < 4
    writer.close()


async def test_an_idle_kept_alive_connection_is_closed(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    server.doors.idle_timeout = 0.5
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(get_line("/healthz"))
    assert (await read_response(reader)).status == 200
    began = time.monotonic()
    assert await asyncio.wait_for(reader.read(), 5) == b""
    assert 0.45 <= time.monotonic() - began < 4
    writer.close()


async def test_a_connection_carries_a_bounded_number_of_requests(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    server.doors.max_requests = 3
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(get_line("/healthz") * 5)
    answers = [await read_response(reader) for _ in range(3)]
    assert [a.status for a in answers] == [200, 200, 200]
    assert "connection" not in answers[1].headers and answers[2].headers["connection"] == "close"
    assert await asyncio.wait_for(reader.read(), 5) == b""  # the fourth and fifth are never answered
    writer.close()


@pytest.mark.parametrize(
    ("head", "status"),
    [
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 413),
        (b"GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", 413),
        (b"POST /api/v1/races/ABCDEF-1-abcdefgh HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}", 405),
    ],
)
async def test_a_request_body_is_refused_and_the_connection_closed(
    make_memory_server: MakeServer, head: bytes, status: int
) -> None:
    server = await make_memory_server()
    answer = await raw(server.port, head + get_line("/healthz"))  # the pipelined GET is never read
    assert status_of(answer) == status and answer.count(b"HTTP/1.1 ") == 1
    assert b"connection: close" in answer.lower()


async def test_http_1_0_is_answered_and_closed(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    answer = await raw(server.port, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert answer.endswith(b"\r\n\r\nok\nstore: ok\ndatabase: off\narchive backlog: 0\n")


async def test_a_websocket_upgrade_after_plain_requests_on_the_same_connection(make_memory_server: MakeServer) -> None:
    """The door hands any request of a connection that asks for WebSocket to websockets, which
    then speaks the protocol on it; a client opening straight away is tests/test_server.py's."""
    server = await make_memory_server()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(get_line("/healthz"))
    assert (await read_response(reader)).body.startswith(b"ok\n")
    key = base64.b64encode(b"0123456789abcdef").decode()
    writer.write(
        get_line(
            "/",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            f"Sec-WebSocket-Protocol: {SUBPROTOCOL}",
        )
    )
    switched = await read_response(reader, head_only=True)
    accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
    assert switched.status == 101 and switched.headers["sec-websocket-accept"] == accept
    assert switched.headers["sec-websocket-protocol"] == SUBPROTOCOL
    writer.close()
    client = await WsClient.open(url_of(server), "Ann")  # and a plain client as ever
    assert client.welcome is not None
    # Each upgraded connection's transport talks to websockets' connection itself, nothing between.
    assert server.ws is not None and server.ws.connections
    assert all(c.transport.get_protocol() is c for c in server.ws.connections)
    await client.close()


async def test_a_wrong_upgrade_is_refused_by_websockets_in_its_own_words(make_memory_server: MakeServer) -> None:
    server = await make_memory_server()
    answer = await raw(server.port, get_line("/", "Upgrade: websocket", "Connection: Upgrade"))
    assert status_of(answer) == 400 and b"Sec-WebSocket-Key" in answer


async def test_a_graceful_stop_closes_idle_http_connections_at_once() -> None:
    server = RaceServer(Config(port=0), MemoryStore())
    await server.start()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(get_line("/healthz"))
    assert (await read_response(reader)).status == 200
    client = await WsClient.open(url_of(server), "Ann")
    began = time.monotonic()
    await server.stop()
    assert await asyncio.wait_for(reader.read(), 2) == b""
    assert time.monotonic() - began < 3  # not held for the idle timeout
    assert server.doors.open == set()
    writer.close()
    await client.close()
