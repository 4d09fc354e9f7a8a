"""The browser client in Debian's headless Chromium, driven by Playwright, against a real server process.

Races use seahaven deal 1, whose 86-move solution the engine's solver finds at once: pages play it by
keys (and a few moves by drag, click-click and double-click), and every board the page shows is
checked against the Python engine's.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.async_api import Browser, Dialog, Page

from protocol.messages import (
    ClaimHandle,
    CreateRoom,
    Identity,
    JoinRoom,
    Leave,
    Moved,
    MoveRequest,
    Ok,
    Progress,
    RatingNotice,
    Ready,
    Register,
    Resign,
    Result,
    RoomState,
    SetPassword,
    Started,
    Undo,
)
from seahaven import COLUMN, Board, Move, to_board_text
from seahaven.moves import FOUNDATION
from seahaven.solver import solve
from tests.browser_pages import AUTO_OFF, http, key_move, server
from tests.helpers import wait_until
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

CHROMIUM = "/usr/bin/chromium"
SOLUTION: tuple[Move, ...] = solve(Board.deal("seahaven", 1)).moves
WAIT_MS = 15_000

__all__ = ["server"]  # the module's server process, a fixture


# One server and one browser for the module (each page gets its own browser context, so its own
# storage): starting them per test would cost more than the tests themselves.
pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("close_pages")]


def after(moves: tuple[Move, ...] | list[Move]) -> str:
    board = Board.deal("seahaven", 1)
    for move in moves:
        board.push(move)
    return to_board_text(board)


def _after(board: Board, move: Move) -> Board:
    played = board.copy()
    played.push(move)
    return played


async def open_page(browser: Browser, url: str, name: str, *, phone: bool = False, auto: bool = False) -> Page:
    """A new page at ``url`` that has said its name (desktop or phone sized). Its auto-move to the
    foundations is off unless ``auto``: these pages play the solver's moves, one by one."""
    viewport = {"width": 390, "height": 844} if phone else {"width": 1200, "height": 860}
    context = await browser.new_context(viewport=viewport, has_touch=phone)  # type: ignore[arg-type]
    if not auto:
        await context.add_init_script(AUTO_OFF)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    setattr(page, "errors", errors)  # noqa: B010  # read by no_errors()
    await page.goto(url)
    await page.fill("#name", name)
    await page.click("text=Continue")
    await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)
    return page


def no_errors(page: Page) -> None:
    errors: list[str] = getattr(page, "errors")  # noqa: B009
    assert errors == []


async def js(page: Page, expression: str) -> object:
    return await page.evaluate(f"() => {expression}")


async def settled(page: Page) -> None:
    """Every optimistic action answered by the server."""
    await page.wait_for_function("() => window.seahaven.pending.length === 0", timeout=WAIT_MS)


async def board_text(page: Page) -> str:
    await settled(page)
    text = await js(page, "window.seahaven.board.text()")
    assert isinstance(text, str)
    return text


async def drag(page: Page, source: str, target: str) -> None:
    """Press on ``source``, move in steps, release over ``target``: a real pointer drag."""
    start = await page.locator(source).bounding_box()
    end = await page.locator(target).bounding_box()
    assert start is not None and end is not None
    await page.mouse.move(start["x"] + start["width"] / 2, start["y"] + 10)
    await page.mouse.down()
    await page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
    await page.mouse.up()


async def in_race(page: Page) -> None:
    await page.wait_for_function(
        "() => window.seahaven.room?.phase === 'racing' && document.querySelector('.board') !== null", timeout=WAIT_MS
    )


async def results(page: Page) -> list[str]:
    """The results table's rows, once the page shows them."""
    await page.wait_for_selector("#results-h", timeout=WAIT_MS)
    return [re.sub(r"\s+", " ", row) for row in await page.locator(".results tbody tr").all_inner_texts()]


async def close(client: WsClient) -> None:
    """Read what is queued first: a client whose queue is full cannot read the server's close frame."""
    await client.drain()
    await client.close()


