"""The review's graph of cards home and its autoplay (issue 40, item 2, in the terminal): a racer's
race at a glance, and played back at its own pace without holding a key."""

from __future__ import annotations

import asyncio
from itertools import pairwise
from pathlib import Path
from typing import Any, ClassVar, Final

import pytest
from rich.text import Text
from textual.binding import BindingType
from textual.widgets._footer import FooterKey

import i18n
from client.apps.app import RaceApp
from client.records.progress_graph import BARS, LOST_MARK, column_of, progress_after, sparkline
from client.records.race_analysis import judged, summary
from client.records.records_api import RecordsError
from client.records.replay import Step, tracks_from_race
from client.screens.results import ResultsScreen
from client.screens.review import SPEEDS, ReviewScreen
from client.widgets.rivals import format_ms
from protocol.messages import JoinRoom, MoveRequest, Ready, Result, RoomState
from seahaven import Board, Move
from seahaven.codes import encode
from tests.client_driver import SIZE, OneScreen, connect, data_home, keys_of, settle, top, until
from tests.fit import cut_words
from tests.helpers import url_of
from tests.racing import solution
from tests.recording import analysis, recording_server
from tests.wsclient import WsClient

__all__ = ["data_home"]  # the autouse fixture: the data directory is a temporary one


def won_track() -> tuple[Board, list[Step]]:
    """Deal 1 won, each of the line's moves a step 400 ms after the last."""
    board = Board.deal("seahaven", 1)
    return board, [Step(move, ms=400 * (n + 1)) for n, move in enumerate(solution())]


def test_the_counts_follow_the_cards_home_and_the_graph_ends_full() -> None:
    opening, steps = won_track()
    counts = progress_after(opening, steps)
    assert len(counts) == len(steps) + 1 and counts[0] == opening.progress and counts[-1] == 52
    assert all(b >= a for a, b in pairwise(counts)), "a won line never takes a card back"
    line = sparkline(counts, 40, len(steps))
    assert len(line.plain) == 40 and line.plain[-1] == BARS[-1]
    assert line.plain[0] != BARS[-1]
    # The step shown is marked: its column alone has the marker's style.
    marked = [span for span in line.spans if span.style and "on" in str(span.style)]
    assert [(s.start, s.end) for s in marked] == [(39, 40)]
    assert column_of(0, len(steps), 40) == 0


def test_a_short_race_is_drawn_a_column_a_step() -> None:
    assert sparkline([0, 4, 4, 52], 20, 1).plain == "·" + BARS[1] + BARS[1] + BARS[-1]
    assert sparkline([], 20, 0).plain == ""


async def test_space_plays_the_race_to_its_end_and_plus_speeds_it_up() -> None:
    moves = [[400 * (n + 1), str(move)] for n, move in enumerate(solution()[:6])]
    race: dict[str, Any] = {
        "deal_code": encode("seahaven", 1),
        "racers": [{"player": "p1", "name": "Ann", "moves": moves, "auto": []}],
    }

    async def fetch() -> dict[str, Any]:
        return race

    review = ReviewScreen(None, fetch=fetch)
    async with OneScreen(review).run_test(size=SIZE) as pilot:
        await until(pilot, lambda: review.source == "server", "the race read")
        await pilot.press("space")  # at x1: 400 ms a step
        assert "⏸" in str(review.graph.content)
        await pilot.press("plus", "plus", "plus")  # x8 meanwhile: 50 ms a step
        assert SPEEDS[review.speed] == 8 and "×8" in str(review.graph.content)
        await until(pilot, lambda: review.at == len(moves), "played to the end")
        await until(pilot, lambda: review.player_timer is None, "stopped at the end")
        assert "▶" in str(review.graph.content)
        assert review.board.move_stack == list(solution()[:6])
        await pilot.press("minus", "minus", "minus", "space")  # at x1 again, from the start
        await until(pilot, lambda: 0 < review.at < len(moves), "playing again")
        await pilot.press("space")
        stopped = review.at
        await pilot.pause(0.3)
        assert review.at == stopped, "space stopped it"


# -- where the deal was lost: the race's analysis in the review (issue 40, item 2) -----------------

LOSING: Final = ("3c", "3d", "3#", "3#", "a#", "2a", "92")
"""Alice's moves on deal 1: the sixth (8♠ to cell a) leaves a deal no line wins, the seventh after it."""
LOST_INDEX: Final = 5


def lost_column(review: ReviewScreen) -> int:
    return str(review.graph.content).index(LOST_MARK)


def styles_at(text: Text, column: int) -> list[str]:
    return [str(span.style) for span in text.spans if span.start <= column < span.end]


