"""What the browser tests share: Debian's Chromium under Playwright, a page that records its
script errors, the lobby entered by name, rows read off a page, and playing a move with the keys
(the terminal client's); a new device's lobby under a name, and its toast and texts read."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, async_playwright

from seahaven import COLUMN, Move
from seahaven.moves import CELL, CELL_TOKENS, COLUMN_TOKENS, FOUNDATION
from server.app import RaceServer
from tests.server_proc import ServerProcess

CHROMIUM = "/usr/bin/chromium"
AXE = Path(__file__).resolve().parents[1] / "web" / "node_modules" / "axe-core" / "axe.min.js"
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
AXE_RUN = """async (tags) => {
  const found = await axe.run(document, { runOnly: { type: "tag", values: tags } });
  return found.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}) on ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}"""
"""axe-core's serious or critical WCAG 2.x A/AA violations on a page (its context must bypass the CSP)."""
WAIT_MS = 15_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
AUTO_OFF = "localStorage.getItem('seahaven.autoMove') || localStorage.setItem('seahaven.autoMove', 'off')"
"""A page's first script: auto-move off (unless the page set it), for pages that play given moves."""


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """A headless Chromium, closed after use."""
    assert os.access(CHROMIUM, os.X_OK), f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)"
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            yield browser
        finally:
            await browser.close()


async def new_page(browser: Browser, *, auto: bool = False) -> Page:
    """A page in a context of its own (its own storage: another device), desktop sized; auto-move
    off unless ``auto`` (AUTO_OFF)."""
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    if not auto:
        await context.add_init_script(AUTO_OFF)
    return watched(await context.new_page())


async def another_tab(page: Page) -> Page:
    """A new tab beside ``page``: the same device (its localStorage), a session of its own."""
    return watched(await page.context.new_page())


def watched(page: Page) -> Page:
    """``page``, its script errors kept for no_errors()."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    setattr(page, "errors", errors)  # noqa: B010  # read by no_errors()
    return page


def no_errors(page: Page) -> None:
    errors: list[str] = getattr(page, "errors")  # noqa: B009
    assert errors == []


async def next_frame(page: Page) -> None:
    """Wait until the page has drawn an animation frame: cards slide from the frame after a render
    (web/src/motion.js)."""
    await page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


async def at_rest(page: Page) -> None:
    """Wait until no finite animation runs (cards sliding home, the win's moment arriving): a
    page measured mid-slide counts the moving card where it passes, not where it lands."""
    await next_frame(page)
    await page.wait_for_function(
        "() => document.getAnimations().every(a => a.playState !== 'running'"
        " || a.effect.getComputedTiming().iterations === Infinity)",
        timeout=15_000,
    )


async def axe_problems(page: Page) -> list[str]:
    """axe-core on ``page`` as it is now: its serious and critical violations, in words."""
    if not await page.evaluate("() => typeof axe !== 'undefined'"):
        await page.add_script_tag(path=str(AXE))
    problems: list[str] = await page.evaluate(AXE_RUN, WCAG)
    return problems


async def js(page: Page, expression: str) -> Any:
    return await page.evaluate(f"() => {expression}")


async def lobby(page: Page, url: str, name: str) -> None:
    """Open ``url``, say the name, and wait for the server's welcome."""
    await page.goto(url)
    await page.fill("#name", name)
    await page.click("text=Continue")
    await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)


async def rows(page: Page, selector: str) -> list[str]:
    """Each row's cells (or a list item's parts), read in one go: a render replaces the rows."""
    read = "sel => [...document.querySelectorAll(sel)].map(r => [...r.children].map(c => c.textContent).join(' '))"
    return [re.sub(r"\s+", " ", row).strip() for row in await page.evaluate(read, selector)]


async def key_move(page: Page, move: Move) -> None:
    """Play ``move`` with the keys of the terminal client: source, run length, destination."""
    if move.src_area == COLUMN:
        await page.keyboard.press(COLUMN_TOKENS[move.src])
    else:
        assert move.src_area == CELL
        await page.keyboard.press(CELL_TOKENS[move.src])
    for _ in range(move.count - 1):
        await page.keyboard.press("ArrowUp")
    if move.dst_area == FOUNDATION:
        await page.keyboard.press(".")
    else:
        await page.keyboard.press((COLUMN_TOKENS if move.dst_area == COLUMN else CELL_TOKENS)[move.dst])


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """One server process for a module's pages, spectators live (``--spectator-delay 0``)."""
    process = ServerProcess("--spectator-delay", "0")
    try:
        yield process
    finally:
        process.close()


def http(server: ServerProcess, path: str = "/") -> str:
    return f"http://127.0.0.1:{server.port}{path}"


def ws(server: ServerProcess) -> str:
    return f"ws://127.0.0.1:{server.port}/"


async def player_page(browser: Browser, server: RaceServer, name: str, viewport: dict[str, int]) -> Page:
    """A new device's lobby under ``name``: the page registers its player by itself (a key kept
    in its storage); back once that player's session is welcomed and their friends are read."""
    # bypass_csp: axe-core's script is put in the page (tests/browser_pages.py axe_problems).
    context = await browser.new_context(viewport=viewport, has_touch=viewport == PHONE, bypass_csp=True)  # type: ignore[arg-type]
    page = watched(await context.new_page())
    await page.goto(f"http://127.0.0.1:{server.port}")
    await page.fill("#name", name)
    await page.click("text=Continue")
    await page.wait_for_function("() => window.seahaven.me?.identified === true", timeout=WAIT_MS)
    await page.wait_for_selector("#friends", timeout=WAIT_MS)
    return page


async def text(page: Page, selector: str) -> str:
    return re.sub(r"\s+", " ", await page.inner_text(selector)).strip()


async def told(page: Page, words: str) -> None:
    """Wait until the page's toast says ``words``."""
    await page.wait_for_function(
        "w => document.getElementById('toast').textContent.includes(w)", arg=words, timeout=WAIT_MS
    )