async def create_room(page: Page) -> str:
    await page.fill("input[name=deal]", "1")
    await page.click("text=Create room")
    await page.wait_for_selector("#room-code", timeout=WAIT_MS)
    return await page.inner_text("#room-code")


async def test_two_pages_join_by_link_and_race_to_a_finish(server: ServerProcess, browser: Browser) -> None:
    ann = await open_page(browser, http(server), "Ann")
    code = await create_room(ann)
    assert await ann.inner_text("#share") == http(server, f"/r/{code}")
    bob = await open_page(browser, http(server, f"/r/{code}"), "Bob", phone=True)
    await bob.wait_for_selector("#ready")
    assert await bob.inner_text("#room-code") == code
    await ann.keyboard.press("r")  # ready by key
    await bob.click("#ready")
    await in_race(ann)
    await in_race(bob)

    # Bob: the first move by drag, the second by tap-tap, the third by double-click.
    await drag(bob, ".col[data-index='2'] .card:last-child", ".slot.cell[data-index='2']")
    assert await board_text(bob) == after(SOLUTION[:1])
    await bob.tap(".col[data-index='2'] .card:last-child")  # Bob is on a phone: touch
    assert await bob.locator(".slot.cell[data-index='3'].legal").count() == 1  # its destinations glow
    await bob.tap(".slot.cell[data-index='3']")
    assert await board_text(bob) == after(SOLUTION[:2])
    board = Board.deal("seahaven", 1)
    for move in SOLUTION[:2]:
        board.push(move)
    smart = board.smart_move(COLUMN, 2)
    assert smart is not None and smart.dst_area == FOUNDATION
    await bob.dblclick(".col[data-index='2'] .card:last-child")
    assert await board_text(bob) == after([*SOLUTION[:2], smart])
    await ann.wait_for_selector("[aria-label='Bob: 1 of 52 cards home']", timeout=WAIT_MS)

    # Ann: the whole solution by keys; her board is the engine's at every tenth move.
    for n, move in enumerate(SOLUTION, start=1):
        await key_move(ann, move)
        if n % 10 == 0:
            assert await board_text(ann) == after(SOLUTION[:n])
    for page in (ann, bob):
        rows = await results(page)
        assert rows[0].startswith("1 Ann finished 52/52 86"), rows
        assert rows[1].startswith("2 Bob did not finish 1/52 3 –"), rows  # a dash, not his last move's time
    await bob.wait_for_selector("[aria-label='Ann: 52 of 52 cards home']")

    # A rematch deals a new race to both.
    await ann.click("#rematch")
    await bob.keyboard.press("r")
    await in_race(ann)
    await in_race(bob)
    assert await js(ann, "window.seahaven.room.deal") == await js(bob, "window.seahaven.room.deal")
    no_errors(ann)
    no_errors(bob)


async def py_and_a_page(server: ServerProcess, browser: Browser) -> tuple[WsClient, Page]:
    """Py (a protocol client) makes a room on deal 1, a page ("Web") joins it by its link, and
    both race: Py and the page, mid-race."""
    py = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Py")
    state = await py.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    page = await open_page(browser, http(server, f"/r/{state.room}"), "Web")
    await page.wait_for_selector("#ready")
    assert isinstance(await py.call(Ready()), Ok)
    await page.click("#ready")
    await py.expect(Started)
    await in_race(page)
    return py, page


