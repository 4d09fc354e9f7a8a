"""axe-core (the web client's pinned devDependency, installed from web/package-lock.json) on every
page of the browser client, in its four languages, at a desktop's size and a phone's: no serious
or critical violation of WCAG 2.x A and AA (issue 38, bug 12). Debian's Chromium against a real
server process (records in its SQLite file), every page as a player reaches it: the name screen,
the lobby, a waiting room, a race with a card selected, its results, the race's replay, a
player's page, the boards, a challenge's page and an arena.

Each context bypasses the page's Content Security Policy, which (rightly) forbids the inline script
that brings axe in; nothing else is changed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page

from protocol.messages import (
    Arena,
    Challenge,
    ChallengeRequest,
    CreateArena,
    CreateRoom,
    JoinRoom,
    MoveRequest,
    Ready,
    Result,
    RoomState,
    Started,
)
from seahaven import Board
from seahaven.solver import solve
from tests.browser_pages import WAIT_MS, at_rest, axe_problems
from tests.helpers import wait_until
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("close_pages")]

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
SOLUTION = solve(Board.deal("seahaven", 1)).moves


@dataclass(frozen=True)
class OnRecord:
    """What the records pages show: a finished race, its winner, a challenge of the win, an arena."""

    race_id: str
    winner: str
    challenge: str
    arena: str


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    process = ServerProcess("--spectator-delay", "0")
    try:
        yield process
    finally:
        process.close()


def ws(server: ServerProcess) -> str:
    return f"ws://127.0.0.1:{server.port}/"


def http(server: ServerProcess, path: str = "/") -> str:
    return f"http://127.0.0.1:{server.port}{path}"


async def win(server: ServerProcess, winner: WsClient, page: Page | None = None) -> Result:
    """``winner`` makes a room on deal 1 that a second racer joins (``page``, by its link, or a
    protocol client) and wins it."""
    created = await winner.call(CreateRoom(deal_number=1))
    assert isinstance(created, RoomState)
    if page is None:
        rival = await WsClient.open(ws(server), "Rival")
        await rival.call(JoinRoom(room=created.room))
        await rival.call(Ready())
    else:
        await page.goto(http(server, f"/r/{created.room}"))
        await page.wait_for_selector("#ready", timeout=WAIT_MS)
        await checked(page, "a waiting room")
        await page.click("#ready")
    await winner.call(Ready())
    await winner.expect(Started, wait=10)  # after the server's countdown
    if page is not None:
        await page.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
        await page.keyboard.press("1")
        await page.wait_for_function("() => window.seahaven.selected !== null", timeout=WAIT_MS)
        await checked(page, "a race, a card selected")
        await page.keyboard.press("Escape")
    for move in SOLUTION:
        await winner.call(MoveRequest(move=str(move)))
    result = await winner.expect(Result)
    if page is None:
        await rival.close()
    return result


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def on_record(server: ServerProcess) -> AsyncIterator[OnRecord]:
    ann = await WsClient.open(ws(server), "Ann")
    result = await win(server, ann)
    assert result.race_id is not None
    race_id = result.race_id

    made: list[Challenge] = []

    async def challenged() -> bool:  # once the race is on record
        reply = await ann.call(ChallengeRequest(race_id=race_id))
        made.extend([reply] if isinstance(reply, Challenge) else [])
        return bool(made)

    await wait_until(challenged, what="the race on record, challenged")
    arena = await ann.call(CreateArena(minutes=180))
    assert isinstance(arena, Arena)
    yield OnRecord(race_id, ann.player, made[0].challenge, arena.arena)
    await ann.close()


async def checked(page: Page, what: str) -> None:
    """axe on ``page`` as it is now: nothing serious or critical."""
    problems = await axe_problems(page)
    assert problems == [], f"{what}: {problems}"


async def records_page(page: Page, url: str, what: str) -> None:
    await page.goto(url)
    await page.wait_for_function("() => window.seahavenRecords?.ready === true", timeout=WAIT_MS)
    await checked(page, what)


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("language", ["en", "fr", "it", "nl"])
async def test_every_page_is_clean_under_axe(
    server: ServerProcess, browser: Browser, on_record: OnRecord, language: str, size: str
) -> None:
    phone = size == "phone"
    context = await browser.new_context(viewport=SIZES[size], is_mobile=phone, has_touch=phone, bypass_csp=True)  # type: ignore[arg-type]
    chosen = f"localStorage.getItem('seahaven.lang') || localStorage.setItem('seahaven.lang', '{language}')"
    await context.add_init_script(chosen)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    await page.goto(http(server))
    await page.wait_for_selector("#name", timeout=WAIT_MS)
    await checked(page, "the name screen")
    await page.fill("#name", "Axel")
    await page.keyboard.press("Enter")
    await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)
    await page.wait_for_selector("#create-h", timeout=WAIT_MS)
    await checked(page, "the lobby")

    bea = await WsClient.open(ws(server), "Bea")
    await win(server, bea, page)
    await page.wait_for_selector("#results-h", timeout=WAIT_MS)
    await at_rest(page)
    await checked(page, "the results")
    await bea.close()

    await records_page(page, http(server, f"/races/{on_record.race_id}"), "a replay")
    await records_page(page, http(server, f"/players/{on_record.winner}"), "a player's page")
    await records_page(page, http(server, "/boards"), "the boards")
    await page.goto(http(server, f"/c/{on_record.challenge}"))
    await page.wait_for_selector("#challenge-facts", timeout=WAIT_MS)
    await checked(page, "a challenge")
    await page.goto(http(server, f"/a/{on_record.arena}"))
    await page.wait_for_selector("#arena-standings tbody tr", timeout=WAIT_MS)
    await checked(page, "an arena")
    assert errors == []
