"""Card faces that look like playing cards (issue 38, "Looks"): on a board every whole card shows
its index top left (text, rank above suit, as in the button's name) and again turned bottom right,
a 2-10 its pips in the standard layout, an ace one large pip, a king, queen or jack a framed court
design, all SVG hidden from the accessibility tree and drawn in the suit's colour (the four-colour
deck's too); a covered card's strip shows its index alone. On a 390x844 phone (cards ~38 px wide) a
face is its index beside its suit and one big suit, chosen by the card's rendered width. Debian's
Chromium against a real server process, solo deal 7 in French (court cards R, D, V)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser

from seahaven import Board
from seahaven.codes import encode
from tests.browser_pages import AUTO_OFF, WAIT_MS, http, js, key_move, server
from tests.racing import solution
from tests.server_proc import ServerProcess

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("close_pages")]

__all__ = ["server"]  # the module's server process, a fixture

DEAL = 7  # its columns end in KH 4C 3S 2H 4D 3C 6D 7D JS AC; its cells hold 6S and 5S
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
COURT = {11: "V", 12: "D", 13: "R"}
RED = "rgb(200, 30, 30)"
BLUE = "rgb(29, 78, 216)"  # the four-colour deck's diamonds
GREEN = "rgb(10, 125, 44)"  # and its clubs
BLACK = "rgb(17, 17, 17)"

# Each card on the board: where it is, whether covered, and what of its face shows.
FACES = """() => {
  const shown = (el) => el !== null && el !== undefined && el.getBoundingClientRect().width > 0
    && getComputedStyle(el).visibility !== "hidden" && getComputedStyle(el).display !== "none";
  const glyph = (use) => document.querySelector(use.getAttribute("href")).textContent;  // a sprite's symbol
  return [...document.querySelectorAll(".board .card")].map((card) => {
    const svg = card.querySelector("svg.face");
    const pips = svg ? [...svg.querySelectorAll(".pips .pip")].filter(shown) : [];
    const rank = card.querySelector(".rank").getBoundingClientRect();
    const suit = card.querySelector(".suit").getBoundingClientRect();
    const drawn = svg && (pips[0] ?? svg.querySelector(".ace .pip, .court-rank, .big .pip"));
    return {
      area: Number(card.dataset.area), index: Number(card.dataset.index), covered: card.nextElementSibling !== null,
      label: card.getAttribute("aria-label"), text: card.querySelector(".index").textContent,
      width: card.getBoundingClientRect().width, svg: svg !== null, hidden: svg?.getAttribute("aria-hidden") ?? null,
      face: shown(svg), index2: shown(svg?.querySelector(".idx2 .r")), pips: pips.length,
      ace: shown(svg?.querySelector(".ace .pip")), frame: shown(svg?.querySelector(".court .frame")),
      court: shown(svg?.querySelector(".court-rank")) ? glyph(svg.querySelector(".court-rank")) : null,
      big: shown(svg?.querySelector(".big .pip")),
      fill: drawn ? getComputedStyle(drawn).fill : null,
      stacked: suit.top >= rank.bottom - 1, beside: suit.left >= rank.right - 1,
    };
  });
}"""


async def faces(
    browser: Browser, server: ServerProcess, viewport: dict[str, int], *, four: bool = False
) -> list[dict[str, Any]]:
    """The faces on solo deal 7's page at ``viewport``, the four-colour deck on if ``four``."""
    phone = viewport["width"] < 640
    context = await browser.new_context(viewport=viewport, locale="fr-FR", is_mobile=phone, has_touch=phone)  # type: ignore[arg-type]
    await context.add_init_script(AUTO_OFF)
    if four:
        await context.add_init_script("localStorage.setItem('seahaven.fourColour', '1')")
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)  # CSP too
    await page.goto(http(server, f"/solo/{encode('seahaven', DEAL)}"))
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    assert await js(page, "document.body.classList.contains('four-colour')") is four
    found: list[dict[str, Any]] = await page.evaluate(FACES)
    assert errors == []
    assert len(found) == 52
    assert all(f["svg"] and f["hidden"] == "true" for f in found)  # drawn, out of the accessibility tree
    return found


