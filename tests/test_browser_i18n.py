"""The browser client in the players' languages (issue 26), in Debian's Chromium under Playwright
against a real server process: a browser whose language is Dutch (``locale="nl-NL"``, so
``navigator.languages`` is ``["nl-NL"]``) gets the lobby and a race in Dutch; the switcher changes
the language at once and is remembered across reloads; a refusal's code is said in the language."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.async_api import Browser, Dialog, Page

from i18n import webcatalog
from seahaven import Board
from seahaven.solver import solve
from tests.browser_pages import AUTO_OFF, WAIT_MS, key_move, no_errors
from tests.server_proc import ServerProcess

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("close_pages")]
SOLUTION = solve(Board.deal("seahaven", 1)).moves


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    process = ServerProcess("--spectator-delay", "0", "--countdown", "0.2")
    try:
        yield process
    finally:
        process.close()


async def page_in(browser: Browser, locale: str) -> Page:
    """A page in a context of its own whose browser speaks ``locale``; auto-move off."""
    context = await browser.new_context(viewport={"width": 1200, "height": 900}, locale=locale)
    await context.add_init_script(AUTO_OFF)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    setattr(page, "errors", errors)  # noqa: B010  # read by no_errors()
    page.on("dialog", accept)
    return page


async def accept(dialog: Dialog) -> None:
    """The page's confirm() (resigning): yes."""
    await dialog.accept()


async def named(page: Page, url: str, name: str, button: str) -> None:
    await page.goto(url)
    await page.fill("#name", name)
    await page.click(f"text={button}")
    await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)


async def text(page: Page, selector: str) -> str:
    return re.sub(r"\s+", " ", await page.inner_text(selector)).strip()


