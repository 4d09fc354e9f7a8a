"""The SVG screenshots in docs/, made by Textual's pilot from sample data (no server)::

    python -m client.apps.screenshots docs
    python -m client.apps.screenshots docs --lang fr --lang it --lang nl

The lobby, the race screen, the results and the statistics at 80x24 and at 160x50
(``lobby-80x24.svg``, ``race-160x50.svg``, ...), a race at 60x20, review.svg and review-analysis.svg (a race
on record with its analysis: where a deal was lost), terminal-friends.svg (the friends screen; alone
with ``--friends``); with ``--lang``, a language's lobby, race and results at 80x24
(``lobby-fr-80x24.svg``). client/README.md shows them.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.app import App
from textual.screen import Screen

import i18n
from i18n import _
from protocol.enums import Status
from protocol.messages import Friend, FriendRef, Friends, Watched
from seahaven import Board, Move, encode
from seahaven.analysis import analyse
from seahaven.solver import solve

from ..data.stats import RaceRecord, Stats
from ..screens.friends import FriendsDesk
from ..screens.friends_screen import FriendsScreen, Rival
from ..screens.results import ResultRow
from ..screens.review import ReviewScreen
from ..screens.stats_screen import StatsScreen
from ..widgets.rivals import DID_NOT_FINISH
from .app import RaceApp
from .demo import RaceDemoApp


class ShowApp(App[None]):
    """Shows one screen."""

    ENABLE_COMMAND_PALETTE = False

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.shown = screen

    def on_mount(self) -> None:
        self.push_screen(self.shown)


async def _shoot(app: App[None], size: tuple[int, int], path: Path, title: str, keys: Sequence[str] = ()) -> None:
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()
        svg = app.export_screenshot(title=title)
    await asyncio.to_thread(path.write_text, svg, encoding="utf-8")


def sample_stats(path: Path) -> Stats:
    stats = Stats.load(path)
    for won in (True, True, False, True, True, True):
        stats.record_start("seahaven")
        if won:
            stats.record_win("seahaven", 183_400, 96)
    stats.record_start("freecell")
    stats.record_win("freecell", 241_000, 110)
    races = (
        ("2026-11-28T20:14:03", "K7Q2MA", "seahaven", 1, 1, 2, "finished", 98, 52, 192_400),
        ("2026-11-29T18:40:51", "P3XW9D", "seahaven", 617, 2, 3, "finished", 121, 52, 260_900),
        ("2026-11-30T09:02:17", "B8NE4R", "freecell", 11982, 2, 2, DID_NOT_FINISH, 64, 31, None),
    )
    for when, room, preset, deal, place, racers, status, moves, progress, time_ms in races:
        stats.races.append(
            RaceRecord(when, room, preset, encode(preset, deal), place, racers, status, moves, progress, time_ms)
        )
    return stats


def sample_histories() -> tuple[Watched, ...]:
    """Two racers on Seahaven deal 1: one who solved it, one who got 30 moves in."""
    moves = tuple(str(m) for m in solve(Board.deal("seahaven", 1)).moves)
    return (
        Watched(player="p1", history=moves, actions=len(moves)),
        Watched(player="p2", history=moves[:30], actions=34),
    )


def sample_race() -> dict[str, Any]:
    """A race on record (the read API's document) on Seahaven deal 1: tomasz solves it; alice
    plays 30 moves of his line, then one that leaves no win, then 4 more."""
    line = [str(m) for m in solve(Board.deal("seahaven", 1)).moves]
    board = Board.deal("seahaven", 1)
    for text in line[:30]:
        board.push_text(text)
    losing = next(m for m in board.legal_moves() if _leaves_no_win(board, m))
    board.push(losing)
    alice = [*line[:30], str(losing), *(str(m) for m in _some_moves(board, 4))]
    racer = {"place": 1, "status": "finished", "bot": False, "ghost": False, "auto": []}
    return {
        "race_id": "SHOTS1-1-abcdefgh",
        "deal_code": encode("seahaven", 1),
        "preset": "seahaven",
        "deal": 1,
        "racers": [
            {**racer, "player": "p1", "name": "tomasz", "moves": [[900 * (n + 1), m] for n, m in enumerate(line)]},
            {
                **racer,
                "player": "p2",
                "name": "alice",
                "place": 2,
                "status": "resigned",
                "moves": [[1300 * (n + 1), m] for n, m in enumerate(alice)],
            },
        ],
    }


def _leaves_no_win(board: Board, move: Move) -> bool:
    board.push(move)
    try:
        return solve(board, max_states=20_000).status == "unsolvable"
    finally:
        board.pop()


def _some_moves(board: Board, count: int) -> list[Move]:
    played: list[Move] = []
    while len(played) < count and (moves := board.legal_moves()):
        board.push(moves[0])
        played.append(moves[0])
    return played


async def _ready(document: dict[str, Any]) -> dict[str, Any]:
    return document


async def save_all(directory: Path) -> list[Path]:
    """Write every screenshot into ``directory``; the paths written."""
    written: list[Path] = []

    async def shoot(app: App[None], size: tuple[int, int], name: str, title: str, keys: Sequence[str] = ()) -> None:
        path = directory / name
        await _shoot(app, size, path, title, keys)
        written.append(path)

    sizes = ((80, 24), (160, 50))
    for width, height in sizes:
        size = f"{width}x{height}"
        await shoot(RaceDemoApp(live=False), (width, height), f"race-{size}.svg", f"Seahaven race, {size}")

    async def with_results(size: tuple[int, int]) -> None:
        results = RaceDemoApp(live=False)
        async with results.run_test(size=size) as pilot:
            await pilot.pause()
            results.game_screen.stop_clock(192_400)
            results.game_screen.show_results(RESULT_ROWS, "tomasz wins", can_review=True)
            await pilot.pause()
            svg = results.export_screenshot(title=f"Seahaven race: results, {size[0]}x{size[1]}")
        path = directory / f"results-{size[0]}x{size[1]}.svg"
        await asyncio.to_thread(path.write_text, svg, encoding="utf-8")
        written.append(path)

    for width, height in sizes:
        size = f"{width}x{height}"
        await with_results((width, height))
        with tempfile.TemporaryDirectory() as tmp:
            stats = sample_stats(Path(tmp) / "stats.json")
            await shoot(
                ShowApp(StatsScreen(stats)), (width, height), f"stats-{size}.svg", f"Seahaven: statistics, {size}"
            )
        lobby = RaceApp("ws://127.0.0.1:8765", "alice", autoconnect=False, resume=False)
        await shoot(lobby, (width, height), f"lobby-{size}.svg", f"Seahaven lobby, {size}")
    # The smallest terminal a race is played in: the board first, the racers a key (v) away.
    await shoot(RaceDemoApp(live=False), (60, 20), "race-60x20.svg", "Seahaven race, 60x20")
    names = {"p1": "tomasz", "p2": "alice"}
    review = ReviewScreen(encode("seahaven", 1), sample_histories(), names, first="p2")
    await shoot(ShowApp(review), (100, 30), "review.svg", "Seahaven race: review", ["end", "left", "left"])
    # The review of a race on record with its analysis: where alice's deal was lost, marked and said.
    race = sample_race()
    analysed = {"race_id": race["race_id"], "status": "done", "analysis": analyse(race).as_json()}
    on_record = ReviewScreen(None, fetch=lambda: _ready(race), analyse=lambda: _ready(analysed), first="p2")
    keys = ["l"]  # to the move that lost the deal
    await shoot(ShowApp(on_record), (80, 24), "review-analysis.svg", "Seahaven race: review, analysed", keys)
    return written


def sample_friends() -> FriendsDesk:
    """Friends in each presence, a request either way and a block."""
    friends = (
        Friend(player="p7k2m9q4", name="Bob", handle="bobby", state="waiting", room="3R12R9"),
        Friend(player="p3xw9d2a", name="marguerite", state="racing", room="K7Q2MA"),
        Friend(player="p8ne4r1b", name="ines", handle="ines", state="lobby"),
        Friend(player="p5tq7c3d", name="tomasz", state="watching", room="P3XW9D"),
        Friend(player="p2a8c4d1", name="Ann", handle="ann", state="offline"),
    )
    listing = Friends(
        friends=friends,
        incoming=(FriendRef(player="p9cees5e", name="Cees", handle="cees"),),
        outgoing=(FriendRef(player="p4dora6f", name="Dora"),),
        blocked=(FriendRef(player="p6zed7g8", name="zed"),),
        shown_to="friends",
    )
    return FriendsDesk(listing=listing)


def sample_rivals() -> list[Rival]:
    """Recent rivals: a friend, someone who asked, a stranger with shared deals, one without."""
    return [
        Rival("p7k2m9q4", "Bob", "bobby", races=7, wins=4, losses=3, shared=5, faster=3),
        Rival("p9cees5e", "Cees", "cees", races=2, wins=1, losses=1, shared=1, faster=0),
        Rival("p1lena2b", "Lena", None, races=3, wins=2, losses=1, shared=2, faster=2),
        Rival("p3otto4c", "Otto", "otto", races=1, wins=0, losses=1),
    ]


async def save_friends(directory: Path, size: tuple[int, int] = (80, 24)) -> Path:
    """The friends screen (F9) from sample data, with recent rivals: ``terminal-friends.svg``."""
    path = directory / "terminal-friends.svg"
    screen = FriendsScreen(sample_friends(), live=False, rivals=sample_rivals())
    await _shoot(ShowApp(screen), size, path, "Seahaven: friends")
    return path


RESULT_ROWS = (
    ResultRow(1, "tomasz", Status.FINISHED, 52, 96, 192_400),
    ResultRow(2, "alice", Status.FINISHED, 52, 104, 201_900, you=True),
    ResultRow(3, "marguerite", DID_NOT_FINISH, 23, 41),
    ResultRow(4, "ines", Status.STUCK, 9, 30),
)


async def save_language(directory: Path, language: str, size: tuple[int, int] = (80, 24)) -> list[Path]:
    """The lobby, the race screen and its results in ``language`` (``lobby-fr-80x24.svg``, ...);
    English is spoken again afterwards."""
    written: list[Path] = []
    tag = f"{language}-{size[0]}x{size[1]}"
    i18n.use(language)
    try:
        lobby = RaceApp("ws://127.0.0.1:8765", "alice", autoconnect=False, resume=False)
        await _shoot(lobby, size, directory / f"lobby-{tag}.svg", f"Seahaven lobby, {tag}")
        await _shoot(RaceDemoApp(live=False), size, directory / f"race-{tag}.svg", f"Seahaven race, {tag}")
        results = RaceDemoApp(live=False)
        async with results.run_test(size=size) as pilot:
            await pilot.pause()
            results.game_screen.stop_clock(192_400)
            winner = _("{name} wins").format(name="tomasz")
            results.game_screen.show_results(RESULT_ROWS, winner, can_review=True)
            await pilot.pause()
            svg = results.export_screenshot(title=f"Seahaven race: results, {tag}")
        await asyncio.to_thread((directory / f"results-{tag}.svg").write_text, svg, encoding="utf-8")
    finally:
        i18n.use("en")
    written += [directory / f"{screen}-{tag}.svg" for screen in ("lobby", "race", "results")]
    return written


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Write the client's SVG screenshots into a directory.")
    p.add_argument("directory", type=Path)
    p.add_argument(
        "--lang",
        action="append",
        default=None,
        help="a language's lobby, race and results at 80x24 (fr, it, nl; repeat it), instead of the English set",
    )
    p.add_argument("--friends", action="store_true", help="only the friends screen (terminal-friends.svg)")
    args = p.parse_args(argv)
    if args.friends:
        written = [asyncio.run(save_friends(args.directory))]
    elif args.lang:
        written = [path for lang in args.lang for path in asyncio.run(save_language(args.directory, lang))]
    else:
        written = [*asyncio.run(save_all(args.directory)), asyncio.run(save_friends(args.directory))]
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