async def test_a_browser_races_the_python_protocol_client(server: ServerProcess, browser: Browser) -> None:
    py, page = await py_and_a_page(server, browser)

    # A key to a place the selection cannot go says why (issue 38, bug 9), in the board's card
    # symbols, and that place's card is the selection then (a click's way to choose again).
    await page.keyboard.press("1")
    await page.keyboard.press("2")
    await page.wait_for_function("() => window.seahaven.selected?.index === 1", timeout=WAIT_MS)
    assert await page.inner_text("#toast") == "6♦ cannot go on 8♠: columns build down by suit"
    assert await board_text(page) == after([]), "nothing moved"
    await page.keyboard.press("Escape")

    for move in SOLUTION[:12]:  # the page makes a start, and the rival sees it
        await key_move(page, move)
    assert await board_text(page) == after(SOLUTION[:12])
    progress = await py.expect(Progress)
    while progress.moves < 12:
        progress = await py.expect(Progress)
    assert progress.progress == 3

    for move in SOLUTION:  # the Python client plays the whole solution and wins
        assert isinstance(await py.call(MoveRequest(move=str(move))), Moved)
    result = await py.expect(Result)
    web = await js(page, "window.seahaven.me.player")
    assert [s.player for s in result.standings] == [py.player, web]
    rows = await results(page)
    assert rows[0].startswith("1 Py finished 52/52 86") and rows[1].startswith("2 Web did not finish 3/52 12 –"), rows
    await page.wait_for_selector("[aria-label='Py: 52 of 52 cards home']")
    await close(py)
    no_errors(page)


async def test_undo_takes_a_move_back_off_the_counter_and_the_results_agree(
    server: ServerProcess, browser: Browser
) -> None:
    """An undo takes a move back (12 moves, then 11 and 1 undo: issue 38, bug 9), as the player
    expects, not one more; the results count each racer's moves left on the board the same way,
    with the undos apart (the server's Standing.undos), a rival's as well as the page's."""
    py, page = await py_and_a_page(server, browser)
    for move in SOLUTION[:3]:
        await key_move(page, move)
    await settled(page)
    assert await page.inner_text("#mine") == "1/52 home · 3 moves"
    await page.keyboard.press("u")  # the third move (a card home) taken back
    await settled(page)
    assert await page.inner_text("#mine") == "0/52 home · 2 moves · 1 undo"
    assert await board_text(page) == after(SOLUTION[:2])
    await page.reload()  # the counts come back from the server's
    await in_race(page)
    await page.wait_for_function("() => document.querySelector('#mine')?.textContent.includes('undo')", timeout=WAIT_MS)
    assert await page.inner_text("#mine") == "0/52 home · 2 moves · 1 undo"

    # The rival takes a move back too, then wins: 86 moves on the board, not 88.
    assert isinstance(await py.call(MoveRequest(move=str(SOLUTION[0]))), Moved)
    assert isinstance(await py.call(Undo()), Moved)
    for move in SOLUTION:
        assert isinstance(await py.call(MoveRequest(move=str(move))), Moved)
    await py.expect(Result)
    rows = await results(page)
    assert rows[0].startswith("1 Py finished 52/52 86 1 undo "), rows
    assert rows[1].startswith("2 Web did not finish 0/52 2 1 undo –"), rows
    await close(py)
    no_errors(page)


