"""What a screen cuts: the words of a widget's text that its own drawing does not show.

Each visible widget is drawn at its own size (``render_lines``) and every word of its text
(a label, a button's label, an empty field's placeholder, a footer key's description, a table's
cells in sight, a box's border title) must be somewhere in what was drawn: a word cut at the
widget's edge ("senza c", "waiti…", "Computer (bri…") is missing from it. A widget that reaches
past the screen's right edge is reported as well."""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Static
from textual.widgets._footer import FooterKey

from client.widgets.board_view import BoardView
from client.widgets.rivals import RivalsPanel

WORD = re.compile(r"[^\s·:;,.()\[\]{}…/|=+*!?«»“”\"'-]+")
"""A word as a reader sees it: punctuation and the separators the screens use are not words."""


def texts_of(widget: Widget) -> list[str]:
    """The texts ``widget`` is asked to show (without its children's)."""
    texts: list[str] = []
    if isinstance(widget, Button):
        texts.append(str(widget.label))
    elif isinstance(widget, Input) and not widget.value:
        texts.append(str(widget.placeholder))  # typed text scrolls in its field, as in any form
    elif isinstance(widget, FooterKey):
        texts.append(widget.description)
    elif isinstance(widget, Static):
        content = widget.content
        if isinstance(content, str | Text) or hasattr(content, "plain"):
            texts.append(content if isinstance(content, str) else str(getattr(content, "plain", "")))
    elif isinstance(widget, BoardView):
        texts += widget.cover
    elif isinstance(widget, RivalsPanel):
        texts += [widget.title, *(racer.name for racer in widget.racers)]
    elif isinstance(widget, DataTable):
        top = int(widget.scroll_y)
        sight = max(0, widget.size.height - (1 if widget.show_header else 0))
        for row in range(top, min(widget.row_count, top + sight)):
            texts += [str(Text.from_markup(cell) if isinstance(cell, str) else cell) for cell in widget.get_row_at(row)]
        if widget.show_header:
            texts += [str(column.label) for column in widget.ordered_columns]
    return texts


def drawn(widget: Widget, columns: int | None = None) -> str:
    """What ``widget`` draws at its size, lines joined by spaces (each cut to ``columns``)."""
    width, height = widget.outer_size
    return " ".join(strip.text[:columns] for strip in widget.render_lines(Region(0, 0, width, height)))


def in_sight(widget: Widget) -> int:
    """How many of ``widget``'s columns its box shows: a box that does not scroll sideways clips
    its children to its content (a button wider than what is left of its dialog row)."""
    right = widget.region.right
    for box in widget.ancestors:
        if isinstance(box, Widget) and not box.allow_horizontal_scroll:
            right = min(right, box.content_region.right)
    return max(0, right - widget.region.x)


def cut_words(screen: Screen[Any], width: int) -> list[str]:
    """Every word a visible widget of ``screen`` is asked to show and does not (or shows past
    ``width`` columns), as ``Type#id: 'word' of 'text'``."""
    cut: list[str] = []
    for widget in screen.walk_children(Widget, with_self=False):
        shown = all(node.display and node.visible for node in widget.ancestors_with_self if isinstance(node, Widget))
        if not shown or not widget.is_on_screen or widget.outer_size.area == 0:
            continue  # hidden, or scrolled out of sight: a key or a scroll away, not cut
        name = f"{type(widget).__name__}#{widget.id or ''}"
        if widget.region.right > width:
            cut.append(f"{name}: past column {width} (to {widget.region.right})")
        texts = texts_of(widget)
        title = widget.border_title
        if title and widget.styles.border_top[0] not in ("", "none", "hidden"):
            texts.append(str(title))
        if not texts:
            continue
        seen = drawn(widget, in_sight(widget))
        for text in texts:
            for word in WORD.findall(text):
                if word not in seen:
                    cut.append(f"{name}: {word!r} of {text!r}")
    return cut
