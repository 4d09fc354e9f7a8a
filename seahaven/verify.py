"""A signed race record, checked by anyone with nothing but the record (``seahaven verify``).

A record is a JSON document ``{"record": {...}, "signature": "<base64>"}``; the signature is
Ed25519 over the record's canonical form (RFC 8785, JSON Canonicalization Scheme), and the record
names its key (``signer``: the raw public key and its fingerprint). ``verify`` runs every check
the record allows without the server's code or data: the signature; the deal's draw (the seed
against the commitment, the deal against the draw, or a daily deal against the day); every
racer's moves played again by this package's engine in order, undos included, those the server
played for the racer (``auto``: auto-moves, and the undos of them) checked against the rule; their times
increasing and within the race; the standings, statuses, progress and times recomputed. Given the
server's published keys (``/api/v1/keys``) it also checks that the key is one of them.

The one place outside the standard library this package reaches is ``cryptography`` (pyca), for
Ed25519 only, imported where a signature is made or checked: the engine itself needs nothing.
docs/fairness.md describes the scheme, what it proves and what it does not.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import functools
import hashlib
import hmac
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .board import Board, IllegalMoveError
from .codes import encode
from .daily import daily_deal
from .moves import read_move
from .winnable import deal_list

FORMAT: Final = "seahaven-race/1"
"""The record's ``format``: a verifier refuses any other, so a later form cannot pass for this one."""
ALGORITHM: Final = "Ed25519"
DRAW_CONTEXT: Final = b"seahaven-draw/1"
"""Mixed into every draw, so a seed cannot be replayed from another scheme's HMAC."""


def canonical(value: Any) -> bytes:
    """``value`` in RFC 8785's canonical JSON, as UTF-8: keys sorted, no blanks, strings escaped as
    ECMAScript's ``JSON.stringify`` does. Records hold no floats (times are integer milliseconds),
    so the scheme's number rule is never needed; a float is refused rather than guessed at."""
    _refuse_floats(value)
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return text.encode("utf-8")


def _refuse_floats(value: Any) -> None:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return  # the leaves of almost every record: checked first, by exact type (no ABC checks)
    if kind is float:
        raise ValueError("a signed record holds no floats")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if type(key) is not str or not key.isascii():
                raise ValueError(f"a signed record's keys are ASCII strings, not {key!r}")
            _refuse_floats(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _refuse_floats(item)
    elif not isinstance(value, str | int):
        raise ValueError(f"a signed record holds no {kind.__name__}")


def fingerprint(public_key: bytes) -> str:
    """A key's name: ``SHA256:`` and the base64 of the SHA-256 of its 32 raw bytes (unpadded, as
    OpenSSH prints a key's fingerprint)."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(public_key).digest()).decode().rstrip("=")


def commitment(seed: bytes) -> str:
    """What a room shows before its start for a secret ``seed``: SHA-256 of it, in hex."""
    return hashlib.sha256(seed).hexdigest()


def draw_index(server_seed: bytes, racer_seeds: Sequence[bytes], count: int) -> int:
    """The index of the drawn deal among ``count`` listed ones: HMAC-SHA-256 keyed by the server's
    seed over the racers' seeds in seat order, each length-prefixed, read as a big integer modulo
    ``count`` (512 bits of digest against a few thousand entries: the bias is nil)."""
    message = bytearray(DRAW_CONTEXT)
    for seed in racer_seeds:
        message += len(seed).to_bytes(2, "big") + seed
    first = hmac.new(server_seed, bytes(message) + b"\x00", hashlib.sha256).digest()
    second = hmac.new(server_seed, bytes(message) + b"\x01", hashlib.sha256).digest()
    return int.from_bytes(first + second, "big") % count


@functools.cache
def draw_candidates(preset: str, grade: str | None) -> tuple[int, ...]:
    """The published deals a draw of ``preset`` (of ``grade``: None, any) picks among, in order."""
    book = deal_list(preset)
    return tuple(number for number, its in book.deals if grade is None or its == grade)


@functools.cache
def list_digest(preset: str) -> str:
    """SHA-256 (hex) of the published list a draw of ``preset`` reads (the file as shipped)."""
    return hashlib.sha256(deal_list(preset).to_text().encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Check:
    """One check's outcome: ``ok`` True (passed), False (failed: ``detail`` says why) or None (the
    record gives nothing to check it with, said in ``detail``)."""

    name: str
    ok: bool | None
    detail: str


def sign(record: Mapping[str, Any], private_key: Any) -> dict[str, Any]:
    """The signed document of ``record`` (an ``Ed25519PrivateKey`` signs its canonical form)."""
    signature = private_key.sign(canonical(record))
    return {"record": dict(record), "signature": base64.b64encode(signature).decode()}


def verify(document: Any, keys: Sequence[Mapping[str, Any]] | None = None) -> list[Check]:
    """Every check of a signed record, in order; ``keys``: a server's published keys (the
    ``keys`` of ``/api/v1/keys``) to check the record's key against (None: not checked)."""
    try:
        record, signature, public = _parts(document)
    except ValueError as exc:
        return [Check("form", False, str(exc))]
    checks = [Check("form", True, FORMAT), _signature(record, signature, public)]
    if keys is not None:
        checks.append(_published(record, public, keys))
    else:
        checks.append(Check("published key", None, "not checked: give the server's published keys (--keys)"))
    checks.append(_draw(record))
    checks.extend(_racers(record))
    return checks


