"""What a new user met in the browser client (issue 21), each at the size where it showed, in Debian's
Chromium against a real server process, every page's console free of errors.

Second visits (a rejoin after Leave, a link while in an old room, a finished room's link), the
results of racers who did not finish, refusals and undo after resigning, hints, the deal shown,
the phone layout (racers' states, long names, the lobby), names, focus, and auto-move.
"""

from __future__ import annotations

import asyncio
import json
import re
import urllib.request

import msgpack
import pytest
from playwright.async_api import Browser, Dialog, Page, WebSocketRoute

from protocol.messages import (
    CreateRoom,
    JoinRoom,
    ListRooms,
    Members,
    Moved,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    Progress,
    Ready,
    Resign,
    Result,
    Rooms,
    RoomState,
    Started,
)
from seahaven import Board, Move, parse_board, to_board_text
from seahaven.codes import decode as decode_deal
from seahaven.codes import encode
from seahaven.moves import CELL, CELL_TOKENS, COLUMN
from seahaven.solver import solve
from tests.browser_pages import AUTO_OFF, WAIT_MS, at_rest, http, js, key_move, next_frame, server, ws
from tests.helpers import wait_until
from tests.pg_proc import PgProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("close_pages")]

SOLUTION: tuple[Move, ...] = solve(Board.deal("seahaven", 1)).moves
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

__all__ = ["server"]  # the module's server process, a fixture


async def open_page(
    browser: Browser, url: str, name: str | None, *, phone: bool = False, auto: bool = False, reduced: bool = False
) -> Page:
    """A page at ``url`` (1280x800, or a 390x844 touch phone; ``reduced``: asking for reduced
    motion) that has said ``name`` (unless None), recording its console errors and script errors."""
    context = await browser.new_context(
        viewport=PHONE if phone else DESKTOP,  # type: ignore[arg-type]
        has_touch=phone,
        reduced_motion="reduce" if reduced else "no-preference",
    )
    if not auto:
        await context.add_init_script(AUTO_OFF)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    setattr(page, "errors", errors)  # noqa: B010
    await page.goto(url)
    if name is not None:
        await page.fill("#name", name)
        await page.click("text=Continue")
        await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)
    return page


def no_errors(page: Page) -> None:
    assert getattr(page, "errors") == []  # noqa: B009


async def create_room(page: Page, deal: str = "1", *, hints: bool = False) -> str:
    await page.fill("input[name=deal]", deal)
    if hints:
        await page.check("input[name=hints]")
    await page.click("text=Create room")
    await page.wait_for_selector("#room-code", timeout=WAIT_MS)
    return await page.inner_text("#room-code")


async def racers_shown(page: Page) -> list[str]:
    return [re.sub(r"\s+", " ", t) for t in await page.locator("[aria-label='racers'] li .who").all_inner_texts()]


async def toast(page: Page) -> str:
    return await page.inner_text("#toast")


async def test_a_racer_who_left_opens_the_link_again_and_is_seated_for_real(
    server: ServerProcess, browser: Browser
) -> None:
    """Bug 1 (and 3: no protocol message): the server once served the new page's join from the
    room's memory of the first stay, so Jo saw herself seated and Gil did not."""
    gil = await open_page(browser, http(server), "Gil")
    code = await create_room(gil)
    jo = await open_page(browser, http(server, f"/r/{code}"), "Jo")
    await jo.wait_for_selector("#ready")
    await jo.click("#ready")  # a few requests in this stay
    await gil.wait_for_function("() => window.seahaven.room.racers.length === 2", timeout=WAIT_MS)
    await jo.click("#ready")
    await jo.click("#leave")
    await jo.wait_for_selector("#create-h", timeout=WAIT_MS)
    await gil.wait_for_function("() => window.seahaven.room.racers.length === 1", timeout=WAIT_MS)

    await jo.goto(http(server, f"/r/{code}"))  # the link again: a new page, its count from 1
    await jo.wait_for_selector("#ready", timeout=WAIT_MS)
    await gil.wait_for_function("() => window.seahaven.room.racers.length === 2", timeout=WAIT_MS)
    assert await racers_shown(gil) == ["Gil (you)", "Jo"]
    assert await racers_shown(jo) == ["Gil", "Jo (you)"]
    assert "answered" not in await toast(jo)
    await jo.click("#ready")  # Jo is really in the room: Gil sees her ready
    await gil.wait_for_function(
        "() => window.seahaven.room.racers.some((r) => r.name === 'Jo' && r.status === 'ready')", timeout=WAIT_MS
    )
    assert "not in a room" not in await toast(jo)
    no_errors(gil)
    no_errors(jo)


async def test_a_room_link_takes_a_racer_out_of_their_old_room_even_a_finished_one(
    server: ServerProcess, browser: Browser
) -> None:
    """Bug 2: the page rewrote the address back to the old room; a link means "take me there"."""
    jo = await open_page(browser, http(server), "Jo")
    old = await create_room(jo)
    other = await WsClient.open(ws(server), "Kim")
    assert isinstance(await other.call(JoinRoom(room=old)), RoomState)
    assert isinstance(await other.call(Ready()), Ok)
    await jo.click("#ready")
    await other.expect(Started)
    await jo.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    assert isinstance(await other.call(Resign()), Ok)
    await jo.keyboard.press("R")
    await jo.keyboard.press("R")
    await jo.wait_for_selector("#results-h", timeout=WAIT_MS)  # the old room is finished

    host = await WsClient.open(ws(server), "Lee")
    new = await host.call(CreateRoom())
    assert isinstance(new, RoomState)
    await jo.goto(http(server, f"/r/{new.room}"))
    await jo.wait_for_function(f"() => window.seahaven.room?.room === {new.room!r}", timeout=WAIT_MS)
    await jo.wait_for_selector("#ready", timeout=WAIT_MS)
    assert jo.url == http(server, f"/r/{new.room}")
    seated = await host.expect(Members, where=lambda m: len(m.racers) == 2)
    assert [r.name for r in seated.racers] == ["Lee", "Jo"]
    await other.close()
    await host.close()
    no_errors(jo)