async def test_a_page_reloads_mid_race_and_comes_back(server: ServerProcess, browser: Browser) -> None:
    page = await open_page(browser, http(server), "Ann")
    code = await create_room(page)
    py = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Py")
    assert isinstance(await py.call(JoinRoom(room=code)), RoomState)
    await page.click("#ready")
    assert isinstance(await py.call(Ready()), Ok)
    await in_race(page)
    started_at = await js(page, "window.seahaven.room.started_at")
    for move in SOLUTION[:5]:
        await key_move(page, move)
    assert await board_text(page) == after(SOLUTION[:5])

    await page.reload()
    await in_race(page)
    assert await board_text(page) == after(SOLUTION[:5])
    assert await js(page, "window.seahaven.room.started_at") == started_at
    first = await page.inner_text("#clock")
    assert re.fullmatch(r"\d+:\d\d", first)
    await page.wait_for_function(f"() => document.querySelector('#clock').textContent !== {first!r}", timeout=WAIT_MS)

    # The opening board was kept, so undo still works after the reload, and the server agrees.
    await page.keyboard.press("u")
    assert await board_text(page) == after(SOLUTION[:4])
    assert await js(page, "window.seahaven.mine.moves") == 6
    progress = await py.expect(Progress)
    while progress.moves < 6:
        progress = await py.expect(Progress)
    assert progress.player == await js(page, "window.seahaven.me.player")
    for move in SOLUTION[4:8]:
        await key_move(page, move)
    assert await board_text(page) == after(SOLUTION[:8])

    # A dropped connection comes back by itself, with the same seat and board.
    generation = await js(page, "window.seahaven.gen")
    await js(page, "window.seahaven.conn.drop()")
    await page.wait_for_function(
        f"() => window.seahaven.status === 'online' && window.seahaven.gen > {generation}", timeout=WAIT_MS
    )
    assert await board_text(page) == after(SOLUTION[:8])
    for move in SOLUTION[8:10]:
        await key_move(page, move)
    assert await board_text(page) == after(SOLUTION[:10])
    assert await js(page, "window.seahaven.mine.moves") == 12

    # A move the server refuses is rolled back with its reason. To get one, the page's board is
    # made to differ from the server's by a move played locally only.
    truth = Board.deal("seahaven", 1)
    for move in SOLUTION[:10]:
        truth.push(move)
    local, refused = next(
        (m1, m2)
        for m1 in truth.legal_moves()
        for m2 in _after(truth, m1).legal_moves()
        if not truth.is_legal(m2) and m2.src_area != FOUNDATION
    )
    fields = dict(zip(("sa", "s", "da", "d", "n"), local, strict=True))
    await page.evaluate("m => window.seahaven.board.push(m)", fields)
    await key_move(page, refused)
    assert await board_text(page) == to_board_text(_after(truth, local))
    reason = truth.is_legal(refused).reason
    assert reason is not None
    await page.wait_for_function(
        f"() => document.querySelector('#toast').textContent.includes({reason!r})", timeout=WAIT_MS
    )
    assert (await page.inner_text("#toast")).startswith(f"{refused} refused: ")
    await page.reload()  # and a reload puts the server's board back
    await in_race(page)
    assert await board_text(page) == to_board_text(truth)
    await close(py)
    no_errors(page)


async def test_a_spectator_page_follows_a_race(server: ServerProcess, browser: Browser) -> None:
    url = f"ws://127.0.0.1:{server.port}/"
    ann, bob = await WsClient.open(url, "Ann"), await WsClient.open(url, "Bob")
    state = await race_of_two(ann, bob, CreateRoom(deal_number=1))
    for move in SOLUTION[:5]:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)

    page = await open_page(browser, http(server), "Sue")  # from the lobby's list of rooms
    await page.click(f"[aria-label='watch room {state.room}']", timeout=WAIT_MS)
    await page.wait_for_selector('[aria-label="Ann\'s board"]', timeout=WAIT_MS)
    seen = f"window.seahaven.boards.get({ann.player!r}).text()"
    await page.wait_for_function(f"() => {seen} === {after(SOLUTION[:5])!r}", timeout=WAIT_MS)
    for move in SOLUTION[5:15]:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
    await page.wait_for_function(f"() => {seen} === {after(SOLUTION[:15])!r}", timeout=WAIT_MS)

    await page.keyboard.press("]")  # Bob's board
    await page.wait_for_selector('[aria-label="Bob\'s board"]')
    for move in SOLUTION[:3]:
        assert isinstance(await bob.call(MoveRequest(move=str(move))), Moved)
    bobs = f"window.seahaven.boards.get({bob.player!r}).text()"
    await page.wait_for_function(f"() => {bobs} === {after(SOLUTION[:3])!r}", timeout=WAIT_MS)
    assert await page.locator('[aria-label="Bob\'s board"] .card.s2').count() > 0  # hearts drawn

    for move in SOLUTION[15:]:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
    rows = await results(page)
    assert rows[0].startswith("1 Ann finished 52/52") and rows[1].startswith("2 Bob did not finish"), rows
    for client in (ann, bob):
        await close(client)
    no_errors(page)


