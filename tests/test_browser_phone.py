"""The browser client on a 390x844 touch phone (issue 21): the board as wide as the screen, every
control a thumb taps 44 px at least, covered cards picked by their strip, a long column's fan closing
up to stay on screen; and the desktop's sizes as they were. Debian's Chromium against a real server
process, every page's console free of errors.

What "44 px" means here: buttons, fields, checkboxes' labels, the keys' summary, cells and
foundations (and their cards) are 44x44 CSS px at least. A column's card cannot be: ten columns side
by side in 390 px leave 38 px each, so a column and its cards are checked to be as wide as a tenth of
the board less the 1 px gaps, and 44 px tall at least. A covered card is checked by its strip, from
its top to the top of the card over it: 22 px at least (the fan's floor in style.css).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest
from playwright.async_api import Browser, FloatRect, Page

from protocol.messages import Arena, CreateArena, CreateRoom, Moved, MoveRequest, Ok, Ready, Resign, RoomState, Undo
from seahaven import COLUMN, Board, Move, parse_board, to_board_text
from seahaven.codes import encode
from seahaven.solver import solve
from tests.browser_pages import AUTO_OFF, WAIT_MS, at_rest, http, js, key_move, next_frame, server
from tests.racing import solution
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("close_pages")]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
MIN_TAP = 44
MIN_STRIP = 22

__all__ = ["server"]  # the module's server process, a fixture


async def open_page(browser: Browser, url: str, viewport: dict[str, int] = PHONE) -> Page:
    """A page at ``url`` on a touch phone of that size (a desktop at DESKTOP), auto-move off,
    recording its console errors and script errors."""
    phone = viewport != DESKTOP
    context = await browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)  # type: ignore[arg-type]
    await context.add_init_script(AUTO_OFF)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    setattr(page, "errors", errors)  # noqa: B010
    await page.goto(url)
    return page


def no_errors(page: Page) -> None:
    assert getattr(page, "errors") == []  # noqa: B009


# Every visible thing a player taps, with its box; a covered card with its strip's height instead.
TAPPABLE = """() => {
  const shown = (el) => el.getClientRects().length > 0 && !el.closest(".sr-only");
  const out = [];
  const sel = "button:not(.card), input:not([type=checkbox]), select, label.check, .help summary, .slot, .col, .card";
  for (const el of document.querySelectorAll(sel)) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    const next = el.classList.contains("card") ? el.nextElementSibling : null;
    const name = el.getAttribute("aria-label") ?? el.textContent.trim().slice(0, 30);
    const what = `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} ${name}`;
    out.push({ what, width: r.width, height: r.height, covered: next !== null,
               strip: next ? next.getBoundingClientRect().top - r.top : null,
               inColumn: el.classList.contains("col") || el.parentElement.classList.contains("col") });
  }
  return out;
}"""


async def tappable(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = await page.evaluate(TAPPABLE)
    assert found, "nothing to tap found"
    return found


def too_small(found: list[dict[str, Any]], column_width: float) -> list[str]:
    """What is smaller than a thumb: 44x44, a column's things as wide as a column, a strip 22 tall."""
    small = []
    for item in found:
        width = column_width if item["inColumn"] else MIN_TAP
        height = MIN_STRIP if item["covered"] else MIN_TAP
        shown = item["strip"] if item["covered"] else item["height"]
        if item["width"] < width - 0.5 or shown < height - 0.5:
            small.append(f"{item['what']}: {item['width']:.1f}x{shown:.1f}")
    return small


async def board_box(page: Page) -> FloatRect:
    box = await page.locator(".board").bounding_box()
    assert box is not None
    return box


def tenth(board_width: float) -> float:
    """A column's width when ten share the board with 1 px between them."""
    return (board_width - 9) / 10


async def test_the_lobby_and_a_waiting_room_have_44_px_controls_on_a_phone(
    server: ServerProcess, browser: Browser
) -> None:
    page = await open_page(browser, http(server))
    await page.wait_for_selector("#name", timeout=WAIT_MS)
    assert too_small(await tappable(page), MIN_TAP) == []  # the name form
    await page.fill("#name", "Tam")
    await page.tap("text=Continue")
    await page.wait_for_selector("#rooms-h", timeout=WAIT_MS)
    found = await tappable(page)
    assert any(item["what"].startswith("label.check") for item in found)  # the checkboxes were seen
    assert too_small(found, MIN_TAP) == []
    await page.tap("text=Create room")
    await page.wait_for_selector("#ready", timeout=WAIT_MS)
    assert too_small(await tappable(page), MIN_TAP) == []
    assert await js(page, "document.documentElement.scrollWidth") == PHONE["width"]
    no_errors(page)


