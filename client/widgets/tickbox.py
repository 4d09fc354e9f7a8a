"""``TickBox``: a checkbox whose mark says its state, not only its colour (✓ on, blank off), for
the lobby's room settings and the friends screen's presence switch."""

from __future__ import annotations

from textual.widgets import Checkbox


class TickBox(Checkbox):
    """A checkbox whose mark says its state, not only its colour: ✓ on, blank off."""

    def watch_value(self) -> None:
        self.BUTTON_INNER = "✓" if self.value else " "
        super().watch_value()

    def on_mount(self) -> None:
        self.BUTTON_INNER = "✓" if self.value else " "