def passed(checks: Sequence[Check]) -> bool:
    """No check failed (those with nothing to check by are not failures)."""
    return all(check.ok is not False for check in checks)


def _parts(document: Any) -> tuple[dict[str, Any], bytes, bytes]:
    if not isinstance(document, Mapping) or not isinstance(document.get("record"), Mapping):
        raise ValueError("not a signed record: no 'record' object")
    record = dict(document["record"])
    if record.get("format") != FORMAT:
        raise ValueError(f"format {record.get('format')!r}, not {FORMAT!r}")
    signer = record.get("signer")
    if not isinstance(signer, Mapping) or signer.get("alg") != ALGORITHM:
        raise ValueError(f"the record names no {ALGORITHM} signer")
    try:
        signature = base64.b64decode(str(document.get("signature", "")), validate=True)
        public = base64.b64decode(str(signer.get("key", "")), validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("the signature or the signer's key is not base64") from None
    if len(public) != 32 or len(signature) != 64:
        raise ValueError("an Ed25519 key is 32 bytes and its signature 64")
    fields = ("race", "preset", "deal", "started_at", "ended_at", "racers", "draw")
    missing = [name for name in fields if name not in record]
    if missing:
        raise ValueError(f"the record lacks {', '.join(missing)}")
    return record, signature, public


def _signature(record: dict[str, Any], signature: bytes, public: bytes) -> Check:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    name = fingerprint(public)
    if record["signer"].get("id") != name:
        return Check("signature", False, f"the signer's id {record['signer'].get('id')!r} is not its key's {name}")
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, canonical(record))
    except InvalidSignature:
        return Check("signature", False, f"the record was altered or not signed by {name}")
    except ValueError as exc:  # a float or a non-ASCII key: no canonical form, so nothing was signed
        return Check("signature", False, str(exc))
    return Check("signature", True, f"{ALGORITHM} by {name}")


def _published(record: dict[str, Any], public: bytes, keys: Sequence[Mapping[str, Any]]) -> Check:
    name = fingerprint(public)
    key = base64.b64encode(public).decode()
    listed = next((k for k in keys if k.get("id") == name and k.get("key") == key), None)
    if listed is None:
        return Check("published key", False, f"{name} is not among the server's published keys")
    signed_at = record.get("signed_at")
    since, until = listed.get("since"), listed.get("until")
    if isinstance(signed_at, int) and isinstance(since, int) and signed_at < since:
        return Check("published key", False, f"signed before the key's validity ({since})")
    if isinstance(signed_at, int) and isinstance(until, int) and signed_at > until:
        return Check("published key", False, f"signed after the key was retired ({until})")
    return Check("published key", True, f"{name} is published by the server")


def _draw(record: dict[str, Any]) -> Check:
    draw = record["draw"]
    deal, preset = record["deal"], record["preset"]
    try:
        code = encode(preset, deal)
    except (ValueError, TypeError) as exc:
        return Check("draw", False, str(exc))
    if record.get("deal_code") != code:
        return Check("draw", False, f"deal code {record.get('deal_code')!r} is not deal {deal}'s ({code})")
    kind = draw.get("kind") if isinstance(draw, Mapping) else None
    if kind == "chosen":
        return Check("draw", None, f"deal {deal} was chosen by the room's creator: nothing was drawn")
    if kind == "picked":
        return Check("draw", None, f"deal {deal} was picked by the server without a commitment")
    if kind == "daily":
        try:
            day = datetime.date.fromisoformat(str(draw.get("day")))
            expected = daily_deal(preset, day)
        except ValueError as exc:
            return Check("draw", False, f"daily deal: {exc}")
        if expected != deal:
            return Check("draw", False, f"the daily deal of {day} is {expected}, not {deal}")
        return Check("draw", True, f"the daily deal of {day}")
    if kind == "drawn":
        return _drawn(draw, preset, deal)
    return Check("draw", False, f"unknown draw {kind!r}")


