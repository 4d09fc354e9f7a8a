"""The one name rule: display names and handles, and ``fold``, the key two names compare by.

Two names are the same name when their ``fold`` is equal: handles (unique on a server), and
wherever names are compared (boards, bans, a player looked up by handle). ``fold`` is a comparison
key, never shown: NFKC (so full-width, mathematical and ligature forms read as the letters they
draw), case folding, no default-ignorable characters (zero-width spaces and joiners, direction
marks, variation selectors: invisible, so never a difference), and the letters of other scripts
that look like Latin ones written as those (Cyrillic ``а`` is ``a``; the digits ``0`` and ``1``
are ``o`` and ``l``). A display name is shown as given, in NFC, and keeps the zero-width joiner
inside an emoji sequence (a family, a flag), which the key drops.

In ``protocol`` so that every part that compares names (the server's accounts and records, and
any client that checks a handle before sending it) applies the same rule.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from protocol.messages import HANDLE_MAX, NAME_MAX

__all__ = ["clean_handle", "fold", "sanitise_name"]

HANDLE_MIN: Final = 3
HANDLE_PUNCTUATION: Final = "_-."
RESERVED_HANDLES: Final = frozenset({"admin", "deleted", "moderator", "seahaven", "server", "system"})
"""Handles nobody may claim (compared folded): they would read as the server speaking."""

ZWJ: Final = "\u200d"

_IGNORABLE: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): characters that
draw nothing, so no two names may differ only by them."""

CAPITAL_LOOK_ALIKES: Final = str.maketrans(
    {
        # Greek and Cyrillic capitals drawn exactly as Latin ones (before case folding, which
        # would make some of them look like other letters: Greek capital Ν is N, small ν is v).
        **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
        **dict(zip("АВЕЁЅІЇЈКМНОРСТУХԚԜҺӀ", "ABEËSIÏJKMHOPCTYXQWHI", strict=True)),
        **dict(zip("ՕՍ", "OU", strict=True)),
    }
)
"""Capital letters of other scripts drawn like Latin capitals, as those (applied before case folding)."""

SMALL_LOOK_ALIKES: Final = str.maketrans(
    {
        **dict(zip("αβγεικνορτυχωημ", "abyeikvoptuxwnu", strict=True)),
        **dict(zip("аеёорсухѕіїјһԁԛԝӏк", "aeëopcyxsiïjhdqwlk", strict=True)),
        **dict(zip("օսհոզ", "ouhnq", strict=True)),
        **dict(zip("ıɑɡ", "iag", strict=True)),
        # digits that pass for letters
        "0": "o",
        "1": "l",
    }
)
"""Small letters (after case folding) drawn like a Latin letter, as that letter. Not the whole of
Unicode's confusables: the common ones of the scripts that pass for Latin. ``i`` and ``l`` stay
apart (case folding has already made ``I`` an ``i``), as do letters with and without accents
(``é`` is not ``e``)."""


def _ignorable(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _IGNORABLE)


def fold(name: str) -> str:
    """The comparison key of a name or handle (see the module docstring); never shown."""
    text = "".join(ch for ch in unicodedata.normalize("NFKC", name) if not _ignorable(ch))
    text = unicodedata.normalize("NFKC", text.translate(CAPITAL_LOOK_ALIKES)).casefold()
    # Case folding may leave text that is not normalised: normalise again before the small
    # letters' table (which holds composed letters), and once more after it.
    text = unicodedata.normalize("NFKC", text).translate(SMALL_LOOK_ALIKES)
    return unicodedata.normalize("NFC", text)


def _pictographic(ch: str) -> bool:
    """An emoji's base (a symbol of category So, or a skin-tone modifier)."""
    return unicodedata.category(ch) == "So" or 0x1F3FB <= ord(ch) <= 0x1F3FF


def _kept(raw: str) -> str:
    """``raw`` without control and format characters, but for a joiner between two emoji."""
    out: list[str] = []
    for i, ch in enumerate(raw):
        category = unicodedata.category(ch)
        if ch == ZWJ:
            before = next((c for c in reversed(out) if c != "\ufe0f"), "")
            after = raw[i + 1] if i + 1 < len(raw) else ""
            if before and after and _pictographic(before) and _pictographic(after):
                out.append(ch)
        elif category[0] != "C" or ch.isspace():
            out.append(" " if ch.isspace() else ch)
    return "".join(out)


def sanitise_name(raw: str) -> str:
    """A display name safe to show anywhere: NFC, no control or format characters (but for a
    zero-width joiner inside an emoji sequence), single spaces, at most NAME_MAX characters;
    ``player`` when nothing is left."""
    name = " ".join(unicodedata.normalize("NFC", _kept(raw)).split())[:NAME_MAX].strip()
    return name or "player"


def clean_handle(raw: str) -> str:
    """The handle ``raw`` asks for, as it will be shown (NFKC, ends trimmed); ValueError saying
    why when it is no handle: 3 to 24 characters, each a letter or digit of any script (with the
    marks that go on letters) or one of ``_-.``, not digits only, not reserved."""
    handle = unicodedata.normalize("NFKC", raw).strip()
    if not HANDLE_MIN <= len(handle) <= HANDLE_MAX:
        raise ValueError(f"a handle has {HANDLE_MIN} to {HANDLE_MAX} characters")
    for ch in handle:
        category = unicodedata.category(ch)
        if not (category[0] in "LM" or category == "Nd" or ch in HANDLE_PUNCTUATION):
            raise ValueError(f"a handle holds letters, digits and {' '.join(HANDLE_PUNCTUATION)} only, not {ch!r}")
    if unicodedata.category(handle[0])[0] == "M":
        raise ValueError("a handle starts with a letter, a digit or one of _-.")
    if all(unicodedata.category(ch) == "Nd" for ch in handle):
        raise ValueError("a handle is not digits only")
    if fold(handle) in RESERVED_HANDLES:
        raise ValueError(f"the handle {handle!r} is reserved")
    return handle
