"""The lobby's panel for a player who comes back (issue 38: "a lobby that shows what there is to
do"): their page, the leaderboards and the people they raced last, head to head; a first race
offered to a new player; nothing at all from a server that keeps no records. In Debian's Chromium
on a real server with records (tests/recording.py), at desktop and phone sizes. And the settings'
sounds (issue 38: "sound optional, off by default"): none until the player turns them on.

The player's races are raced by protocol clients (both racers resign: a race on record in two
requests), then a page opens the lobby with the player's key, as the browser that registered them
would.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from protocol.messages import CreateRoom, Identity, Register, Resign, Result
from protocol.messages import Leave as LeaveRoom
from seahaven import COLUMN, Board, Move
from seahaven.codes import encode
from seahaven.solver import solve
from server.app import RaceServer
from tests.browser_pages import AUTO_OFF, WAIT_MS, chromium, key_move, lobby, new_page, no_errors, watched
from tests.helpers import url_of, wait_until
from tests.recording import archived, recording_server
from tests.wsclient import WsClient, race_of_two

SOLUTION: tuple[Move, ...] = solve(Board.deal("seahaven", 1)).moves
TONES = """
window.tones = [];
const start = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (...args) {
  window.tones.push(`${this.type}:${Math.round(this.frequency.value)}`);
  return start.apply(this, args);
};
"""
"""A page's script: each WebAudio tone the page starts, kept as ``wave:Hz`` in ``window.tones``."""
PLACE = ["triangle:880"]
REFUSE = ["square:150", "square:120"]
WIN = ["sine:523", "sine:659", "sine:784", "sine:1047"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


def base(server: RaceServer) -> str:
    return f"http://127.0.0.1:{server.port}"


async def registered(server: RaceServer, name: str) -> tuple[WsClient, str]:
    """A registered player's connection, and their key (what their browser keeps)."""
    first = await WsClient.open(url_of(server), name)
    identity = await first.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    await first.close()
    return await WsClient.open(url_of(server), name, key=identity.key), identity.key


async def raced(server: RaceServer, ann: WsClient, rival: str) -> Result:
    """``ann`` races a new player named ``rival``; both resign, so the race is over at once. Its
    result, once the race is on record."""
    other = await WsClient.open(url_of(server), rival)
    await race_of_two(ann, other, CreateRoom())
    for racer in (ann, other):
        await racer.call(Resign())
    result = await ann.expect(Result)
    for racer in (ann, other):
        await racer.call(LeaveRoom())
    await other.close()
    race_id = result.race_id
    assert race_id is not None
    await wait_until(lambda: archived(server, race_id), what=f"race {race_id} on record")
    return result


async def page_of(browser: Browser, server: RaceServer, key: str, name: str, viewport: dict[str, int]) -> Page:
    """The lobby of the browser that keeps ``key`` (the player's own), at ``viewport``'s size."""
    context = await browser.new_context(viewport=viewport, has_touch=viewport == PHONE)  # type: ignore[arg-type]
    await context.add_init_script(
        f"localStorage.setItem('seahaven.key', {json.dumps(key)});"
        f" localStorage.setItem('seahaven.name', {json.dumps(name)})"
    )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    setattr(page, "errors", errors)  # noqa: B010  # read by no_errors()
    await page.goto(base(server))
    return page


def head_to_head(result: Result, player: str, rival: str) -> str:
    """One race against ``rival``, as the lobby says it: a win or a loss (the read API's rivals)."""
    place = {s.player: s.place for s in result.standings}
    return "1 win, 0 losses" if place[player] < place[rival] else "0 wins, 1 loss"


async def rival_rows(page: Page) -> list[str]:
    await page.wait_for_selector("#yours .rivals li", timeout=WAIT_MS)
    return [re.sub(r"\s+", " ", r).strip() for r in await page.locator("#yours .rivals li").all_inner_texts()]


async def test_a_returning_player_finds_their_page_the_boards_and_their_last_rivals(
    tmp_path: Path, browser: Browser
) -> None:
    async with recording_server(tmp_path, players=True) as server:
        ann, key = await registered(server, "Ann")
        with_bob = await raced(server, ann, "Bob")
        with_cid = await raced(server, ann, "Cid")
        bob = next(s.player for s in with_bob.standings if s.name == "Bob")
        cid = next(s.player for s in with_cid.standings if s.name == "Cid")

        page = await page_of(browser, server, key, "Ann", DESKTOP)
        # The last raced first, each linking to their page, with how it went against them.
        assert await rival_rows(page) == [
            f"Cid {head_to_head(with_cid, ann.player, cid)}",
            f"Bob {head_to_head(with_bob, ann.player, bob)}",
        ]
        links = await page.eval_on_selector_all("#yours .rivals a", "as => as.map(a => a.getAttribute('href'))")
        assert links == [f"/players/{cid}", f"/players/{bob}"]
        assert await page.get_attribute("#yours-page", "href") == f"/players/{ann.player}"
        assert await page.get_attribute("#yours-boards", "href") == "/boards"
        # The lobby's own actions stay in sight above it on a desktop screen.
        for action in ("#quick-match", "#daily-race", ".create button[type=submit]"):
            box = await page.locator(action).bounding_box()
            assert box is not None and box["y"] + box["height"] <= DESKTOP["height"], action
        no_errors(page)

        # On a phone: the same rivals, nothing wider than the screen.
        phone = await page_of(browser, server, key, "Ann", PHONE)
        assert len(await rival_rows(phone)) == 2
        assert await phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        box = await phone.locator("#yours").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        no_errors(phone)
        await ann.close()


async def test_a_new_player_is_told_so_and_offered_a_first_race(tmp_path: Path, browser: Browser) -> None:
    async with recording_server(tmp_path, players=True) as server:
        page = await new_page(browser)
        await lobby(page, base(server), "Nell")
        await page.wait_for_selector("#yours-new", timeout=WAIT_MS)
        assert "No race on record yet" in await page.inner_text("#yours-new")
        assert await page.locator("#yours .rivals").count() == 0
        # The offer is the real thing: a quick match, waiting for a racer.
        await page.click("#yours-quick")
        await page.wait_for_selector("#alone", timeout=WAIT_MS)
        assert await page.evaluate("() => window.seahaven.quick") is True
        no_errors(page)


async def test_a_server_without_records_shows_no_panel(tmp_path: Path, browser: Browser) -> None:
    async with recording_server(tmp_path, records=False) as server:
        page = await new_page(browser)
        await lobby(page, base(server), "Nell")
        # The records answered 503: the panel was asked for, and stays away without a word.
        await page.wait_for_function("() => window.seahaven.yours?.state === 'off'", timeout=WAIT_MS)
        assert await page.locator("#yours").count() == 0
        assert await page.locator("#quick-match").is_visible()
        no_errors(page)


def refused_after(moves: tuple[Move, ...]) -> Move:
    """A column-to-column move the board after ``moves`` refuses, between two columns with cards."""
    board = Board.deal("seahaven", 1)
    for move in moves:
        board.push(move)
    columns = range(len(board.columns))
    return next(
        move
        for src in columns
        for dst in columns
        if src != dst and board.columns[src] and board.columns[dst]
        for move in [Move(COLUMN, src, COLUMN, dst, 1)]
        if not board.is_legal(move)
    )


async def played(page: Page, move: Move, count: int) -> None:
    """Play ``move`` by the keys; back once the page has ``count`` moves of mine on its board."""
    await key_move(page, move)
    await page.wait_for_function("n => window.seahaven.groups.length === n", arg=count, timeout=WAIT_MS)


async def refused(page: Page, move: Move) -> None:
    """Try ``move`` by the keys; back once the page said why not (and the selection is let go)."""
    await page.evaluate("() => (document.getElementById('toast').textContent = '')")
    await key_move(page, move)
    await page.wait_for_function("() => document.getElementById('toast').textContent !== ''", timeout=WAIT_MS)
    await page.keyboard.press("Escape")


async def tones(page: Page) -> list[str]:
    return list(await page.evaluate("() => window.tones"))


async def test_sounds_are_off_until_turned_on_then_a_card_a_refusal_and_a_win(tmp_path: Path, browser: Browser) -> None:
    async with recording_server(tmp_path, records=False) as server:
        context = await browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
        await context.add_init_script(AUTO_OFF)
        await context.add_init_script(TONES)
        page = watched(await context.new_page())
        await page.goto(f"{base(server)}/solo/{encode('seahaven', 1)}")
        await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
        # Off by default, and the switch says so.
        assert await page.locator("#sound").count() == 1
        assert not await page.is_checked("#sound")
        assert "off unless you turn them on" in str(await page.get_attribute("label.sound", "title"))
        await played(page, SOLUTION[0], 1)
        await refused(page, refused_after(SOLUTION[:1]))
        assert await tones(page) == []

        # Turned on: a sample at once, then a card placed, a refusal, and the win at the end.
        await page.check("#sound")
        assert await page.evaluate("() => localStorage.getItem('seahaven.sound')") == "on"
        assert await tones(page) == PLACE
        await page.locator("#sound").blur()  # the keys are the board's again
        await played(page, SOLUTION[1], 2)
        assert await tones(page) == PLACE * 2
        await refused(page, refused_after(SOLUTION[:2]))
        assert await tones(page) == PLACE * 2 + REFUSE
        for n, move in enumerate(SOLUTION[2:], start=3):
            await played(page, move, n)
        # The sample and the 85 cards after the first, the refusal, then the win's four notes.
        everything = len(SOLUTION) + len(REFUSE) + len(WIN)
        await page.wait_for_function("n => window.tones.length >= n", arg=everything, timeout=WAIT_MS)
        heard = await tones(page)
        assert heard[-len(WIN) :] == WIN and heard.count(PLACE[0]) == len(SOLUTION), heard

        # Remembered in this browser; turned off, silent again.
        await page.reload()
        await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
        assert await page.is_checked("#sound")
        await page.uncheck("#sound")
        assert await page.evaluate("() => localStorage.getItem('seahaven.sound')") == "off"
        await page.locator("#sound").blur()
        await played(page, SOLUTION[0], 1)
        assert await tones(page) == []
        no_errors(page)
