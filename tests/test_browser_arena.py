"""The browser client's arena, in Debian's headless Chromium (Playwright) against a real server on
loopback: Ann opens an arena from the lobby, Bob joins it by its code, the server seats them in a
race by itself, Ann wins it, the standings show her points between races (each page marking its
own line), the next race starts with nobody asking, and when the arena's time is up both pages show
the podium. The server's clock is the tests' fake one, so the arena's end comes when the test says."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from playwright.async_api import Browser, Page

from protocol.messages import Arena, CreateArena, CreateRoom, Ready, Resign, RoomState
from seahaven import Board
from seahaven.solver import solve
from server.app import RaceServer
from tests.browser_pages import WAIT_MS, chromium, js, lobby, new_page, no_errors, rows
from tests.helpers import MakeServer, fake, url_of
from tests.wsclient import WsClient

SOLUTION = [str(m) for m in solve(Board.deal("seahaven", 1)).moves]


@pytest.fixture
async def server(make_memory_server: MakeServer) -> RaceServer:
    return await make_memory_server(deals=lambda: 1)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


async def racing_in(page: Page, not_room: str | None = None) -> str:
    """The page is racing in a room the server seated it in (not ``not_room``): its code."""
    await page.wait_for_function(
        "old => window.seahaven.room?.phase === 'racing' && window.seahaven.room.room !== old",
        arg=not_room,
        timeout=WAIT_MS,
    )
    return str(await js(page, "window.seahaven.room.room"))


async def test_an_arena_of_two_pages_shows_its_standings_between_races_and_its_podium(
    server: RaceServer, browser: Browser
) -> None:
    base = f"http://127.0.0.1:{server.port}"
    ann, bob = await new_page(browser), await new_page(browser)
    await lobby(ann, base, "Ann")
    await lobby(bob, base, "Bob")

    # Ann opens a 5-minute arena from the lobby: its code and link, her alone in its standings.
    await ann.select_option("#arena-preset", "seahaven")
    await ann.fill("#arena-minutes", "5")
    await ann.click("#create-arena")
    await ann.wait_for_selector("#arena-standings", timeout=WAIT_MS)
    code = str(await js(ann, "window.seahaven.arena.arena.arena"))
    arena = await js(ann, "window.seahaven.arena.arena")
    assert isinstance(arena, dict) and arena["ends_at"] - arena["starts_at"] == 5 * 60_000
    assert re.fullmatch(r"[0-9A-Z]{6}", code)
    assert await ann.inner_text("#arena-link") == f"{base}/a/{code}"
    assert ann.url == f"{base}/a/{code}", "the address is the arena's, to share or reload"
    await ann.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await ann.click("#copy-arena-link")
    await ann.wait_for_function("() => document.getElementById('toast').textContent === 'link copied'", timeout=WAIT_MS)
    assert await ann.evaluate("() => navigator.clipboard.readText()") == f"{base}/a/{code}"
    assert await rows(ann, "#arena-standings tbody tr") == ["1 Ann (you) 0 0 0"]

    # Bob joins by the code (read like a room code: lower case will do).
    await bob.fill("#arena-code", code.lower())
    await bob.click("#join-arena")
    # Nobody asks for a race: the server seats both in one, ready at once, which starts.
    first = await racing_in(ann)
    assert await racing_in(bob) == first
    # Beside the race, the arena: both in its standings, my own line marked.
    await bob.wait_for_function(
        "() => document.querySelectorAll('#arena-standings tbody tr').length === 2", timeout=WAIT_MS
    )
    # (equal so far: who is first is the tie-break's, on a fake clock that has not moved)
    assert re.fullmatch(r"[12]\tBob \(you\)\t0\t0\t0\t", await bob.inner_text("#arena-standings tr.me"))

    # Bob presses R once (resigning wants it twice), then Ann wins the race (the solution, sent as
    # her moves); Bob's page shows her points and win.
    await bob.keyboard.press("R")
    await bob.wait_for_function("() => window.seahaven.armed === 'R'", timeout=WAIT_MS)
    await js(
        ann,
        f"(async () => {{ for (const m of {SOLUTION!r}) await window.seahaven.conn.call('move', {{ move: m }}); }})()",
    )
    await bob.wait_for_function("() => window.seahaven.arena.arena.standings[0]?.points === 2", timeout=WAIT_MS)
    table = await rows(bob, "#arena-standings tbody tr")
    assert table == ["1 Ann 2 1 1 1", "2 Bob (you) 0 0 1"], table
    assert await bob.inner_text("#arena-place") == "You are 2nd of 2 · 0 points"
    # ...and the next race starts by itself: a new room, seated and started by the server.
    second = await racing_in(ann, first)
    assert await racing_in(bob, first) == second
    assert await ann.inner_text("#arena-standings tr.me") == "1\tAnn (you)\t2\t1\t1\t1"
    # The last race's result stays in sight over the next (issue 38, bug 7)...
    assert await ann.inner_text("#toast") == "The last race: You won!"
    assert await bob.inner_text("#toast") == "The last race: Ann won · you are 2nd of 2"
    # ...and Bob's R of the last race does not count in this one: once more only arms it again.
    await bob.keyboard.press("R")
    await bob.wait_for_function("() => window.seahaven.armed === 'R'", timeout=WAIT_MS)
    assert await js(bob, "window.seahaven.mine.status") == "racing"

    # Time is up: the race still running ends with the arena, unscored, and both pages show the podium.
    fake(server).advance(5 * 60_000 + 1000)
    for page in (ann, bob):
        await page.wait_for_function("() => window.seahaven.result?.reason === 'time-limit'", timeout=WAIT_MS)
        await page.wait_for_selector("#podium li", timeout=WAIT_MS)
        assert await js(page, "window.seahaven.arena.arena.phase") == "finished"
        assert await page.inner_text("#arena-clock") == "The arena is over"
    podium_ann = await ann.eval_on_selector_all("#podium li", "items => items.map(i => i.textContent)")
    podium_bob = await bob.eval_on_selector_all("#podium li", "items => items.map(i => i.textContent)")
    assert podium_ann == ["🥇 Ann (you) · 2 points · 1 win", "🥈 Bob · 0 points · 0 wins"], podium_ann
    assert podium_bob == ["🥇 Ann · 2 points · 1 win", "🥈 Bob (you) · 0 points · 0 wins"], podium_bob

    # Bob closes the arena and goes back to the lobby: the arena's form is back.
    await bob.click("#leave-arena")
    await bob.wait_for_function("() => window.seahaven.arena.arena === null", timeout=WAIT_MS)
    await bob.click(".room-head button.quiet")  # the race is over: leaving asks nothing
    await bob.wait_for_selector("#create-arena", timeout=WAIT_MS)
    no_errors(ann)
    no_errors(bob)


async def test_an_arena_link_joins_its_arena_after_the_name(server: RaceServer, browser: Browser) -> None:
    """/a/CODE: the page says its name and joins that arena (the server's page for the path is the
    race client's, as for /r/CODE; until this server serves it, the test asks the server for / instead)."""
    base = f"http://127.0.0.1:{server.port}"
    ann = await WsClient.open(url_of(server), "Ann")
    opened = await ann.call(CreateArena(minutes=5))
    assert isinstance(opened, Arena)
    cid = await new_page(browser)
    await cid.route(re.compile(r".*/a/[0-9A-Za-z]+$"), lambda route: route.continue_(url=f"{base}/"))
    await cid.goto(f"{base}/a/{opened.arena.lower()}")
    await cid.fill("#name", "Cid")
    await cid.click("text=Continue")
    await cid.wait_for_function("() => window.seahaven.arena.arena !== null", timeout=WAIT_MS)
    assert await js(cid, "window.seahaven.arena.arena.arena") == opened.arena
    names = await js(cid, "window.seahaven.arena.arena.standings.map(s => s.name).sort()")
    assert names == ["Ann", "Cid"]
    # Both free: the server seats them in a race, which the page enters by itself.
    await racing_in(cid)
    await ann.close()
    no_errors(cid)


@dataclass
class ArenaAndRoom:
    """Ann (a protocol client) in a 5-minute arena; Dan (another) in a room of his that Cid's page
    has joined by its link; the page asks the server for / when sent to /a/CODE."""

    base: str
    ann: WsClient
    arena: str
    dan: WsClient
    room: str
    cid: Page


async def test_the_lobby_lists_the_live_arenas_to_join(server: RaceServer, browser: Browser) -> None:
    """Issue 38, what players expect: arenas listed in the lobby. An arena running now is listed
    with its rules, players and minutes left (one to come, with when it starts); Join is one click."""
    base = f"http://127.0.0.1:{server.port}"
    ann = await WsClient.open(url_of(server), "Ann")
    opened = await ann.call(CreateArena(minutes=5))
    assert isinstance(opened, Arena)
    later = await ann.call(CreateArena(minutes=30, starts_in=600))
    assert isinstance(later, Arena)
    bob = await new_page(browser)
    await lobby(bob, base, "Bob")
    await bob.wait_for_selector("#live-arenas tbody tr", timeout=WAIT_MS)
    listed = await rows(bob, "#live-arenas tbody tr")
    assert len(listed) == 2, listed
    assert re.fullmatch(rf"{opened.arena} Seahaven Towers \d+ [45] minutes left Join", listed[0]), listed
    assert re.fullmatch(rf"{later.arena} Seahaven Towers \d+ starts in (9|10) minutes Join", listed[1]), listed
    await bob.get_by_role("button", name=f"join arena {opened.arena}").click()
    await bob.wait_for_function(
        "code => window.seahaven.arena.arena?.arena === code", arg=opened.arena, timeout=WAIT_MS
    )
    await bob.wait_for_selector("#arena-standings", timeout=WAIT_MS)
    await ann.close()
    no_errors(bob)


async def arena_and_room(server: RaceServer, browser: Browser) -> ArenaAndRoom:
    base = f"http://127.0.0.1:{server.port}"
    ann = await WsClient.open(url_of(server), "Ann")
    opened = await ann.call(CreateArena(minutes=5))
    assert isinstance(opened, Arena)
    dan = await WsClient.open(url_of(server), "Dan")
    room = await dan.call(CreateRoom())
    assert isinstance(room, RoomState)
    cid = await new_page(browser)
    await lobby(cid, f"{base}/r/{room.room}", "Cid")
    await cid.route(re.compile(r".*/a/[0-9A-Za-z]+$"), lambda route: route.continue_(url=f"{base}/"))
    return ArenaAndRoom(base, ann, opened.arena, dan, room.room, cid)


async def test_an_arena_link_joins_its_arena_from_a_room(server: RaceServer, browser: Browser) -> None:
    """An arena's link opened by a player waiting in a room: the resumed session showed that room
    and forgot the arena. The link means "take me there", as a room's or a challenge's does."""
    at = await arena_and_room(server, browser)
    base, ann, dan, cid = at.base, at.ann, at.dan, at.cid
    await cid.wait_for_selector("#ready", timeout=WAIT_MS)
    await cid.goto(f"{base}/a/{at.arena}")
    await cid.wait_for_function("() => window.seahaven.arena.arena !== null", timeout=WAIT_MS)
    assert await js(cid, "window.seahaven.arena.arena.arena") == at.arena
    await racing_in(cid)  # out of Dan's room: the arena seats Cid with Ann
    for client in (ann, dan):
        await client.close()
    no_errors(cid)


async def test_an_arena_link_opened_mid_race_offers_the_way_back_into_its_pairing(
    server: RaceServer, browser: Browser
) -> None:
    """An arena's link opened mid-race joins the arena, but a player racing elsewhere is out of
    its pairing (docs/arenas.md): the panel said "waiting for the next race" forever, with no way
    back in. It says they are out, and its button joins the pairing again once they are free."""
    at = await arena_and_room(server, browser)
    base, ann, dan, cid = at.base, at.ann, at.dan, at.cid
    await cid.click("#ready")
    await dan.call(Ready())
    await cid.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    cid.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))  # leave the page: yes
    await cid.goto(f"{base}/a/{at.arena}")
    await cid.wait_for_selector("#arena-rejoin", timeout=WAIT_MS)
    assert "out of the pairing" in await cid.inner_text("#arena-out")
    await dan.call(Resign())
    await cid.keyboard.press("R")
    await cid.keyboard.press("R")  # Cid's race is over: free
    await cid.wait_for_function("() => window.seahaven.room?.phase === 'finished'", timeout=WAIT_MS)
    await cid.click("#arena-rejoin")
    await cid.wait_for_selector("#arena-rejoin", state="detached", timeout=WAIT_MS)
    # Ann waits in the race made for both when Cid was paired mid-race: freed once it has waited
    # the lease's 3 s (the server's clock is the test's), then paired with Cid.
    await asyncio.sleep(1.5)
    fake(server).advance(4000)
    first = await racing_in(cid, at.room)  # the arena seats Cid with Ann
    assert first != at.room
    for client in (ann, dan):
        await client.close()
    no_errors(cid)
