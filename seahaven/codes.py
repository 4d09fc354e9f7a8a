"""Deal codes: a preset and a deal number in a short string a person can type.

``SH1-ST-0001G`` reads: format version 1, preset tag ``ST`` (seahaven), deal number
``0001`` in Crockford base 32, check character ``G`` (Luhn mod 32 over tag and
digits). The check catches any single mistyped character and any swap of two
neighbouring characters except ``0`` with ``Z`` (values 0 and 31, the one blind spot
of Luhn mod N). See docs/deals.md.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .deals import MAX_DEAL
from .rules import PRESETS

ALPHABET: Final = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
VERSION: Final = "SH1"
_ALIASES: Final = {"O": "0", "I": "1", "L": "1"}
_BY_TAG: Final = {r.tag: r.name for r in PRESETS.values()}


class DealCode(NamedTuple):
    """A preset name and a deal number."""

    preset: str
    number: int

    def __str__(self) -> str:
        return encode(self.preset, self.number)


def _check_char(body: str) -> str:
    total = 0
    factor = 2
    for ch in reversed(body):
        addend = factor * ALPHABET.index(ch)
        total += addend // 32 + addend % 32
        factor = 3 - factor
    return ALPHABET[(32 - total % 32) % 32]


def encode(preset: str, number: int) -> str:
    """The deal code of ``number`` under ``preset``."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}")
    if not 1 <= number <= MAX_DEAL:
        raise ValueError(f"deal numbers run from 1 to {MAX_DEAL}, not {number}")
    digits = ""
    n = number
    while n:
        n, d = divmod(n, 32)
        digits = ALPHABET[d] + digits
    digits = digits.rjust(4, "0")
    tag = PRESETS[preset].tag
    return f"{VERSION}-{tag}-{digits}{_check_char(tag + digits)}"


def decode(code: str) -> DealCode:
    """Read a deal code; ValueError saying what is wrong with a mistyped one.

    Case, spaces and the look-alikes O/I/L (read as 0/1/1) are forgiven.
    """
    text = "".join(code.split()).upper()
    parts = text.split("-")
    if len(parts) != 3:
        raise ValueError(f"{code!r} is not a deal code: expected three parts like SH1-ST-0001G")
    version, tag, rest = parts
    version = "".join(_ALIASES.get(ch, ch) for ch in version)
    if version != VERSION:
        raise ValueError(f"unknown deal code version {version!r} (this server reads {VERSION})")
    tag = "".join(_ALIASES.get(ch, ch) for ch in tag)
    if tag not in _BY_TAG:
        raise ValueError(f"unknown preset tag {tag!r}; tags: {', '.join(sorted(_BY_TAG))}")
    if len(rest) < 2:
        raise ValueError("the deal part is too short: digits then one check character")
    rest = "".join(_ALIASES.get(ch, ch) for ch in rest)
    for i, ch in enumerate(rest):
        if ch not in ALPHABET:
            raise ValueError(f"{ch!r} (character {i + 1} of the deal part) is not a code character")
    digits, check = rest[:-1], rest[-1]
    if _check_char(tag + digits) != check:
        raise ValueError("the check character does not match: a character is mistyped")
    number = 0
    for ch in digits:
        number = number * 32 + ALPHABET.index(ch)
    if not 1 <= number <= MAX_DEAL:
        raise ValueError(f"deal number {number} is out of range 1..{MAX_DEAL}")
    return DealCode(_BY_TAG[tag], number)
