"""``KeysFooter``: Textual's footer, composed again only when the keys it shows change, each key
born in the footer's style.

Textual's ``Footer`` composes a new ``FooterKey`` for every key each time the screen's bindings
may have changed (each focus change, each refresh of the bindings), though most of the time the
keys shown are the same. And each new key is born compact, then told the footer's style through a
data binding: one more restyle per key at mount, two in a wide footer. Those were a fifth of the
terminal client's CPU on its busiest screens. Here the footer is composed again only when a key
shown, its words, or whether it is enabled changed, and each key is given its style before it is
mounted.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

# Textual does not export the key widget; its docs name it for the footer's component classes.
from textual.widgets._footer import FooterKey

Shown = tuple[tuple[Binding, bool, str], ...]


def shown_keys(screen: Screen[object]) -> Shown:
    """What a footer over ``screen`` draws: each shown binding, whether it is enabled, its tooltip."""
    return tuple(
        (binding, enabled, tooltip) for _, binding, enabled, tooltip in screen.active_bindings.values() if binding.show
    )


class KeysFooter(Footer):
    """A ``Footer`` composed again only when its keys change, its keys in its compact or wide style."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self.composed_for: Shown | None = None
        """The keys of the last composition (None: none yet)."""

    def bindings_changed(self, screen: Screen[object]) -> None:
        unchanged = self.composed_for is not None and self.is_attached and screen is self.screen
        if unchanged and shown_keys(screen) == self.composed_for:
            return
        super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        compact = self.compact
        if self._bindings_ready:
            self.composed_for = shown_keys(self.screen)
        for widget in super().compose():
            # The command palette's key is not bound to the footer's style: Textual's is left as it is.
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # The reactive's value is set without its watcher, which would restyle the key.
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget
