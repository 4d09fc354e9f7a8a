"""The browser client and the server's operators, in Debian's Chromium against a real server
process: a notice shows as a toast, and a room a moderator closed takes the page back to the lobby
saying why, its connection closed for good (4004: it does not come back by itself)."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator

import pytest
from playwright.async_api import Page

from tests import httpclient
from tests.browser_pages import WAIT_MS, chromium, js, new_page, no_errors
from tests.redis_proc import free_port
from tests.server_proc import ServerProcess

TOKEN = "browser-admin-token-0123456789"


@pytest.fixture
def server() -> Iterator[tuple[ServerProcess, int]]:
    port = free_port()
    process = ServerProcess("--spectator-delay", "0", "--admin-port", str(port), "--admin-token", TOKEN)
    try:
        yield process, port
    finally:
        process.close()


async def act(port: int, target: str, **query: str) -> None:
    answer = await httpclient.request(
        port, "POST", f"{target}?{urllib.parse.urlencode(query)}", {"Authorization": f"Bearer {TOKEN}"}
    )
    assert answer.status == 200, answer


async def toast_says(page: Page, text: str) -> None:
    await page.wait_for_function(
        f"() => document.getElementById('toast').textContent.includes({text!r})", timeout=WAIT_MS
    )


async def test_a_page_shows_a_notice_and_leaves_a_closed_room(server: tuple[ServerProcess, int]) -> None:
    node, admin = server
    async with chromium() as browser:
        page = await new_page(browser)
        await page.goto(f"http://127.0.0.1:{node.port}/")
        await page.fill("#name", "Ann")
        await page.click("text=Continue")
        await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)

        await act(admin, "/notice", text="Restarting in 5 minutes")
        await toast_says(page, "Restarting in 5 minutes")

        await page.fill("input[name=deal]", "1")
        await page.click("text=Create room")
        await page.wait_for_selector("#room-code", timeout=WAIT_MS)
        code = await page.inner_text("#room-code")
        await act(admin, f"/rooms/{code}/close", reason="cheating")
        await toast_says(page, f"room {code} was closed by a moderator: cheating")
        await page.wait_for_function("() => window.seahaven.room === null", timeout=WAIT_MS)
        await page.wait_for_function("() => window.seahaven.status === 'closed'", timeout=WAIT_MS)
        assert "closed by a moderator" in await page.inner_text(".net")
        assert await js(page, "window.seahaven.room") is None
        no_errors(page)
