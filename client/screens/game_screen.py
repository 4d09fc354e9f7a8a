"""The game screen: one Board on the table, played by keys and mouse, solo or in a race.

Solo: ``GameScreen(board)``. Every move is final at once.

Race: ``GameScreen(board, sink=my_sink, race=True, undo_allowed=room.undo)``. Every move
and undo still applies at once (optimistic), gets a sequence number and goes to
``sink.submit(seq, move)`` / ``sink.undo(seq)``; the network layer answers with
``screen.confirm(seq)`` or ``screen.reject(seq, reason)``, which rolls the action back
(with every later unanswered one) and shows the reason. See ``client/README.md``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Final, Protocol

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from i18n import NP_, _, ngettext
from seahaven import FOUNDATION, Board, IllegalMoveError, Move
from seahaven.solver import Solution

from ..board.optimistic import OptimisticBoard
from ..board.places import (
    FOUNDATION_KEYS,
    Place,
    describe,
    destinations,
    safe_count,
    with_symbols,
)
from ..data.userdata import DECKS, Settings
from ..text import words
from ..widgets.board_view import DECK_NAMES, BoardView
from ..widgets.keys_footer import KeysFooter
from ..widgets.parted import Parted
from ..widgets.rivals import Countdown, RaceClock, RacerView, RivalsPanel, format_ms
from .help import HelpScreen
from .hints import Hints
from .picking import idle_hint
from .results import ResultRow, ResultsScreen

PLACE_KEYS = "1234567890abcdefgh" + FOUNDATION_KEYS
RIVALS_BESIDE: Final = 66
"""Columns a race needs for the board (39) and the rivals panel (26) side by side."""
CONFIRM_SECONDS = 3.0


def home_text(home: int, safe: int, actions: int) -> str:
    """Cards home, and how many more could go home now without regret (``12/52 home (+3 safe)``:
    the engine's safe foundation moves, a progress sense the count alone lacks), and the moves."""
    if safe:
        return _("{home}/52 home (+{safe} safe) · {moves}").format(home=home, safe=safe, moves=words.moves(actions))
    return _("{home}/52 home · {moves}").format(home=home, moves=words.moves(actions))


def went_home(n: int) -> str:
    """What auto-move did: ``3 cards home by itself`` (the game put them there)."""
    return ngettext("{n} card home by itself", "{n} cards home by itself", n).format(n=n)


class PressTwice:
    """Confirms a risky key: true on its second press within a few seconds."""

    def __init__(self, seconds: float = CONFIRM_SECONDS) -> None:
        self.seconds = seconds
        self._last: tuple[str, float] | None = None

    @property
    def pending(self) -> str | None:
        """The key waiting for its second press, if any."""
        return self._last[0] if self._last is not None else None

    def reset(self) -> None:
        """Forget the first press (another key came in between)."""
        self._last = None

    def __call__(self, key: str) -> bool:
        now = time.monotonic()
        if self._last is not None and self._last[0] == key and now - self._last[1] < self.seconds:
            self._last = None
            return True
        self._last = (key, now)
        return False


class MoveSink(Protocol):
    """Where a race screen sends the player's actions (the network layer implements it)."""

    def submit(self, seq: int, move: Move, auto: bool = False) -> None:
        """``move`` was played locally as action ``seq`` (``auto``: with the auto-moves after
        it); ask the server to judge it (and to play the same auto-moves)."""

    def undo(self, seq: int) -> None:
        """The last move was taken back locally as action ``seq``."""

    def resign(self) -> None:
        """The player resigned the race."""


class GameScreen(Hints):
    """A board, its status line, a message line, and (in a race) the rivals panel."""

    CSS_PATH = Path(__file__).with_name("game_screen.tcss")
    # Below RIVALS_BESIDE columns the board and the rivals panel do not fit side by side: the board
    # comes first, and v shows the panel in its place (v hides the panel at any width).
    HORIZONTAL_BREAKPOINTS = [(0, "-tight"), (RIVALS_BESIDE, "-narrow"), (140, "-wide")]  # noqa: RUF012
    # Below 80 columns a race's keys take the footer's narrow words (client/screens/localized.py):
    # at 60 the French, Italian and Dutch ones ran past the edge and lost Quit.
    NARROW_FOOTER_BELOW = 80

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", NP_("footer", "Help")),
        # Said by the message line's invitation ("space: smart move"), not the footer: a racer's
        # keys ran past 80 columns in French.
        Binding("s", "smart", NP_("footer", "Smart move"), show=False),
        Binding("space", "smart", NP_("footer", "Smart move"), show=False),
        Binding("enter", "smart", NP_("footer", "Smart move"), show=False),
        Binding("u", "undo", NP_("footer", "Undo")),
        Binding("escape", "cancel", NP_("footer", "Cancel"), show=False),
        Binding("up", "more", NP_("footer", "More cards"), show=False),
        Binding("down", "fewer", NP_("footer", "Fewer cards"), show=False),
        Binding("R", "resign", NP_("footer", "Resign")),
        Binding("H", "hint", NP_("footer", "Hint")),
        Binding("A", "automove", NP_("footer", "Auto-move"), show=False),
        Binding("C", "deck", NP_("footer", "Card colours"), show=False),
        Binding("v", "rivals", NP_("footer", "Racers")),
        *(Binding(key, f"pick({key!r})", show=False) for key in PLACE_KEYS),
    ]
    NARROW_WORDS: ClassVar[tuple[str, ...]] = (
        NP_("footer-narrow", "Undo"),
        NP_("footer-narrow", "Resign"),
        NP_("footer-narrow", "Hint"),
        NP_("footer-narrow", "Racers"),
    )
    """The keys said in shorter words below ``NARROW_FOOTER_BELOW`` columns (marked here for the catalog)."""

    # -- messages for the app -------------------------------------------------

    class MovePlayed(Message):
        """A move or undo was applied locally (``seq`` is its action number)."""

        def __init__(self, move: Move, seq: int, undo: bool = False) -> None:
            super().__init__()
            self.move = move
            self.seq = seq
            self.undo = undo

    class Won(Message):
        """All 52 cards are home on the local board."""

        def __init__(self, moves: int, elapsed_ms: int) -> None:
            super().__init__()
            self.moves = moves
            self.elapsed_ms = elapsed_ms

    class AutomoveChanged(Message):
        """The player turned auto-move on or off."""

        def __init__(self, on: bool) -> None:
            super().__init__()
            self.on = on

    class DeckChanged(Message):
        """The player chose other card colours (``userdata.DECKS``)."""

        def __init__(self, deck: str) -> None:
            super().__init__()
            self.deck = deck

    class Stuck(Message):
        """No legal move is left on the local board."""

    class Rejected(Message):
        """The server refused an action; it was rolled back."""

        def __init__(self, seq: int, reason: str, dropped: int) -> None:
            super().__init__()
            self.seq = seq
            self.reason = reason
            self.dropped = dropped

    # -- construction ---------------------------------------------------------

    def __init__(
        self,
        board: Board,
        *,
        sink: MoveSink | None = None,
        race: bool = False,
        undo_allowed: bool = True,
        title: str = "",
        racers: Sequence[RacerView] = (),
        racers_title: str = "Racers",
        automove: bool = True,
        hints: bool = False,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        """``sink`` None plays solo (moves final at once, the clock starts with the first move).

        ``automove``: safe cards go home by themselves, and once only foundation moves are left
        the game finishes itself. ``hints``: ``H`` asks the solver for a move (off in races
        unless the room allows it)."""
        super().__init__(name=name, id=id)
        self.game = OptimisticBoard(board)
        self.sink = sink
        self.race = race
        self.undo_allowed = undo_allowed
        self.title_text = title or board.rules.title
        self.info_text = ""
        self.selected: Place | None = None
        self.limit: int | None = None
        self.hinted: Place | None = None
        """The destination of the hint shown, lit alone (the selection's other places are not)."""
        self.locked: str | None = None
        self._won_posted = False
        self._stuck_posted = False
        self.press_twice = PressTwice()
        """The one risky-key confirmation of this screen: any other key cancels it."""
        self.actions = len(board.move_stack)
        """Moves and undos played (what the server counts as a racer's moves)."""
        self.touched = False
        """The player has moved on this board (not only auto-move at the deal)."""
        self.new_deal_key: str | None = None
        """The key that deals a new game here, if any (solo's ``n``), for the "cannot be won" notice."""
        self.show_progress = True
        """Whether the status line shows cards home and moves (not between races)."""
        self.automove = automove
        self.auto_allowed = True
        """The room lets auto-move play (``room.auto``): a race's server plays it, asked with each move."""
        self.hints = hints
        self.spectator_delay_s: int | None = None
        """How late a spectator sees the moves (the help says so), when known."""
        self.said_too_small = False
        """The message line says the terminal is too small (cleared once the board fits again)."""
        self.hint_result: Solution | None = None
        """The solver's last answer about the position on screen (hints, the "lost" notice)."""
        # Widgets exist from the start, so every method works before the screen is shown.
        self.view = BoardView(board, id="board")
        self.clock = RaceClock(id="clock")
        self.countdown = Countdown(id="countdown")
        self.rivals = RivalsPanel(racers, title=racers_title, id="rivals") if race else None
        self.info = Static(id="info")
        self.message = Static(idle_hint(board.rules), id="message")
        self._redraw()

    @property
    def board(self) -> Board:
        return self.game.board

    @property
    def solo(self) -> bool:
        return self.sink is None

    def compose(self) -> ComposeResult:
        with Horizontal(id="status-bar"):
            yield self.info
            yield self.clock
        with Horizontal(id="main"):
            with Vertical(id="table"):
                yield self.view
                yield self.countdown
            if self.rivals is not None:
                yield self.rivals
        yield self.message
        # Compact (one space between keys): a racer's keys in French ran past 80 columns.
        yield KeysFooter(compact=True)

    # -- the network layer's interface ----------------------------------------

    def set_board(
        self, board: Board, *, title: str | None = None, actions: int | None = None, auto_played: Sequence[int] = ()
    ) -> None:
        """Show a new position (a new deal, a rematch, the server's position after a resync);
        ``actions``: the moves and undos that led there (default: the board's moves);
        ``auto_played``: which of the board's moves auto-move played (``room.auto_played``)."""
        self.game.reset(board, auto_played)
        self.actions = len(board.move_stack) if actions is None else actions
        self.touched = bool(self.actions)
        if title is not None:
            self.title_text = title
        self._won_posted = False
        self._stuck_posted = False
        self.view.set_cover()
        self._clear_selection()
        self._redraw()
        self.flash(idle_hint(self.board.rules))

    def show_board(self, board: Board, *, title: str | None = None, actions: int | None = None) -> None:
        """Show a position to look at, not to play (a spectator following a racer): like
        ``set_board``, but the message line and the cover stay as they are."""
        self.game.reset(board)
        self.actions = len(board.move_stack) if actions is None else actions
        if title is not None:
            self.title_text = title
        self._won_posted = False
        self._stuck_posted = False
        self._clear_selection()
        self._redraw()

    def confirm(self, seq: int) -> None:
        """The server accepted action ``seq`` (and every earlier one)."""
        self.game.confirm(seq)
        self._update_status()

    def take_servers_auto(self, seq: int, auto: Sequence[Move]) -> None:
        """The server played other auto-moves after move ``seq`` than this board did: its board
        is the one that counts (later moves, played on this one, are rolled back)."""
        dropped = self.game.take_servers_auto(seq, auto)
        self.actions = max(0, self.actions - len(dropped))
        self._clear_selection()
        self._after_change(announce=False)
        self.flash(_("The server sent other cards home: its board is the one that counts"), "error")

    def reject(self, seq: int, reason: str) -> None:
        """The server refused action ``seq``: roll it (and later pending ones) back, say why."""
        dropped = self.game.reject(seq)
        if not dropped:
            return
        self.actions = max(0, self.actions - len(dropped))
        self._clear_selection()
        self._after_change(announce=False)
        self.flash(_("Refused: {reason}").format(reason=with_symbols(reason)), "error")
        self.post_message(self.Rejected(seq, reason, len(dropped)))

    def update_racers(self, racers: Sequence[RacerView], title: str | None = None) -> None:
        """Feed the rivals panel (race screens only)."""
        if self.rivals is not None:
            self.rivals.update_racers(racers, title)

    def set_countdown(self, seconds: int | None, label: str | None = None) -> None:
        """Show the countdown instead of the cards (input is ignored); None shows the cards."""
        self.countdown.set_seconds(seconds, _("The race starts in") if label is None else label)
        counting = seconds is not None
        if counting != self.has_class("counting"):
            self.flash(_("Get ready: the cards show when the race starts") if counting else idle_hint(self.board.rules))
        self.set_class(counting, "counting")

    def start_clock(self, elapsed_ms: int = 0, limit_ms: int | None = None) -> None:
        self.clock.start(elapsed_ms, limit_ms)

    def stop_clock(self, final_ms: int | None = None) -> None:
        self.clock.stop(final_ms)

    def reset_clock(self) -> None:
        """Back to 0:00, stopped (a new race)."""
        self.clock.reset()

    @property
    def clock_running(self) -> bool:
        return self.clock.running

    def set_locked(self, reason: str | None) -> None:
        """Refuse input with ``reason`` (spectating, finished, waiting...); None to play again."""
        self.locked = reason
        self._clear_selection()
        self._redraw()
        if reason:
            self.flash(reason)

    def set_cover(self, *lines: str) -> None:
        """Hide the cards behind a message (e.g. "Waiting for racers"); no lines to show them."""
        self.view.set_cover(*lines)

    def set_progress_shown(self, shown: bool) -> None:
        """Show (or hide, between races) cards home and moves on the status line."""
        self.show_progress = shown
        self._update_status()

    def set_info(self, text: str) -> None:
        """Extra text at the end of the status line (the room code, the win count...)."""
        self.info_text = text
        self._update_status()

    def set_undo_allowed(self, allowed: bool) -> None:
        self.undo_allowed = allowed
        self.refresh_bindings()

    def show_results(
        self,
        rows: Sequence[ResultRow],
        headline: str | None = None,
        on_choice: Callable[[str], None] | None = None,
        **options: Any,
    ) -> None:
        """Push the results view; ``on_choice`` gets ``"rematch"``, ``"review"`` or ``"lobby"``;
        ``options`` go to ``ResultsScreen`` (can_rematch, can_review, note)."""

        def chosen(choice: str | None) -> None:
            if on_choice is not None and choice is not None:
                on_choice(choice)

        self.app.push_screen(ResultsScreen(rows, _("Race over") if headline is None else headline, **options), chosen)

    def update_results(self, rows: Sequence[ResultRow]) -> None:
        """Redraw the results view's standings if it is open (the ratings came after it)."""
        for screen in self.app.screen_stack:
            if isinstance(screen, ResultsScreen):
                screen.show_rows(rows)

    def close_results(self) -> None:
        """Take the results view down if it is on top (a rematch began while it was open)."""
        app = self.app
        if isinstance(app.screen, ResultsScreen):
            app.pop_screen()

    def flash(self, text: str, kind: str = "info") -> None:
        """Show a line in the message bar (``kind``: info, error or good); plain text, not
        markup (names and the server's reasons may hold brackets, and so do key names)."""
        message = self.message
        message.update(Content(text))
        message.set_class(kind == "error", "error")
        message.set_class(kind == "good", "good")

    @property
    def message_text(self) -> str:
        return str(self.message.content)

    # -- input (the picks themselves: client/screens/picking.py) -----------------

    def on_key(self, event: events.Key) -> None:
        """Any other key between the two presses of a risky key cancels it."""
        pending = self.press_twice.pending
        if pending is not None and event.key != pending:
            self.press_twice.reset()
            self.flash(_("Cancelled"))

    def refuse_input(self) -> bool:
        """True (and the message line says why) if the board takes no input now."""
        if self.has_class("counting"):
            return True
        if self.locked:
            self.flash(self.locked, "error")
            return True
        if self.has_class("-tight") and self.has_class("-rivals-toggled"):  # the racers in the board's place
            self.flash(_("v: back to the board"), "error")
            return True
        small = self.view.too_small
        if small is not None:  # the cards cannot be seen whole: no move played blind
            self.flash(_("{problem}: make it bigger").format(problem=small), "error")
            self.said_too_small = True
            return True
        return False

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fits_again)

    def _fits_again(self) -> None:
        """Bigger again: the "too small" line goes (it stayed, stale, over a board that fits)."""
        if self.said_too_small and self.view.too_small is None:
            self.said_too_small = False
            self.flash(idle_hint(self.board.rules))

    def action_rivals(self) -> None:
        """v: the rivals panel shown or hidden (at a width too small for both, the board first)."""
        if self.rivals is not None:
            self.toggle_class("-rivals-toggled")

    # -- playing --------------------------------------------------------------

    def _play(self, move: Move) -> None:
        what = describe(self.board, move)
        # A card just taken back from a foundation stays out: the player wants it there.
        home = self._apply(move, auto=self.auto_on() and move.src_area != FOUNDATION)
        if home is None:
            return
        self._clear_selection()
        self.flash(what + (" · " + went_home(home) if home else ""))
        self._after_change()

    def auto_on(self) -> bool:
        """Whether auto-move plays: the player's setting, where the room allows it."""
        return self.automove and self.auto_allowed

    def _apply(self, move: Move, *, auto: bool = False, opening: bool = False) -> int | None:
        """Play ``move`` on the board (with ``auto``, the auto-moves after it too: in a race the
        server plays the same), send it (race) or keep it (solo); the auto-moves played, None if
        ``move`` is illegal. ``opening``: auto-move switched on before the player's first move:
        in solo it neither starts the clock nor counts the game as played (they have not begun)."""
        board = self.board
        try:
            seq = self.game.play(move, auto=auto)
        except IllegalMoveError as error:
            self.flash(with_symbols(error.reason), "error")
            return None
        home = len(self.game.pending[-1].auto)
        self.actions += 1
        if self.sink is None:
            self.game.confirm(seq)
            if opening:
                return home
            if not self.clock.running and not board.is_won():
                self.clock.start()
        else:
            self.sink.submit(seq, move, auto)
        self.touched = True
        self.post_message(self.MovePlayed(move, seq))
        return home

    def _auto_moves(self, *, opening: bool = False) -> int:
        """Auto-move just switched on: the cards it would have sent home go now, as ordinary moves
        of the player's (nothing asks the server to play auto-moves without a move). How many."""
        moves = self.board.copy(stack=False).autoplay()
        for move in moves:
            if self._apply(move, opening=opening) is None:
                break
        return len(moves)

    def play_opening(self) -> None:
        """At the start, the safe cards the deal already offers go home (auto-move otherwise
        waits for the player's first move): an ace on a column or in a cell. Solo: final at once,
        no move of the player's. A race whose server was not asked to play them (an arena seats
        its racers ready): the first is sent as the player's move, the rest come with it."""
        if not self.auto_on() or self.locked or self.has_class("counting") or self.touched:
            return
        if self.sink is not None:
            first = self.board.auto_move()
            if first is not None:
                self._play(first)
            return
        self.opened(self.board.copy(stack=False).autoplay())

    def opened(self, moves: Sequence[Move]) -> None:
        """Auto-moves played at the start (a race's server says which): on the board, final.
        Moves played here before they came (the client did not know the server would) go first:
        they were played on a board the server does not have, and it refuses them."""
        if self.game.pending:
            self.actions = max(0, self.actions - len(self.game.reject(self.game.pending[0].seq)))
        try:
            home = self.game.play_auto(moves)
        except IllegalMoveError as error:  # the same engine: only a server of other rules gets here
            self.flash(_("The board is out of step with the server: {reason}").format(reason=error.reason), "error")
            return
        if home:
            self._redraw()
            self.flash(went_home(home) + " · " + idle_hint(self.board.rules))

    def action_automove(self) -> None:
        """Turn auto-move on or off (the App keeps the setting: ``AutomoveChanged``)."""
        self.automove = not self.automove
        said = _("Safe cards go home by themselves") if self.automove else _("Auto-move is off: every card by hand")
        # Turned on: the safe cards already waiting go now, not after the player's next move.
        takes_moves = not (self.locked or self.has_class("counting") or self.view.too_small or self.board.is_won())
        home = self._auto_moves(opening=not self.touched) if self.automove and takes_moves else 0
        if home:
            self._clear_selection()
            self._after_change()
            said += " · " + went_home(home)
        self.flash(said)
        self.post_message(self.AutomoveChanged(self.automove))

    def on_mount(self) -> None:
        """The deck colours the player chose (kept in the App's settings, where it has them)."""
        settings = getattr(self.app, "settings", None)
        if isinstance(settings, Settings):
            self.set_deck(settings.deck)

    def set_deck(self, deck: str) -> None:
        self.view.deck = deck if deck in DECKS else DECKS[0]
        self.view.refresh()

    def action_deck(self) -> None:
        """Change the card colours: red and black, four colours, four colour-blind-safe ones."""
        deck = DECKS[(DECKS.index(self.view.deck) + 1) % len(DECKS)]
        self.set_deck(deck)
        self.flash(_("Cards in {colours} (C: change)").format(colours=_(DECK_NAMES[deck])))
        self.post_message(self.DeckChanged(deck))

    def action_undo(self) -> None:
        if self.refuse_input():
            return
        if not self.undo_allowed:
            self.flash(_("Undo is off in this race"), "error")
            return
        if not self.game.can_undo:
            opening = bool(self.board.move_stack)  # only the cards auto-move sent home at the start
            self.flash(
                _("Nothing of yours to undo: the cards that went home at the start stay")
                if opening
                else _("Nothing to undo"),
                "error",
            )
            return
        seq, move = self.game.undo()
        back = len(self.game.auto_of(seq) or ())
        self.actions += 1
        if self.sink is None:
            self.game.confirm(seq)
        else:
            self.sink.undo(seq)
        self._clear_selection()
        undid = _("Undid {move}").format(move=describe(self.board, move))
        if back:
            undid += " · " + ngettext("{n} card back from home", "{n} cards back from home", back).format(n=back)
        self.flash(undid)
        self.post_message(self.MovePlayed(move, seq, undo=True))
        self._after_change()

    def _after_change(self, *, announce: bool = True) -> None:
        """Redraw; announce a win or a dead end; take the win banner down after an undo."""
        self._redraw()
        board = self.board
        if not board.is_won() and self._won_posted:
            self._won_posted = False
            self.view.set_cover()
        if not announce:
            return
        if board.is_won():
            if not self._won_posted:
                self._won_posted = True
                elapsed = self.clock.elapsed_ms
                if self.solo:
                    self.clock.stop()
                    elapsed = self.clock.elapsed_ms
                moves = self.actions  # the player's own moves and undos, as the server counts them
                took = _("{moves} in {time}").format(moves=words.moves(moves), time=format_ms(elapsed))
                self.view.set_cover(_("★ All 52 cards home! ★"), took)
                self.flash(
                    _("Solved in {moves}, {time}!").format(moves=words.moves(moves), time=format_ms(elapsed)), "good"
                )
                self.post_message(self.Won(moves, elapsed))
            return
        if board.is_stuck():
            if self.undo_allowed:
                self.flash(_("No legal move is left: u to undo"), "error")
            elif self.race:
                self.flash(_("No legal move is left: resign with R"), "error")
            else:
                self.flash(_("No legal move is left"), "error")
            if not self._stuck_posted:
                self._stuck_posted = True
                self.post_message(self.Stuck())
        else:
            self._stuck_posted = False
            if self.solo:
                self.check_lost()

    def action_resign(self) -> None:
        if self.sink is None or self.locked:
            return
        if not self.press_twice("R"):
            self.flash(_("Press R again to resign this race"), "error")
            return
        self.sink.resign()
        self.set_locked(_("You resigned"))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.board.rules, spectator_delay_s=self.spectator_delay_s))

    # -- which keys work ----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "resign":
            return self.race and self.sink is not None
        if action == "hint":
            return self.hints
        if action == "rivals":
            return self.rivals is not None
        return True

    # -- drawing --------------------------------------------------------------

    def _redraw(self) -> None:
        sel = self.selected
        dests = destinations(self.board, sel, self.limit) if sel is not None else set()
        if self.hinted is not None and self.hinted in dests:
            dests = {self.hinted}  # the hint's card and where it goes, not every place it could
        self.view.show(self.board, sel, self._selected_count(), dests)
        self._update_status()

    def _update_status(self) -> None:
        board = self.board
        parts: list[str | tuple[str, str]] = [(self.title_text, "bold")]
        if self.show_progress:
            parts.append(" · " + home_text(board.progress, safe_count(board), self.actions))
        pending = len(self.game.pending)
        if pending:
            parts.append((" · ⋯ " + _("{n} unconfirmed").format(n=pending), "italic #fde047"))
        if self.info_text:
            parts.append(f" · {self.info_text}")
        self.info.update(Parted(Content.assemble(*parts)))  # a count keeps its word on its line