async def test_quick_match_pairs_two_pages_and_the_deck_can_have_four_colours(
    server: ServerProcess, browser: Browser
) -> None:
    ann = await open_page(browser, http(server), "Ann")
    bob = await open_page(browser, http(server), "Bob", phone=True)
    player = await js(ann, "window.seahaven.me.player")
    token = await js(ann, "window.seahaven.me.token")
    await ann.click("text=Change name")  # a registered player's name changes in place (set_name)
    await ann.fill("#name", "Anna")
    await ann.click("text=Continue")
    await ann.wait_for_function("() => window.seahaven.me?.name === 'Anna'", timeout=WAIT_MS)
    assert await js(ann, "window.seahaven.me.player") == player
    assert await js(ann, "window.seahaven.me.token") == token  # the same session goes on
    assert await js(ann, "window.seahaven.status") == "online"
    assert await ann.inner_text(".bar .net") == "Anna"
    for page in (ann, bob):
        await page.select_option("#quick-preset", "freecell")
        await page.click("button:text-is('Quick match')")
        await page.wait_for_selector("#room-code", timeout=WAIT_MS)
        if page is ann:  # alone: the queue's window for her partner, widening as she waits
            await ann.wait_for_function(
                "() => document.getElementById('match')?.textContent.startsWith('Looking for a racer near 1500 ±')",
                timeout=WAIT_MS,
            )
    assert await ann.inner_text("#room-code") == await bob.inner_text("#room-code")
    # The wait's line is empty, or gone with the waiting room once the race has started by itself.
    await ann.wait_for_function("() => (document.getElementById('match')?.textContent ?? '') === ''", timeout=WAIT_MS)
    assert await js(ann, "window.seahaven.room.preset") == "freecell"
    await bob.wait_for_selector("[aria-label='racers'] li:nth-child(2)")
    # Paired, the race starts by itself: no Ready to press (issue 38, what players expect).
    await in_race(ann)
    await in_race(bob)
    await ann.check("text=four-colour deck")
    assert await ann.locator(".board .card").count() == 52  # FreeCell deals every card to the columns
    clubs = ann.locator(".board .card.s0").first
    diamonds = ann.locator(".board .card.s1").first
    assert await clubs.evaluate("e => getComputedStyle(e).color") == "rgb(10, 125, 44)"
    assert await diamonds.evaluate("e => getComputedStyle(e).color") == "rgb(29, 78, 216)"
    label = await clubs.get_attribute("aria-label")
    # An ace's or a court card's name begins with its corner (label in name): "K♣ king of clubs".
    named = r"([AJQK]♣ )?(ace|\d+|jack|queen|king) of clubs, column \d(, covered)?"
    assert label is not None and re.fullmatch(named, label), label
    no_errors(ann)
    no_errors(bob)


async def test_a_second_tab_stays_beside_the_first_and_takes_the_seat_when_asked(
    server: ServerProcess, browser: Browser
) -> None:
    first = await open_page(browser, http(server), "Ann")
    await first.wait_for_function("() => window.seahaven.me?.identified === true", timeout=WAIT_MS)
    code = await create_room(first)
    second = await first.context.new_page()  # the same browser: the same player, a tab of its own
    errors: list[str] = []
    second.on("pageerror", lambda error: errors.append(str(error)))
    await second.goto(http(server))
    await second.wait_for_selector("#play-here", timeout=WAIT_MS)
    assert await js(second, "window.seahaven.me.player") == await js(first, "window.seahaven.me.player")
    assert code in await second.inner_text(".seat-panel")  # "You are racing in room ... in another tab"
    await second.wait_for_selector("text=Public rooms")  # the lobby works meanwhile
    assert await js(first, "window.seahaven.status") == "online"  # nothing was closed
    assert await first.inner_text("#room-code") == code

    await second.click("#play-here")  # the seat moves to this tab
    await second.wait_for_selector("#ready", timeout=WAIT_MS)
    assert await second.inner_text("#room-code") == code
    await first.wait_for_selector("#play-here", timeout=WAIT_MS)
    assert await js(first, "window.seahaven.status") == "online"
    assert await js(first, "window.seahaven.room") is None

    await first.click("#play-here")  # and back
    await first.wait_for_selector("#ready", timeout=WAIT_MS)
    await second.wait_for_selector("#play-here", timeout=WAIT_MS)
    assert await js(second, "window.seahaven.status") == "online"
    no_errors(first)
    assert errors == []


