"""The game screen driven by Textual's headless pilot: keys, clicks, highlights, races, solo."""

from __future__ import annotations

import json
from pathlib import Path

from rich.style import Style
from textual.app import App
from textual.screen import Screen

from client.apps.demo import RaceDemoApp, save_race_screenshot
from client.apps.solo import SoloApp
from client.board.places import Place
from client.screens.game_screen import GameScreen
from client.screens.help import HelpScreen
from client.screens.results import LOBBY, REMATCH, ResultRow, ResultsScreen
from client.widgets.board_view import DEST_BG, HOLE_DEST, SELECTED_BG, BoardView
from client.widgets.rivals import RacerView, RivalsPanel
from protocol.enums import Status
from seahaven import CELL, COLUMN, FOUNDATION, Board, Card, Move, encode, preset
from seahaven.solver import solve
from tests.client_driver import until

SIZE = (100, 34)


def deal1() -> Board:
    return Board.deal("seahaven", 1)


class RecordingSink:
    """A MoveSink that remembers what the screen sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int, Move | None]] = []

    def submit(self, seq: int, move: Move, auto: bool = False) -> None:
        self.sent.append(("move", seq, move))

    def undo(self, seq: int) -> None:
        self.sent.append(("undo", seq, None))

    def resign(self) -> None:
        self.sent.append(("resign", 0, None))


class ScreenApp(App[None]):
    """Shows one GameScreen; records the screen's messages."""

    def __init__(self, screen: GameScreen) -> None:
        super().__init__()
        self.game_screen = screen
        self.events: list[str] = []

    def on_mount(self) -> None:
        self.push_screen(self.game_screen)

    def on_game_screen_won(self, event: GameScreen.Won) -> None:
        self.events.append(f"won {event.moves}")

    def on_game_screen_rejected(self, event: GameScreen.Rejected) -> None:
        self.events.append(f"rejected {event.seq} {event.dropped}")


def current(app: App[None]) -> Screen[object]:
    """The screen on top (a function, so type narrowing of ``app.screen`` does not stick)."""
    return app.screen


def style_at(view: BoardView, place: Place) -> Style | None:
    """The style the view draws the exposed card (or slot) of ``place`` with."""
    x, y = view.point_of(place)
    return view._layout().lines[y][x][1]


def bg(style: Style | None) -> str | None:
    if style is None or style.bgcolor is None or style.bgcolor.triplet is None:
        return None
    return style.bgcolor.triplet.hex


async def test_move_by_keys_then_undo() -> None:
    app = ScreenApp(GameScreen(deal1()))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("7", "0")
        assert screen.board.columns[9][-2:] == (Card.parse("9C"), Card.parse("8C"))
        assert screen.board.move_stack == [Move.parse("70")]
        assert "8♣ → column 10" in screen.message_text
        await pilot.press("u")
        assert screen.board == deal1()
        assert screen.board.move_stack == []
        await pilot.press("u")
        assert screen.message_text == "Nothing to undo"


async def test_move_by_clicks() -> None:
    app = ScreenApp(GameScreen(deal1()))
    async with app.run_test(size=SIZE) as pilot:
        view = app.game_screen.view
        await pilot.click(BoardView, offset=view.point_of(Place(COLUMN, 6)))
        assert app.game_screen.selected == Place(COLUMN, 6)
        await pilot.click(BoardView, offset=view.point_of(Place(CELL, 3)))
        assert app.game_screen.board.cells[3] == Card.parse("8C")
        assert app.game_screen.selected is None
        # A click on the bare table drops a selection.
        await pilot.click(BoardView, offset=view.point_of(Place(COLUMN, 0)))
        assert app.game_screen.selected == Place(COLUMN, 0)
        await pilot.click(BoardView, offset=(view.size.width - 1, view.size.height - 1))
        assert app.game_screen.selected is None


async def test_smart_move_by_space_same_key_and_double_click() -> None:
    app = ScreenApp(GameScreen(deal1()))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("space")
        assert "Select a card first" in screen.message_text
        await pilot.press("7", "space")  # 8C: onto 9C, the only column that takes it
        assert screen.board.move_stack == [Move.parse("70")]
        await pilot.press("1", "1")  # 6D: nowhere but a cell, the first free one (c)
        assert screen.board.move_stack[-1] == Move.parse("1c")
        await pilot.double_click(BoardView, offset=screen.view.point_of(Place(COLUMN, 2)))
        assert screen.board.move_stack[-1] == Move.parse("3d")  # 8D to the last free cell