async def test_a_dutch_browser_gets_the_lobby_and_a_race_in_dutch(server: ServerProcess, browser: Browser) -> None:
    ann = await page_in(browser, "nl-NL")
    await ann.goto(server.http + "/")
    assert await ann.evaluate("() => navigator.languages") == ["nl-NL"]
    assert await ann.evaluate("() => document.documentElement.lang") == "nl"
    assert await text(ann, "form.name-form h2") == "Race tegen een vriend in Seahaven Towers"
    assert await ann.input_value("#lang") == "nl"
    await named(ann, server.http + "/", "Ann", "Verder")

    # The lobby: every panel's heading, the create form's fields and the buttons, in Dutch.
    await ann.wait_for_selector("text=Openbare kamers", timeout=WAIT_MS)
    headings = [h.strip() for h in await ann.locator("main h2").all_inner_texts()]
    for heading in ("Nieuwe kamer", "Meedoen met een code", "Snelle partij", "Race van de dag", "Openbare kamers"):
        assert heading in headings
    assert "Kamer maken" in await ann.inner_text("form.create")
    assert "Moeilijkheid van het spel (winbare spellen)" in await ann.inner_text("form.create")
    assert (
        await ann.locator("select[name=preset] option[value=seahaven-3cells]").inner_text()
        == "Seahaven Towers, 3 cellen"
    )
    assert await ann.get_attribute("#code", "aria-label") == "kamercode"
    await ann.wait_for_selector(
        "text=vandaag voor iedereen hetzelfde", timeout=WAIT_MS
    )  # the daily board comes after the lobby
    daily = await text(ann, "section[aria-labelledby=daily-h]")
    assert "vandaag voor iedereen hetzelfde" in daily
    assert re.search(
        r"\d{1,2} (januari|februari|maart|april|mei|juni|juli|augustus|september|oktober|november|december)"
        r" \d{4} \(UTC\)",
        daily,
    )

    # A room, and Bob (another Dutch browser) by its link.
    await ann.fill("input[name=deal]", "1")
    await ann.click("text=Kamer maken")
    await ann.wait_for_selector("#room-code", timeout=WAIT_MS)
    code = await ann.inner_text("#room-code")
    assert await text(ann, ".room-head h2") == f"Kamer {code}"
    assert "2 plaatsen" in await text(ann, ".facts")
    assert "De race begint zodra er een andere deelnemer bij komt" in await text(ann, "#alone")
    bob = await page_in(browser, "nl-NL")
    await named(bob, f"{server.http}/r/{code}", "Bob", "Verder")
    await bob.wait_for_selector("#ready", timeout=WAIT_MS)
    assert await text(bob, "#ready") == "Klaar"
    await ann.click("#ready")
    await bob.click("#ready")
    await ann.wait_for_function(
        "() => window.seahaven.room?.phase === 'racing' && document.querySelector('.board')", timeout=WAIT_MS
    )

    # The race: the counter's plural forms, the board's names for screen readers, the buttons.
    assert await text(ann, ".controls .mine") == "0/52 op de basisstapels · 0 zetten"
    # The room's long Dutch facts wrap in their place: the clock and Leave stay on the title's line.
    title, leave = await ann.locator(".room-head h2").bounding_box(), await ann.locator("#leave").bounding_box()
    assert title is not None and leave is not None and leave["y"] < title["y"] + title["height"], (title, leave)
    # A refused move says why in Dutch words and card symbols, not notation and a generic line.
    await ann.keyboard.press("1")
    await ann.keyboard.press("2")
    said = "6♦ kan niet op 8♠: kolommen worden aflopend per kleur opgebouwd"
    await ann.wait_for_function("said => document.getElementById('toast').textContent === said", arg=said)
    await ann.keyboard.press("Escape")
    await key_move(ann, SOLUTION[0])
    await ann.wait_for_function("() => window.seahaven.pending.length === 0", timeout=WAIT_MS)
    assert await text(ann, ".controls .mine") == "0/52 op de basisstapels · 1 zet"
    await key_move(ann, SOLUTION[1])
    await ann.wait_for_function("() => window.seahaven.pending.length === 0", timeout=WAIT_MS)
    assert await text(ann, ".controls .mine") == "0/52 op de basisstapels · 2 zetten"
    assert await ann.get_attribute(".board", "aria-label") == "jouw spel"
    assert await ann.locator(".slot.found[aria-label='basisstapel schoppen, leeg']").count() == 1
    assert re.fullmatch(
        r"([ABVH]\S )?(klaveren|ruiten|harten|schoppen) \w+, cel a",
        await ann.get_attribute(".slot.cell[data-index='0'] .card", "aria-label") or "",
    )
    assert await ann.locator(".col[aria-label^='kolom 1, '][aria-label$=' kaarten']").count() == 1
    assert re.fullmatch(
        r"([ABVH]\S )?\w+ (aas|\d+|boer|vrouw|heer), kolom 1",
        await ann.get_attribute(".col[data-index='0'] .card:last-child", "aria-label") or "",
    )
    # Each card's corner as Dutch decks print it (aas A, boer B, vrouw V, heer H; issue 38, bug 10).
    read = (
        "() => [...document.querySelectorAll('.board .card')]"
        ".map(c => [c.querySelector('.rank').textContent, c.getAttribute('aria-label')])"
    )
    cards = await ann.evaluate(read)
    corners = {label.split(",")[0].split(" ")[-1]: rank for rank, label in cards}
    # An ace's or a court card's name begins with what its corner shows (WCAG 2.5.3, label in name).
    assert all(label.startswith(rank) for rank, label in cards if rank.isalpha()), cards
    assert {word: corners[word] for word in ("aas", "boer", "vrouw", "heer")} == {
        "aas": "A",
        "boer": "B",
        "vrouw": "V",
        "heer": "H",
    }
    assert all(corners[str(n)] == str(n) for n in range(2, 11) if str(n) in corners)
    assert await text(ann, "#undo") == "Ongedaan maken"
    assert await text(ann, "details.help:not(.rules-help) summary") == "Toetsen"
    # The rules help comes from the rules domain when the build had it (i18n/webcatalog.py), in Dutch.
    has_rules = (webcatalog.po_path("nl", "rules")).exists()
    assert await ann.locator("#rules-help").count() == int(has_rules)
    if has_rules:
        assert await text(ann, "#rules-help summary") == "Zo speel je Seahaven Towers"
    await bob.wait_for_selector("[aria-label='Ann: 0 van de 52 kaarten op de basisstapels']", timeout=WAIT_MS)

    # Both resign: the results, in Dutch.
    await ann.click(".controls button:text-is('Opgeven')")
    await bob.click(".controls button:text-is('Opgeven')")
    await ann.wait_for_selector("#results-h", timeout=WAIT_MS)
    assert await text(ann, "#results-h") == "Uitslagen"
    assert re.fullmatch(r"Niemand is klaar gekomen · je bent [12]e van 2", await text(ann, "#moment"))
    heads = [h.strip() for h in await ann.locator(".results thead th").all_inner_texts()]
    assert heads == ["Plaats", "Deelnemer", "Status", "Basisstapels", "Zetten", "Tijd"]
    assert "opgegeven" in await text(ann, ".results tbody")
    assert await text(ann, "#rematch") == "Revanche"
    no_errors(ann)
    no_errors(bob)