async def test_a_tab_opened_mid_race_on_a_phone_takes_the_seat_and_races_on(
    server: ServerProcess, browser: Browser
) -> None:
    """Mid-race on a phone, a second tab of the same browser: both stay connected; the second
    takes the seat with the board as the race has it, plays on, and the rival sees the moves."""
    first = await open_page(browser, http(server), "Ann", phone=True)
    await first.wait_for_function("() => window.seahaven.me?.identified === true", timeout=WAIT_MS)
    code = await create_room(first)
    py = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Py")
    assert isinstance(await py.call(JoinRoom(room=code)), RoomState)
    await first.wait_for_selector("#ready", timeout=WAIT_MS)
    await first.click("#ready")
    assert isinstance(await py.call(Ready()), Ok)
    await in_race(first)
    await key_move(first, SOLUTION[0])
    await py.expect(Progress, where=lambda p: p.moves == 1)

    second = await first.context.new_page()
    await second.goto(http(server))
    await second.wait_for_selector("#play-here", timeout=WAIT_MS)
    assert await js(first, "window.seahaven.status") == "online" and await js(first, "window.seahaven.room") is not None
    await second.click("#play-here")
    await in_race(second)
    mine = "window.seahaven.room.racers.find(r => r.player === window.seahaven.me.player).moves"
    assert await js(second, mine) == 1  # the board as the race has it
    await key_move(second, SOLUTION[1])
    await py.expect(Progress, where=lambda p: p.moves == 2)  # the rival sees the seat race on
    await first.wait_for_selector("#play-here", timeout=WAIT_MS)
    assert await js(first, "window.seahaven.status") == "online"
    await py.close()
    no_errors(first)


async def test_the_lobby_shows_the_daily_race_and_a_room_can_race_the_computer(
    server: ServerProcess, browser: Browser
) -> None:
    page = await open_page(browser, http(server), "Ann")
    await page.wait_for_selector("text=Race today's deal", timeout=WAIT_MS)
    await page.wait_for_selector("#daily-h >> xpath=.. >> text=the same for everyone today", timeout=WAIT_MS)
    await page.select_option("select[name=bot]", "stroll")
    await page.click("text=Create room")
    await page.wait_for_selector("#room-code", timeout=WAIT_MS)
    await page.wait_for_selector("[aria-label='racers'] li:nth-child(2)", timeout=WAIT_MS)
    assert "Computer (stroll)" in await page.inner_text("[aria-label='racers']")
    no_errors(page)


# -- players that last (docs/protocol.md, section 21) -------------------------------------------------