async def test_selection_highlights_the_legal_destinations() -> None:
    app = ScreenApp(GameScreen(deal1()))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        view = screen.view
        assert bg(style_at(view, Place(COLUMN, 9))) != DEST_BG
        await pilot.press("7")
        assert view.dests == {Place(COLUMN, 9), Place(CELL, 2), Place(CELL, 3)}
        assert bg(style_at(view, Place(COLUMN, 6))) == SELECTED_BG
        assert bg(style_at(view, Place(COLUMN, 9))) == DEST_BG  # 9C takes 8C
        assert bg(style_at(view, Place(COLUMN, 0))) != DEST_BG
        assert bg(style_at(view, Place(CELL, 2))) == bg(HOLE_DEST)  # an empty cell takes it
        assert bg(style_at(view, Place(CELL, 0))) != bg(HOLE_DEST)
        await pilot.press("escape")
        assert screen.selected is None
        assert view.dests == frozenset()
        assert bg(style_at(view, Place(COLUMN, 9))) != DEST_BG


async def test_illegal_move_says_why_and_changes_nothing() -> None:
    app = ScreenApp(GameScreen(deal1()))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("1", "2")  # 6D onto 8S
        assert screen.board == deal1()
        assert screen.board.move_stack == []
        assert screen.message_text == "6♦ cannot go on 8♠: columns build down by suit"
        assert screen.message.has_class("error")
        assert screen.selected is None
        await pilot.press("e")  # Seahaven has four cells
        assert "4 cells" in screen.message_text
        await pilot.press("#")  # foundations keep their cards in these rules
        assert screen.message_text == "cards on a foundation stay there in these rules"
        await pilot.press("a", "b")
        assert screen.message_text == "a card does not move from cell to cell"
        assert screen.board == deal1()


async def test_up_and_down_change_how_many_cards_a_column_gives() -> None:
    board = deal1()
    for text in ("70", "3c", "3d", "3#", "3#", "a#"):
        board.push_text(text)
    app = ScreenApp(GameScreen(board))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("0")
        assert screen._selected_count() == 2  # 9C 8C
        assert Place(COLUMN, 7) in screen.view.dests  # the run goes onto TC
        await pilot.press("down")
        assert screen._selected_count() == 1
        assert Place(COLUMN, 7) not in screen.view.dests  # 8C alone does not
        assert Place(CELL, 0) in screen.view.dests
        await pilot.press("a")
        assert screen.board.cells[0] == Card.parse("8C")


async def test_click_on_a_deep_card_picks_up_the_run_from_it() -> None:
    board = deal1()
    board.push_text("70")
    app = ScreenApp(GameScreen(board))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.click(BoardView, offset=screen.view.point_of(Place(COLUMN, 9), depth=4))  # 9C
        assert screen.selected == Place(COLUMN, 9)
        assert screen.limit == 2
        await pilot.click(BoardView, offset=screen.view.point_of(Place(COLUMN, 9), depth=5))  # 8C alone
        assert screen.limit == 1
        await pilot.press("c")
        assert screen.board.cells[2] == Card.parse("8C")