async def test_the_review_says_where_my_deal_was_lost_marks_it_and_l_shows_it(tmp_path: Path) -> None:
    """A real server with records and analysis: alice loses deal 1 at her sixth move, ben wins it.
    Her review reads the analysis: the line says the move in words, the graph marks its column and
    draws the lost steps after it, ``l`` (in the footer) jumps there; ben's says he won."""
    async with recording_server(tmp_path, analysis=True) as server:
        # The analyst's worker process started first: one spawned under Textual's pilot fails
        # (its stdout has no file descriptor to hand on: "bad value(s) in fds_to_keep").
        assert server.analyst is not None
        assert await asyncio.get_running_loop().run_in_executor(server.analyst.executor(), len, "up") == 2
        app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
        ben = await WsClient.open(url_of(server), "ben")
        try:
            async with app.run_test(size=(80, 24)) as pilot:
                await connect(app, pilot)
                await pilot.click("#create")
                await until(pilot, lambda: app.room is not None and app.room.model.phase == "waiting", "the room")
                room = app.room
                assert room is not None
                assert isinstance(await ben.call(JoinRoom(room=room.code)), RoomState)
                await until(pilot, lambda: len(room.model.racers) == 2, "ben in the room")
                await pilot.press("r")
                await ben.call(Ready())
                await until(pilot, lambda: room.model.phase == "racing" and not room.screen.locked, "the race")
                for move in LOSING:
                    await pilot.press(*keys_of(Move.parse(move)))
                await settle(pilot, room)
                assert [str(m) for m in room.screen.board.move_stack] == list(LOSING)
                for his in solution():
                    await ben.call(MoveRequest(move=str(his)))
                result = await ben.expect(Result)
                assert result.race_id is not None
                await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
                # The server's verdict first: the sixth move lost alice's deal.
                done = await analysis(server.port, result.race_id)
                assert done["status"] == "done", done
                mine = next(r for r in done["analysis"]["racers"] if r["player"] == room.model.me)
                assert mine["lost_at"]["index"] == LOST_INDEX and mine["lost_at"]["own"] == LOST_INDEX + 1

                await pilot.press("v")
                await until(pilot, lambda: isinstance(top(app), ReviewScreen), "the review")
                review = top(app)
                assert isinstance(review, ReviewScreen)
                await until(pilot, lambda: review.analysis_text != "", "the analysis read")
                assert review.player == room.model.me
                said = review.analysis_text
                when = format_ms(mine["lost_at"]["ms"])
                assert said.startswith(f"Lost at move 6 ({when}): 8♠ → cell a · Longest think: move "), said
                # One column a step here: the cross on the position after the sixth move, the
                # positions after it (lost) drawn red, those before it not.
                graph = review.graph.content
                assert isinstance(graph, Text)
                assert len(graph.plain.split(" ")[0]) == len(LOSING) + 1, graph.plain
                assert lost_column(review) == LOST_INDEX + 1
                assert all(not any("#f87171" in s for s in styles_at(graph, c)) for c in range(LOST_INDEX + 1))
                assert any("#f87171" in s for s in styles_at(graph, LOST_INDEX + 2)), graph.spans
                # l: the board just after that move, the move on the step's line; l in the footer.
                await until(pilot, lambda: "l" in footer_keys(review), "l in the footer")
                assert footer_keys(review)["l"] == "Lost move"
                assert all(key.region.right <= 80 for key in review.query(FooterKey))
                await pilot.press("l")
                assert review.at == LOST_INDEX + 1
                assert "move 6 of 7 at " in review.line_text and "8♠ → cell a" in review.line_text
                graph = review.graph.content
                assert isinstance(graph, Text) and any("on #fde047" in s for s in styles_at(graph, LOST_INDEX + 1))
                assert review.board.cells[0] is not None and review.board.cells[0].symbol == "8♠"
                # Ben won: said so, and nothing to jump to.
                await pilot.press("right_square_bracket")
                assert review.player == ben.player and review.analysis_text.startswith("Won")
                await until(pilot, lambda: "l" not in footer_keys(review), "l gone from the footer")
                assert LOST_MARK not in str(review.graph.content)
        finally:
            await ben.close()


def footer_keys(screen: ReviewScreen) -> dict[str, str]:
    return {key.key: key.description for key in screen.query(FooterKey)}


def analysed(verdicts: list[str], lost: int | None, slow: tuple[int, int] | None) -> dict[str, Any]:
    """An analysis document (docs/api.md) of one racer "p1" whose positions after each move are
    ``verdicts``; ``lost`` the index of the move that lost it; ``slow``: (index, ms) of the longest think."""
    points = [
        {"index": i, "ms": 1000 * (i + 1), "took_ms": 1000, "verdict": v, "line": None} for i, v in enumerate(verdicts)
    ]
    costly = []
    if lost is not None:
        costly.append({"kind": "lost", "index": lost, "own": lost + 1, "ms": 1000 * (lost + 1), "move": "", "by": 0})
    if slow is not None:
        costly.append({"kind": "slow", "index": slow[0], "own": slow[0] + 1, "ms": 0, "move": "", "by": slow[1]})
    racer = {
        "player": "p1",
        "opening": {"index": -1, "ms": 0, "took_ms": 0, "verdict": "winnable", "line": 86},
        "points": points,
        "lost_at": costly[0] if lost is not None else None,
        "costly": costly,
        "against_winner": None,
    }
    return {"race_id": "r", "preset": "seahaven", "deal": 1, "racers": [racer]}