async def test_a_bot_is_named_once_in_the_pages_language(server: ServerProcess, browser: Browser) -> None:
    """Issue 38, bug 10: the server names a bot "Computer (PACE)" in English; a French page said it
    so, and with a mark after it on the replay's tab ("Computer (sprint) (robot)"). It is said in
    French, once: in the racers, the results, the board's tab and the replay, with no second mark."""
    page = await page_in(browser, "fr-FR")
    await named(page, server.http + "/", "Zoé", "Continuer")
    await page.select_option("select[name=bot]", "brisk")
    await page.click("form.create button[type=submit]")
    await page.wait_for_function("() => window.seahaven.room?.racers.length === 2", timeout=WAIT_MS)
    assert (await text(page, "ol.racers li:nth-child(2) .who")) == "Ordinateur (vif)"
    await page.click("#ready")
    await page.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    await page.keyboard.press("R")
    await page.keyboard.press("R")  # resigned: the race ends at once against a bot
    await page.wait_for_selector("#results-h", timeout=WAIT_MS)
    bot_row = [r for r in await page.locator(".results tbody tr").all_inner_texts() if "Ordinateur" in r]
    assert len(bot_row) == 1 and "Ordinateur (vif)" in bot_row[0] and "robot" not in bot_row[0], bot_row
    final = await page.locator("#final-boards [role=tab]").all_inner_texts()
    tabs = [re.sub(r"\s+", " ", tab).strip() for tab in final]
    assert tabs == ["votre jeu", "Ordinateur (vif)"], tabs
    race_id = await page.evaluate("() => window.seahaven.result.race_id")
    await page.select_option("#lang", "it")  # said again in the language chosen now
    assert (await text(page, "ol.racers li:nth-child(2) .who")) == "Computer (svelto)"
    assert "Computer (svelto)" in await text(page, ".results tbody")
    await page.select_option("#lang", "fr")

    await page.goto(f"{server.http}/races/{race_id}")
    await page.wait_for_selector("[role=tablist] [role=tab]", timeout=WAIT_MS)
    replay = await page.locator("[role=tablist] [role=tab]").all_inner_texts()
    tabs = [re.sub(r"\s+", " ", tab).strip() for tab in replay]
    assert "Ordinateur (vif)" in tabs and not any("robot" in tab or "Computer" in tab for tab in tabs), tabs
    standings = await text(page, ".standings")
    assert "Ordinateur (vif)" in standings and "robot" not in standings, standings
    no_errors(page)


async def test_a_nameless_player_alone_is_named_in_the_pages_language(server: ServerProcess, browser: Browser) -> None:
    """Found on a walk of issue 38's solo page: a visitor who never gave a name was "you" in every
    language, in the racers and the results."""
    page = await page_in(browser, "fr-FR")
    await page.goto(server.http + "/solo/SH1-ST-0001G")
    await page.wait_for_selector("#solo-h", timeout=WAIT_MS)
    assert await text(page, "ol.racers li .who") == "vous"
    no_errors(page)


async def test_the_switcher_changes_the_language_and_is_remembered(server: ServerProcess, browser: Browser) -> None:
    page = await page_in(browser, "en-GB")
    await named(page, server.http + "/", "Cleo", "Continue")
    await page.wait_for_selector("text=Public rooms", timeout=WAIT_MS)
    await page.select_option("#lang", "fr")
    # At once, without a reload: the whole page is rebuilt in French.
    await page.wait_for_selector("text=Salles publiques", timeout=WAIT_MS)
    assert await page.evaluate("() => document.documentElement.lang") == "fr"
    assert "Nouvelle salle" in await text(page, "form.create h2")
    assert await text(page, "header button#account") == "Compte"
    await page.reload()
    await page.wait_for_selector("text=Salles publiques", timeout=WAIT_MS)
    assert await page.input_value("#lang") == "fr"
    assert await page.evaluate("() => localStorage.getItem('seahaven.lang')") == "fr"
    # And back to English, remembered too.
    await page.select_option("#lang", "en")
    await page.wait_for_selector("text=Public rooms", timeout=WAIT_MS)
    await page.reload()
    await page.wait_for_selector("text=Public rooms", timeout=WAIT_MS)
    assert await page.input_value("#lang") == "en"
    no_errors(page)


async def test_a_chosen_language_wins_over_the_browsers(server: ServerProcess, browser: Browser) -> None:
    page = await page_in(browser, "nl-NL")
    await page.goto(server.http + "/")
    await page.select_option("#lang", "it")
    await page.wait_for_selector("text=Sfida un amico a Seahaven Towers", timeout=WAIT_MS)
    await page.reload()
    assert await text(page, "form.name-form h2") == "Sfida un amico a Seahaven Towers"
    assert await page.evaluate("() => document.title") == "Gara Seahaven"


async def test_a_refusal_is_said_by_its_code_in_the_language(server: ServerProcess, browser: Browser) -> None:
    page = await page_in(browser, "fr-FR")
    await named(page, server.http + "/", "Dora", "Continuer")
    await page.wait_for_selector("text=Salles publiques", timeout=WAIT_MS)
    await page.fill("#code", "ZZZZZZ")
    await page.click("form.row button[value=race]")
    await page.wait_for_function("() => document.getElementById('toast').textContent !== ''", timeout=WAIT_MS)
    # room-not-found: the server's English message stays for other clients; the page says the code's words.
    assert await text(page, "#toast") == "Aucune salle ne porte ce code."
    no_errors(page)


async def test_the_records_pages_speak_the_browsers_language_too(server: ServerProcess, browser: Browser) -> None:
    page = await page_in(browser, "nl-NL")
    await page.goto(server.http + "/boards")
    await page.wait_for_function("() => window.seahavenRecords?.ready", timeout=WAIT_MS)
    assert await page.evaluate("() => document.documentElement.lang") == "nl"
    assert await text(page, ".boards-page h2") == "Ranglijsten"
    assert [t.strip() for t in await page.locator("[role=tab]").all_inner_texts()] == [
        "Spel van de dag",
        "Deze week",
        "Aller tijden",
    ]
    assert await text(page, "#board-title") == "Seahaven Towers · aller tijden"
    assert await text(page, "nav.records-nav") == "Ranglijsten Race"
    no_errors(page)
