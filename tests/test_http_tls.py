"""The front door on TLS (websockets' ``serve(ssl=...)``; the race server does not use it today,
its TLS ends at the load balancer): plain HTTP answered, and an upgrade handed to websockets over
asyncio's TLS transport, which takes ``set_protocol`` as the plain one does."""

from __future__ import annotations

import asyncio
import http.client
import ssl
import subprocess
from http import HTTPStatus
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

from server.http.front import Doors
from server.http.reply import HttpRequest, Reply, text_reply


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (openssl), and its key."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


async def hello(request: HttpRequest) -> Reply:
    return text_reply(HTTPStatus.OK, f"{request.method} {request.path}\n")


async def echo(ws: ServerConnection) -> None:
    async for message in ws:
        await ws.send(message)


def https_get(port: int, context: ssl.SSLContext) -> tuple[int, bytes]:
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
    try:
        connection.request("GET", "/over/tls")
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


async def test_the_door_serves_http_and_hands_upgrades_over_tls(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    server_side = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_side.load_cert_chain(cert, key)
    client_side = ssl.create_default_context(cafile=str(cert))
    doors = Doors(hello)
    async with serve(echo, "127.0.0.1", 0, ssl=server_side, create_connection=doors.as_factory()) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        assert await asyncio.to_thread(https_get, port, client_side) == (200, b"GET /over/tls\n")
        async with connect(f"wss://127.0.0.1:{port}/", ssl=client_side) as ws:
            await ws.send("ping")
            assert await asyncio.wait_for(ws.recv(), 10) == "ping"
            (connection,) = server.connections
            assert connection.transport.get_protocol() is connection  # websockets' own, nothing between
        doors.close()
