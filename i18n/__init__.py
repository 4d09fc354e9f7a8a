"""The players' languages: message catalogs (gettext .po files, made with Babel) for both clients.

``i18n/locale/<lang>/LC_MESSAGES/<domain>.po`` holds one catalog per language and domain:
``terminal`` (the terminal client), ``web`` (the browser client, turned into JSON at build time by
scripts/build-web) and ``rules`` (the rules help per preset, which both clients show). English is
the source language. This package imports nothing of the project's: the clients import it.

The terminal client picks a language once at start (``use``, from ``--lang`` and the environment:
``languages.negotiate``) and then asks for its messages through ``_``, ``ngettext`` and ``pgettext``,
which read the language in use when they are called. Module-level tables mark their texts with
``N_`` (extraction sees them) and translate them where they are shown. docs/i18n.md says how to add
a language.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from babel import Locale

from .catalogs import translations
from .languages import LANGUAGES, SOURCE, Choice, negotiate

__all__ = [
    "LANGUAGES",
    "NP_",
    "N_",
    "Choice",
    "_",
    "current",
    "negotiate",
    "ngettext",
    "npgettext",
    "pgettext",
    "rules_text",
    "use",
    "use_from_environment",
]

_choice: Choice = Choice(SOURCE, Locale.parse(SOURCE))
"""The language in use: one per process, as gettext's ``install`` has it (a player runs one client)."""


def use(language: str) -> Choice:
    """Speak ``language`` (a locale name: ``fr``, ``fr_BE``) from now on; an unknown one is English."""
    return use_choice(negotiate(language, {}))


def use_choice(choice: Choice) -> Choice:
    global _choice
    _choice = choice
    return choice


def use_from_environment(explicit: str | None, environ: Mapping[str, str] | None = None) -> Choice:
    """``--lang`` if given, else LANGUAGE / LC_ALL / LC_MESSAGES / LANG (ValueError for a bad ``--lang``)."""
    return use_choice(negotiate(explicit, os.environ if environ is None else environ))


def current() -> Choice:
    return _choice


def _(message: str) -> str:
    """``message`` in the language in use."""
    return translations(_choice.language, "terminal").gettext(message)


def N_(message: str) -> str:
    """Marks a text for extraction where it is defined; ``_`` translates it where it is shown."""
    return message


def NP_(context: str, message: str) -> str:
    """Marks a text of ``context`` for extraction (Babel keyword ``NP_:1c,2``); ``pgettext``
    translates it where it is shown. The footer's words (``footer``) have their own context: they
    must be shorter than the same word on a button."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` that ``n`` takes in the language in use (its own plural rules)."""
    return translations(_choice.language, "terminal").ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in its ``context`` (the same English word for two things: a verb, a noun)."""
    return translations(_choice.language, "terminal").pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return translations(_choice.language, "terminal").npgettext(context, singular, plural, n)


def rules_text(context: str, message: str) -> str:
    """A text of the rules help (the ``rules`` catalog, which the browser client shares)."""
    return translations(_choice.language, "rules").pgettext(context, message)
