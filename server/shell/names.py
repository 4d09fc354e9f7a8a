"""Player ids, tokens and room codes: the random names the server hands out. (The rule for the
names people choose, display names and handles, is ``protocol.names``.)"""

from __future__ import annotations

import re
import secrets
from typing import Final

from protocol.messages import ANONYMOUS_PREFIX, REGISTERED_PREFIX, ROOM_CODE_LEN

__all__ = [
    "CODE_ALPHABET",
    "DURABLE_PREFIX",
    "is_durable",
    "new_durable_id",
    "new_player_id",
    "new_room_code",
    "new_token",
    "normalise_room_code",
]

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_ALIASES = str.maketrans({"O": "0", "I": "1", "L": "1"})

DURABLE_PREFIX: Final = REGISTERED_PREFIX
"""The first character of a registered (durable) player's id; anonymous ones start with ``p``."""
DURABLE_ID: Final = re.compile(f"{DURABLE_PREFIX}[{CODE_ALPHABET}]{{12}}")


def new_token() -> str:
    """A session token: 192 random bits, so it cannot be guessed or forged."""
    return secrets.token_urlsafe(24)


def new_player_id() -> str:
    return ANONYMOUS_PREFIX + "".join(secrets.choice(CODE_ALPHABET) for _ in range(10))


def new_durable_id() -> str:
    """A registered player's id: ``u`` and 12 characters of the room-code alphabet (60 bits)."""
    return DURABLE_PREFIX + "".join(secrets.choice(CODE_ALPHABET) for _ in range(12))


def is_durable(player: str) -> bool:
    return DURABLE_ID.fullmatch(player) is not None


def new_room_code() -> str:
    """Six characters, easy to read aloud and type, about a billion possibilities."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(ROOM_CODE_LEN))


def normalise_room_code(text: str) -> str:
    return "".join(text.split()).upper().translate(_ALIASES)