async def test_a_finished_rooms_link_says_the_race_is_over_and_shows_its_results(
    server: ServerProcess, browser: Browser
) -> None:
    """Bug 3: a finished room's link said "the race has begun"."""
    ann = await WsClient.open(ws(server), "Ann")
    bob = await WsClient.open(ws(server), "Bob")
    state = await race_of_two(ann, bob, CreateRoom(deal_number=1))
    for move in SOLUTION:
        assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
    await bob.expect(Result)

    page = await open_page(browser, http(server, f"/r/{state.room}"), "Cy")
    await page.wait_for_selector("#results-h", timeout=WAIT_MS)
    assert await toast(page) == "That race is over: here are its results."
    assert await page.inner_text("#moment") == "Ann won"
    rows = [re.sub(r"\s+", " ", r) for r in await page.locator(".results tbody tr").all_inner_texts()]
    assert rows[1].startswith("2 Bob did not finish 0/52 0 –"), rows  # bug 6: not "racing 0:00"
    await ann.close()
    await bob.close()
    no_errors(page)


SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")
RANK_WORDS = {1: "ace", 11: "jack", 12: "queen", 13: "king"}


def move_words(board: Board, text: str) -> str:
    """A move as the page says it in English: "6 of diamonds to column 7"."""
    move = Move.parse(text)
    card = board.columns[move.src][-move.count] if move.src_area == COLUMN else board.cells[move.src]
    assert card is not None
    name = f"{RANK_WORDS.get(card.rank, str(card.rank))} of {SUIT_WORDS[card.suit]}"
    if move.count > 1:
        name += f" and {move.count - 1} below"
    if move.dst_area == COLUMN:
        place = f"column {move.dst + 1}"
    elif move.dst_area == CELL:
        place = f"cell {CELL_TOKENS[move.dst]}"
    else:
        place = f"{SUIT_WORDS[card.suit]} foundation"
    return f"{name} to {place}"


async def race_against_py(server: ServerProcess, page: Page, *, hints: bool = False) -> WsClient:
    """The page creates a room on deal 1 (with hints?), a protocol client joins, both ready."""
    code = await create_room(page, hints=hints)
    py = await WsClient.open(ws(server), "Py")
    assert isinstance(await py.call(JoinRoom(room=code)), RoomState)
    assert isinstance(await py.call(Ready()), Ok)
    await page.click("#ready")
    await py.expect(Started)
    await page.wait_for_function("() => window.seahaven.room?.phase === 'racing' && document.querySelector('.board')")
    return py


async def test_a_refused_drop_says_why_and_undo_goes_after_resigning(server: ServerProcess, browser: Browser) -> None:
    """Bugs 9 and 10, and 14's grammar and focus, at 1280x800."""
    page = await open_page(browser, http(server), "Dee")
    py = await race_against_py(server, page)
    board = Board.deal("seahaven", 1)
    source, target = next(
        (s, d)
        for s in range(10)
        for d in range(10)
        if s != d and not board.is_legal(Move(0, s, 0, d, 1)) and board.columns[d]
    )
    # While a card is dragged, the places it may go glow; let go where it started, nothing is played.
    first = await page.locator(".col[data-index='2'] .card:last-child").bounding_box()
    assert first is not None
    await page.mouse.move(first["x"] + first["width"] / 2, first["y"] + 10)
    await page.mouse.down()
    await page.mouse.move(first["x"] + first["width"] / 2, first["y"] + 60, steps=4)
    assert await page.locator(".board.dragging .slot.cell.drop").count() >= 1
    await page.mouse.move(first["x"] + first["width"] / 2, first["y"] + 10, steps=4)
    await page.mouse.up()
    assert await page.locator(".drop").count() == 0
    assert await js(page, "window.seahaven.pending.length") == 0
    start = await page.locator(f".col[data-index='{source}'] .card:last-child").bounding_box()
    end = await page.locator(f".col[data-index='{target}'] .card:last-child").bounding_box()
    assert start is not None and end is not None
    await page.mouse.move(start["x"] + start["width"] / 2, start["y"] + 10)
    await page.mouse.down()
    await page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] / 2, steps=8)
    await page.mouse.up()
    assert await js(page, "window.seahaven.selected") is None  # the card dropped on is not selected
    assert len(await toast(page)) > 10  # the reason, in words
    assert await js(page, "window.seahaven.pending.length") == 0

    await key_move(page, SOLUTION[0])
    await page.wait_for_function("() => window.seahaven.pending.length === 0")
    await page.wait_for_function("() => window.seahaven.slid >= 1", timeout=WAIT_MS)  # the card slid to its place
    assert "1 move" in await page.inner_text(".controls .mine") and "1 moves" not in await page.inner_text(".mine")
    assert (await page.inner_text("#live")).startswith("played ")  # moves in the polite live region
    await page.keyboard.press("5")
    assert " selected: " in await js(page, "document.getElementById('live').textContent")
    await page.keyboard.press("Escape")
    focused = await js(page, "document.activeElement === document.body")
    assert focused is False  # the focus stays on the board, not <body>
    await page.keyboard.press("R")
    await page.keyboard.press("R")
    await page.wait_for_function("() => window.seahaven.mine?.status === 'resigned'", timeout=WAIT_MS)
    assert await page.locator("#undo:not([disabled])").count() == 0  # no undo once resigned
    await page.keyboard.press("u")
    assert await js(page, "window.seahaven.pending.length") == 0
    await py.close()
    no_errors(page)


