"""The catalogs as gettext translations: each .po read with Babel and compiled in memory.

Reading the .po files at start, rather than shipping compiled .mo files, keeps one source for each
catalog: nothing to rebuild after an edit and no committed binary that can drift from its text.
It costs a few milliseconds per catalog once per process (docs/i18n.md has the figure).
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path
from typing import Final

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from .languages import SOURCE

LOCALE_DIR: Final = Path(__file__).with_name("locale")
DOMAINS: Final = ("terminal", "rules")
"""The catalogs this package reads (``web`` is the browser client's, read by scripts/build-web)."""


def po_path(language: str, domain: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"


def read_catalog(language: str, domain: str) -> Catalog:
    """One .po file as Babel's Catalog (FileNotFoundError when we lack it)."""
    with po_path(language, domain).open("rb") as po:
        return read_po(po, locale=language, domain=domain)


@cache
def translations(language: str, domain: str) -> gettext.NullTranslations:
    """The language's catalog of ``domain`` with the source language's behind it.

    English falls back to the msgids themselves, so a message missing from every catalog still
    reads in English rather than failing. Fuzzy entries are left out, as msgfmt leaves them.
    """
    fallback: gettext.NullTranslations = NullTranslations()
    chain = [language] if language == SOURCE else [language, SOURCE]
    for lang in reversed(chain):
        try:
            catalog = read_catalog(lang, domain)
        except FileNotFoundError:
            continue
        compiled = io.BytesIO()
        write_mo(compiled, catalog, use_fuzzy=False)
        compiled.seek(0)
        layer = Translations(compiled, domain=domain)
        layer.add_fallback(fallback)
        fallback = layer
    return fallback
