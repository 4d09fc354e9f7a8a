"""The browser's "Add as a friend" on a player's page (issue 41, item 1): the records page links to
the lobby with the request in the address (``/?friend=ID``); the lobby asks (``add_friend``) once
it is the browser's player, says how it went, and cleans the address. Not on my own page; a
browser that never played here gives a name first, then asks.

In Debian's Chromium, on a real server with records and registered players (tests/recording.py):
Ann and Bob race (so each has a page); Bob is a WebSocket client told of each request.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from protocol.messages import AddFriend, CreateRoom, Friends, Identity, Leave, Register, Resign, Result
from server.app import RaceServer
from tests.browser_pages import DESKTOP, PHONE, WAIT_MS, axe_problems, chromium, text, told, watched
from tests.helpers import url_of, wait_until
from tests.recording import archived, recording_server
from tests.wsclient import WsClient, race_of_two


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path, players=True) as started:
        yield started


async def registered(server: RaceServer, name: str) -> tuple[WsClient, str]:
    """A registered player's connection, and their key (what their browser keeps)."""
    first = await WsClient.open(url_of(server), name)
    identity = await first.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    await first.close()
    return await WsClient.open(url_of(server), name, key=identity.key), identity.key


async def raced(server: RaceServer, ann: WsClient, bob: WsClient) -> None:
    """Ann and Bob race and both resign: the race on record, a page for each of them."""
    await race_of_two(ann, bob, CreateRoom())
    for racer in (ann, bob):
        await racer.call(Resign())
    result = await ann.expect(Result)
    await bob.expect(Result)
    for racer in (ann, bob):
        await racer.call(Leave())
    race_id = result.race_id
    assert race_id is not None
    await wait_until(lambda: archived(server, race_id), what=f"race {race_id} on record")


async def records_page(
    browser: Browser, server: RaceServer, path: str, viewport: dict[str, int], key: str | None = None, name: str = ""
) -> Page:
    """A records page in a browser of its own (keeping ``key`` and ``name`` when given), once shown."""
    context = await browser.new_context(viewport=viewport, has_touch=viewport == PHONE, bypass_csp=True)  # type: ignore[arg-type]
    if key is not None:
        await context.add_init_script(
            f"localStorage.getItem('seahaven.key') || (localStorage.setItem('seahaven.key', {json.dumps(key)}),"
            f" localStorage.setItem('seahaven.name', {json.dumps(name)}))"
        )
    page = watched(await context.new_page())
    await page.goto(f"http://127.0.0.1:{server.port}{path}")
    await page.wait_for_function("() => window.seahavenRecords?.ready === true", timeout=WAIT_MS)
    return page


async def asked_by(bob: WsClient, name: str) -> Friends:
    """Bob's next `friends` event that lists ``name`` among those who asked him."""
    return await bob.expect(Friends, where=lambda f: any(p.name == name for p in f.incoming))


async def test_a_player_page_asks_to_be_friends_from_the_lobby(browser: Browser, server: RaceServer) -> None:
    ann, ann_key = await registered(server, "Ann")
    bob, _ = await registered(server, "Bob")
    await raced(server, ann, bob)
    await ann.close()

    # Ann's own page offers nothing of the kind.
    page = await records_page(browser, server, f"/players/{ann.player}", DESKTOP, ann_key, "Ann")
    assert await page.locator("#player-name").count() == 1
    assert await page.locator("#add-friend").count() == 0

    # Bob's page does: a link to the lobby, the request in its address.
    await page.goto(f"http://127.0.0.1:{server.port}/players/{bob.player}")
    await page.wait_for_function("() => window.seahavenRecords?.ready === true", timeout=WAIT_MS)
    link = page.get_by_role("link", name="Add as a friend")
    assert await link.get_attribute("href") == f"/?friend={bob.player}"
    assert await axe_problems(page) == []

    # Ann follows it: in the lobby, told the request went; the address cleaned; Bob asked.
    await link.click()
    await told(page, "Asked Bob to be friends.")
    assert await page.evaluate("() => location.pathname + location.search") == "/"
    friends = await asked_by(bob, "Ann")
    assert [p.player for p in friends.incoming] == [ann.player]
    assert "Bob" in await text(page, "#friends ul[aria-labelledby=outgoing-h]")

    # Bob says yes; from his page again, Ann is told they are friends already (nothing asked).
    assert isinstance(await bob.call(AddFriend(player=ann.player)), Friends)
    await page.goto(f"http://127.0.0.1:{server.port}/players/{bob.player}")
    await page.wait_for_function("() => window.seahavenRecords?.ready === true", timeout=WAIT_MS)
    await page.click("#add-friend")
    await told(page, "You and Bob are friends already.")
    await bob.close()


async def test_a_browser_new_here_gives_a_name_then_asks(browser: Browser, server: RaceServer) -> None:
    ann, _ = await registered(server, "Ann")
    bob, _ = await registered(server, "Bob")
    await raced(server, ann, bob)
    await ann.close()

    # A phone that never played here: the link is there (nothing says whose page is mine).
    page = await records_page(browser, server, f"/players/{bob.player}", PHONE)
    assert await page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    await page.click("#add-friend")
    # The lobby asks a name first; once the page is a registered player's, it asks Bob.
    await page.fill("#name", "Cid")
    await page.click("text=Continue")
    await told(page, "Asked Bob to be friends.")
    assert await page.evaluate("() => window.seahaven.me.identified") is True
    assert await page.evaluate("() => location.search") == ""
    await asked_by(bob, "Cid")
    await bob.close()
