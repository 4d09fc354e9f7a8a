"""``KeysFooter``: Textual's footer, its keys born in the footer's style.

Textual's ``Footer`` composes a new ``FooterKey`` for every key each time the screen's bindings
change (each focus change), and each new key is born compact, then told the footer's style through
a data binding: one restyle per key when the class is set at mount, two in a wide footer (born
compact, then not). Those restyles were a fifth of the terminal client's CPU on its busiest screens.
Here each key is given its style before it is mounted, so mounting it restyles nothing more.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Footer

# Textual does not export the key widget; its docs name it for the footer's component classes.
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    """A ``Footer`` whose keys are composed in its compact or wide style."""

    def compose(self) -> ComposeResult:
        compact = self.compact
        for widget in super().compose():
            # The command palette's key is not bound to the footer's style: Textual's is left as it is.
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # The reactive's value is set without its watcher, which would restyle the key.
                widget.set_reactive(FooterKey.compact, compact)
                widget.set_class(compact, "-compact", update=False)
            yield widget
