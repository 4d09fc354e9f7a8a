"""Screens whose footer speaks the player's language.

Textual reads a screen's ``BINDINGS`` when the class is made, before the player's language is
known, so their descriptions are written in English (marked with ``NP_("footer", ...)`` for
extraction) and translated here, each time the footer asks which bindings are active.

A screen narrower than its ``NARROW_FOOTER_BELOW`` columns says its keys in the shorter words of
the ``footer-narrow`` context where the catalog has one (``NP_("footer-narrow", "Leave room")``:
French *Sortir*, not *Quitter la salle*), so that every key of a race still fits 60 columns.
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar, TypeVar

from textual import events, on
from textual.binding import ActiveBinding
from textual.screen import ModalScreen, Screen

from i18n import pgettext

FOOTER = "footer"
"""The bindings' context in the catalog (``NP_("footer", ...)``): the footer's words are its own."""

NARROW_FOOTER = "footer-narrow"
"""The shorter footer words of a narrow screen (``NP_("footer-narrow", ...)``), where a word has one."""

ResultType = TypeVar("ResultType")


def footer_word(description: str, *, narrow: bool = False) -> str:
    """A key's description in the footer's words (``narrow``: the shorter one, where there is one).

    A word without a narrow entry comes back from the catalog as its English msgid: then the
    footer's own word is said."""
    if narrow:
        short = pgettext(NARROW_FOOTER, description)
        if short != description:
            return short
    return pgettext(FOOTER, description)


def translated(bindings: dict[str, ActiveBinding], *, narrow: bool = False) -> dict[str, ActiveBinding]:
    """The same bindings with their descriptions and tooltips in the language in use (``narrow``:
    the descriptions in the narrow footer's words where they have them)."""
    return {
        key: ActiveBinding(
            active.node,
            replace(
                active.binding,
                description=footer_word(active.binding.description, narrow=narrow)
                if active.binding.description
                else "",
                tooltip=pgettext(FOOTER, active.binding.tooltip) if active.binding.tooltip else "",
            ),
            active.enabled,
            pgettext(FOOTER, active.tooltip) if active.tooltip else "",
        )
        for key, active in bindings.items()
    }


class LocalScreen(Screen[ResultType]):
    """A Screen whose footer is translated (in shorter words below ``NARROW_FOOTER_BELOW`` columns)."""

    NARROW_FOOTER_BELOW: ClassVar[int] = 0
    """Below this many columns the footer takes the ``footer-narrow`` words (0: never)."""

    _footer_narrow = False

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        self._footer_narrow = self.app.size.width < self.NARROW_FOOTER_BELOW
        return translated(super().active_bindings, narrow=self._footer_narrow)

    @on(events.Resize)
    def _footer_for_width(self) -> None:
        if (self.app.size.width < self.NARROW_FOOTER_BELOW) != self._footer_narrow:
            self.refresh_bindings()  # the footer in its other words


class LocalModalScreen(ModalScreen[ResultType]):
    """A ModalScreen whose footer is translated."""

    @property
    def active_bindings(self) -> dict[str, ActiveBinding]:
        return translated(super().active_bindings)
