"""The client frame decoder: every bad frame is a clear error that answers its seq when it can."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import MAX_DEPTH, _plain, _walk, decode_request, encode_request
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import MoveRequest, Ping


def refused(frame: bytes | str) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        decode_request(frame)
    return info.value


def ping(**extra: object) -> bytes:
    return bytes(msgpack.packb({"type": "ping", "seq": 5, "body": {}, **extra}))


def test_a_good_frame_reads_back() -> None:
    assert decode_request(encode_request(MoveRequest(move="3c"), 9)) == (9, MoveRequest(move="3c"))
    assert decode_request(ping()) == (5, Ping())


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (ping() + b"\x00", "one msgpack value per frame: found bytes after it"),
        (msgpack.packb({"type": "ping", "seq": 5, "body": {"x": b"ab"}}), "binary values are not spoken here"),
        (msgpack.packb({"type": "ping", "seq": 5, "body": msgpack.ExtType(1, b"x")}), "extension types"),
        (b"\x83\xa4type\xa4pin\xff\xa3seq\x05\xa4body\x80", "strings must be valid UTF-8"),
        (msgpack.packb({"type": "ping", "seq": 5, "body": {f"k{i}": i for i in range(33)}}), "at most 32 entries"),
        (msgpack.packb({"type": "ping", "seq": 5, "body": {"a": list(range(257))}}), "at most 256 items"),
        (msgpack.packb({"type": "ping", "seq": 5, "body": {1: 2}}), "map keys must be strings"),
        (b"\x83\xa3seq\x05\xa4body\x80\xa4type" + b"\x91" * 1000 + b"\xc0", f"nest at most {MAX_DEPTH} deep"),
    ],
)
def test_bad_frames_with_a_readable_seq_answer_it(frame: bytes, message: str) -> None:
    error = refused(frame)
    assert error.code == ErrorCode.BAD_FRAME and message in error.message
    assert error.seq == 5


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100, 339, 1017, 1500, 4000])
def test_deep_nesting_is_a_bad_frame_at_any_depth(depth: int) -> None:
    nested_maps = b"\x81\xa1a" * depth + b"\xc0"  # {"a": {"a": ...}}: 1018 bytes at depth 339, no seq
    error = refused(nested_maps)
    assert error.code == ErrorCode.BAD_FRAME and error.message == f"maps and arrays nest at most {MAX_DEPTH} deep"
    assert refused(b"\x91" * depth + b"\xc0").code == ErrorCode.BAD_FRAME


def test_a_body_nested_within_the_limit_is_judged_by_its_fields() -> None:
    frame = msgpack.packb({"type": "move", "seq": 5, "body": {"move": {"a": [1]}}})
    error = refused(frame)
    assert error.code == ErrorCode.BAD_FIELD and error.message == "body.move: expected a string, got a map of 1"


@pytest.mark.parametrize(
    "frame",
    [
        msgpack.packb({"type": "x" * 3000, "seq": 5, "body": {}}),
        msgpack.packb({"type": "ping", "seq": 5, "body": {"k" * 3000: 1}}),
        msgpack.packb({"type": "ping", "seq": 5, "k" * 3000: 1}),
        msgpack.packb({"type": "move", "seq": 5, "body": {"move": "m" * 3000}}),
    ],
)
def test_error_messages_never_repeat_a_long_input(frame: bytes) -> None:
    assert len(refused(frame).message) < 100


@pytest.mark.parametrize(
    "frame",
    [
        b"\xc1\x00garbage",
        msgpack.packb({"type": "ping", "seq": 5, "body": {"x": b"\x00" * 10}}),
        msgpack.packb({"type": "ping", "seq": 5, "body": {1: 2}}),
        msgpack.packb({"seq": 5, "body": {}}),
        msgpack.packb({"type": 7, "seq": 5, "body": {}}),
    ],
)
def test_error_messages_name_no_library_internals(frame: bytes) -> None:
    message = refused(frame).message
    for internal in ("max_", "strict_map_key", "Error", "None", "exceeds"):
        assert internal not in message


def test_frame_errors_come_before_seq_errors_before_type_errors_before_fields() -> None:
    assert refused("text").code == ErrorCode.BAD_FRAME
    assert refused(msgpack.packb({"type": "dance", "body": {"x": b""}})).code == ErrorCode.BAD_FRAME
    assert refused(msgpack.packb({"type": "dance", "seq": "7", "body": {"x": 1}})).code == ErrorCode.BAD_SEQ
    unknown = refused(msgpack.packb({"type": "dance", "seq": 7, "body": {"x": 1}}))
    assert unknown.code == ErrorCode.UNKNOWN_TYPE and unknown.message == "unknown message type 'dance'"
    missing = refused(msgpack.packb({"seq": 7, "body": {}}))
    assert missing.code == ErrorCode.UNKNOWN_TYPE and missing.message == "type must be a string naming a request"


_names = st.sampled_from(["type", "seq", "body", "move", "room"])
_keys = st.one_of(_names, _names, _names, st.text(max_size=6), st.integers(-3, 3), st.binary(max_size=3))
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=8),
    st.sampled_from(["\udc80", "ok\udcff", "\u00e9"]),  # what invalid UTF-8 decodes to, and a valid non-ASCII
    st.binary(max_size=4),
)
_mostly_names = st.one_of(_names, _names, _names, _names, _keys)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=12,
)


_frames = st.one_of(
    st.fixed_dictionaries(
        {"type": _scalars, "seq": _scalars, "body": st.dictionaries(_mostly_names, _scalars, max_size=3)}
    ),
    st.dictionaries(
        _mostly_names, st.one_of(_scalars, st.dictionaries(_mostly_names, _scalars, max_size=3), _values), max_size=4
    ),
)


@settings(max_examples=600, deadline=None)
@given(_frames)
def test_the_plain_frame_shortcut_never_lets_through_what_the_walk_refuses(frame: dict[object, object]) -> None:
    """``_plain`` (no walk for a map of ASCII scalars and such maps) only ever says yes to frames
    the full walk accepts too."""
    if _plain(frame):
        assert _walk(frame) is None


def test_the_plain_frame_shortcut_takes_the_common_requests() -> None:
    assert _plain({"type": "move", "seq": 7, "body": {"move": "1h"}})
    assert _plain({"type": "join_room", "seq": 2, "body": {"room": "ABCDEF", "spectate": False}})
    assert not _plain({"type": "move", "seq": 7, "body": {"move": "\udc80"}})  # walked, then refused
    assert not _plain({"type": "x", "seq": 1, "body": {"a": [1, 2]}})  # nested deeper: walked
