"""Playing on the game screen: auto-move and auto-finish, hints and the "lost" notice, the
rules in the help, statistics, and the screen's bugs from issue 11 (each named)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.app import App

from client.apps.screenshots import sample_histories, save_all
from client.apps.solo import SoloApp
from client.board.places import Place, destination_of, destinations, with_symbols
from client.data.stats import RaceRecord, Stats
from client.data.userdata import SavedSession, Settings, data_dir
from client.screens.game_screen import GameScreen
from client.screens.help import HelpScreen, rules_rows
from client.screens.review import ReviewScreen
from client.screens.stats_screen import StatsScreen
from client.widgets.board_view import card_face, geometry
from seahaven import CARDS, COLUMN, FOUNDATION, Board, Card, Move, encode, preset
from seahaven.solver import solve

SIZE = (100, 34)


@pytest.fixture(autouse=True)
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The user's data directory points at a temporary one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SEAHAVEN_STATS", raising=False)
    yield tmp_path / "data" / "seahaven"


class RecordingSink:
    def __init__(self) -> None:
        self.sent: list[str] = []

    def submit(self, seq: int, move: Move, auto: bool = False) -> None:
        self.sent.append(f"{move}+auto" if auto else str(move))

    def undo(self, seq: int) -> None:
        self.sent.append("undo")

    def resign(self) -> None:
        self.sent.append("resign")


class ScreenApp(App[None]):
    def __init__(self, screen: GameScreen) -> None:
        super().__init__()
        self.game_screen = screen

    def on_mount(self) -> None:
        self.push_screen(self.game_screen)


def board_from(columns: list[str], cells: str = "", home: tuple[int, int, int, int] = (0, 0, 0, 0)) -> Board:
    """A Seahaven position: the given columns (cards deepest first), cells, and foundations
    (cards home per suit C D H S); every other card goes round the empty columns."""
    cols = [[Card.parse(c) for c in col.split()] for col in columns]
    cell_cards: list[Card | None] = [Card.parse(c) for c in cells.split()]
    used = {c for col in cols for c in col} | {c for c in cell_cards if c is not None}
    used |= {Card.of(rank, suit) for suit in range(4) for rank in range(1, home[suit] + 1)}
    rest = [c for c in CARDS if c not in used]
    cols += [[] for _ in range(10 - len(cols))]
    free = list(range(len(columns), 10))
    for n, card in enumerate(rest):
        cols[free[n % len(free)]].append(card)
    cell_cards += [None] * (4 - len(cell_cards))
    return Board(preset("seahaven"), cols, cell_cards, home)


# -- auto-move and auto-finish -------------------------------------------------------------------


async def test_safe_cards_go_home_with_the_move_that_freed_them_one_request() -> None:
    start = board_from(["KD AH", "2H QD"])
    sink = RecordingSink()
    app = ScreenApp(GameScreen(start, sink=sink, race=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("1", "a")  # AH to a cell... and it is safe: it goes home by itself
        assert screen.board.home[2] >= 1, "the Ace went home"
        assert all(m.dst_area == FOUNDATION for m in screen.board.move_stack[1:])
        # One request: the move, asking the server to play the same auto-moves in its step.
        assert sink.sent == ["1a+auto"]
        assert [str(m) for m in screen.game.pending[0].auto] == [str(m) for m in screen.board.move_stack[1:]]
        assert "home by itself" in screen.message_text
        assert screen.actions == 1, "the player's own moves are counted"
        await pilot.press("u")  # the undo takes the move back with its auto-moves
        assert sink.sent == ["1a+auto", "undo"] and screen.board.move_stack == []
        assert screen.board.home[2] == 0
        back = len(screen.game.pending[-1].auto)
        assert back and f"{back} card{'s' if back > 1 else ''} back from home" in screen.message_text


async def test_auto_move_can_be_turned_off_and_the_setting_is_kept(data_home: Path) -> None:
    app = SoloApp("seahaven", 1, stats_path=data_home / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        assert screen.automove
        await pilot.press("A")
        assert not screen.automove and "Auto-move is off" in screen.message_text
        await pilot.pause()
    assert Settings.load().automove is False
    again = SoloApp("seahaven", 1, stats_path=data_home / "s.json")
    assert again.game_screen.automove is False


async def test_auto_finish_once_only_foundation_moves_are_left() -> None:
    # Everything home but the last four spades, spread so each needs the one before.
    rules = preset("seahaven")
    columns: list[list[Card]] = [[Card.parse("KS"), Card.parse("JS")], [Card.parse("QS")], [Card.parse("TS")]]
    columns += [[] for _ in range(7)]
    board = Board(rules, columns, [None] * 4, (13, 13, 13, 9))
    sink = RecordingSink()
    app = ScreenApp(GameScreen(board, sink=sink, race=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("3", "#")  # the ten home: the rest follows by itself
        assert screen.board.is_won()
        assert sink.sent == ["3#+auto"], "the server finishes it in the same step"
        assert [str(m) for m in screen.game.pending[0].auto] == ["1#", "2#", "1#"]
        assert screen.actions == 1 and screen.message_text.startswith("Solved in 1 move")


# -- hints and the lost notice ------------------------------------------------------------------


async def test_hint_in_solo_comes_from_a_thread_and_selects_the_move(data_home: Path) -> None:
    app = SoloApp("seahaven", 1, stats_path=data_home / "s.json")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("H")
        await app.workers.wait_for_complete()
        await pilot.pause()
        first = solve(Board.deal("seahaven", 1)).moves[0]
        assert screen.message_text.startswith("Hint: ")
        assert screen.selected == Place(first.src_area, first.src)
        assert screen.hint_result is not None and screen.hint_result.moves[0] == first
        # Lit: the card and the one place the hint sends it, not every place it could go.
        board = Board.deal("seahaven", 1)
        assert len(destinations(board, screen.selected)) > 1
        assert screen.view.dests == {destination_of(board, first)}
        await pilot.press("escape")
        assert screen.hinted is None and screen.view.dests == frozenset()


async def test_hints_are_off_in_races_unless_the_room_allows() -> None:
    app = ScreenApp(GameScreen(Board.deal("seahaven", 1), sink=RecordingSink(), race=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("H")
        await pilot.pause()
        assert app.game_screen.hint_result is None
        assert "hint" not in app.game_screen.active_bindings


async def test_a_lost_position_is_announced_in_solo() -> None:
    # Only hearts are out: the Ace lies under five hearts, the cells hold 2, 4, 6 and 8, and the
    # Jack can shuttle onto the Queen and nothing else: moves are left but no win.
    lost = board_from(["AH 3H 5H 7H 9H JH", "KH TH QH"], cells="2H 4H 6H 8H", home=(13, 13, 0, 13))
    assert lost.legal_moves() and not lost.is_stuck()
    app = ScreenApp(GameScreen(lost, hints=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        screen.check_lost()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.hint_result is not None and screen.hint_result.status == "unsolvable"
        assert "cannot be won, and there is nothing to undo" in screen.message_text  # issue 22, bug 16


# -- the rules in the help ----------------------------------------------------------------------


async def test_help_shows_the_presets_rules() -> None:
    seahaven = dict(rules_rows(preset("seahaven")))
    assert "down by suit" in seahaven["Building"].lower() and "Only a King" in seahaven["Empty columns"]
    assert "free cells" in seahaven["Moving runs"]
    freecell = dict(rules_rows(preset("freecell")))
    assert (
        "alternating colours" in freecell["Building"]
        and freecell["Empty columns"] == "Any card, or any run that may move."
    )
    app = ScreenApp(GameScreen(Board.deal("seahaven", 1)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen) and help_screen.rules == preset("seahaven")
        text = help_screen.text
        assert "Rules: Seahaven Towers" in text and "Only a King" in text


# -- statistics ------------------------------------------------------------------------------------


def test_stats_count_streaks_win_percent_and_races(tmp_path: Path) -> None:
    stats = Stats.load(tmp_path / "s.json")
    for won in (True, True, False, True):
        stats.record_start("seahaven")
        if won:
            stats.record_win("seahaven", 60_000, 90)
    stats.record_start("seahaven")  # the fourth game's streak ends only when a game is lost
    entry = stats.of("seahaven")
    assert (entry.played, entry.won, entry.win_percent) == (5, 3, 60)
    assert (entry.streak, entry.best_streak) == (1, 2)
    race = RaceRecord("2026-11-30T15:00:00", "ABC123", "seahaven", "SH1-ST-0001K", 1, 2, "finished", 98, 52, 120_000)
    stats.record_race(race)
    again = Stats.load(tmp_path / "s.json")
    assert again.races == [race] and again.of("seahaven").best_streak == 2
    assert again.race_summary("seahaven") == (1, 1, 120_000)


async def test_stats_screen_lists_races_and_replays_a_deal_in_solo(data_home: Path) -> None:
    path = data_home / "stats.json"
    stats = Stats.load(path)
    stats.record_race(
        RaceRecord("2026-11-30T15:00:00", "ABC123", "freecell", encode("freecell", 7), 2, 2, "finished", 99, 52)
    )
    app = SoloApp("seahaven", 1, stats_path=path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("S")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        races = screen.query_one("#races")
        assert races.display
        await pilot.click("#races", offset=(2, 1))
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.game_screen
        assert app.preset_name == "freecell" and app.game_screen.board.rules.name == "freecell"


# -- bugs of issue 11 -------------------------------------------------------------------------------


async def test_bug1_another_key_or_escape_cancels_the_resign_confirmation() -> None:
    sink = RecordingSink()
    app = ScreenApp(GameScreen(Board.deal("seahaven", 1), sink=sink, race=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("R", "1", "R")
        assert sink.sent == [], "R 1 R does not resign"
        await pilot.press("escape", "R", "escape", "R")
        assert sink.sent == []
        await pilot.press("R")
        assert sink.sent == ["resign"], "R R still does"


async def test_bug2_the_status_line_counts_moves_as_the_server_does() -> None:
    app = ScreenApp(GameScreen(Board.deal("seahaven", 1), sink=RecordingSink(), race=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        screen.automove = False
        await pilot.press("7", "0", "3", "c", "u")
        assert screen.actions == 3 and len(screen.board.move_stack) == 1
        assert "3 moves" in str(screen.info.content), "moves and undos, like the racers panel"


async def test_bug4_up_lifts_no_more_than_the_run() -> None:
    board = board_from(["TH KC QC"])
    app = ScreenApp(GameScreen(board))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        await pilot.press("1")
        assert screen.selected == Place(COLUMN, 0)
        await pilot.press("up", "up")
        assert screen._selected_count() == 2
        assert "2 cards from K♣" in screen.message_text and "3 cards" not in screen.message_text


async def test_bug10_messages_spell_cards_as_the_board_does() -> None:
    assert (
        with_symbols("4S cannot go on 5H: columns build down by suit")
        == "4♠ cannot go on 5♥: columns build down by suit"
    )
    assert with_symbols("TD and AC, not ASK or 7SS") == "10♦ and A♣, not ASK or 7SS"
    app = ScreenApp(GameScreen(Board.deal("seahaven", 1), sink=RecordingSink(), race=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.game_screen
        screen.automove = False
        await pilot.press("3", "#")
        assert screen.message_text == "8♦ cannot go home yet: the diamonds foundation needs A♦"
        await pilot.press("7", "0", "u")
        assert screen.message_text.startswith("Undid ") and "#" not in screen.message_text
        assert any(symbol in screen.message_text for symbol in "♣♦♥♠")


async def test_bug13_restarting_a_solo_deal_is_the_same_game(data_home: Path) -> None:
    path = data_home / "stats.json"
    app = SoloApp("seahaven", 1, stats_path=path, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("7", "0")
        await pilot.press("r", "r")
        assert app.game_screen.board.move_stack == []
        await pilot.press("7", "0")
        await pilot.pause()
    assert json.loads(path.read_text())["presets"]["seahaven"]["played"] == 1


async def test_quitting_a_solo_game_in_progress_asks_first(data_home: Path) -> None:
    app = SoloApp("seahaven", 1, stats_path=data_home / "s.json", automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("7", "0", "q")
        assert app.is_running and "Press q again" in app.game_screen.message_text
        await pilot.press("q")
        await pilot.pause()
        assert not app.is_running


def test_user_data_lives_in_the_xdg_data_directory(tmp_path: Path) -> None:
    assert data_dir({"XDG_DATA_HOME": "/d"}) == Path("/d/seahaven")
    assert data_dir({}).parts[-3:] == (".local", "share", "seahaven")
    saved = SavedSession("ws://127.0.0.1:1", "t" * 20, "ann", "ROOM42")
    saved.save(tmp_path)
    assert SavedSession.load(tmp_path) == saved
    SavedSession.forget(tmp_path)
    assert SavedSession.load(tmp_path) is None
    (tmp_path / "session.json").write_text("not json")
    assert SavedSession.load(tmp_path) is None


# -- the post-race review, big tables, screenshots ---------------------------------------------------


async def test_review_steps_through_any_racers_moves() -> None:
    histories = sample_histories()
    names = {"p1": "tomasz", "p2": "alice"}
    app = ScreenApp(GameScreen(Board.deal("seahaven", 1)))
    async with app.run_test(size=SIZE) as pilot:
        review = ReviewScreen(encode("seahaven", 1), histories, names, first="p2")
        await app.push_screen(review)
        assert review.player == "p2" and review.board == Board.deal("seahaven", 1)
        await pilot.press("right", "right", "right")
        assert review.board.move_stack == [Move.parse(m) for m in histories[1].history[:3]]
        assert "alice · move 3 of 30" in review.line_text
        await pilot.press("]")  # the other racer at the same move number
        assert review.player == "p1" and "tomasz · move 3 of" in review.line_text
        assert review.board.move_stack == [Move.parse(m) for m in histories[0].history[:3]]
        await pilot.press("end")
        assert review.board.is_won() and "52/52 home" in review.line_text
        await pilot.press("[")
        assert review.player == "p2" and review.at == 30, "alice has fewer moves: her last"
        await pilot.press("home")
        assert review.board == Board.deal("seahaven", 1)
        await pilot.press("escape")
        assert app.screen is app.game_screen


def test_big_tables_get_big_cards() -> None:
    big = geometry(10, 4, 124, 48, 7)
    assert (big.card_h, big.step) == (5, 2) and big.face >= 10
    assert geometry(10, 4, 80, 21, 7).card_h == 3, "80x24 as before"
    assert card_face(Card.parse("TH"), 6, 2, 5) == "  ♥   " and card_face(Card.parse("TH"), 6, 1, 5) == " " * 6


async def test_screenshots_are_written(tmp_path: Path) -> None:
    written = await save_all(tmp_path)
    screens = ("race", "results", "stats", "lobby")
    assert {p.name for p in written} == {f"{s}-{size}.svg" for s in screens for size in ("80x24", "160x50")} | {
        "review.svg",
        "review-analysis.svg",
        "race-60x20.svg",
    }
    assert "tomasz&#160;wins" in (tmp_path / "results-80x24.svg").read_text()
    # The analysed review: where alice's deal was lost, said and marked (client/records/race_analysis.py).
    analysed = (tmp_path / "review-analysis.svg").read_text()
    assert "Lost&#160;at&#160;move&#160;31&#160;" in analysed and "✗" in analysed