def first_run_move() -> tuple[int, Move]:
    """The first seahaven deal whose opening allows moving a run of two or more between columns."""
    for number in range(1, 500):
        board = Board.deal("seahaven", number)
        for move in board.legal_moves():
            if move.src_area == COLUMN and move.dst_area == COLUMN and move.count >= 2:
                return number, move
    raise AssertionError("no deal with a run to move in its opening")


async def test_on_a_phone_the_board_fills_the_width_and_a_covered_card_tapped_moves_its_run(
    server: ServerProcess, browser: Browser
) -> None:
    number, move = first_run_move()
    board = Board.deal("seahaven", number)
    page = await open_page(browser, http(server, f"/solo/{encode('seahaven', number)}"))
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.board.text()") == to_board_text(board)
    assert await js(page, "document.documentElement.scrollWidth") == PHONE["width"]
    box = await board_box(page)
    assert box["width"] >= 0.9 * PHONE["width"], box
    columns = await page.locator(".col").all()
    assert len(columns) == 10
    last = await columns[-1].bounding_box()
    assert last is not None and last["x"] + last["width"] <= box["x"] + box["width"] + 0.5
    found = await tappable(page)
    assert sum(item["covered"] for item in found) == 40  # ten columns of five: four covered in each
    assert too_small(found, tenth(box["width"])) == []

    # The run's top card is covered: tapped on its strip it picks the run, the destination takes it.
    depth = len(board.columns[move.src]) - move.count
    covered = page.locator(f".col[data-index='{move.src}'] .card[data-depth='{depth}']")
    card = await covered.bounding_box()
    assert card is not None
    await page.touchscreen.tap(card["x"] + card["width"] / 2, card["y"] + MIN_STRIP / 2)
    await page.wait_for_function("() => window.seahaven.selected !== null", timeout=WAIT_MS)
    assert await js(page, "window.seahaven.selected") == {"area": COLUMN, "index": move.src, "n": move.count}
    await page.tap(f".col[data-index='{move.dst}'] .card:last-child")
    await page.wait_for_function("() => window.seahaven.board.stack.length === 1", timeout=WAIT_MS)
    board.push(move)
    assert await js(page, "window.seahaven.board.text()") == to_board_text(board)
    no_errors(page)


async def long_column(browser: Browser, server: ServerProcess, viewport: dict[str, int]) -> tuple[Page, int]:
    """A solo page at ``viewport`` on the deal (of the first 60) whose solution grows a column the
    longest, played up to then; that column's index."""
    best = (0, 1, 0)
    for number in range(1, 60):
        board = Board.deal("seahaven", number)
        for played, step in enumerate(solve(board).moves, start=1):
            board.push(step)
            if max(map(len, board.columns)) > best[0]:
                best = (max(map(len, board.columns)), number, played)
    length, number, played = best
    assert length >= 12, best  # a column long enough to need its fan closed up on a short screen
    page = await open_page(browser, http(server, f"/solo/{encode('seahaven', number)}"), viewport)
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    board = Board.deal("seahaven", number)
    for step in solve(board).moves[:played]:
        await key_move(page, step)
        await page.wait_for_function("() => window.seahaven.pending.length === 0", timeout=WAIT_MS)
    await at_rest(page)  # the cards slid
    shown = parse_board(str(await js(page, "window.seahaven.board.text()")), "seahaven")
    lengths = [len(c) for c in shown.columns]
    assert max(lengths) == length
    return page, lengths.index(length)


@pytest.mark.parametrize("height", [844, 560])
async def test_a_long_columns_fan_closes_up_to_stay_on_a_phones_screen(
    server: ServerProcess, browser: Browser, height: int
) -> None:
    """At 844 px tall the fan has room (strips half a card tall, 28 px); at 560 it closes up to fit
    60% of the screen's height."""
    viewport = {"width": PHONE["width"], "height": height}
    page, index = await long_column(browser, server, viewport)
    cards = await page.locator(f".col[data-index='{index}'] .card").all()
    boxes = [await card.bounding_box() for card in cards]
    assert all(b is not None for b in boxes)
    tops = [b["y"] for b in boxes if b is not None]
    strips = [below - above for above, below in pairwise(tops)]
    assert min(strips) >= MIN_STRIP - 0.5, strips
    last = boxes[-1]
    assert last is not None
    assert last["y"] + last["height"] - tops[0] <= 0.6 * height + 1, (tops, last)
    open_fan = last["height"] / 2
    if height == 844:
        assert min(strips) >= open_fan - 0.5, strips
    else:
        assert max(strips) < open_fan - 1, strips  # closed up
    assert await js(page, "document.documentElement.scrollWidth") == PHONE["width"]
    box = await board_box(page)
    assert too_small(await tappable(page), tenth(box["width"])) == []
    no_errors(page)


