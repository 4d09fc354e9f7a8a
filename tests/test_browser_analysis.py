"""The race's analysis on the replay page and a player's mistakes on theirs (issue 40, items 2 and
4), in Debian's headless Chromium under Playwright, on a real server with records and analyses
(tests/recording.py, ``analysis=True``).

Three protocol clients race seahaven deal 1: Cleo plays the solver's first three moves and stops
(her deal still winnable), Bob the first five, then, after a think, a move that leaves the deal
unwinnable (``LOSING``: the solver proves no win is left after it), then Ann wins on the solver's
line. The replay then draws a line per racer with Bob's lost move marked, says in words where Bob
lost it and with which card, and a click on the graph jumps the replay there.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, Route

from protocol.messages import CreateRoom, JoinRoom, MoveRequest, Ready, Result, RoomState, Started
from seahaven import Board, Move
from seahaven.solver import solve
from server.app import RaceServer
from tests.browser_pages import WAIT_MS, axe_problems, js, new_page, no_errors, watched
from tests.helpers import url_of
from tests.httpclient import get
from tests.recording import analysis, recording_server
from tests.wsclient import WsClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("close_pages")]

SOLUTION = [str(m) for m in solve(Board.deal("seahaven", 1)).moves]
BOB_FIRST = 5
LOSING = "6a"
"""After the solver's first five moves on deal 1, the three of diamonds (column 6's top card) to
cell a leaves no win: checked below, by the solver."""
CLEO_MOVES = 3
PHONE = {"width": 390, "height": 844}


@dataclass(frozen=True)
class Raced:
    server: RaceServer
    race_id: str
    ann: str
    bob: str
    cleo: str
    race: dict[str, Any]
    analysis: dict[str, Any]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.port}{path}"


def race_time(ms: int) -> str:
    """As the records pages write a race time (m:ss.t), in English."""
    tenths = ms // 100
    seconds = tenths // 10
    return f"{seconds // 60}:{seconds % 60:02d}.{tenths % 10}"


def losing_after_bobs_first_moves() -> bool:
    """``LOSING`` leaves no win where Bob plays it, though the position before it has one (the solver's word)."""
    board = Board.deal("seahaven", 1)
    for text in SOLUTION[:BOB_FIRST]:
        board.push_text(text)
    winnable = solve(board).status == "solved"
    board.push(Move.parse(LOSING))
    return winnable and solve(board).status == "unsolvable"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def raced(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Raced]:
    assert losing_after_bobs_first_moves()
    async with recording_server(tmp_path_factory.mktemp("analysis"), analysis=True) as server:
        ann, bob, cleo = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob", "Cleo")]
        created = await ann.call(CreateRoom(seats=3))
        assert isinstance(created, RoomState)
        for rival in (bob, cleo):
            await rival.call(JoinRoom(room=created.room))
        for racer in (ann, bob, cleo):
            await racer.call(Ready())
        await ann.expect(Started)
        for move in SOLUTION[:CLEO_MOVES]:
            await cleo.call(MoveRequest(move=move))
        await asyncio.sleep(0.3)  # the race's time: Cleo's moves, then Bob's, then Ann's, apart on the graph
        for move in SOLUTION[:BOB_FIRST]:
            await bob.call(MoveRequest(move=move))
        await asyncio.sleep(0.4)  # Bob's longest think
        await bob.call(MoveRequest(move=LOSING))
        await asyncio.sleep(0.3)
        for move in SOLUTION:
            await ann.call(MoveRequest(move=move))
        result = await ann.expect(Result)
        assert result.race_id is not None
        players = (ann.player, bob.player, cleo.player)
        for racer in (ann, bob, cleo):
            await racer.close()
        analysed = await analysis(server.port, result.race_id)
        assert analysed["status"] == "done"
        race = (await get(server.port, f"/api/v1/races/{result.race_id}")).json()
        yield Raced(server, result.race_id, *players, race, analysed["analysis"])


async def replay(browser: Browser, raced: Raced, query: str = "", **context: Any) -> Page:
    """The race's replay, once its analysis is drawn."""
    if context:
        page = watched(await (await browser.new_context(**context)).new_page())
    else:
        page = await new_page(browser)
    await page.goto(raced.url(f"/races/{raced.race_id}{query}"))
    await page.wait_for_selector("#analysis-facts", timeout=WAIT_MS)
    return page


async def facts(page: Page, player: str) -> list[str]:
    texts = await page.locator(f"#analysis-facts > li[data-player='{player}'] .fact").all_inner_texts()
    return [re.sub(r"\s+", " ", text).strip() for text in texts]


async def at(page: Page) -> tuple[str, int]:
    """Whose moves the replay shows, and after how many."""
    player, step = await js(page, "[window.seahavenRecords.racer.player, window.seahavenRecords.replay.at]")
    return player, step


async def test_the_replay_says_where_each_racer_lost_the_deal_in_words(browser: Browser, raced: Raced) -> None:
    bob = next(r for r in raced.analysis["racers"] if r["player"] == raced.bob)
    assert bob["lost_at"] is not None and bob["lost_at"]["index"] == BOB_FIRST, bob["lost_at"]
    page = await replay(browser, raced)
    lost_ms = next(r for r in raced.race["racers"] if r["player"] == raced.bob)["moves"][BOB_FIRST][0]
    said = await facts(page, raced.bob)
    # Move 6, its time, the card (as its corner shows it) and where it went: in words, not "6a".
    assert said[0] == f"Lost at move {BOB_FIRST + 1} ({race_time(lost_ms)}): 3♦ to cell a Show", said
    assert any(s.startswith(f"Longest think: move {BOB_FIRST + 1}, 0:00.") for s in said), said
    assert f"Followed the winner's line (Ann) for {BOB_FIRST} moves Show" in said, said
    cleo = await facts(page, raced.cleo)
    assert cleo[0] == "Still winnable at the end Show", cleo
    assert f"Followed the winner's line (Ann) for {CLEO_MOVES} moves" in " ".join(cleo), cleo
    assert (await facts(page, raced.ann))[0] == "Won the deal Show"
    assert "The solver wins this deal in" in await page.inner_text("#analysis-solver")

    # The fact's button shows the move: Bob's board after it, its verdict said with the step.
    await page.click(f"#analysis-facts li[data-player='{raced.bob}'] .fact.lost button")
    assert await at(page) == (raced.bob, BOB_FIRST + 1)
    step_text = await page.inner_text("#step-text")
    assert f"Bob: move {BOB_FIRST + 1} of {BOB_FIRST + 1}" in step_text and "lost: no win left" in step_text, step_text
    await page.keyboard.press("ArrowLeft")
    assert "winnable in" in await page.inner_text("#step-text")
    no_errors(page)


async def test_the_graph_draws_a_line_per_racer_and_a_click_jumps_the_replay(browser: Browser, raced: Raced) -> None:
    page = await replay(browser, raced)
    lines = page.locator("svg.analysis-graph .racer-line")
    drawn = await lines.evaluate_all("ls => ls.map((l) => l.dataset.player)")
    assert sorted(drawn) == sorted((raced.ann, raced.bob, raced.cleo))
    strokes = {await line.get_attribute("stroke") for line in await lines.all()}
    assert len(strokes) == 3, "each racer's colour"
    # One lost move, Bob's, marked where it was played; its tooltip in words.
    lost = page.locator("svg.analysis-graph .lost-mark")
    assert await lost.count() == 1
    assert await lost.get_attribute("data-player") == raced.bob
    assert await lost.get_attribute("data-step") == str(BOB_FIRST + 1)
    assert (await lost.locator("title").text_content() or "").startswith(f"Bob lost the deal at move {BOB_FIRST + 1} (")
    assert await page.locator("svg.analysis-graph .costly-mark.slow").count() >= 1
    # The bands: Bob's lost after move 6, hatched and said; Cleo's winnable to the end.
    bob_band = page.locator(f"svg.analysis-graph [data-band='{raced.bob}']")
    verdicts = "gs => gs.map((g) => g.dataset.verdict)"
    assert await bob_band.locator(".segment").evaluate_all(verdicts) == ["winnable", "lost"]
    assert await bob_band.locator(".segment.lost rect").get_attribute("fill") == "url(#band-lost)"
    cleo_band = page.locator(f"svg.analysis-graph [data-band='{raced.cleo}']")
    assert await cleo_band.locator(".segment").evaluate_all(verdicts) == ["winnable"]

    await lost.click()
    assert await at(page) == (raced.bob, BOB_FIRST + 1)
    # A point of Ann's line, where no mark covers it: a click there shows her board after that move.
    await page.locator("svg.analysis-graph").scroll_into_view_if_needed()
    home = await page.evaluate(
        """(ann) => {
          const view = window.seahavenRecords.analysisView;
          for (let step = 1; step < 200; step++) {
            const p = view.pointAt(ann, step);
            const on = document.elementFromPoint(p.x, p.y);
            const clear = on?.closest("svg.analysis-graph") && !on.closest("[data-step]");
            if (step > 20 && view.verdictAt(ann, step).verdict === "winnable" && clear) return { step, ...p };
          }
          return null;
        }""",
        raced.ann,
    )
    assert home is not None
    await page.mouse.click(home["x"], home["y"])
    racer, step = await at(page)
    assert racer == raced.ann and abs(step - home["step"]) <= 1, (racer, step, home)
    assert await page.locator("svg.analysis-graph .now-mark").get_attribute("visibility") == "visible"
    no_errors(page)


async def test_the_analysis_reads_on_a_phone_in_french_and_is_clean_under_axe(browser: Browser, raced: Raced) -> None:
    page = await replay(
        browser,
        raced,
        "?racer=" + raced.bob,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        bypass_csp=True,
    )
    width = await page.evaluate("() => document.querySelector('svg.analysis-graph').getBoundingClientRect().width")
    assert 300 < width <= PHONE["width"], width
    assert await page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert await axe_problems(page) == []
    await page.evaluate("() => localStorage.setItem('seahaven.lang', 'fr')")
    await page.reload()
    await page.wait_for_selector("#analysis-facts", timeout=WAIT_MS)
    said = await facts(page, raced.bob)
    assert said[0].startswith(f"Perdue au coup {BOB_FIRST + 1} (") and "3♦" in said[0] and "cellule a" in said[0], said
    assert await axe_problems(page) == []
    no_errors(page)


async def test_a_pending_analysis_says_so_then_draws_itself_and_a_missing_one_is_left_out(
    browser: Browser, raced: Raced
) -> None:
    page = await new_page(browser)
    asked: list[str] = []

    async def pending_first(route: Route) -> None:
        asked.append(route.request.url)
        if len(asked) == 1:
            body = {"race_id": raced.race_id, "status": "pending", "analysed_at": None, "analysis": None}
            await route.fulfill(status=200, content_type="application/json", body=json.dumps(body))
        else:
            await route.continue_()

    await page.route("**/analysis", pending_first)
    await page.goto(raced.url(f"/races/{raced.race_id}"))
    await page.wait_for_selector("#analysis-pending", timeout=WAIT_MS)
    assert await page.inner_text("#analysis-pending") == "Analysing…"
    await page.wait_for_selector("#analysis-facts", timeout=WAIT_MS)  # asked again a few seconds later
    assert len(asked) == 2

    gone = await new_page(browser)
    await gone.route("**/analysis", lambda route: route.fulfill(status=404, content_type="application/json", body="{}"))
    await gone.goto(raced.url(f"/races/{raced.race_id}"))
    await gone.wait_for_function("() => window.seahavenRecords?.analysis?.status === 'absent'", timeout=WAIT_MS)
    assert await gone.locator("section.analysis").is_hidden()
    assert await gone.locator("#replay-board .board").count() == 1
    no_errors(page)
    no_errors(gone)


async def test_a_players_page_sums_up_their_mistakes_in_words(browser: Browser, raced: Raced) -> None:
    page = await new_page(browser)
    await page.goto(raced.url(f"/players/{raced.bob}"))
    await page.wait_for_selector("#mistakes", timeout=WAIT_MS)
    text = re.sub(r"\s+", " ", await page.inner_text("#mistakes"))
    assert "In Bob's one analysed race, the deal was lost once: 1 by a move to a cell." in text, text
    await page.goto(raced.url(f"/players/{raced.cleo}"))
    await page.wait_for_selector("#mistakes", timeout=WAIT_MS)
    assert "In Cleo's one analysed race, the deal was never lost." in await page.inner_text("#mistakes")
    no_errors(page)