def _drawn(draw: Mapping[str, Any], preset: str, deal: int) -> Check:
    try:
        seed = bytes.fromhex(str(draw["seed"]))
        seeds = [bytes.fromhex(str(s)) for s in draw["seeds"]]
    except (KeyError, ValueError, TypeError):
        return Check("draw", False, "the draw's seeds are not hex")
    if commitment(seed) != draw.get("commitment"):
        return Check("draw", False, "the server's seed does not match its commitment")
    if draw.get("list") != list_digest(preset):
        return Check("draw", False, f"the draw read a list other than the published {preset} list")
    candidates = draw_candidates(preset, draw.get("grade"))
    if not candidates:
        return Check("draw", False, f"the published list has no {draw.get('grade')} deal")
    drawn = candidates[draw_index(seed, seeds, len(candidates))]
    if drawn != deal:
        return Check("draw", False, f"the seeds draw deal {drawn}, not {deal}")
    by = f"{len(seeds) + 1} seeds (commitment {draw.get('commitment', '')[:12]})"
    return Check("draw", True, f"deal {deal} drawn from {len(candidates)} published deals by {by}")


def _racers(record: dict[str, Any]) -> list[Check]:
    """Each racer's moves replayed (one check per racer), then the standings recomputed."""
    span = record["ended_at"] - record["started_at"]
    limit = (record.get("settings") or {}).get("time_limit_ms")
    checks: list[Check] = []
    keys: list[tuple[int, int, int]] = []
    racers = record["racers"]
    for racer in racers:
        check, key = _racer(record, racer, span, limit)
        checks.append(check)
        keys.append(key)
    places = [r.get("place") for r in racers]
    if places != list(range(1, len(racers) + 1)):
        checks.append(Check("standings", False, f"places {places} are not 1 to {len(racers)} in order"))
    elif any(a > b for a, b in itertools.pairwise(keys)):
        checks.append(Check("standings", False, "the places are not in the order the race's rule gives"))
    else:
        checks.append(Check("standings", True, "places follow times, progress and who got there first"))
    return checks


def _index(value: object, count: int) -> bool:
    """``value`` is an index into a list of ``count`` (an int, not a bool or a float)."""
    return type(value) is int and 0 <= value < count


def _racer(record: dict[str, Any], racer: Mapping[str, Any], span: int, limit: int | None) -> tuple[Check, Any]:
    """One racer's check, and their standing's sort key (finishers by time, then by progress and
    who reached it first, quitters last: the room's rule)."""
    name = f"racer {racer.get('player')}"
    board = Board.deal(record["preset"], record["deal"])
    previous, reached, finished_at = 0, 0, None
    marks = racer.get("auto", [])  # a record older than the marks has none
    count = len(racer.get("moves", []))
    if not isinstance(marks, list) or len(set(marks)) != len(marks) or not all(_index(i, count) for i in marks):
        return Check(name, False, "auto is not a list of distinct move indices"), ()
    served = set(marks)
    by_server: list[bool] = []  # for each move on the board: whether the server played it
    for index, entry in enumerate(racer.get("moves", [])):
        at, text = entry
        if not isinstance(at, int) or at < previous or at > span or (limit is not None and at > limit):
            return Check(name, False, f"move {index + 1} at {at} ms is out of order or outside the race"), ()
        previous = at
        before = board.progress
        auto = index in served
        try:
            if text == "undo":
                if by_server and by_server[-1] != auto:
                    whose = "an auto-move" if by_server[-1] else "a move of the racer's"
                    return Check(name, False, f"move {index + 1} (undo) takes back {whose} out of turn"), ()
                board.pop()
                by_server.pop()
            else:
                move = read_move(text)
                rule = board.auto_move() if auto else None
                if auto and rule != move:
                    gives = "none" if rule is None else str(rule)
                    return Check(name, False, f"move {index + 1} ({text}) is no auto-move: the rule gives {gives}"), ()
                board.push(move)
                by_server.append(auto)
        except (IllegalMoveError, ValueError, IndexError) as exc:
            return Check(name, False, f"move {index + 1} ({text}) is not legal: {exc}"), ()
        if board.progress != before:
            reached = at
        if board.is_won() and finished_at is None:
            finished_at = at
    status = racer.get("status")
    won = board.is_won()
    if won != (status == "finished"):
        return Check(name, False, f"status {status!r} but the board is {'won' if won else 'not won'}"), ()
    if status == "stuck" and board.has_legal_move():
        return Check(name, False, "status 'stuck' but a legal move is left"), ()
    if racer.get("progress") != board.progress:
        return Check(name, False, f"progress {racer.get('progress')} but {board.progress} cards are home"), ()
    time_ms = finished_at if won else reached
    if racer.get("time_ms") != time_ms:
        return Check(name, False, f"time {racer.get('time_ms')} ms but the moves give {time_ms} ms"), ()
    moves = len(racer.get("moves", []))
    replayed = f"{moves} move replayed" if moves == 1 else f"{moves} moves replayed"
    if served:
        replayed += f" ({len(served)} by auto-move)"
    if won:
        return Check(name, True, f"{replayed}: finished in {time_ms} ms"), (0, time_ms, 0)
    quit_ = 2 if status in ("resigned", "forfeit") else 1
    return Check(name, True, f"{replayed}: {board.progress}/52 home, {status}"), (
        quit_,
        -board.progress,
        reached,
    )
