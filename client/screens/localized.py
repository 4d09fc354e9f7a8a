"""Screens whose footer speaks the player's language.

Textual reads a screen's ``BINDINGS`` when the class is made, before the player's language is
known, so their descriptions are written in English (marked with ``NP_("footer", ...)`` for
extraction) and translated here, each time the footer asks which bindings are active.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TypeVar

from textual.binding import ActiveBinding
from textual.screen import ModalScreen, Screen

from i18n import pgettext

FOOTER = "footer"
"""The bindings' context in the catalog (``NP_("footer", ...)``): the footer's words are its own."""

ResultType = TypeVar("ResultType")


def translated(bindings: dict[str, ActiveBinding]) -> dict[str, ActiveBinding]:
    """The same bindings with their descriptions and tooltips in the language in use."""
    return {
        key: ActiveBinding(
            active.node,
            replace(
                active.binding,
                description=pgettext(FOOTER, active.binding.description) if active.binding.description else "",
                tooltip=pgettext(FOOTER, active.binding.tooltip) if active.binding.tooltip else "",
            ),
            active.enabled,
            pgettext(FOOTER, active.tooltip) if active.tooltip else "",
        )
        for key, active in bindings.items()
    }


class LocalScreen(Screen[ResultType]):
    """A Screen whose footer is translated."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return translated(super().active_bindings)


class LocalModalScreen(ModalScreen[ResultType]):
    """A ModalScreen whose footer is translated."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return translated(super().active_bindings)