def last_of(found: list[dict[str, Any]], column: int) -> dict[str, Any]:
    (face,) = [f for f in found if f["area"] == 0 and f["index"] == column and not f["covered"]]
    return face


async def test_a_desktop_boards_cards_have_two_indices_pips_and_court_frames(
    server: ServerProcess, browser: Browser
) -> None:
    board = Board.deal("seahaven", DEAL)
    found = await faces(browser, server, DESKTOP)
    assert all(f["stacked"] for f in found)  # the index: rank above suit
    assert all(
        f["text"] in f["label"] for f in found if f["text"][0] in "RDVA"
    )  # a court's or ace's index is in its name
    kinds = set()
    for column, cards in enumerate(board.columns):
        card, face = cards[-1], last_of(found, column)
        assert face["face"] and face["index2"] and not face["big"], face
        if card.rank == 1:
            assert face["ace"] and face["pips"] == 0 and not face["frame"], face
        elif card.rank in COURT:
            assert face["frame"] and face["court"] == COURT[card.rank] and face["pips"] == 0, face
        else:
            assert face["pips"] == card.rank and not face["ace"] and not face["frame"], face
        kinds.add("ace" if card.rank == 1 else "court" if card.rank in COURT else "pips")
    assert kinds == {"ace", "court", "pips"}
    cells = [f for f in found if f["area"] == 1]
    assert [f["pips"] for f in cells] == [6, 5] and all(f["index2"] for f in cells)  # 6S and 5S, whole
    # A covered card's strip: its index alone, no face drawn behind it.
    assert all(not f["face"] for f in found if f["covered"])
    # The two-colour deck: the 7 of diamonds and the king of hearts red, the ace of clubs black.
    assert (last_of(found, 7)["fill"], last_of(found, 0)["fill"], last_of(found, 9)["fill"]) == (RED, RED, BLACK)


async def test_the_four_colour_deck_colours_the_faces(server: ServerProcess, browser: Browser) -> None:
    found = await faces(browser, server, DESKTOP, four=True)
    assert last_of(found, 7)["fill"] == BLUE  # 7 of diamonds: its seven pips
    assert last_of(found, 9)["fill"] == GREEN  # ace of clubs
    assert last_of(found, 0)["fill"] == RED  # king of hearts
    assert last_of(found, 8)["fill"] == BLACK  # jack of spades


async def test_on_a_phone_a_face_is_its_index_and_one_big_suit(server: ServerProcess, browser: Browser) -> None:
    found = await faces(browser, server, PHONE, four=True)
    column_cards = [f for f in found if f["area"] == 0]
    assert all(f["width"] < 44 for f in column_cards)  # the size the design degrades at
    for face in (f for f in found if not f["covered"]):
        assert face["big"] and face["pips"] == 0 and not face["ace"] and not face["frame"], face
        assert not face["index2"], face  # too small to read turned: not drawn
    assert all(f["beside"] for f in found)  # the index: rank beside suit, to read in a 22 px strip
    assert last_of(found, 7)["fill"] == BLUE


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
async def test_a_won_board_celebrates_unless_the_reader_asked_for_less_motion(
    server: ServerProcess, browser: Browser, motion: str
) -> None:
    """Issue 38, "a win that feels like one": the kings leap in turn once the deal is won; with
    reduced motion nothing moves, and the kings are ringed in gold all the same."""
    context = await browser.new_context(viewport=DESKTOP, reduced_motion=motion)  # type: ignore[arg-type]
    await context.add_init_script(AUTO_OFF)
    page = await context.new_page()
    await page.goto(http(server, f"/solo/{encode('seahaven', 1)}"))
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    assert await page.locator(".board.won").count() == 0
    for move in solution():
        await key_move(page, move)
    await page.wait_for_selector(".board.won", timeout=WAIT_MS)
    leaps = await js(
        page, "document.getAnimations().filter(a => a.animationName === 'leap' && a.playState === 'running').length"
    )
    assert leaps == (4 if motion == "no-preference" else 0), leaps
    rings = await page.eval_on_selector_all(
        ".board.won .found .card", "(cs) => cs.map(c => getComputedStyle(c).outlineStyle)"
    )
    assert rings == ["solid"] * 4
