"""Frames to messages and back: the envelope, msgpack limits, version negotiation names.

Client frame: ``{"type": str, "seq": int, "body": map}``. Server frame:
``{"type": str, "re": int | nil, "body": map}`` where ``re`` echoes the ``seq`` of the
request it answers and is nil on events.
"""

from __future__ import annotations

from typing import Any, Final

import msgpack

from .errors import ErrorCode, ProtocolError
from .messages import REQUESTS, SERVER_MESSAGES
from .schema import Message

VERSION: Final = 1
SUBPROTOCOL: Final = f"seahaven.v{VERSION}"
MAX_FRAME: Final = 4096
"""Largest frame a client may send, in bytes; bigger ones close the connection with 1009."""
MAX_SEQ: Final = 2**53

MAX_DEPTH: Final = 4
"""Maps and arrays nest at most this deep in a client frame (the envelope is depth 1, the body 2)."""
MAX_MAP: Final = 32
"""Entries in one map of a client frame."""
MAX_ARRAY: Final = 256
"""Items in one array of a client frame."""


_ENVELOPE: Final = frozenset({"type", "seq", "body"})

_pack = msgpack.Packer().pack
"""``msgpack.packb`` without its wrapper's new Packer per frame (the same bytes: the same default
options). One C call that holds the GIL while it packs these plain values, so one is shared."""


def encode(message: Message, re: int | None = None) -> bytes:
    """A server frame carrying ``message`` (``re``: the seq it answers)."""
    data: bytes = _pack({"type": message.TYPE, "re": re, "body": message.to_body()})
    return data


def encode_request(message: Message, seq: int) -> bytes:
    """A client frame carrying ``message`` with sequence number ``seq``."""
    data: bytes = _pack({"type": message.TYPE, "seq": seq, "body": message.to_body()})
    return data


def _unpack(data: bytes | str) -> dict[object, object]:
    """A server frame's map (lenient: for clients)."""
    if isinstance(data, str):
        raise ProtocolError(ErrorCode.BAD_FRAME, "text frames are not spoken here: send binary msgpack frames")
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except msgpack.ExtraData:
        raise ProtocolError(ErrorCode.BAD_FRAME, "one msgpack value per frame: found bytes after it") from None
    except (ValueError, msgpack.UnpackException, TypeError):
        raise ProtocolError(ErrorCode.BAD_FRAME, "not valid msgpack") from None
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.BAD_FRAME, "a frame is one msgpack map with type, seq and body")
    return value


def _unpack_request(data: bytes | str) -> dict[str, object]:
    """A client frame's envelope map, checked for what the protocol never carries (bad-frame,
    with ``seq`` set whenever the frame's seq could be read)."""
    if isinstance(data, str):
        raise ProtocolError(ErrorCode.BAD_FRAME, "text frames are not spoken here: send binary msgpack frames")
    problem = None
    try:
        # Invalid UTF-8 and non-string keys are let through here, so that the seq can still be
        # read and the error answer it; _problem refuses them.
        value = msgpack.unpackb(data, raw=False, unicode_errors="surrogateescape", strict_map_key=False)
    except msgpack.ExtraData as extra:
        value, problem = extra.unpacked, "one msgpack value per frame: found bytes after it"
    except msgpack.StackError:
        raise ProtocolError(ErrorCode.BAD_FRAME, f"maps and arrays nest at most {MAX_DEPTH} deep") from None
    except (ValueError, msgpack.UnpackException, TypeError):
        raise ProtocolError(ErrorCode.BAD_FRAME, "not valid msgpack") from None
    if problem is None and not (type(value) is dict and _plain(value)):  # a plain map needs no walk
        problem = _problem(value)
    if problem is not None:
        error = ProtocolError(ErrorCode.BAD_FRAME, problem)
        error.seq = _seq_of(value)
        raise error
    assert isinstance(value, dict)
    return value


def _problem(value: object) -> str | None:
    """What makes a decoded client frame unacceptable whatever its type, or None. Walks the
    value without recursion, so no nesting depth can exhaust the stack (``_plain`` maps need no
    walk: the caller asks that first)."""
    if not isinstance(value, dict):
        return "a frame is one msgpack map with type, seq and body"
    return _walk(value)


