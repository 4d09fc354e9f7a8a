"""The server's signing key and a race's signed record (docs/fairness.md).

The archive signs each race in the transaction that writes it (``Archive.write_race``), so a race
is signed exactly once, off the move path. The record is what ``seahaven verify`` checks: the
room's settings, the deal and how it was drawn, every racer's moves with their server times, the
standings, and the stored log's length and chain tip at the race's end. Racers are named by their
player ids only: a display name is taken out of the records when its account is deleted, and a
signature must not keep it.

The key is an Ed25519 key in a PEM file (PKCS #8): ``--signing-key FILE``, else
``signing-key.pem`` in the data folder, made on first start. Several nodes share one key by
sharing the file; two nodes making it at once agree (the first file linked in place wins).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from seahaven.verify import ALGORITHM, FORMAT, commitment, fingerprint, list_digest, sign
from server.rooms.history import RaceRecord
from server.rooms.settings import public_settings

__all__ = ["KEY_FILE", "SigningKey", "race_document"]

KEY_FILE = "signing-key.pem"
"""The key's file name in the data folder when no ``--signing-key`` is given."""


@dataclasses.dataclass(frozen=True)
class SigningKey:
    """A private Ed25519 key and its public half as records name it."""

    private: Ed25519PrivateKey

    @classmethod
    def load_or_create(cls, path: Path) -> SigningKey:
        """The key in ``path``; a new one written there (mode 0600) when there is no file."""
        if not path.exists():
            made = Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".signing-key-")
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(made)
                with contextlib.suppress(FileExistsError):  # link, not rename: a key placed first is kept
                    os.link(temporary, path)
            finally:
                os.unlink(temporary)
        return cls.read(path)

    @classmethod
    def generate(cls) -> SigningKey:
        """A new key, kept nowhere (an archive given no key: tests and benchmarks)."""
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def read(cls, path: Path) -> SigningKey:
        """The key in ``path``: ValueError when it is not an unencrypted Ed25519 PEM key."""
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path} holds a {type(key).__name__}, not an Ed25519 key")
        return cls(key)

    @functools.cached_property
    def public(self) -> str:
        """The public key's 32 raw bytes in base64."""
        raw = self.private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return base64.b64encode(raw).decode()

    @functools.cached_property
    def key_id(self) -> str:
        return fingerprint(base64.b64decode(self.public))

    def sign(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return sign(record, self.private)


def race_document(record: RaceRecord, players: Mapping[str, str], key: SigningKey, signed_at: int) -> dict[str, Any]:
    """The signed document of ``record``; ``players``: racers' ids as the records file them (a
    guest who registered since is filed under the player they became)."""
    settings = record.settings
    return key.sign(
        {
            "format": FORMAT,
            "race": record.race_id,
            "room": record.room,
            "number": record.number,
            "preset": settings.preset,
            "deal": settings.deal,
            "deal_code": record.deal_code,
            "draw": _draw(record),
            "settings": public_settings(settings),
            "started_at": record.started_at,
            "ended_at": record.ended_at,
            "end_reason": record.end_reason,
            "racers": [
                {
                    "player": players.get(racer.player, racer.player),
                    "place": racer.place,
                    "status": racer.status,
                    "progress": racer.progress,
                    "time_ms": racer.time_ms,
                    "hints": racer.hints,
                    "bot": racer.bot,
                    "ghost": racer.ghost,
                    "moves": [[at, move] for at, move in racer.moves],
                    "auto": list(racer.auto),
                }
                for racer in record.racers
            ],
            "log": {"length": record.log[0], "tip": record.log[1]} if record.log is not None else None,
            "signed_at": signed_at,
            "signer": {"alg": ALGORITHM, "id": key.key_id, "key": key.public},
        }
    )


def _draw(record: RaceRecord) -> dict[str, Any]:
    """How the race's deal came to be, as the verifier reads it (seahaven/verify.py)."""
    settings = record.settings
    if settings.daily is not None:
        return {"kind": "daily", "day": settings.daily}
    if settings.chosen:
        return {"kind": "chosen"}
    if record.draw is not None:
        return {
            "kind": "drawn",
            "commitment": commitment(bytes.fromhex(record.draw.seed)),
            "seed": record.draw.seed,
            "seeds": list(record.draw.seeds),
            "grade": settings.deal_grade,
            "list": list_digest(settings.preset),
        }
    return {"kind": "picked"}
