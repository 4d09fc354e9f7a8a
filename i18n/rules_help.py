"""The rules help per preset, from the ``rules`` catalog (the browser client reads the same .po).

The English catalog is the source: its entry of context ``<preset>/<topic>`` holds the English rule,
which is the msgid every other language translates. So a preset's help is written once per language
in the .po files, and the clients only know the topics' order.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from . import current
from .catalogs import read_catalog, translations
from .languages import SOURCE

TOPICS: Final = (
    ("about", "About"),
    ("goal", "Goal"),
    ("deal", "The deal"),
    ("building", "Building"),
    ("empty", "Empty columns"),
    ("cells", "Free cells"),
    ("runs", "Moving runs"),
    ("foundations", "Foundations"),
    ("undo", "Undo"),
)
"""Each topic's key (in the entries' context) and heading (msgid of context ``topic``), in the help's order."""


@cache
def _english() -> dict[str, str]:
    """Context -> English text of the source catalog's per-preset entries."""
    return {m.context: str(m.id) for m in read_catalog(SOURCE, "rules") if m.context and "/" in m.context}


def rules_help(preset: str) -> tuple[tuple[str, str], ...]:
    """(heading, rule) rows of ``preset`` in the language in use; () for a preset without help."""
    catalog = translations(current().language, "rules")
    english = _english()
    rows = []
    for key, heading in TOPICS:
        source = english.get(f"{preset}/{key}")
        if source is not None:
            rows.append((catalog.pgettext("topic", heading), catalog.pgettext(f"{preset}/{key}", source)))
    return tuple(rows)


def preset_title(title: str) -> str:
    """A preset's title (seahaven/rules.py's English) in the language in use."""
    return translations(current().language, "rules").pgettext("title", title)
