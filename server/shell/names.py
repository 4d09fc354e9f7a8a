"""Display names, player ids, tokens and room codes."""

from __future__ import annotations

import secrets
import unicodedata

from protocol.messages import NAME_MAX, ROOM_CODE_LEN

CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_ALIASES = str.maketrans({"O": "0", "I": "1", "L": "1"})


def sanitise_name(raw: str) -> str:
    """A display name safe to show anywhere: no control or format characters, single
    spaces, at most NAME_MAX characters; ``player`` when nothing is left."""
    kept = "".join(" " if ch.isspace() else ch for ch in raw if unicodedata.category(ch)[0] != "C" or ch.isspace())
    name = " ".join(kept.split())[:NAME_MAX].strip()
    return name or "player"


def new_token() -> str:
    """A session token: 192 random bits, so it cannot be guessed or forged."""
    return secrets.token_urlsafe(24)


def new_player_id() -> str:
    return "p" + "".join(secrets.choice(CODE_ALPHABET) for _ in range(10))


def new_room_code() -> str:
    """Six characters, easy to read aloud and type, about a billion possibilities."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(ROOM_CODE_LEN))


def normalise_room_code(text: str) -> str:
    return "".join(text.split()).upper().translate(_ALIASES)