async def test_a_room_with_hints_has_a_hint_button_and_key(server: ServerProcess, browser: Browser) -> None:
    """Bug 4: the hints option did nothing in the browser."""
    page = await open_page(browser, http(server), "Hal")
    py = await race_against_py(server, page, hints=True)
    assert "hints on" in await page.inner_text(".room-head .facts")
    await page.click("#hint")
    await page.wait_for_function("() => window.seahaven.hint !== null", timeout=WAIT_MS)
    hint = await js(page, "window.seahaven.hint")
    # Said in words, never in notation (issue 38), and lit on the board: its cards and their place.
    assert isinstance(hint, str) and (await toast(page)) == f"Hint: {move_words(Board.deal('seahaven', 1), hint)}"
    move = Move.parse(hint)
    assert await page.locator(".board .card.hinted").count() == move.count
    assert await page.locator(".board .hint-to").count() == 1
    assert hint not in await page.inner_text(".controls .note")
    await page.keyboard.press("?")  # the key asks too
    await page.wait_for_function(
        "() => window.seahaven.room.racers.find((r) => r.name === 'Hal')?.hints === 2", timeout=WAIT_MS
    )
    await py.close()
    no_errors(page)


async def test_the_deal_is_shown_once_dealt(server: ServerProcess, browser: Browser) -> None:
    """Bug 5: the deal was never shown."""
    page = await open_page(browser, http(server), "Sol")
    py = await race_against_py(server, page)
    assert await page.inner_text("#deal") == "Deal SH1-ST-0001G · practise it alone"
    link = await page.get_attribute("#solo-link", "href")
    assert link == http(server, "/solo/SH1-ST-0001G")
    await py.close()
    no_errors(page)


