"""The table: a widget that draws a Board (columns, cells, foundations) and maps clicks back.

The widget is a plain renderer: the game screen tells it what is selected and which places
to highlight (``show``), and it reports clicks as ``BoardView.Picked`` messages. Geometry is
computed from the widget's size, so cards widen on larger terminals; at 80x24 every card is
still three or more characters wide ("10♥").
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from i18n import N_, _
from seahaven import CELL, COLUMN, FOUNDATION, Board, Card, EmptyColumn
from seahaven.cards import RANK_NAMES, SUIT_SYMBOLS

from ..board.places import Place

FELT = "#0d5c36"
LABEL = Style(color="#a9d3b9")
LABEL_HOT = Style(color="#111111", bgcolor="#fde047", bold=True)
LABEL_DEST = Style(color="#bbf7d0", bold=True)
CARD_BG = "#f7f5ee"
RED = "#c8102e"
BLACK = "#1b1b1b"
SELECTED_BG = "#fde047"
DEST_BG = "#86efac"
HOLE = Style(color="#3f8f63", bgcolor="#0a472a")
HOLE_DEST = Style(color="#052e16", bgcolor="#4ade80", bold=True)
FOLD = Style(color="#a9d3b9", bgcolor="#0a472a", italic=True)
COVER = Style(color="#ffffff", bold=True)
COVER_SUB = Style(color="#d1fae5")


SUIT_COLOURS: Final[dict[str, tuple[str, str, str, str]]] = {
    "two": (BLACK, RED, RED, BLACK),
    "four": ("#0a7d2c", "#1d4ed8", RED, BLACK),  # the browser client's four-colour deck
    "safe": ("#009e73", "#0072b2", "#d55e00", BLACK),  # Okabe-Ito: told apart with any colour vision
}
"""Each deck's (userdata.DECKS) colours for clubs, diamonds, hearts and spades."""
DECK_NAMES: Final = {
    "two": N_("red and black"),
    "four": N_("four colours"),
    "safe": N_("four colour-blind-safe colours"),
}


def card_style(card: Card, bg: str = CARD_BG, deck: str = "two") -> Style:
    return Style(color=SUIT_COLOURS.get(deck, SUIT_COLOURS["two"])[card.suit], bgcolor=bg, bold=True)


def card_face(card: Card, width: int, line: int = 0, height: int = 3) -> str:
    """Line ``line`` of a card ``height`` lines tall (3 or 5) and ``width`` characters wide.

    Line 0 is the index every card shows (rank right-aligned in two, the suit); a whole
    card adds its suit in the middle and the index again, right-aligned, at the bottom;
    a covered card's second line (on big tables) is blank card.
    """
    label = RANK_NAMES[card.rank - 1].rjust(2) + SUIT_SYMBOLS[card.suit]
    pad = 1 if width >= 4 else 0
    if line == height // 2 and line:
        return SUIT_SYMBOLS[card.suit].center(width)
    if line == height - 1 and line:
        return (label.strip() + " " * pad).rjust(width)[-width:]
    if line:
        return " " * width
    return (" " * pad + label).ljust(width)[:width]


@dataclass(frozen=True, slots=True)
class Geometry:
    """Where everything goes for one widget size."""

    face: int
    """Card width in characters."""
    col_x: tuple[int, ...]
    cell_x: tuple[int, ...]
    found_x: tuple[int, ...]
    label_y: int
    top_y: int
    col_label_y: int
    col_y: int
    rows: int
    """Lines available for each column's cards."""
    card_h: int = 1
    """Lines of a whole card (an exposed card, a cell, a foundation): 3 or 5 when there is room."""
    step: int = 1
    """Lines each covered card of a column shows: 2 on big tables."""


