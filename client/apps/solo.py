"""Offline solo practice: the game screen on a local deal, with statistics on disk."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from i18n import N_, NP_, _
from i18n.rules_help import preset_title
from seahaven import Board, decode, encode, preset
from seahaven.winnable import deal_list

from ..data.stats import Stats
from ..data.userdata import Settings
from ..screens.game_screen import GameScreen
from ..screens.stats_screen import StatsScreen
from ..text.words import moves
from ..widgets.rivals import format_ms


def random_deal(preset_name: str, rng: random.Random | None = None, *, any_deal: bool = False) -> int:
    """A deal the solver has won (the shipped list, seahaven/winnable.py); ``any_deal`` (or a
    preset without a list): any number in the Microsoft-compatible range, which may be unwinnable."""
    rng = rng or random.Random()
    if not any_deal:
        try:
            number, _grade = rng.choice(deal_list(preset_name).deals)
            return number
        except (ValueError, IndexError):
            pass  # no list for these rules: any deal
    rules = preset(preset_name)
    return rng.randint(1, min(rules.ms_deal_limit, 32000) - 1)


class SoloApp(App[None]):
    """Solo practice: ``n`` deals a new game, ``r`` restarts, ``S`` shows the statistics."""

    TITLE = N_("Seahaven Towers: solo practice")
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "new_game", NP_("footer", "New deal")),
        Binding("r", "restart", NP_("footer", "Restart"), show=False),
        Binding("S", "stats", NP_("footer", "Statistics")),
        Binding("q", "quit", NP_("footer", "Quit")),
    ]

    def __init__(
        self,
        preset_name: str = "seahaven",
        deal: int | None = None,
        *,
        stats_path: Path | None = None,
        board: Board | None = None,
        rng: random.Random | None = None,
        data: Path | None = None,
        automove: bool | None = None,
        any_deal: bool = False,
    ) -> None:
        """``board`` starts from a given position instead of a deal (tests, puzzles); ``data``
        is the directory of the settings (default: the user's data directory); ``automove``
        overrides the saved setting; ``any_deal``: new deals may be unwinnable (by default only
        deals the solver has won)."""
        super().__init__()
        self.title = _(self.TITLE)
        self.any_deal = any_deal
        self.preset_name = preset(preset_name).name
        self.rng = rng or random.Random()
        self.deal = deal if deal is not None else random_deal(self.preset_name, self.rng, any_deal=self.any_deal)
        self.stats = Stats.load(stats_path)
        self.data = data
        self.settings = Settings.load(data)
        self._dealt = board is None
        board = board if board is not None else Board.deal(self.preset_name, self.deal)
        self._started = False
        self._counted = False
        self.game_screen = GameScreen(
            board,
            title=self._title(),
            hints=True,
            automove=self.settings.automove if automove is None else automove,
        )
        self.game_screen.new_deal_key = "n"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The game's keys belong to the game: not shown (nor working) over the statistics."""
        return action not in ("new_game", "restart", "stats") or self.screen is self.game_screen

    def _title(self) -> str:
        rules = preset(self.preset_name)
        return _("{rules} · deal {code}").format(
            rules=preset_title(rules.title), code=encode(self.preset_name, self.deal)
        )

    def on_mount(self) -> None:
        self.push_screen(self.game_screen)
        self._show_stats()
        if self._dealt:  # a position given to study is left as it is
            self.game_screen.play_opening()

    def _show_stats(self) -> None:
        entry = self.stats.of(self.preset_name)
        code = encode(self.preset_name, self.deal)
        self.game_screen.set_info(_("wins {n}  ·  {code}").format(n=entry.won, code=code))

    def in_progress(self) -> bool:
        """A game under way: moves played and not won."""
        screen = self.game_screen
        return screen.touched and bool(screen.board.move_stack) and not screen.board.is_won()

    def action_new_game(self) -> None:
        if self.in_progress() and not self.game_screen.press_twice("n"):
            self.game_screen.flash(_("Press n again to abandon this game for a new deal"), "error")
            return
        self.start(random_deal(self.preset_name, self.rng, any_deal=self.any_deal))

    def action_restart(self) -> None:
        if self.in_progress() and not self.game_screen.press_twice("r"):
            self.game_screen.flash(_("Press r again to restart this deal"), "error")
            return
        # The same game from the top: it was counted at its first move (unless it was won).
        self.start(self.deal, again=not self.game_screen.board.is_won())

    def action_quit(self) -> None:  # type: ignore[override]
        if self.in_progress() and not self.game_screen.press_twice("q"):
            self.game_screen.flash(_("Press q again to quit this game"), "error")
            return
        self.exit()

    def action_stats(self) -> None:
        def chosen(code: str | None) -> None:
            if code is not None:
                self.start_code(code)

        self.push_screen(StatsScreen(self.stats), chosen)

    def start_code(self, code: str) -> None:
        """Play the deal ``code`` (a race's deal from the statistics)."""
        self.preset_name, deal = decode(code)
        self.start(deal)

    def start(self, deal: int, *, again: bool = False) -> None:
        """Deal game ``deal`` on the same screen (``again``: the same game restarted)."""
        self.deal = deal
        if not again:
            self._started = False
        self._counted = False
        self.game_screen.clock.reset()
        self.game_screen.set_board(Board.deal(self.preset_name, deal), title=self._title())
        self._show_stats()
        self.game_screen.play_opening()

    def on_game_screen_move_played(self, event: GameScreen.MovePlayed) -> None:
        if not self._started:
            self._started = True
            self._save(lambda: self.stats.record_start(self.preset_name))

    def on_game_screen_deck_changed(self, event: GameScreen.DeckChanged) -> None:
        self.settings.deck = event.deck
        self._save(lambda: self.settings.save(self.data))

    def on_game_screen_automove_changed(self, event: GameScreen.AutomoveChanged) -> None:
        self.settings.automove = event.on
        self._save(lambda: self.settings.save(self.data))

    def on_game_screen_won(self, event: GameScreen.Won) -> None:
        if not self._counted:  # undoing the last move and playing it again wins once
            self._counted = True
            self._save(lambda: self.stats.record_win(self.preset_name, event.elapsed_ms, event.moves))
        entry = self.stats.of(self.preset_name)
        self._show_stats()
        self.game_screen.set_cover(
            _("★ You won! ★"),
            _("{moves} in {time}").format(moves=moves(event.moves), time=format_ms(event.elapsed_ms)),
            _("wins at {rules}: {won} of {played} · streak {streak}").format(
                rules=preset_title(preset(self.preset_name).title),
                won=entry.won,
                played=entry.played,
                streak=entry.streak,
            ),
            _("n: a new deal  ·  S: statistics  ·  q: quit"),
        )

    def _save(self, action: Callable[[], None]) -> None:
        try:
            action()
        except OSError as error:
            self.notify(
                _("Could not save to {folder}: {error}").format(folder=self.stats.path.parent, error=error),
                severity="warning",
            )
