"""A line of parts (``Room 3R12R9 · 0/52 home · 0 moves``) that wraps between its parts.

Textual wraps a long line at any space, so a narrow status bar broke a count from its word
(Italian at 60 columns: "… 0" on one line, "mosse" on the next). ``Parted`` breaks the line at
its separators first, and within a part only when the part alone is wider than the line.
"""

from __future__ import annotations

from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual

SEPARATOR = " · "


class Parted(Visual):
    """``content``, its lines broken at ``separator`` (dropped where a line breaks) where it does not fit."""

    def __init__(self, content: Content, separator: str = SEPARATOR) -> None:
        self.content = content
        self.separator = separator

    @property
    def plain(self) -> str:
        return self.content.plain

    def __str__(self) -> str:
        return self.content.plain

    def lines(self, width: int) -> Content:
        """The content with a line break before each part that would not fit ``width`` cells."""
        plain = self.content.plain
        cuts: list[int] = []
        at = plain.find(self.separator)
        while at >= 0:
            cuts += [at, at + len(self.separator)]
            at = plain.find(self.separator, at + len(self.separator))
        pieces = self.content.divide(cuts)  # part, separator, part, ...
        line = pieces[0]
        lines: list[Content] = []
        for separator, part in zip(pieces[1::2], pieces[2::2], strict=True):
            joined = line + separator + part
            if joined.cell_length <= width or not line.plain.strip():
                line = joined
            else:
                lines.append(line)
                line = part
        return Content("\n").join([*lines, line])

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        line_pad = options.rules.get("line_pad", 0) * 2
        return self.lines(width - line_pad).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width)

    def get_minimal_width(self, rules: RulesMap) -> int:
        return self.content.get_minimal_width(rules)

    def get_height(self, rules: RulesMap, width: int) -> int:
        line_pad = rules.get("line_pad", 0) * 2
        return self.lines(width - line_pad).get_height(rules, width)
