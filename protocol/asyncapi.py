"""The WebSocket protocol as data: an AsyncAPI 3.0 document built from the messages' field specs.

docs/protocol.md is the guide (how a race flows, seqs, resends, reconnects, what each message and
field is for; docs/protocol-examples.md its tested frames); this is its reference, which the guide
leaves types, ranges and defaults to, in a form a client in another language generates code from.
It is built, never written by hand: every request (``REQUESTS``) and server message
(``SERVER_MESSAGES``), each field with its type, range, choices, default and whether it may be left
out, the error codes and the close codes, all read from protocol/, so the two cannot disagree. The
server serves it at ``/api/v1/asyncapi.json`` (server/http/api.py); tests validate it against
AsyncAPI's own schema and the document's frames against it.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from .codec import VERSION
from .errors import CloseCode, ErrorCode
from .messages import REQUESTS, SERVER_MESSAGES
from .schema import Bool, Int, ListOf, Message, Obj, Opt, Spec, Str

ASYNCAPI: Final = "3.0.0"
CHANNEL: Final = "race"
"""The one channel: the WebSocket at ``/`` (each request and server message is a message of it)."""
SEQ_MAX: Final = 2**53


def document() -> dict[str, Any]:
    """The AsyncAPI document of protocol version ``VERSION``, from the server's point of view: it
    receives the requests and sends the replies and events."""
    schemas: dict[str, Any] = {}
    messages: dict[str, Any] = {}
    for kind, cls in REQUESTS.items():
        messages[_message_name(kind, "request")] = _message(kind, cls, schemas, request=True)
    for kind, cls in SERVER_MESSAGES.items():
        messages[_message_name(kind, "server")] = _message(kind, cls, schemas, request=False)
    channel_messages = {name: {"$ref": f"#/components/messages/{name}"} for name in messages}
    requests = [name for name in messages if name.startswith("request.")]
    replies = [name for name in messages if name.startswith("server.")]
    return {
        "asyncapi": ASYNCAPI,
        "info": {
            "title": "Seahaven race protocol",
            "version": str(VERSION),
            "description": (
                "Race a friend at Seahaven Towers over one WebSocket: msgpack frames, a client's request "
                "{type, seq, body} answered by a server message {type, re, body} with re = seq, events with "
                "re nil. The guide, with the rules of seqs, resends and reconnects, is docs/protocol.md, and "
                "byte-exact examples are docs/protocol-examples.md; this document is generated from the code "
                "that checks every frame."
            ),
        },
        "defaultContentType": "application/msgpack",
        "servers": {
            "local": {
                "host": "127.0.0.1:8765",
                "protocol": "ws",
                "description": "seahaven-server's default address (wss behind TLS: docs/operating.md)",
            }
        },
        "channels": {
            CHANNEL: {
                "address": "/",
                "title": "The race connection",
                "description": "Say hello first; one connection carries a player's lobby, rooms and races.",
                "messages": channel_messages,
            }
        },
        "operations": {
            "receiveRequest": {
                "action": "receive",
                "channel": {"$ref": f"#/channels/{CHANNEL}"},
                "summary": "A client's request: checked field by field, answered by one server message",
                "messages": [{"$ref": f"#/channels/{CHANNEL}/messages/{name}"} for name in requests],
            },
            "sendMessage": {
                "action": "send",
                "channel": {"$ref": f"#/channels/{CHANNEL}"},
                "summary": "A reply (re = the request's seq) or an event (re nil)",
                "messages": [{"$ref": f"#/channels/{CHANNEL}/messages/{name}"} for name in replies],
            },
        },
        "components": {
            "messages": messages,
            "schemas": {**schemas, "ErrorCode": _codes(), "CloseCode": _close_codes()},
        },
    }


def _message_name(kind: str, side: str) -> str:
    """``request.move``, ``server.moved``: a request and a server message may share a type name."""
    return f"{side}.{kind}"


def _message(kind: str, cls: type[Message], schemas: dict[str, Any], *, request: bool) -> dict[str, Any]:
    body = _schema_of(cls, schemas, request=request)
    if request:
        envelope = {
            "type": "object",
            "additionalProperties": False,
            "required": ["type", "seq"],
            "properties": {
                "type": {"const": kind},
                "seq": {"type": "integer", "minimum": 0, "maximum": SEQ_MAX},
                "body": {"oneOf": [body, {"type": "null"}], "description": "may be left out or nil when empty"},
            },
        }
    else:
        envelope = {
            "type": "object",
            "required": ["type", "re", "body"],
            "properties": {
                "type": {"const": kind},
                "re": {
                    "oneOf": [{"type": "integer", "minimum": 0, "maximum": SEQ_MAX}, {"type": "null"}],
                    "description": "the seq of the request this answers; nil for an event",
                },
                "body": body,
            },
        }
    return {
        "name": kind,
        "title": cls.__name__,
        "summary": _summary(cls),
        "contentType": "application/msgpack",
        "payload": envelope,
    }


def _summary(cls: type[Message]) -> str:
    doc = (cls.__doc__ or "").strip()
    return " ".join(doc.split("\n\n")[0].split()) if doc else cls.__name__


def _schema_of(cls: type[Message], schemas: dict[str, Any], *, request: bool) -> dict[str, Any]:
    """A reference to ``cls``'s schema, written into ``schemas`` on first use. A request's fields
    with a default may be left out and no other key is accepted (the server refuses it); a server
    message leaves out only the fields marked optional, and may grow (a client ignores what it
    does not know)."""
    # A class may be both a request's and a server message's part: the request's is named apart.
    name = cls.__name__ if not request or cls.__name__.endswith("Request") else f"{cls.__name__}Request"
    if name not in schemas:
        schemas[name] = {}  # a placeholder first: a message that nests itself ends here
        properties: dict[str, Any] = {}
        required: list[str] = []
        for f in dataclasses.fields(cls):
            spec: Spec = f.metadata["spec"]
            prop = _spec(spec, schemas, request=request)
            has_default = f.default is not dataclasses.MISSING
            if has_default:
                prop = {**prop, "default": _default(spec, f.default)}
            # A request may leave out what has a default; a server message, only what it omits.
            if not has_default if request else not f.metadata.get("omit"):
                required.append(f.name)
            properties[f.name] = prop
        schema: dict[str, Any] = {"type": "object", "title": cls.__name__, "properties": properties}
        if required:
            schema["required"] = required
        if request:
            schema["additionalProperties"] = False
        schemas[name] = schema
    return {"$ref": f"#/components/schemas/{name}"}


def _spec(spec: Spec, schemas: dict[str, Any], *, request: bool) -> dict[str, Any]:
    """A field spec as JSON Schema (the AsyncAPI schema format's draft 7 subset)."""
    match spec:
        case Str(lo=lo, hi=hi, choices=choices):
            found: dict[str, Any] = {"type": "string", "minLength": lo, "maxLength": hi}
            return {**found, "enum": list(choices)} if choices is not None else found
        case Int(lo=lo, hi=hi):
            return {"type": "integer", "minimum": lo, "maximum": hi}
        case Bool():
            return {"type": "boolean"}
        case Opt(inner=inner):
            return {"oneOf": [_spec(inner, schemas, request=request), {"type": "null"}]}
        case ListOf(inner=inner, hi=hi):
            return {"type": "array", "maxItems": hi, "items": _spec(inner, schemas, request=request)}
        case Obj(cls=cls):
            return _schema_of(cls, schemas, request=request)
    raise TypeError(f"no JSON Schema for {type(spec).__name__}")


def _default(spec: Spec, value: object) -> object:
    """A default as it goes on the wire (a nested message as its body, a tuple as a list)."""
    dumped = spec.dump(value) if value is not None else None
    return list(dumped) if isinstance(dumped, tuple) else dumped


def _codes() -> dict[str, Any]:
    return {
        "type": "string",
        "title": "ErrorCode",
        "description": "An error reply's code (docs/protocol.md section 11); its message says why, for people.",
        "enum": [code.value for code in ErrorCode],
    }


def _close_codes() -> dict[str, Any]:
    return {
        "type": "integer",
        "title": "CloseCode",
        "description": "The WebSocket close codes the server uses (docs/protocol.md section 12).",
        "enum": [int(code) for code in CloseCode],
        "x-names": {str(int(code)): code.name.lower().replace("_", "-") for code in CloseCode},
    }
