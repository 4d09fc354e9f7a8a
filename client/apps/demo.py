"""The race screen without a server: made-up rivals, a sink that confirms after a short delay.

It shows the network engineer the screen's interface in use, serves ``seahaven-client
--demo`` and the race screenshots (client/apps/screenshots.py), and saves one on its own::

    python -m client.apps.demo race.svg [--size 100x34]
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from i18n import N_, NP_, _
from i18n.rules_help import preset_title
from protocol.enums import Status
from seahaven import Board, Move, encode

from ..board.places import Place
from ..screens.game_screen import GameScreen
from ..screens.results import ResultRow
from ..widgets.rivals import RacerView

OPENING = ("70", "3c", "3d", "3#", "3#", "a#")
"""A few moves into Seahaven deal 1: three cards home, cells in use."""

DEMO_SELECTION = Place(0, 9)
"""Column 10 (9♣ with 8♣ on it): selected in the screenshot to show the highlights."""

SAMPLE_RIVALS = (
    RacerView("marguerite", 23, 41, Status.RACING),
    RacerView("tomasz", 52, 96, Status.FINISHED, time_ms=192_400),
    RacerView("ines", 9, 30, Status.STUCK),
    RacerView("bo", 17, 25, Status.RACING, connected=False),
)


def demo_board() -> Board:
    board = Board.deal("seahaven", 1)
    for text in OPENING:
        board.push_text(text)
    return board


def demo_racers(board: Board, rivals: Sequence[RacerView] = SAMPLE_RIVALS) -> list[RacerView]:
    """You (from the local board) and the rivals."""
    return [RacerView("alice", board.progress, len(board.move_stack), you=True), *rivals]


class DemoSink:
    """Confirms every action after ``delay`` seconds, like a friendly server would."""

    def __init__(self, app: App[None], delay: float = 0.2) -> None:
        self.app = app
        self.delay = delay
        self.screen: GameScreen | None = None
        self.log: list[str] = []

    def submit(self, seq: int, move: Move, auto: bool = False) -> None:
        self.log.append(f"{seq} move {move}")
        self._answer(seq)

    def undo(self, seq: int) -> None:
        self.log.append(f"{seq} undo")
        self._answer(seq)

    def resign(self) -> None:
        self.log.append("resign")

    def _answer(self, seq: int) -> None:
        screen = self.screen
        if screen is not None:
            self.app.set_timer(self.delay, lambda: screen.confirm(seq))


class RaceDemoApp(App[None]):
    """A race against made-up rivals on Seahaven deal 1."""

    TITLE = N_("Seahaven Towers: race demo")
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", NP_("footer", "Quit"))]

    def __init__(self, *, live: bool = True, select: Place | None = DEMO_SELECTION) -> None:
        super().__init__()
        self.title = _(self.TITLE)
        self.live = live
        self.sink = DemoSink(self)
        board = demo_board()
        self.game_screen = GameScreen(
            board,
            sink=self.sink,
            race=True,
            undo_allowed=True,
            title=_("Room {code} · {rules}").format(code="ROOM42", rules=preset_title(board.rules.title)),
            racers=demo_racers(board),
            racers_title=_("Racers {n}/{seats}").format(n=5, seats=6) + "\n" + encode("seahaven", 1),
        )
        self.sink.screen = self.game_screen
        self.initial_selection = select
        self.rng = random.Random(1)
        self.rivals = list(SAMPLE_RIVALS)

    def on_mount(self) -> None:
        screen = self.game_screen
        self.push_screen(screen)
        screen.start_clock(83_400, limit_ms=15 * 60_000)
        if not self.live:
            screen.stop_clock(83_400)
        if self.initial_selection is not None:
            screen.pick(self.initial_selection)
        if self.live:
            self.set_interval(1.5, self._rivals_move)

    def _rivals_move(self) -> None:
        for i, racer in enumerate(self.rivals):
            if racer.status == Status.RACING and racer.connected:
                progress = min(51, racer.progress + self.rng.randint(0, 1))
                self.rivals[i] = RacerView(racer.name, progress, racer.moves + 2)
        self.game_screen.update_racers(demo_racers(self.game_screen.board, self.rivals))

    def on_game_screen_move_played(self, event: GameScreen.MovePlayed) -> None:
        self.game_screen.update_racers(demo_racers(self.game_screen.board, self.rivals))

    def on_game_screen_won(self, event: GameScreen.Won) -> None:
        rows = [
            ResultRow(1, "tomasz", Status.FINISHED, 52, 96, 192_400),
            ResultRow(2, "alice", Status.FINISHED, 52, event.moves, event.elapsed_ms, you=True),
        ]
        self.game_screen.show_results(rows, _("{name} wins").format(name="tomasz"), lambda choice: self.exit())


async def save_race_screenshot(path: Path, size: tuple[int, int] = (100, 34)) -> str:
    """Write an SVG of the race screen (rivals filled in, a card selected) to ``path``."""
    app = RaceDemoApp(live=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        svg = app.export_screenshot(title=_("Seahaven race"))
    await asyncio.to_thread(path.write_text, svg, encoding="utf-8")
    return svg


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=_("Save an SVG screenshot of the race screen."))
    p.add_argument("path", type=Path)
    p.add_argument("--size", default="100x34", help=_("terminal size, COLSxROWS (default 100x34)"))
    args = p.parse_args(argv)
    cols, _x, rows = args.size.partition("x")
    asyncio.run(save_race_screenshot(args.path, (int(cols), int(rows))))
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
