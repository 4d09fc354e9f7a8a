"""The protocol as data (issue 35, item 5): protocol/asyncapi.py's AsyncAPI 3.0 document is valid
AsyncAPI (checked against the specification's own JSON Schema, npm's @asyncapi/specs from the
lock), names every request and server message, describes every frame docs/protocol.md shows byte
for byte, refuses a frame the server refuses, and is what the server serves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema_rs
import msgpack
import pytest

from protocol import asyncapi
from protocol.codec import encode, encode_request
from protocol.errors import CloseCode, ErrorCode
from protocol.messages import REQUESTS, SERVER_MESSAGES, MoveRequest, Progress
from server.app import RaceServer
from tests.helpers import MakeServer
from tests.httpclient import get
from tests.protocol_doc import Example, examples

SPEC = Path(__file__).resolve().parents[1] / "web" / "node_modules" / "@asyncapi" / "specs" / "schemas"
DOC = asyncapi.document()


def frame_validator(name: str) -> jsonschema_rs.Validator:
    """Validates a decoded frame against the message ``name``'s payload, its $refs resolved in
    the document."""
    return jsonschema_rs.validator_for(
        {"$ref": f"#/components/messages/{name}/payload", "components": DOC["components"]}
    )


def message_of(frame: dict[str, Any]) -> str:
    return f"request.{frame['type']}" if "seq" in frame else f"server.{frame['type']}"


def test_the_document_is_valid_asyncapi_3() -> None:
    spec = json.loads((SPEC / "3.0.0-without-$id.json").read_text())
    validator = jsonschema_rs.validator_for(spec)
    assert [e.message for e in validator.iter_errors(DOC)] == []
    broken = json.loads(json.dumps(DOC))
    broken["operations"]["receiveRequest"]["action"] = "take"  # the check itself can fail
    assert not validator.is_valid(broken)


def test_every_request_and_server_message_is_there_with_the_codes() -> None:
    messages = DOC["components"]["messages"]
    assert {f"request.{kind}" for kind in REQUESTS} | {f"server.{kind}" for kind in SERVER_MESSAGES} == set(messages)
    channel = DOC["channels"][asyncapi.CHANNEL]["messages"]
    assert set(channel) == set(messages)
    schemas = DOC["components"]["schemas"]
    assert schemas["ErrorCode"]["enum"] == [code.value for code in ErrorCode]
    assert schemas["CloseCode"]["enum"] == [int(code) for code in CloseCode]


EXAMPLES = examples()


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.title for e in EXAMPLES])
def test_every_frame_of_the_guide_fits_its_message(example: Example) -> None:
    frame = msgpack.unpackb(example.data)
    validator = frame_validator(message_of(frame))
    assert [e.message for e in validator.iter_errors(frame)] == []


def test_a_frame_the_server_refuses_does_not_fit() -> None:
    move = frame_validator("request.move")
    good = msgpack.unpackb(encode_request(MoveRequest(move="3a"), 7))
    assert move.is_valid(good)
    for bad in (
        {**good, "body": {"move": "3a", "colour": "red"}},  # an unknown field
        {**good, "body": {}},  # the move is required
        {**good, "body": {"move": 3}},  # a number for a string
        {**good, "seq": -1},
        {**good, "id": 1},  # an unknown envelope key
    ):
        assert not move.is_valid(bad), bad
    progress = frame_validator("server.progress")
    sent = msgpack.unpackb(encode(Progress(player="pAAAAAAAAAA", progress=3, moves=2, status="racing", elapsed_ms=10)))
    assert progress.is_valid(sent)
    assert not progress.is_valid({**sent, "body": {**sent["body"], "progress": 53}})


async def test_the_server_serves_the_document(make_memory_server: MakeServer) -> None:
    server: RaceServer = await make_memory_server()
    answer = await get(server.port, "/api/v1/asyncapi.json")
    assert answer.status == 200 and answer.json() == DOC