def losing_race() -> dict[str, Any]:
    moves = [[1000 * (n + 1), move] for n, move in enumerate(LOSING)]
    return {"deal_code": encode("seahaven", 1), "racers": [{"player": "p1", "name": "Ann", "moves": moves, "auto": []}]}


async def test_a_pending_analysis_is_asked_again_and_a_404_leaves_it_out() -> None:
    """Pending: asked again after a wait, without holding the screen; an older server's 404 (or
    records off): no line, no key, nothing said of it."""
    verdicts = ["winnable"] * LOST_INDEX + ["lost"] * (len(LOSING) - LOST_INDEX)
    answers = [{"status": "pending", "analysis": None}] * 2 + [
        {"status": "done", "analysis": analysed(verdicts, LOST_INDEX, (2, 31_000))}
    ]
    asked: list[int] = []

    async def fetch() -> dict[str, Any]:
        return losing_race()

    async def pending_then_done() -> dict[str, Any]:
        asked.append(1)
        return answers[len(asked) - 1]

    review = ReviewScreen(None, fetch=fetch, analyse=pending_then_done)
    review.analysis_waits = (0.05, 0.05, 0.05)
    async with OneScreen(review).run_test(size=SIZE) as pilot:
        await until(pilot, lambda: review.source == "server", "the race read")
        await pilot.press("right")
        assert review.at == 1, "the screen answers while the analysis is pending"
        await until(pilot, lambda: review.analysis_text != "", "the analysis, once done")
        assert len(asked) == 3
        assert review.analysis_text.endswith(" · Longest think: move 3, 0:31.0"), review.analysis_text

    async def gone() -> dict[str, Any]:
        asked.append(1)
        raise RecordsError(404, "not-found", "no such race")

    asked.clear()
    review = ReviewScreen(None, fetch=fetch, analyse=gone)
    async with OneScreen(review).run_test(size=SIZE) as pilot:
        await until(pilot, lambda: review.source == "server" and asked, "the race read, the analysis asked")
        await pilot.pause()
        assert review.analysis_text == "" and review.judged is None and len(asked) == 1
        assert "l" not in footer_keys(review) and LOST_MARK not in str(review.graph.content)


@pytest.mark.parametrize(
    ("verdicts", "lost", "said"),
    [
        (["winnable"] * 7, None, "Still winnable at the end"),
        (["winnable"] * 4 + ["unknown"] * 3, None, "Not known whether it could still be won"),
        (["winnable"] * 4 + ["unknown", "lost", "lost"], None, "Lost by the end; which move lost it is not known"),
    ],
)
def test_what_the_analysis_says_without_a_lost_move(verdicts: list[str], lost: int | None, said: str) -> None:
    opening, tracks = tracks_from_race(losing_race())
    found = judged(analysed(verdicts, lost, None), "p1", tracks[0].steps)
    assert found is not None and summary(found, opening, tracks[0].steps) == said
    assert judged(analysed(verdicts[:-1], lost, None), "p1", tracks[0].steps) is None, (
        "points that do not fit the moves"
    )
    line = sparkline(progress_after(opening, tracks[0].steps), 40, 0, found.verdicts)
    assert LOST_MARK not in line.plain


@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
@pytest.mark.parametrize("size", [(80, 24), (60, 20)])
async def test_the_lost_line_and_key_cut_no_word(language: str, size: tuple[int, int]) -> None:
    """The analysis's line and the footer's l at 80x24 (and the line at 60x20), in every language."""
    verdicts = ["winnable"] * LOST_INDEX + ["lost"] * (len(LOSING) - LOST_INDEX)

    async def fetch() -> dict[str, Any]:
        return losing_race()

    async def analyse() -> dict[str, Any]:
        return {"status": "done", "analysis": analysed(verdicts, LOST_INDEX, (2, 31_000))}

    async def check() -> str:
        return i18n._("signed and verified")

    i18n.use(language)
    try:
        review = ReviewScreen(None, fetch=fetch, analyse=analyse, check=check)
        async with WithQuit(review).run_test(size=size) as pilot:
            await until(pilot, lambda: review.analysis_text != "" and review.verdict != "", "the analysis read")
            await pilot.press("l")
            await pilot.pause()
            assert review.at == LOST_INDEX + 1 and "8♠" in review.analysis_text
            cut = cut_words(review, size[0])
            if size[0] < 80:  # the footer scrolls at 60 columns (longer than 60 in three languages)
                cut = [c for c in cut if not c.startswith("FooterKey")]
            assert cut == [], cut
            assert review.view.region.bottom <= size[1] - 1, "the board above the footer"
            if size[0] >= 80:
                assert {"l", "ctrl+q"} <= set(footer_keys(review)), footer_keys(review)
    finally:
        i18n.use("en")


class WithQuit(OneScreen[ReviewScreen]):
    """The review alone, with the app's own key in its footer (``^q``) as RaceApp has it."""

    BINDINGS: ClassVar[list[BindingType]] = RaceApp.BINDINGS[:1]