def _walk(value: dict[object, object]) -> str | None:
    """``_problem`` for any map, item by item."""
    todo: list[tuple[object, int]] = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return f"maps and arrays nest at most {MAX_DEPTH} deep"
            if isinstance(item, dict):
                if len(item) > MAX_MAP:
                    return f"a map holds at most {MAX_MAP} entries"
                if not all(isinstance(key, str) for key in item):
                    return "map keys must be strings"
                todo += [(v, depth + 1) for v in (*item, *item.values())]
            else:
                if len(item) > MAX_ARRAY:
                    return f"an array holds at most {MAX_ARRAY} items"
                todo += [(v, depth + 1) for v in item]
        elif isinstance(item, str):
            # Invalid UTF-8 was decoded to lone surrogates (surrogateescape), never ASCII.
            if not item.isascii() and any("\udc80" <= ch <= "\udcff" for ch in item):
                return "strings must be valid UTF-8"
        elif isinstance(item, bytes):
            return "binary values are not spoken here: send strings"
        elif isinstance(item, msgpack.ExtType):
            return "extension types are not spoken here"
    return None


_SCALARS: Final = frozenset({int, float, bool, type(None)})


def _plain(value: dict[Any, Any]) -> bool:
    """A map of ASCII-keyed scalars and such maps, nothing else: almost every request (a move,
    ready, a join), which then needs no walk. False says only "walk it", never "refuse it".

    Types are compared with ``is``, not ``isinstance``: msgpack decodes to the exact built-in
    types, and a subclass would only be walked (the walk's checks are the ones that decide).
    (``Any``: mypy does not narrow a type held in a variable, and one ``type`` call per item is
    what this saves.)"""
    if len(value) > MAX_MAP:
        return False
    for key, item in value.items():
        if type(key) is not str or not key.isascii():
            return False
        kind = type(item)
        if kind is dict:
            if len(item) > MAX_MAP:
                return False
            for inner_key, inner in item.items():
                if type(inner_key) is not str or not inner_key.isascii():
                    return False
                inner_kind = type(inner)
                if inner_kind is str:
                    if not inner.isascii():
                        return False
                elif inner_kind not in _SCALARS:
                    return False
        elif kind is str:
            if not item.isascii():
                return False
        elif kind not in _SCALARS:
            return False
    return True


def _seq_of(value: object) -> int | None:
    """The frame's seq if it has a valid one."""
    seq = value.get("seq") if isinstance(value, dict) else None
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        return None
    return seq


def _shown(value: object) -> str:
    """A short rendering of client input for an error message (never the whole of it)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 24 else repr(value[:21] + "...")
    return f"a value of type {type(value).__name__}"


def decode_request(data: bytes | str) -> tuple[int, Message]:
    """Read a client frame: (seq, message). ProtocolError.seq is set when the seq was readable.

    Frame-level errors come first, in this order: bad-frame, bad-seq, unknown-type; only
    then is the body checked (bad-field)."""
    frame = _unpack_request(data)
    seq = _seq_of(frame)
    if seq is None:
        raise ProtocolError(ErrorCode.BAD_SEQ, f"seq must be an integer from 0 to {MAX_SEQ}")
    try:
        if not frame.keys() <= _ENVELOPE:  # a set comparison in C, no set built for a good frame
            extra = sorted(set(frame) - _ENVELOPE)
            raise ProtocolError(ErrorCode.BAD_FRAME, f"unknown envelope key {_shown(extra[0])}")
        kind = frame.get("type")
        if not isinstance(kind, str):
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, "type must be a string naming a request")
        cls = REQUESTS.get(kind)
        if cls is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {_shown(kind)}")
        body = frame.get("body")
        # A missing body and a nil one both mean "no fields" (some msgpack libraries write an
        # empty map as nil).
        return seq, cls.from_body({} if body is None else body)
    except ProtocolError as exc:
        exc.seq = seq
        raise


def decode_server(data: bytes | str) -> tuple[int | None, Message]:
    """Read a server frame: (re, message). For clients."""
    frame = _unpack(data)
    kind = frame.get("type")
    cls = SERVER_MESSAGES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown server message type {_shown(kind)}")
    re = frame.get("re")
    # Lenient: a newer server may add fields within the same version.
    return (re if isinstance(re, int) else None), cls.from_body(frame.get("body", {}), strict=False)
