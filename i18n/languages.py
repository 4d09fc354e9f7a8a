"""Which language a player gets: ``--lang``, then the environment as GNU gettext reads it.

The order is gettext's own: an explicit choice first, then ``LANGUAGE`` (a colon-separated list of
preferences), then the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set. Each value is
a POSIX locale name (``fr_FR.UTF-8``, ``nl_BE@euro``, ``it``) read as text: the system's locale
need not be installed, which is why this does not call ``locale.setlocale``. The first value whose
language we have a catalog for wins; ``C`` and ``POSIX`` mean English, as they do for gettext.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

from babel import Locale, UnknownLocaleError

LANGUAGES: Final = ("en", "fr", "it", "nl")
"""The languages with catalogs; English is the source and the fallback."""
SOURCE: Final = "en"
ENVIRONMENT: Final = ("LC_ALL", "LC_MESSAGES", "LANG")
"""gettext's locale variables after LANGUAGE, strongest first: only the first one set counts."""

_POSIX_NAME: Final = re.compile(
    r"^(?P<lang>[A-Za-z]{2,3})(?:[_-](?P<territory>[A-Za-z]{2}|\d{3}))?(?:\.[^@]*)?(?:@.*)?$"
)
"""language[_territory][.codeset][@modifier], with - also read for _ (``--lang fr-BE``)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """The language of the messages and the locale that formats numbers and times (``fr_BE``:
    French messages, Belgian number forms)."""

    language: str
    locale: Locale

    @property
    def tag(self) -> str:
        return str(self.locale)


def parse_locale(name: str) -> Locale | None:
    """``fr_FR.UTF-8`` -> Locale fr_FR; None for C, POSIX, an empty or malformed name, or a locale
    Babel does not know (a territory Babel lacks falls back to the bare language)."""
    match = _POSIX_NAME.match(name.strip())
    if match is None:
        return None
    lang = match["lang"].lower()
    territory = (match["territory"] or "").upper()
    for identifier in (f"{lang}_{territory}", lang) if territory else (lang,):
        try:
            return Locale.parse(identifier)
        except (ValueError, UnknownLocaleError):
            continue
    return None


def preferences(explicit: str | None, environ: Mapping[str, str]) -> list[str]:
    """The locale names to try, in gettext's order."""
    names: list[str] = []
    if explicit:
        names.append(explicit)
    # GNU gettext ignores LANGUAGE when the locale is C; we honour it anyway: the point of
    # reading names as text is that a machine with only C.UTF-8 still gets the player's language.
    names += [part for part in environ.get("LANGUAGE", "").split(":") if part]
    for variable in ENVIRONMENT:
        if environ.get(variable):
            names.append(environ[variable])
            break
    return names


def negotiate(explicit: str | None, environ: Mapping[str, str], available: Iterable[str] = LANGUAGES) -> Choice:
    """The first preferred language we have; English (``en``) when none is.

    ``explicit`` is ``--lang``; a value we cannot read raises ValueError (the player typed it),
    while the environment's unreadable or unknown names are passed over, as gettext does.
    """
    have = set(available)
    if explicit is not None and parse_locale(explicit) is None:
        raise ValueError(f"{explicit!r} is not a language: try one of {', '.join(sorted(have))}")
    for name in preferences(explicit, environ):
        stem = name.strip().split(".")[0].split("@")[0]
        if stem in ("C", "POSIX"):
            break
        locale = parse_locale(name)
        if locale is not None and locale.language in have:
            return Choice(locale.language, locale)
    return Choice(SOURCE, Locale.parse(SOURCE))
