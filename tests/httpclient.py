"""Plain HTTP against a live server, for the tests: the standard library's ``http.client`` (a
client that shares no code with the server's h11 door), and raw bytes for what no client sends."""

from __future__ import annotations

import asyncio
import http.client
import json
from dataclasses import dataclass
from typing import Any

TIMEOUT = 10.0


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    """Lower-case names."""
    body: bytes

    def json(self) -> Any:
        assert self.headers.get("content-type") == "application/json", self.headers
        return json.loads(self.body)

    def error_code(self) -> str:
        """The API error's code (and the shape checked: one ``error`` with a code and a message)."""
        document = self.json()
        assert set(document) == {"error"} and set(document["error"]) == {"code", "message"}, document
        return str(document["error"]["code"])


def request_sync(port: int, method: str, target: str, headers: dict[str, str] | None = None) -> Answer:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        connection.request(method, target, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
    finally:
        connection.close()


async def request(port: int, method: str, target: str, headers: dict[str, str] | None = None) -> Answer:
    """One request on a connection of its own (in a thread: ``http.client`` blocks)."""
    return await asyncio.to_thread(request_sync, port, method, target, headers)


async def get(port: int, target: str, headers: dict[str, str] | None = None) -> Answer:
    return await request(port, "GET", target, headers)


async def raw(port: int, data: bytes, timeout: float = TIMEOUT) -> bytes:  # noqa: ASYNC109 - a deadline for the answer
    """Send ``data`` as is and read until the server closes (failing after ``timeout`` s)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()


def status_of(answer: bytes) -> int:
    """The status code of the first response in ``answer``."""
    return int(answer.split(b" ", 2)[1])


async def read_response(reader: asyncio.StreamReader, *, head_only: bool = False) -> Answer:
    """One response off a kept-alive connection (framed by its Content-Length)."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT)
    status_line, *lines = head.decode("latin-1").split("\r\n")[:-2]
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    length = 0 if head_only else int(headers.get("content-length", "0"))
    body = await asyncio.wait_for(reader.readexactly(length), TIMEOUT) if length else b""
    return Answer(int(status_line.split(" ", 2)[1]), headers, body)


def get_line(target: str, *extra: str) -> bytes:
    """A GET request head for ``target`` with ``extra`` header lines."""
    return "\r\n".join([f"GET {target} HTTP/1.1", "Host: 127.0.0.1", *extra, "", ""]).encode()