@pytest.mark.parametrize("phone", [False, True])
async def test_a_deals_link_opens_it_for_practice_alone_with_auto_move(
    server: ServerProcess, browser: Browser, phone: bool
) -> None:
    """Solo practice on any deal by its link: moves judged on the page, the same auto-move."""
    page = await open_page(browser, http(server, "/solo/sh1-st-0001g"), None, phone=phone, auto=True)
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.board.text()") == to_board_text(Board.deal("seahaven", 1))
    board = Board.deal("seahaven", 1)
    for move in SOLUTION:
        if board.is_legal(move):
            await key_move(page, move)
            await page.wait_for_function("() => window.seahaven.pending.length === 0", timeout=WAIT_MS)
            board = parse_board(str(await js(page, "window.seahaven.board.text()")), "seahaven")
        if board.is_won():
            break
    await page.wait_for_selector("#moment", timeout=WAIT_MS)
    assert await page.inner_text("#moment") == "You won!"
    assert "The race is over: you put all 52 cards home." in await page.inner_text(".results")  # not "a racer"
    assert "(you)" not in await page.inner_text("[aria-label='racers']")  # alone: no "you (you)"
    # Games alone are counted in this browser (issue 38, what players expect: solo statistics).
    stats = await page.inner_text("#solo-stats")
    assert re.fullmatch(r"1 played · 1 won · best 0:\d\d", stats), stats
    await at_rest(page)
    assert await js(page, "document.documentElement.scrollWidth") == (PHONE if phone else DESKTOP)["width"]
    await page.click("#rematch")  # the deal again
    await page.wait_for_function("() => window.seahaven.room.phase === 'racing'", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.board.progress") == 0
    # A new deal: another of the preset's published winnable deals, the statistics kept.
    await page.click("#new-deal")
    await page.wait_for_url(re.compile(r".*/solo/SH1-ST-\w+$"), timeout=WAIT_MS)
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    preset, number = decode_deal(page.url.rsplit("/", 1)[1])
    assert preset == "seahaven" and number != 1
    listed = (await (await page.request.get(http(server, "/api/v1/deal-lists/seahaven"))).json())["text"]
    assert re.search(rf"^{number} [gtf]$", listed, re.M), number
    assert await page.inner_text("#solo-stats") == stats
    await page.click("#leave")
    await page.wait_for_url(http(server, "/"), timeout=WAIT_MS)
    no_errors(page)


async def test_a_mistyped_deal_link_says_why_and_shows_the_lobby(server: ServerProcess, browser: Browser) -> None:
    page = await open_page(browser, http(server, "/solo/SH1-ST-0001H"), None)
    await page.wait_for_selector("#name", timeout=WAIT_MS)
    assert "check character" in await toast(page)
    no_errors(page)


async def test_on_a_phone_each_racer_shows_their_state_and_long_names_stay_inside(
    server: ServerProcess, browser: Browser
) -> None:
    """Bugs 7, 8, 12 at 390x844: states hidden, long names past the screen, the lobby cut off."""
    long = "Bartholomew-Maximilian"
    host = await WsClient.open(ws(server), long)
    state = await host.call(CreateRoom())
    assert isinstance(state, RoomState)
    page = await open_page(browser, http(server), "Pip", phone=True)
    await page.wait_for_function(f"() => window.seahaven.rooms.some((r) => r.room === {state.room!r})", timeout=WAIT_MS)
    join = page.locator(f"button[aria-label='join room {state.room}']")
    box = await join.bounding_box()
    assert box is not None and box["x"] + box["width"] <= PHONE["width"] and box["height"] >= 44
    assert await page.locator(".rooms td.seats").first.is_visible()  # free seats shown
    await join.click()
    await page.wait_for_selector("#ready", timeout=WAIT_MS)
    assert isinstance(await host.call(Ready()), Ok)
    await page.wait_for_function("() => document.querySelector('.racers li .status')?.textContent === 'ready'")
    assert await page.locator(".racers li .status").first.is_visible()  # bug 7: the state shows
    width = await js(page, "document.documentElement.scrollWidth")
    assert width == PHONE["width"], width  # bug 8: nothing wider than the screen
    who = page.locator(".racers li .who").first
    who_box = await who.bounding_box()
    assert who_box is not None and who_box["x"] + who_box["width"] <= PHONE["width"]
    await host.close()
    no_errors(page)


async def test_a_name_of_spaces_is_refused_and_create_room_is_above_the_fold(
    server: ServerProcess, browser: Browser
) -> None:
    """Bug 14: a name of spaces became "player"; Create room was below the fold at 1280x800."""
    page = await open_page(browser, http(server), None)
    await page.fill("#name", "   ")
    await page.click("text=Continue")
    assert await page.locator("#name").count() == 1  # still asked
    assert "name" in (await toast(page)).lower()
    await page.fill("#name", "Zoë \U0001f469\u200d\U0001f4bb")  # an emoji sequence: woman, joiner, laptop
    await page.click("text=Continue")
    await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.me.name") == "Zoë \U0001f469\u200d\U0001f4bb"  # the joiner kept
    assert await page.inner_text(".bar .net") == "Zoë \U0001f469\u200d\U0001f4bb"
    button = await page.locator("text=Create room").bounding_box()
    assert button is not None and button["y"] + button["height"] <= DESKTOP["height"]
    # The lobby's refresh (every 4 s) leaves what is typed alone.
    await page.fill("#code", "ABCD")
    await page.focus("#code")
    await page.wait_for_timeout(4500)
    assert await page.input_value("#code") == "ABCD"
    assert await js(page, "document.activeElement.id") == "code"
    no_errors(page)


async def test_auto_move_plays_safe_cards_home_and_the_server_counts_the_players_own_moves(
    server: ServerProcess, browser: Browser
) -> None:
    page = await open_page(browser, http(server), "Otto", auto=True)
    py = await race_against_py(server, page)
    assert await page.is_checked("#auto-move")
    board = Board.deal("seahaven", 1)
    played = 0
    for move in SOLUTION:
        if not board.is_legal(move):
            continue  # auto-move played it already
        await key_move(page, move)
        board.push(move)
        await page.wait_for_function("() => window.seahaven.pending.length === 0", timeout=WAIT_MS)
        board = parse_board(str(await js(page, "window.seahaven.board.text()")), "seahaven")
        played += 1
        if board.is_won():
            break
    result = await py.expect(Result)
    me = next(s for s in result.standings if s.name == "Otto")
    # The server played the auto-moves (move.auto): the count is the player's own moves.
    assert me.status == "finished" and me.moves == played
    await page.wait_for_selector("#moment")
    assert await page.inner_text("#moment") == "You won!"
    await py.close()
    no_errors(page)


async def test_offline_a_move_is_not_dropped_without_a_word_and_the_phone_header_holds(
    server: ServerProcess, browser: Browser
) -> None:
    """Bug 11 at 390x844: offline, moves were dropped silently; the status text broke the header."""
    page = await open_page(browser, http(server), "Ona", phone=True)
    py = await race_against_py(server, page)
    await js(
        page,
        "(window.reopen = window.seahaven.conn.open.bind(window.seahaven.conn), window.seahaven.conn.open = () => {})",
    )
    await js(page, "window.seahaven.conn.drop()")
    await page.wait_for_function("() => window.seahaven.status === 'offline'", timeout=WAIT_MS)
    await page.tap(".col[data-index='2'] .card:last-child")
    assert (await toast(page)).startswith("Offline")
    assert await js(page, "document.querySelector('.bar').scrollWidth") <= PHONE["width"]
    header = await page.locator(".bar").bounding_box()
    assert header is not None and header["height"] < 120
    await js(page, "(window.seahaven.conn.open = window.reopen, window.reopen())")
    await page.wait_for_function("() => window.seahaven.status === 'online'", timeout=WAIT_MS)
    await page.tap(".col[data-index='2'] .card:last-child")  # back online: it plays again
    assert await js(page, "window.seahaven.selected?.index") == 2
    await py.close()
    no_errors(page)


async def test_the_daily_race_alone_says_it_waits_for_a_rival(server: ServerProcess, browser: Browser) -> None:
    """Bug 13: alone in the daily race, the page waited without a word and did not say it was the daily race."""
    page = await open_page(browser, http(server), "Dai")
    await page.click("text=Race today's deal")
    await page.wait_for_selector("#alone", timeout=WAIT_MS)
    assert "daily race" in await page.inner_text("#alone")
    assert "the daily race" in await page.inner_text(".room-head .facts")
    no_errors(page)


async def test_the_daily_race_can_be_raced_against_the_computer_or_alone(
    server: ServerProcess, browser: Browser
) -> None:
    """Issue 38, bug 8: nobody else may come; the daily deal against the computer, or alone."""
    page = await open_page(browser, http(server), "Dot")
    await page.wait_for_selector("#daily-solo", timeout=WAIT_MS)  # once the day's deal is known
    deal = await js(page, "window.seahaven.daily.deal")
    await page.click("#daily-bot")
    await page.wait_for_selector("#room-code", timeout=WAIT_MS)
    await page.wait_for_function("() => window.seahaven.room.racers.length === 2", timeout=WAIT_MS)
    assert "the daily race" in await page.inner_text(".room-head .facts")
    assert await js(page, "window.seahaven.room.racers.some(r => r.player.startsWith('bot-'))") is True
    await page.click("#ready")
    await page.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.room.deal") == deal  # the day's deal
    no_errors(page)

    alone = await open_page(browser, http(server), "Una")
    await alone.wait_for_selector("#daily-solo", timeout=WAIT_MS)
    await alone.click("#daily-solo")
    await alone.wait_for_selector("#solo-h", timeout=WAIT_MS)
    assert alone.url.endswith(f"/solo/{deal}") and await js(alone, "window.seahaven.room.deal") == deal
    no_errors(alone)


async def test_alone_in_the_daily_race_the_waiting_room_offers_the_computer_or_practice(
    server: ServerProcess, browser: Browser
) -> None:
    """Issue 38, bug 8: a player who chose "Race today's deal" waited for a second racer with no
    end. Alone in its waiting room, the page offers today's deal against the computer instead, or
    alone; either leaves the waiting room."""
    page = await open_page(browser, http(server), "Ode")
    await page.wait_for_selector("#daily-solo", timeout=WAIT_MS)  # once the day's deal is known
    deal = await js(page, "window.seahaven.daily.deal")
    await page.click("#daily-race")
    await page.wait_for_selector("#alone", timeout=WAIT_MS)
    waiting = await js(page, "window.seahaven.room.room")
    instead = page.get_by_role("button", name="Nobody yet: race the computer instead")
    await instead.focus()
    await page.keyboard.press("Enter")
    await page.wait_for_function("code => window.seahaven.room && window.seahaven.room.room !== code", arg=waiting)
    await page.wait_for_function("() => window.seahaven.room.racers.length === 2", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.room.racers.some(r => r.player.startsWith('bot-'))") is True
    assert "the daily race" in await page.inner_text(".room-head .facts")
    assert await js(page, "window.seahaven.room.public") is False
    # Its race starts at once: ready by itself, as a quick match's once paired (no Ready to press).
    await page.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.room.deal") == deal
    no_errors(page)

    alone = await open_page(browser, http(server), "Ula")
    await alone.click("#daily-race")
    await alone.wait_for_selector("#alone", timeout=WAIT_MS)
    waiting = await js(alone, "window.seahaven.room.room")
    await alone.click("text=Practise it alone")
    await alone.wait_for_selector("#solo-h", timeout=WAIT_MS)
    assert alone.url.endswith(f"/solo/{deal}") and await js(alone, "window.seahaven.room.deal") == deal
    rooms = await WsClient.open(ws(server), "Lister")
    listed = await rooms.call(ListRooms())
    assert isinstance(listed, Rooms) and waiting not in [r.room for r in listed.rooms]  # left, not waited out
    await rooms.close()
    no_errors(alone)


async def test_a_quick_match_nobody_answers_can_race_the_computer_at_once(
    server: ServerProcess, browser: Browser
) -> None:
    """Issue 38, what players expect: "play the computer if nobody comes". Alone in a quick match,
    the page offers the computer instead: a room of the same rules with a bot, its race on at once."""
    page = await open_page(browser, http(server), "Quinn")
    await page.select_option("#quick-preset", "penguin")  # nobody else waits for Penguin here
    await page.click("#quick-match")
    await page.wait_for_selector("#alone", timeout=WAIT_MS)
    waiting = await js(page, "window.seahaven.room.room")
    await page.click("#bot-instead")
    await page.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.room.room") != waiting
    assert await js(page, "window.seahaven.room.preset") == "penguin"
    assert await js(page, "window.seahaven.room.racers.some(r => r.bot)") is True
    rooms = await WsClient.open(ws(server), "Lister")
    listed = await rooms.call(ListRooms())
    assert isinstance(listed, Rooms) and waiting not in [r.room for r in listed.rooms]  # left, not waited out
    await rooms.close()
    no_errors(page)


async def test_resigning_against_a_bot_shows_the_results_and_the_bots_board_at_once(
    server: ServerProcess, browser: Browser
) -> None:
    """Issue 38, bug 6: a player who resigned against a bot waited with no results and no bot
    board until the bot finished. The race ends at once (the server stops the bot with the last
    person), and the page shows the results and, on a tab, the bot's board as it ended."""
    page = await open_page(browser, http(server), "Res")
    page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))  # "Resign this race?": yes
    await page.select_option("select[name=bot]", "stroll")
    await page.click("text=Create room")
    await page.wait_for_function("() => window.seahaven.room?.racers.length === 2", timeout=WAIT_MS)
    await page.click("#ready")
    await page.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    await page.wait_for_timeout(1500)  # the bot goes on its way
    await page.click(".controls >> text=Resign")
    await page.wait_for_selector("#results-h", timeout=3000)
    bot = await js(page, "window.seahaven.room.racers.find(r => r.player.startsWith('bot-')).player")
    tabs = page.get_by_role("tablist", name="whose board")
    assert (await tabs.get_by_role("tab").all_inner_texts())[0] == "your board"
    await tabs.get_by_role("tab", name="Computer (stroll)").click()
    board = page.locator('.board[aria-label="Computer (stroll)\'s board"]')
    await board.wait_for(timeout=WAIT_MS)
    played = await js(page, f"window.seahaven.result.histories.find(h => h.player === '{bot}').history.length")
    assert await js(page, f"window.seahaven.finals.get('{bot}').stack.length") == played
    assert await page.locator(".board").count() == 1  # one board at a time, as a spectator's tabs
    assert await js(page, "window.seahaven.room.phase") == "finished"
    await page.get_by_role("tab", name="your board").click()
    await page.locator(".board[aria-label='your board']").wait_for(timeout=WAIT_MS)
    no_errors(page)