def geometry(columns: int, cells: int, width: int, height: int, longest: int) -> Geometry:
    """Lay out ``columns`` columns, ``cells`` cells and 4 foundations in ``width`` x ``height``.

    A covered card takes one line; whole cards take three lines when the longest column
    still fits that way, else one (and the gap under the cells goes first when cramped).
    """
    grid = max(columns, cells + 4)
    # Big tables: 5-line cards, covered cards 2 lines, if a long column (12 or more) still fits.
    big = height - 8 >= (max(longest, 12) - 1) * 2 + 5
    face = max(3, min(11 if big else 9, width // grid - 1))
    unit = face + 1
    x0 = max(0, (width - (grid * unit - 1)) // 2)
    shift = (grid - columns) // 2  # columns centred under a wider top row (Eight Off, Penguin)
    col_x = tuple(x0 + (shift + i) * unit for i in range(columns))
    cell_x = tuple(x0 + i * unit for i in range(cells))
    found_x = tuple(x0 + (grid - 4 + i) * unit for i in range(4))
    card_h = 5 if big else 3 if height >= max(longest, 1) + 9 else 1
    spacer = 1 if card_h > 1 or height >= longest + 4 else 0
    col_label_y = 1 + card_h + spacer
    col_y = col_label_y + 1
    step = 2 if big else 1
    return Geometry(face, col_x, cell_x, found_x, 0, 1, col_label_y, col_y, max(1, height - col_y), card_h, step)


@dataclass(frozen=True, slots=True)
class Hit:
    """A clickable rectangle: a place, and for a column card its depth (0 = deepest)."""

    x: int
    y: int
    width: int
    height: int
    place: Place
    depth: int | None = None

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height


@dataclass
class _Canvas:
    width: int
    height: int
    lines: list[list[tuple[str, Style | None]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = [[(" ", None)] * self.width for _row in range(self.height)]

    def put(self, x: int, y: int, text: str, style: Style | None = None) -> None:
        if not 0 <= y < self.height:
            return
        row = self.lines[y]
        for i, ch in enumerate(text):
            if 0 <= x + i < self.width:
                row[x + i] = (ch, style)

    def to_text(self) -> Text:
        out = Text(no_wrap=True, overflow="crop", end="")
        for n, row in enumerate(self.lines):
            run = ""
            style: Style | None = None
            for ch, st in row:
                if st is not style and run:
                    out.append(run, style)
                    run = ""
                style = st
                run += ch
            if run:
                out.append(run, style)
            if n < len(self.lines) - 1:
                out.append("\n")
        return out


class BoardView(Widget):
    """Draws a Board; clicks become ``Picked`` messages (``chain`` 2 for a double click)."""

    ALLOW_SELECT = False
    """A drag moves a card: it selects no text (Textual's selection lit the board from the drag's
    start to its end, and stayed)."""

    DEFAULT_CSS = f"""
    BoardView {{
        background: {FELT};
        width: 1fr;
        height: 1fr;
    }}
    """

    class Picked(Message):
        """The player clicked a place (``depth``: which card of a column, 0 = deepest).

        ``place`` is None for a click on the bare table.
        """

        def __init__(self, place: Place | None, depth: int | None, chain: int) -> None:
            super().__init__()
            self.place = place
            self.depth = depth
            self.chain = chain

    class Dropped(Message):
        """The player dragged from ``source`` (``depth``: which card of a column) onto ``target``."""

        def __init__(self, source: Place, depth: int | None, target: Place) -> None:
            super().__init__()
            self.source = source
            self.depth = depth
            self.target = target

    def __init__(self, board: Board, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.board = board
        self.selected: Place | None = None
        self.selected_count = 0
        self.dests: frozenset[Place] = frozenset()
        self.cover: tuple[str, ...] = ()
        self._hits: list[Hit] = []
        self.deck = "two"
        """The card colours (``SUIT_COLOURS``)."""
        self._down: Hit | None = None
        """Where the mouse button went down (the start of a drag)."""

    # -- what to show ---------------------------------------------------------

    def show(
        self,
        board: Board,
        selected: Place | None = None,
        selected_count: int = 0,
        dests: Iterable[Place] = (),
    ) -> None:
        """Draw ``board`` with a selection (its last ``selected_count`` cards) and destinations."""
        self.board = board
        self.selected = selected
        self.selected_count = selected_count
        self.dests = frozenset(dests)
        self.refresh()

    def set_cover(self, *lines: str) -> None:
        """Hide the cards behind a message (the first line in bold); no lines to show them."""
        self.cover = tuple(lines)
        self.refresh()

    # -- geometry and hits ----------------------------------------------------

    def geometry(self) -> Geometry:
        rules = self.board.rules
        longest = max((len(c) for c in self.board.columns), default=0)
        return geometry(rules.columns, rules.cells, self.size.width, self.size.height, longest)

    def needed(self) -> tuple[int, int]:
        """The smallest size (columns, lines) the board fits in: 3-character cards, one line a card."""
        rules = self.board.rules
        longest = max((len(c) for c in self.board.columns), default=0)
        return max(rules.columns, rules.cells + 4) * 4 - 1, 3 + max(longest, 1)

    @property
    def too_small(self) -> str | None:
        """Why the board cannot be drawn whole here (None: it fits, or the size is not known yet)."""
        width, height = self.size.width, self.size.height
        need_w, need_h = self.needed()
        if not width or not height or (width >= need_w and height >= need_h):
            return None
        return _("The terminal is too small for the board (it needs {need}, it has {has})").format(
            need=f"{need_w}×{need_h}", has=f"{width}×{height}"
        )

    def hit_test(self, x: int, y: int) -> Hit | None:
        """The clickable thing at content offset (x, y), if any."""
        for hit in self._hits:
            if hit.contains(x, y):
                return hit
        return None

    def point_of(self, place: Place, depth: int | None = None) -> tuple[int, int]:
        """A content offset inside ``place``: the card at ``depth``, else its exposed card."""
        self._layout()
        hits = [h for h in self._hits if h.place == place]
        if depth is not None:
            hits = [h for h in hits if h.depth == depth]
        elif place.area == COLUMN:
            hits = [h for h in hits if h.depth is not None][-1:] or hits
        if not hits:
            raise LookupError(f"{place.name()} is not on screen")
        hit = hits[0]
        # A cell's or foundation's rectangle starts with its label: aim at the card below.
        return hit.x + min(1, hit.width - 1), hit.y + (1 if place.area != COLUMN else 0)

    # -- drawing --------------------------------------------------------------

    def render(self) -> Text:
        return self._layout().to_text()

    def _layout(self) -> _Canvas:
        width, height = self.size.width, self.size.height
        canvas = _Canvas(width, height)
        self._hits = []
        if self.cover:
            self._draw_cover(canvas, self.cover)
            return canvas
        if self.too_small is not None:  # a board cut off would mislead: say so instead
            need_w, need_h = self.needed()
            size = _("it needs {need}, it has {has}").format(need=f"{need_w}×{need_h}", has=f"{width}×{height}")
            self._draw_cover(canvas, (_("Too small for the board"), size, _("make the terminal bigger")))
            return canvas
        board = self.board
        geo = self.geometry()
        face = geo.face
        hits = self._hits

        def label(x: int, y: int, text: str, place: Place) -> None:
            style = LABEL_HOT if place == self.selected else LABEL_DEST if place in self.dests else LABEL
            canvas.put(x + (face - len(text)) // 2, y, text, style)

        tall = geo.card_h
        for i, x in enumerate(geo.cell_x):
            place = Place(CELL, i)
            label(x, geo.label_y, chr(ord("a") + i), place)
            self._draw_slot(canvas, x, geo.top_y, face, tall, board.cells[i], place, "")
            hits.append(Hit(x, geo.label_y, face, 1 + tall, place))
        home = "# " + _("home")
        found_label = home if face * 4 + 3 >= len(home) else "#"
        fx = geo.found_x[0]
        canvas.put(fx + (face * 4 + 3 - len(found_label)) // 2, geo.label_y, found_label, LABEL)
        for suit, x in enumerate(geo.found_x):
            place = Place(FOUNDATION, suit)
            self._draw_slot(canvas, x, geo.top_y, face, tall, board.foundation_top(suit), place, SUIT_SYMBOLS[suit])
            hits.append(Hit(x, geo.label_y, face, 1 + tall, place))

        king_only = board.rules.empty_column is EmptyColumn.KING
        for i, x in enumerate(geo.col_x):
            place = Place(COLUMN, i)
            label(x, geo.col_label_y, "0" if i == 9 else str(i + 1), place)
            col = board.columns[i]
            y = geo.col_y
            if not col:
                self._draw_slot(canvas, x, y, face, tall, None, place, "K" if king_only else "")
                hits.append(Hit(x, geo.col_label_y, face, height - geo.col_label_y, place))
                continue
            fit = max(1, (geo.rows - tall) // geo.step + 1)  # cards that show whole or in part
            hidden = len(col) - fit + 1 if len(col) > fit else 0
            if hidden:
                canvas.put(x, y, f"+{hidden}".center(face)[:face], FOLD)
                hits.append(Hit(x, y, face, 1, place, hidden - 1))
                y += 1
            hits.append(Hit(x, geo.col_label_y, face, 1, place))
            selected_from = len(col) - self.selected_count if place == self.selected else len(col)
            for depth in range(hidden, len(col)):
                card = col[depth]
                if depth >= selected_from:
                    style = card_style(card, SELECTED_BG, self.deck)
                elif depth == len(col) - 1 and place in self.dests:
                    style = card_style(card, DEST_BG, self.deck)
                else:
                    style = card_style(card, deck=self.deck)
                lines = tall if depth == len(col) - 1 else geo.step
                for line in range(lines):
                    canvas.put(x, y + line, card_face(card, face, line, max(tall, lines)), style)
                hits.append(Hit(x, y, face, lines, place, depth))
                y += lines
            # Clicking below a column's last card names the column too.
            hits.append(Hit(x, y, face, max(0, height - y), place))
        return canvas

    def _draw_slot(
        self, canvas: _Canvas, x: int, y: int, face: int, lines: int, card: Card | None, place: Place, empty: str
    ) -> None:
        """A cell, a foundation or an empty column: a card, or a hole ``lines`` tall."""
        middle = lines // 2
        for line in range(lines):
            if card is not None:
                if place == self.selected:
                    style = card_style(card, SELECTED_BG, self.deck)
                elif place in self.dests:
                    style = card_style(card, DEST_BG, self.deck)
                else:
                    style = card_style(card, deck=self.deck)
                canvas.put(x, y + line, card_face(card, face, line, lines), style)
            elif place in self.dests:
                canvas.put(x, y + line, ("▼" if line == middle else "").center(face), HOLE_DEST)
            else:
                canvas.put(x, y + line, (empty if line == middle else "").center(face), HOLE)

    def _draw_cover(self, canvas: _Canvas, lines: tuple[str, ...]) -> None:
        # A line wider than the board wraps at its words (a room's settings in French or Dutch
        # ran past 80 columns and lost their last words).
        rows = [
            (n, part) for n, line in enumerate(lines) for part in textwrap.wrap(line, max(10, canvas.width)) or [""]
        ]
        top = max(0, (canvas.height - len(rows)) // 2)
        for y, (n, part) in enumerate(rows):
            canvas.put(max(0, (canvas.width - len(part)) // 2), top + y, part, COVER if n == 0 else COVER_SUB)

    # -- input ----------------------------------------------------------------

    def on_mouse_down(self, event: events.MouseDown) -> None:
        offset = event.get_content_offset(self)
        self._down = self.hit_test(offset.x, offset.y) if offset is not None else None

    def on_mouse_up(self, event: events.MouseUp) -> None:
        """Drag and drop: a button pressed on one place and let go over another moves from the
        first to the second (the cards from the one pressed on, in a column)."""
        offset = event.get_content_offset(self)
        down = self._down
        up = self.hit_test(offset.x, offset.y) if offset is not None else None
        if down is not None and up is not None and up.place != down.place:
            self.post_message(self.Dropped(down.place, down.depth, up.place))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        hit = self.hit_test(offset.x, offset.y)
        down, self._down = self._down, None
        if down is not None and (hit is None or hit.place != down.place):
            return  # the click Textual makes of a drag's button release: the drop was the move
        if hit is None:
            self.post_message(self.Picked(None, None, event.chain))
        else:
            self.post_message(self.Picked(hit.place, hit.depth, event.chain))