async def test_help_overlay_opens_and_closes() -> None:
    app = ScreenApp(GameScreen(deal1()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = app.export_screenshot().replace("&#160;", " ")
        for words in ("smart move", "undo", "escape", "double click", "columns 1 to 10"):
            assert words in text
        await pilot.press("7")  # keys do not reach the game under the overlay
        assert app.game_screen.selected is None
        await pilot.press("escape")
        assert current(app) is app.game_screen


async def test_rejection_rolls_back_the_optimistic_move() -> None:
    sink = RecordingSink()
    app = ScreenApp(GameScreen(deal1(), sink=sink, race=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("7", "0", "1", "c")
        assert sink.sent == [("move", 1, Move.parse("70")), ("move", 2, Move.parse("1c"))]
        assert len(screen.game.pending) == 2
        screen.confirm(1)
        assert [p.seq for p in screen.game.pending] == [2]
        screen.reject(2, "too slow")
        await pilot.pause()
        assert screen.board.move_stack == [Move.parse("70")]
        assert screen.message_text == "Refused: too slow"
        assert app.events == ["rejected 2 1"]
        screen.reject(2, "again")  # already rolled back: ignored
        assert screen.board.move_stack == [Move.parse("70")]


async def test_race_undo_goes_to_the_sink_unless_the_room_forbids_it() -> None:
    sink = RecordingSink()
    app = ScreenApp(GameScreen(deal1(), sink=sink, race=True, undo_allowed=False))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("7", "0", "u")
        assert screen.message_text == "Undo is off in this race"
        assert screen.board.move_stack == [Move.parse("70")]
        screen.set_undo_allowed(True)
        await pilot.press("u")
        assert sink.sent[-1] == ("undo", 2, None)
        assert screen.board == deal1()
        screen.reject(2, "undo limit reached")
        assert screen.board.move_stack == [Move.parse("70")]


async def test_resign_needs_two_presses() -> None:
    sink = RecordingSink()
    app = ScreenApp(GameScreen(deal1(), sink=sink, race=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("R")
        assert sink.sent == []
        await pilot.press("R")
        assert sink.sent == [("resign", 0, None)]
        await pilot.press("7")
        assert app.game_screen.selected is None
        assert app.game_screen.message_text == "You resigned"


async def test_rivals_panel_shows_the_data_it_is_fed() -> None:
    racers = [
        RacerView("alice", 3, 6, you=True),
        RacerView("tomasz", 52, 96, Status.FINISHED, time_ms=192_400),
        RacerView("ines", 9, 30, Status.STUCK),
        RacerView("bo", 17, 25, connected=False),
    ]
    app = ScreenApp(GameScreen(deal1(), sink=RecordingSink(), race=True, racers=racers))
    async with app.run_test(size=SIZE) as pilot:
        panel = app.game_screen.query_one(RivalsPanel)
        text = panel.render().plain
        for part in ("alice (you)", "3/52", "tomasz", "52/52", "finished 3:12.4", "stuck", "disconnected", "bo"):
            assert part in text
        app.game_screen.update_racers([RacerView("zoe", 40, 77, Status.RESIGNED)])
        await pilot.pause()
        text = panel.render().plain
        assert "zoe" in text and "40/52" in text and "resigned" in text
        assert "tomasz" not in text


async def test_countdown_hides_the_cards_and_blocks_input() -> None:
    app = ScreenApp(GameScreen(deal1(), sink=RecordingSink(), race=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        screen.set_countdown(3)
        await pilot.pause()
        assert not screen.view.display
        assert screen.countdown.display
        assert screen.countdown.digits.value == "3"
        await pilot.press("7", "0")
        assert screen.board.move_stack == []
        screen.set_countdown(None)
        screen.start_clock(0)
        await pilot.press("7", "0")
        assert screen.board.move_stack == [Move.parse("70")]
        assert screen.view.display
        assert screen.clock.running


async def test_results_view_returns_the_choice() -> None:
    app = ScreenApp(GameScreen(deal1(), sink=RecordingSink(), race=True))
    rows = [
        ResultRow(1, "tomasz", Status.FINISHED, 52, 96, 192_400),
        ResultRow(2, "alice", Status.RESIGNED, 12, 40, None, you=True),
    ]
    choices: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        app.game_screen.show_results(rows, "tomasz wins", choices.append)
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        svg = app.export_screenshot()
        for part in ("tomasz", "3:12.4", "alice", "resigned", "Rematch", "Back", "lobby"):
            assert part in svg
        await pilot.click("#rematch")
        assert choices == [REMATCH]
        assert current(app) is app.game_screen
        app.game_screen.show_results(rows, on_choice=choices.append)
        await pilot.pause()
        await pilot.press("l")
        assert choices == [REMATCH, LOBBY]


def nearly_won() -> Board:
    """Everything home but the King of spades, alone in column 1."""
    rules = preset("seahaven")
    columns: list[list[Card]] = [[Card.parse("KS")]] + [[] for _ in range(9)]
    return Board(rules, columns, [None] * 4, (13, 13, 13, 12))


async def test_solo_win_counts_in_the_stats_file(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    app = SoloApp("seahaven", 7, stats_path=path, board=nearly_won())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "#")
        await pilot.pause()
        screen = app.game_screen
        assert screen.board.is_won()
        data = json.loads(path.read_text())
        assert data["presets"]["seahaven"]["won"] == 1
        assert data["presets"]["seahaven"]["played"] == 1
        assert "wins 1" in str(screen.info.content)
        assert "You won" in " ".join(screen.view.cover)
        await pilot.press("u")  # the banner goes with the winning move...
        assert len(screen.view.cover) == 0
        await pilot.press("1", "#")  # ...and winning again does not count twice
        await pilot.pause()
        assert json.loads(path.read_text())["presets"]["seahaven"]["won"] == 1
        assert "You won" in " ".join(screen.view.cover)
        await pilot.press("n")  # a finished game needs no confirmation
        await pilot.pause()
        assert not screen.board.is_won()
        assert len(screen.view.cover) == 0
        assert screen.board.progress == len(screen.board.move_stack), "only the deal's safe cards went home"
    again = SoloApp("seahaven", 7, stats_path=path, board=nearly_won())
    async with again.run_test(size=SIZE) as pilot:
        await pilot.double_click(BoardView, offset=again.game_screen.view.point_of(Place(COLUMN, 0)))
        await pilot.pause()
    assert json.loads(path.read_text())["presets"]["seahaven"]["won"] == 2


async def test_solo_new_deal_asks_twice_during_a_game(tmp_path: Path) -> None:
    app = SoloApp("seahaven", 1, stats_path=tmp_path / "s.json", automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("7", "0", "n")
        assert app.deal == 1
        assert "again" in app.game_screen.message_text
        await pilot.press("n")
        assert app.game_screen.board.move_stack == []
        assert app.game_screen.title_text.endswith(encode("seahaven", app.deal))  # issue 22: the deal by its code


async def test_a_whole_solved_game_by_keys(tmp_path: Path) -> None:
    solution = solve(deal1())
    assert solution.status == "solved"
    keys: list[str] = []
    for move in solution.moves:
        text = str(move).split(":")[0]
        keys += [text[0], text[-1]]
    app = SoloApp("seahaven", 1, stats_path=tmp_path / "s.json", automove=False)
    async with app.run_test(size=SIZE) as pilot:
        # The pilot takes ~0.1 s a key: feed most keys to the screen's key action directly
        # (the same path minus Textual's binding lookup), and press the last ones for real.
        for key in keys[:-6]:
            app.game_screen.action_pick(key)
        await pilot.press(*keys[-6:])
        await pilot.pause()
        assert app.game_screen.board.is_won()
        assert app.game_screen.board.move_stack == list(solution.moves)
    assert app.stats.of("seahaven").won == 1


async def test_foundation_take_back_by_keys() -> None:
    board = Board.deal("seahaven-easy", 1)
    for text in ("3c", "3d", "3#", "a#"):  # AH then 2H home; cell a free
        board.push_text(text)
    app = ScreenApp(GameScreen(board))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("#")
        assert screen.selected == Place(FOUNDATION, 2)  # hearts: the only non-empty foundation
        await pilot.press("a")
        assert screen.board.cells[0] == Card.parse("2H")
        assert screen.board.home[2] == 1


async def test_race_screenshot_has_the_rivals(tmp_path: Path) -> None:
    path = tmp_path / "race.svg"
    svg = await save_race_screenshot(path, (80, 24))
    assert path.read_text() == svg
    for part in ("marguerite", "tomasz", "racing", "disconnected", "home"):
        assert part in svg


async def test_demo_confirms_moves() -> None:
    app = RaceDemoApp(live=False, select=None)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        # The sink answers when the test says: a one-second timer raced a busy CI machine's keys
        # (the move was confirmed before the first look at it).
        app.sink.delay = 3600.0
        await pilot.press("2", "a")
        assert len(screen.game.pending) == 1
        await pilot.pause(0.5)
        assert len(screen.game.pending) == 1, "not confirmed before the sink answers"
        assert app.sink.log == ["1 move 2a"]
        screen.confirm(1)  # the sink's answer: what its timer calls
        await until(pilot, lambda: not screen.game.pending, "the sink's confirmation")


async def test_small_terminal_one_line_cards_still_click_right() -> None:
    app = ScreenApp(GameScreen(deal1(), sink=RecordingSink(), race=True))
    async with app.run_test(size=(80, 16)) as pilot:
        view = app.game_screen.view
        assert view.geometry().card_h == 1
        assert view.geometry().face >= 3
        await pilot.click(BoardView, offset=view.point_of(Place(COLUMN, 6)))
        await pilot.click(BoardView, offset=view.point_of(Place(COLUMN, 9)))
        assert app.game_screen.board.move_stack == [Move.parse("70")]