async def test_a_card_picked_in_a_free_cell_is_lit_as_a_columns_is(server: ServerProcess, browser: Browser) -> None:
    """Issue 38, bug 5: a card selected in a free cell was not lit (only where it may go was)."""
    page = await open_page(browser, http(server, "/solo/sh1-st-0001g"), None)
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    card = page.locator(".slot.cell[data-index='0'] .card")
    await card.click()
    await page.wait_for_function("() => window.seahaven.selected?.area === 1", timeout=WAIT_MS)
    column = page.locator(".col[data-index='0'] .card:last-child")
    lit = await card.evaluate("e => getComputedStyle(e).backgroundColor")
    assert "selected" in (await card.get_attribute("class") or "")
    await page.keyboard.press("Escape")
    await column.click()
    assert await column.evaluate("e => getComputedStyle(e).backgroundColor") == lit  # the same light
    no_errors(page)


async def test_keys_that_do_nothing_here_say_why_in_the_pages_language(server: ServerProcess, browser: Browser) -> None:
    """Issue 38, bug 9: ? did nothing in a room without hints; R's and l's "press again" were
    said in English whatever the page's language."""
    page = await open_page(browser, http(server), "Hugo")
    py = await race_against_py(server, page)  # a room without hints
    await page.keyboard.press("?")
    await page.wait_for_function("() => document.getElementById('toast').textContent !== ''", timeout=WAIT_MS)
    assert await toast(page) == "No hints in this room: it was made without them"
    await page.select_option("#lang", "fr")
    await page.keyboard.press("R")
    await page.wait_for_function(
        "() => document.getElementById('toast').textContent.startsWith('appuyez')", timeout=WAIT_MS
    )
    assert await toast(page) == "appuyez encore sur R pour abandonner"
    await py.close()
    no_errors(page)


