"""Frames to messages and back: the envelope, msgpack limits, version negotiation names.

Client frame: ``{"type": str, "seq": int, "body": map}``. Server frame:
``{"type": str, "re": int | nil, "body": map}`` where ``re`` echoes the ``seq`` of the
request it answers and is nil on events.
"""

from __future__ import annotations

from typing import Final

import msgpack

from .errors import ErrorCode, ProtocolError
from .messages import REQUESTS, SERVER_MESSAGES
from .schema import Message

VERSION: Final = 1
SUBPROTOCOL: Final = f"seahaven.v{VERSION}"
MAX_FRAME: Final = 4096
"""Largest frame a client may send, in bytes; bigger ones close the connection with 1009."""
MAX_SEQ: Final = 2**53

_UNPACK_LIMITS: Final = {
    "max_str_len": MAX_FRAME,
    "max_bin_len": 0,
    "max_array_len": 256,
    "max_map_len": 32,
    "max_ext_len": 0,
}


def encode(message: Message, re: int | None = None) -> bytes:
    """A server frame carrying ``message`` (``re``: the seq it answers)."""
    data: bytes = msgpack.packb({"type": message.TYPE, "re": re, "body": message.to_body()})
    return data


def encode_request(message: Message, seq: int) -> bytes:
    """A client frame carrying ``message`` with sequence number ``seq``."""
    data: bytes = msgpack.packb({"type": message.TYPE, "seq": seq, "body": message.to_body()})
    return data


def _unpack(data: bytes | str, limits: bool) -> dict[object, object]:
    if isinstance(data, str):
        raise ProtocolError(ErrorCode.BAD_FRAME, "text frames are not spoken here: send binary msgpack frames")
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, **(_UNPACK_LIMITS if limits else {}))
    except msgpack.ExtraData:
        raise ProtocolError(ErrorCode.BAD_FRAME, "one msgpack value per frame: found bytes after it") from None
    except (ValueError, msgpack.UnpackException, TypeError) as exc:
        raise ProtocolError(ErrorCode.BAD_FRAME, f"not valid msgpack: {str(exc) or type(exc).__name__}") from None
    if not isinstance(value, dict):
        raise ProtocolError(ErrorCode.BAD_FRAME, "a frame is one msgpack map with type, seq and body")
    return value


def decode_request(data: bytes | str) -> tuple[int, Message]:
    """Read a client frame: (seq, message). ProtocolError.seq is set when the seq was readable."""
    frame = _unpack(data, limits=True)
    seq = frame.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        raise ProtocolError(ErrorCode.BAD_SEQ, f"seq must be an integer from 0 to {MAX_SEQ}")
    try:
        extra = set(frame) - {"type", "seq", "body"}
        if extra:
            raise ProtocolError(ErrorCode.BAD_FRAME, f"unknown envelope key {sorted(map(str, extra))[0]!r}")
        kind = frame.get("type")
        cls = REQUESTS.get(kind) if isinstance(kind, str) else None
        if cls is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind!r}")
        return seq, cls.from_body(frame.get("body", {}))
    except ProtocolError as exc:
        exc.seq = seq
        raise


def decode_server(data: bytes | str) -> tuple[int | None, Message]:
    """Read a server frame: (re, message). For clients."""
    frame = _unpack(data, limits=False)
    kind = frame.get("type")
    cls = SERVER_MESSAGES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown server message type {kind!r}")
    re = frame.get("re")
    # Lenient: a newer server may add fields within the same version.
    return (re if isinstance(re, int) else None), cls.from_body(frame.get("body", {}), strict=False)