async def test_a_browser_registers_once_and_comes_back_as_that_player(browser: Browser, server: ServerProcess) -> None:
    page = await open_page(browser, http(server), "Kim")
    await page.wait_for_function("() => localStorage.getItem('seahaven.key') !== null", timeout=WAIT_MS)
    key = await js(page, "localStorage.getItem('seahaven.key')")
    assert isinstance(key, str) and re.fullmatch(r"u[0-9A-Z]{12}\.[A-Za-z0-9_-]{43}", key)
    # The first session the page races in is the player's already: no race under a session id.
    await page.wait_for_function("() => window.seahaven.me?.identified === true", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.me.player") == key.partition(".")[0]
    assert await js(page, "window.seahaven.me.name") == "Kim"
    await page.evaluate("() => sessionStorage.removeItem('seahaven.token')")  # a new session next time
    await page.reload()
    await page.wait_for_function("() => window.seahaven.me?.identified === true", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.me.player") == key.partition(".")[0]
    assert await js(page, "localStorage.getItem('seahaven.key')") == key  # registered once, not again
    no_errors(page)


async def test_the_first_screen_signs_in_as_a_player_of_another_device(browser: Browser, server: ServerProcess) -> None:
    """A player of this server on another device signs in from the first screen, and this browser
    becomes that player: no new player is made for it meanwhile."""
    url = f"ws://127.0.0.1:{server.port}/"
    first = await WsClient.open(url, "Lee")
    identity = await first.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    await close(first)
    lee = await WsClient.open(url, "Lee", key=identity.key)
    assert isinstance(await lee.call(ClaimHandle(handle="Lee")), Identity)
    assert isinstance(await lee.call(SetPassword(password="correct horse battery")), Ok)
    await close(lee)

    page = await (await browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    setattr(page, "errors", errors)  # noqa: B010  # read by no_errors()
    await page.goto(http(server))
    await page.fill("#name", "Lee on the phone")
    await page.click("#sign-in-first")
    await page.wait_for_selector("#sign-in-form", timeout=WAIT_MS)
    await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)
    anonymous = "[window.seahaven.me.identified ?? false, localStorage.getItem('seahaven.key')]"
    assert await js(page, anonymous) == [False, None]  # no player registered while signing in
    await page.fill("#sign-in-handle", "lee")
    await page.fill("#sign-in-password", "correct horse battery")
    await page.click("#sign-in")
    await page.wait_for_function("() => window.seahaven.me?.identified === true", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.me.player") == identity.player
    key = await js(page, "localStorage.getItem('seahaven.key')")
    # This device's own key (sign_in gives one per device), of that player.
    assert isinstance(key, str) and key.partition(".")[0] == identity.player and key != identity.key
    no_errors(page)


async def test_a_quick_match_says_rated_before_ready_and_the_page_hears_its_rating(
    browser: Browser, server: ServerProcess
) -> None:
    page = await open_page(browser, http(server), "Rae")
    await page.wait_for_function("() => localStorage.getItem('seahaven.key') !== null", timeout=WAIT_MS)
    await page.evaluate("() => sessionStorage.removeItem('seahaven.token')")  # next: the registered session
    await page.reload()
    await page.wait_for_function("() => window.seahaven.me?.identified === true", timeout=WAIT_MS)
    first = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Sam")  # a registered rival
    identity = await first.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    await close(first)
    sam = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Sam", key=identity.key)

    await page.click("button:text-is('Quick match')")
    await page.wait_for_selector("#room-code", timeout=WAIT_MS)
    assert "· rated" in await page.inner_text(".room-head .muted")  # said before anyone is ready
    assert await page.locator("#ready").count() == 0, "alone in a quick match, nothing to press"
    assert "no Ready to press" in await page.inner_text("#alone")
    await page.reload()  # still a quick match's wait: ready by itself once paired, after a reload too
    await page.wait_for_selector("#alone", timeout=WAIT_MS)
    assert await page.locator("#ready").count() == 0
    assert isinstance(await sam.call(JoinRoom(room=await page.inner_text("#room-code"))), RoomState)
    assert isinstance(await sam.call(Ready()), Ok)
    await in_race(page)  # the page said ready by itself once Sam sat down
    assert isinstance(await sam.call(Resign()), Ok)
    for _ in range(2):  # R twice: resign
        await page.keyboard.press("R")
    await results(page)
    told = await sam.expect(RatingNotice)
    await page.wait_for_function("() => window.seahaven.ratings.seahaven !== undefined", timeout=WAIT_MS)
    mine = await js(page, "window.seahaven.ratings.seahaven")
    assert isinstance(mine, dict) and mine["race_id"] == told.race_id and mine["provisional"] is True
    assert mine["rating"] - mine["change"] == 1500 and mine["change"] == -told.change  # two new players
    assert "your rating" in await page.inner_text(".room-head .muted")
    # Beside the names on the results: mine with its change, Sam's as his player page has it now.
    sign = "+" if mine["change"] >= 0 else ""
    expected = sorted([f"{mine['rating']}? {sign}{mine['change']}", f"{told.rating}?"])
    shown = "[...document.querySelectorAll('.results .rating')].map(e => e.textContent.trim()).sort()"
    await page.wait_for_function(
        f"want => JSON.stringify({shown}) === want", arg=json.dumps(expected, separators=(",", ":")), timeout=WAIT_MS
    )
    # Then a friends' room, unrated: no rating beside any name (the last race's change said nothing
    # of this one: issue 38, bug 7).
    assert isinstance(await sam.call(Leave()), Ok)
    friendly = await sam.call(CreateRoom())
    assert isinstance(friendly, RoomState) and not friendly.rated
    await page.click("#leave")  # in the page (a reload forgets the rating events), by the lobby's code
    await page.fill("#code", friendly.room)
    await page.click("#join-h + form button[value=race]")
    await page.wait_for_function(
        "code => window.seahaven.room?.room === code && window.seahaven.room.racers.length === 2",
        arg=friendly.room,
        timeout=WAIT_MS,
    )
    assert await page.locator(".racers .rating").count() == 0
    await close(sam)
    no_errors(page)
    # My page: the rating history, the race's change in it; no arena yet.
    me = await js(page, "window.seahaven.me.player")
    await page.goto(http(server, f"/players/{me}"))
    await page.wait_for_selector(".rating-history tbody tr", timeout=WAIT_MS)
    history = await page.locator(".rating-history tbody tr").all_inner_texts()
    assert len(history) == 1 and f"{mine['rating']}?" in history[0] and f"{sign}{mine['change']}" in history[0]
    assert "No arena on record yet" in await page.inner_text("[aria-labelledby=arenas-h]")


async def test_closing_the_page_mid_race_asks_first(server: ServerProcess, browser: Browser) -> None:
    """Issue 38, what players expect: a warning before leaving a live race (the browser's own
    question on closing or leaving the page); none once the race is over for the player."""
    py, page = await py_and_a_page(server, browser)
    await key_move(page, SOLUTION[0])  # the page has been used: a browser asks only then
    asked: list[str] = []

    async def stay(dialog: Dialog) -> None:
        asked.append(dialog.type)
        await dialog.dismiss()

    page.once("dialog", stay)
    await page.close(run_before_unload=True)
    await wait_until(lambda: asked == ["beforeunload"], what="the browser's question")
    assert not page.is_closed() and await js(page, "window.seahaven.room.phase") == "racing"

    for _ in range(2):  # R twice: resign; then closing asks nothing
        await page.keyboard.press("R")
    await page.wait_for_function("() => window.seahaven.mine?.status === 'resigned'", timeout=WAIT_MS)
    assert await page.inner_text(".controls .note") == "You resigned."  # not "You are resigned."
    page.once("dialog", stay)
    await page.close(run_before_unload=True)
    await wait_until(page.is_closed, what="the page closed")
    assert asked == ["beforeunload"]
    await close(py)


async def test_a_rival_who_resigns_is_said(server: ServerProcess, browser: Browser) -> None:
    """A rival out of the race was only a grey word in the racers' panel, easy to miss while the
    player raced on alone: it is said now."""
    py, page = await py_and_a_page(server, browser)
    assert isinstance(await py.call(Resign()), Ok)
    said = "() => document.getElementById('toast').textContent === 'Py resigned'"
    await page.wait_for_function(said, timeout=WAIT_MS)
    assert await js(page, "window.seahaven.room.phase") == "racing", "the race goes on for the page"
    await close(py)
    no_errors(page)