async def test_the_live_region_is_emptied_on_another_page(server: ServerProcess, browser: Browser) -> None:
    """Issue 38, bug 9: what the live region said in a race (screen readers: "played ...") stayed
    there in the lobby after it, and on the account panel."""
    page = await open_page(browser, http(server), "Lea")
    py = await race_against_py(server, page)
    await key_move(page, SOLUTION[0])
    spoken = "() => document.getElementById('live').textContent.startsWith('played')"
    await page.wait_for_function(spoken, timeout=WAIT_MS)
    await page.keyboard.press("l")
    await page.keyboard.press("l")
    await page.wait_for_selector("#account", timeout=WAIT_MS)  # the lobby
    assert await page.inner_text("#live") == ""
    await page.evaluate("() => { document.getElementById('live').textContent = 'said in the lobby'; }")
    await page.click("#account")
    await page.wait_for_selector("#account-h", timeout=WAIT_MS)
    assert await page.inner_text("#live") == ""
    await py.close()
    no_errors(page)


async def test_with_reduced_motion_cards_do_not_slide(server: ServerProcess, browser: Browser) -> None:
    page = await open_page(browser, http(server, "/solo/SH1-ST-0001G"), None, reduced=True)
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    await key_move(page, SOLUTION[0])
    await page.wait_for_function("() => window.seahaven.pending.length === 0", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.board.stack.length") == 1
    await next_frame(page)  # the frame in which the card would have slid
    assert await js(page, "window.seahaven.slid") == 0
    no_errors(page)


async def test_a_new_players_first_race_is_on_their_page_without_the_account_panel(
    server: ServerProcess, browser: Browser
) -> None:
    """A browser that never opens the account panel races as its player from the first race: the
    player its stored key names is the session's, and that player's page lists the race."""
    page = await open_page(browser, http(server), "Nia")
    key = await js(page, "localStorage.getItem('seahaven.key')")
    assert isinstance(key, str)
    player = key.partition(".")[0]
    assert await js(page, "[window.seahaven.me.player, window.seahaven.me.identified]") == [player, True]
    py = await race_against_py(server, page)
    assert isinstance(await py.call(Resign()), Ok)
    for _ in range(2):  # R twice: resign
        await page.keyboard.press("R")
    await page.wait_for_selector("#my-page-link", timeout=WAIT_MS)
    assert await page.get_attribute("#my-page-link", "href") == f"/players/{player}"

    def races_on_record() -> list[object]:
        with urllib.request.urlopen(http(server, f"/api/v1/players/{player}/races"), timeout=5) as answer:
            return list(json.load(answer)["races"])

    async def archived() -> bool:
        return len(await asyncio.to_thread(races_on_record)) == 1

    await wait_until(archived, what="the race on the player's record")
    mine = await page.context.new_page()
    await mine.goto(http(server, f"/players/{player}"))
    await mine.wait_for_function("() => window.seahavenRecords?.ready === true", timeout=WAIT_MS)
    assert await mine.inner_text("#player-name") == "Nia"
    assert await mine.inner_text("#races") == "1"
    assert await mine.locator(".races tbody tr").count() == 1
    no_errors(page)


REGISTERED_MS = 70_000
"""How long a page that could not register may take to: the client asks again after 1, 2, 4, 8, 16
and 32 s (web/src/player_key.js REGISTER_PAUSES_MS), 63 s in all."""


async def test_a_first_visit_while_the_database_is_down_is_the_players_once_it_is_back(
    browser: Browser, private_postgres: PgProcess
) -> None:
    """A new player's first registration meets a database that is down: the page races on
    anonymously and asks again, and once the database is back the page is the registered player's
    (its key kept), without the account panel being opened."""
    node = ServerProcess("--database", private_postgres.url)
    try:
        private_postgres.stop()
        page = await open_page(browser, http(node), "Ann")
        anonymous = "[window.seahaven.me.identified === true, localStorage.getItem('seahaven.key')]"
        assert await js(page, anonymous) == [False, None]
        private_postgres.start()
        await page.wait_for_function("() => window.seahaven.me?.identified === true", timeout=REGISTERED_MS)
        key = await js(page, "localStorage.getItem('seahaven.key')")
        assert isinstance(key, str) and key.partition(".")[0] == await js(page, "window.seahaven.me.player")
        assert await js(page, "window.seahaven.me.name") == "Ann"
        # While the database was down the read API answered 503 (the browser logs each): no other error.
        errors: list[str] = getattr(page, "errors")  # noqa: B009
        assert [error for error in errors if "status of 503" not in error] == []
    finally:
        node.close()


async def test_create_room_at_once_makes_one_room_and_it_is_the_players(
    server: ServerProcess, browser: Browser
) -> None:
    """Create room pressed in the first instant, while the page still becomes its player: the
    request waits for the player's session, so no room is left behind under the throwaway one."""
    watcher = await WsClient.open(ws(server), "Watcher")
    before = await watcher.call(ListRooms())
    assert isinstance(before, Rooms)
    page = await open_page(browser, http(server), None)
    route = SlowIdentity()
    await page.route_web_socket(re.compile(r".*"), route)
    await page.fill("#name", "Quick")
    await page.click("text=Continue")
    await page.wait_for_function("() => window.seahaven.registering === 'asking'", timeout=WAIT_MS)
    code = await create_room(page)  # while the page becomes its player
    player = await js(page, "window.seahaven.me.player")
    assert await js(page, "window.seahaven.me.identified") is True
    assert await js(page, "window.seahaven.room.racers.map(r => r.player)") == [player]
    after = await watcher.call(ListRooms())
    assert isinstance(after, Rooms)
    assert [r.room for r in after.rooms if r not in before.rooms] == [code]
    assert route.sent == ["hello", "register"]  # nothing else on the throwaway session: no room of its own
    await watcher.close()
    no_errors(page)


class SlowIdentity:
    """A WebSocket route: the first connection's ``identity`` (the answer to ``register``) reaches
    the page a second late, frames in order, and what the page sent on that connection is kept
    (``sent``, by type); later connections pass through."""

    def __init__(self) -> None:
        self.opened = 0
        self.sent: list[str] = []

    async def __call__(self, page_side: WebSocketRoute) -> None:
        self.opened += 1
        server_side = page_side.connect_to_server()
        if self.opened > 1:
            return
        last: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        last.set_result(None)

        async def forward(before: asyncio.Future[None], frame: str | bytes) -> None:
            await before
            if kind(frame) == "identity":
                await asyncio.sleep(1.0)
            page_side.send(frame)

        def heard(frame: str | bytes) -> None:
            nonlocal last
            last = asyncio.ensure_future(forward(last, frame))

        def said(frame: str | bytes) -> None:
            self.sent.append(kind(frame))
            server_side.send(frame)

        server_side.on_message(heard)
        page_side.on_message(said)


def kind(frame: str | bytes) -> str:
    return str(msgpack.unpackb(frame, raw=False).get("type")) if isinstance(frame, bytes) else "text"


async def test_another_rooms_link_mid_race_asks_in_the_page_and_never_resigns_by_itself(
    server: ServerProcess, browser: Browser
) -> None:
    """Issue 38, bug 1: opening another room's link mid-race resigned the player without a word,
    and Back then made them a spectator of their own race. The browser asks first on leaving the
    page (its own question, the only one it shows); the new page then asks in the page (a modal
    dialog, keys only here): stay keeps the race and its address, and so does Back while asked;
    "Resign and leave" resigns it and opens the other room."""
    page = await open_page(browser, http(server), "Rhea")
    py = await race_against_py(server, page)
    code = await js(page, "window.seahaven.room.room")
    await key_move(page, SOLUTION[0])  # the page has been used: the browser asks on leaving it
    host = await WsClient.open(ws(server), "Host")
    other = await host.call(CreateRoom())
    assert isinstance(other, RoomState)
    asked: list[str] = []

    async def answer(dialog: Dialog) -> None:
        asked.append(dialog.type)
        await dialog.accept()

    page.on("dialog", answer)

    async def the_question() -> None:
        await page.goto(http(server, f"/r/{other.room}"))
        await page.wait_for_selector("dialog#ask[open]", timeout=WAIT_MS)
        question = page.get_by_role("dialog", name=f"You are racing in room {code}")
        assert other.room in await question.inner_text()
        assert await js(page, "document.activeElement.id") == "ask-no"  # the safe answer first
        assert page.url.endswith(f"/r/{code}")  # the race's address while asked

    async def racing_in_a() -> None:
        await page.wait_for_function("code => window.seahaven.room?.room === code", arg=code, timeout=WAIT_MS)
        assert await js(page, "window.seahaven.room.role") == "racer"
        assert await js(page, "window.seahaven.mine.status") == "racing"
        assert page.url.endswith(f"/r/{code}")

    await the_question()
    await page.keyboard.press("1")  # a key of the race does not reach the board behind
    await page.keyboard.press("Enter")  # "Stay in the race"
    await page.wait_for_selector("dialog#ask", state="detached", timeout=WAIT_MS)
    await racing_in_a()
    await page.go_back()  # Back after the link: still racing, not a spectator of this race
    await racing_in_a()

    await the_question()
    await page.go_back()  # Back while asked: no answer is no
    await racing_in_a()
    assert asked == ["beforeunload"] * len(asked) and asked
    assert isinstance(await py.call(Ping()), Pong)
    assert not [m for m in await py.drain() if isinstance(m, Progress) and m.status == "resigned"]

    await the_question()
    await page.keyboard.press("Escape")  # Escape is no, as well
    await racing_in_a()
    await the_question()
    await page.keyboard.press("Tab")
    await page.keyboard.press("Enter")  # "Resign and leave"
    await page.wait_for_function("code => window.seahaven.room?.room === code", arg=other.room, timeout=WAIT_MS)
    assert page.url.endswith(f"/r/{other.room}")
    await py.expect(Progress, where=lambda m: m.status == "resigned")
    for client in (py, host):
        await client.close()
    no_errors(page)


async def test_the_new_room_form_keeps_its_settings_and_a_deal_link_fills_the_deal(
    server: ServerProcess, browser: Browser
) -> None:
    """Issue 38, what players expect: the lobby's form remembers the last settings (its time limit
    in minutes), and "Race this deal" (a replay's /?deal=CODE) opens it on that deal."""
    code = encode("seahaven", 7)
    page = await open_page(browser, http(server, f"/?deal={code}"), "Mona")
    form = "form.create"
    assert await page.input_value(f"{form} input[name=deal]") == code
    assert page.url == http(server), "the link's deal is the form's now, not the address's"
    await page.fill(f"{form} input[name=seats]", "3")
    await page.fill(f"{form} input[name=time_limit]", "2.5")
    await page.uncheck(f"{form} input[name=undo]")
    await page.click(f"{form} button[type=submit]")
    await page.wait_for_selector("#room-code", timeout=WAIT_MS)
    room = await js(page, "window.seahaven.room")
    assert isinstance(room, dict)
    assert (room["seats"], room["time_limit"], room["undo"], room["deal"]) == (3, 150, False, code)
    assert "2:30 limit" in await page.inner_text(".room-head .facts")
    await page.click("#leave")
    await page.wait_for_selector(f"{form} input[name=seats]", timeout=WAIT_MS)
    # The next room starts from the same settings; the deal was that one room's.
    await page.reload()
    await page.wait_for_selector(f"{form} input[name=seats]", timeout=WAIT_MS)
    assert await page.input_value(f"{form} input[name=seats]") == "3"
    assert await page.input_value(f"{form} input[name=time_limit]") == "2.5"
    assert not await page.is_checked(f"{form} input[name=undo]")
    assert await page.input_value(f"{form} input[name=deal]") == ""
    # A limit of whole minutes is said in minutes, as it was given.
    await page.fill(f"{form} input[name=time_limit]", "10")
    await page.click(f"{form} button[type=submit]")
    await page.wait_for_selector("#room-code", timeout=WAIT_MS)
    assert "10 min limit" in await page.inner_text(".room-head .facts")
    no_errors(page)


async def test_auto_move_sends_the_deals_safe_cards_home_at_the_start(server: ServerProcess, browser: Browser) -> None:
    """Found on a journey walk: the terminal sent an opening's exposed aces home at the start, the
    page waited for the player's first move (then its first hint was an ace)."""
    opening = Board.deal("seahaven", 2)
    safe = len(opening.autoplay())
    assert safe >= 2, "deal 2 opens with aces to send home"
    py = await WsClient.open(ws(server), "Py")
    state = await py.call(CreateRoom(deal_number=2))
    assert isinstance(state, RoomState)
    page = await open_page(browser, http(server, f"/r/{state.room}"), "Ace", auto=True)
    await page.wait_for_selector("#ready")
    assert isinstance(await py.call(Ready()), Ok)
    await page.click("#ready")
    await py.expect(Started)
    await page.wait_for_function(
        f"() => window.seahaven.board?.progress === {safe} && window.seahaven.pending.length === 0", timeout=WAIT_MS
    )
    progress = await py.expect(Progress, where=lambda p: p.progress == safe)
    assert progress.moves == 0  # played by the server (ready.auto): none of them the player's
    await py.close()
    no_errors(page)
