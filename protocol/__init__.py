"""The wire format between race server and clients: msgpack maps over WebSocket binary frames.

docs/protocol.md is the contract; this package is its executable form, shared by the
server and the clients. It depends on the rules engine (``seahaven``) only for names
of presets; it never imports the server or a client.
"""

from .codec import MAX_FRAME, SUBPROTOCOL, VERSION, decode_request, decode_server, encode
from .errors import CloseCode, ErrorCode, ProtocolError

__all__ = [
    "MAX_FRAME",
    "SUBPROTOCOL",
    "VERSION",
    "CloseCode",
    "ErrorCode",
    "ProtocolError",
    "decode_request",
    "decode_server",
    "encode",
]
