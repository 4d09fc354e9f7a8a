"""A registered player's secret keys: ``ID.SECRET``, of which only sha256(SECRET) is ever stored.

The id in front says whose key it is (where to look), the secret proves it: 32 random bytes, so
a key cannot be guessed, and its hash is compared in constant time with each of the player's
(``hmac.compare_digest``), so how long a refusal takes says nothing about how close a forgery came.
A player has one key per device (``register`` gives the first, each ``sign_in`` another).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from typing import Final

from server.shell.names import CODE_ALPHABET, DURABLE_PREFIX

SECRET_BYTES: Final = 32
KEY_FORM: Final = re.compile(f"({DURABLE_PREFIX}[{CODE_ALPHABET}]{{12}})\\.([A-Za-z0-9_-]{{43}})")
"""``ID.SECRET``: a durable player id, a dot, 32 bytes in URL-safe base64 without padding."""


def secret_hash(secret: str) -> str:
    """What is stored of a secret: its sha256, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_key(player: str) -> tuple[str, str]:
    """A new key of ``player`` and its hash (to store)."""
    secret = secrets.token_urlsafe(SECRET_BYTES)
    return f"{player}.{secret}", secret_hash(secret)


def read_key(key: str) -> tuple[str, str] | None:
    """The player id a key names and its secret's hash; None when it has not the form of a key."""
    found = KEY_FORM.fullmatch(key)
    return None if found is None else (found[1], secret_hash(found[2]))


def matches(hashed: str, stored: Iterable[str]) -> bool:
    """Whether ``hashed`` is one of ``stored``, each compared in constant time (all of them, so
    that the time does not tell which one matched either)."""
    found = False
    for candidate in stored:
        found |= hmac.compare_digest(hashed, candidate)
    return found