async def test_the_desktop_board_keeps_its_sizes(server: ServerProcess, browser: Browser) -> None:
    """At 1280x800 the phone's rules stay out: 66 px cards, 1.4 as tall, a 30% fan (style.css's :root)."""
    page = await open_page(browser, http(server, f"/solo/{encode('seahaven', 1)}"), DESKTOP)
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    top = await page.locator(".col[data-index='0'] .card[data-depth='0']").bounding_box()
    below = await page.locator(".col[data-index='0'] .card[data-depth='1']").bounding_box()
    cell = await page.locator(".slot.cell").first.bounding_box()
    assert top is not None and below is not None and cell is not None
    assert (top["width"], round(top["height"], 1)) == (66, 92.4)
    assert round(below["y"] - top["y"], 1) == round(92.4 * 0.3, 1)
    assert (cell["width"], round(cell["height"], 1)) == (66, 92.4)
    no_errors(page)


@pytest.mark.parametrize(
    ("language", "headings"),
    [
        ("nl", ["Plaats", "Deelnemer", "Status", "Basisstapels", "Zetten", "Tijd"]),
        ("it", ["Posizione", "Concorrente", "Stato", "Fondazioni", "Mosse", "Tempo"]),
    ],
)
async def test_a_race_on_a_phone_puts_the_board_first_then_the_results_and_every_column_fits(
    server: ServerProcess, browser: Browser, language: str, headings: list[str]
) -> None:
    """Issue 38, bug 4: on a phone the board began 56% down the screen (the header, the room's
    facts, the buttons and the racers first); after the race the Dutch results hid Moves and
    Time; the four-colour toggle was not there at all. Now the board comes first in a race, the
    results first after it (and no card slides when they push the board down), every column
    of a table fits, and the toggle is in the bar as its suits. A racer's undos, said under their
    moves ("1 annullamento"), pushed Italian's Time off the screen."""
    py = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Py")
    state = await py.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    page = await open_page(browser, http(server, f"/r/{state.room}"))
    await page.evaluate(f"() => localStorage.setItem('seahaven.lang', '{language}')")
    await page.reload()
    await page.fill("#name", "Webby")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#ready", timeout=WAIT_MS)
    assert isinstance(await py.call(Ready()), Ok)
    await page.click("#ready")
    await page.wait_for_function("() => window.seahaven.room?.phase === 'racing' && document.querySelector('.board')")
    board = await board_box(page)
    assert board["y"] < 0.25 * PHONE["height"], f"the board begins {board['y']:.0f} px down"
    for below in (".race > .controls", ".race > .racers", "#deal"):
        box = await page.locator(below).bounding_box()
        assert box is not None and box["y"] >= board["y"] + board["height"], below
    four = await page.locator(".bar .four").bounding_box()
    assert four is not None and four["width"] >= MIN_TAP and four["height"] >= MIN_TAP
    assert await page.get_attribute(".bar .four input", "type") == "checkbox"

    assert isinstance(await py.call(MoveRequest(move=str(solution()[0]))), Moved)
    assert isinstance(await py.call(Undo()), Moved)  # Py's row says "1 undo" under its moves
    assert isinstance(await py.call(Resign()), Ok)
    for _ in range(2):  # R twice: resign
        await page.keyboard.press("R")
    await page.wait_for_selector("#results-h", timeout=WAIT_MS)
    results = await page.locator(".results").bounding_box()
    board = await board_box(page)
    assert results is not None and results["y"] + results["height"] <= board["y"], "the results come first"
    await next_frame(page)
    assert await js(page, "window.seahaven.slid") == 0, "the board moved down whole: no card slid on it"
    heads = await page.evaluate(
        "() => [...document.querySelectorAll('.results th')]"
        ".map(th => [th.textContent, th.getBoundingClientRect().right])"
    )
    assert [h for h, _ in heads] == headings
    assert await page.locator(".results td.moves .undos").count() == 1
    assert all(right <= PHONE["width"] for _, right in heads), heads
    assert await js(page, "document.documentElement.scrollWidth") == PHONE["width"]
    await py.close()
    no_errors(page)


async def test_an_arenas_standings_keep_their_headings_on_a_phone(server: ServerProcess, browser: Browser) -> None:
    """Issue 38, bug 4: the lobby's rooms turn into cards on a phone, their headings hidden; the
    arena's standings (a table of the same look) lost theirs too, leaving bare numbers."""
    ann = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Ann")
    opened = await ann.call(CreateArena(minutes=5))
    assert isinstance(opened, Arena)
    page = await open_page(browser, http(server, f"/a/{opened.arena}"))
    await page.fill("#name", "Cid")
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#arena-standings tbody tr", timeout=WAIT_MS)
    heads = await page.locator("#arena-standings thead th").all()
    assert len(heads) == 6 and all([await head.is_visible() for head in heads])
    await ann.close()
    no_errors(page)
