"""The browser's "Race again" and recent rivals (issue 41, items 3 and 4): on a finished race's
results a registered racer who raced people asks them all to a new room with a new deal
(``race_again``), each of them invited wherever they are ("Ann asks you to race again (new
deal)"), accepted from their own results; a race against the computer offers nothing of the kind.
The lobby lists the people one raced last with the head-to-head the read API gives
(``GET /api/v1/players/{player}/rivals``), each with "Add friend", and so does the friends panel.

In Debian's Chromium, on a real server with records and registered players (tests/recording.py):
Ann races on a desktop, Bob on a phone, Cid on a desktop; what each is told is read off their page.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page

from protocol.messages import CreateRoom, Identity, Leave, MoveRequest, Register, Resign, Result
from seahaven import Board
from seahaven.solver import solve
from server.app import RaceServer
from tests.browser_pages import (
    DESKTOP,
    PHONE,
    WAIT_MS,
    axe_problems,
    chromium,
    no_errors,
    player_page,
    text,
    told,
    watched,
)
from tests.helpers import url_of, wait_until
from tests.httpclient import get
from tests.recording import archived, recording_server
from tests.wsclient import WsClient, race_of_two

SOLUTION = solve(Board.deal("seahaven", 1)).moves


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path, players=True) as started:
        yield started


async def raced_to_the_end(host: Page, *others: Page, seats: int | None = None) -> str:
    """``host`` makes a room (of ``seats``), ``others`` join it by its code from their lobby, all
    are ready, then all resign: the results on every page. The room's code."""
    if seats is not None:
        await host.fill("input[name=seats]", str(seats))
    await host.click(".create button[type=submit]")
    await host.wait_for_selector("#room-code", timeout=WAIT_MS)
    code = await host.inner_text("#room-code")
    for page in others:
        await page.fill("#code", code)
        await page.click("#code ~ button[value=race]")
        await page.wait_for_function("c => window.seahaven.room?.room === c", arg=code, timeout=WAIT_MS)
    for page in (host, *others):
        await page.click("#ready")
    for page in (host, *others):
        await page.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
        await page.evaluate("() => window.seahaven.conn.call('resign')")
    for page in (host, *others):
        await page.wait_for_selector("#results-h", timeout=WAIT_MS)
    return code


async def in_room(page: Page, code: str) -> None:
    await page.wait_for_function(
        "c => document.getElementById('room-code')?.textContent === c", arg=code, timeout=WAIT_MS
    )


async def seated(page: Page, name: str) -> None:
    """Wait until ``page``'s room lists ``name`` among its racers."""
    await page.wait_for_function(
        "n => [...document.querySelectorAll('.racers .who')].some((w) => w.textContent.startsWith(n))",
        arg=name,
        timeout=WAIT_MS,
    )


async def answered(page: Page, name: str, words: str) -> None:
    """Wait until the waiting room's list of invitations sent says ``words`` of ``name``."""
    await page.wait_for_function(
        """([name, words]) => [...document.querySelectorAll('#invited li')].some((li) =>
             li.textContent.includes(name) && li.textContent.includes(words))""",
        arg=[name, words],
        timeout=WAIT_MS,
    )


async def test_race_again_invites_everyone_raced_to_a_new_room_and_says_each_answer(
    browser: Browser, server: RaceServer
) -> None:
    ann = await player_page(browser, server, "Ann", DESKTOP)
    bob = await player_page(browser, server, "Bob", PHONE)
    cid = await player_page(browser, server, "Cid", DESKTOP)
    old = await raced_to_the_end(ann, bob, cid, seats=3)

    # Strangers (not friends), they raced together: each is offered "Race again" beside Rematch,
    # saying whom it invites.
    for page, others in ((ann, "Bob and Cid"), (bob, "Ann and Cid"), (cid, "Ann and Bob")):
        await page.wait_for_selector("#race-again-all", timeout=WAIT_MS)
        assert await page.locator("#rematch").is_visible()
        assert f"{others} invited" in await text(page, "#race-again-note")
    assert await axe_problems(ann) == []
    assert await bob.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]

    # Ann asks: she is in a new waiting room at once, and told whom she invited.
    await ann.click("#race-again-all")
    await ann.wait_for_function(
        "c => window.seahaven.room?.phase === 'waiting' && window.seahaven.room.room !== c", arg=old, timeout=WAIT_MS
    )
    new = await ann.inner_text("#room-code")
    await told(ann, "Invitations sent to Bob and Cid.")
    for name in ("Bob", "Cid"):
        await answered(ann, name, "no answer yet")
    room = await ann.evaluate("() => window.seahaven.room")
    assert room["seats"] == 3 and room["racers"][0]["name"] == "Ann"

    # Bob and Cid, still on the old race's results, are asked to race again; their own offer is
    # gone meanwhile (the invitation is the way, not a third room).
    for page in (bob, cid):
        await page.locator(".invites .invite").wait_for(timeout=WAIT_MS)
        assert "Ann asks you to race again (new deal)" in await text(page, ".invites .invite")
        await page.wait_for_selector("#race-again-all", state="detached", timeout=WAIT_MS)
        assert await page.evaluate("() => window.seahaven.room.room") == old
    assert await axe_problems(bob) == []

    # Cid says no: Ann is told, and her list says so.
    await cid.click(".invites .invite-decline")
    await told(ann, "Cid declined your invitation.")
    await answered(ann, "Cid", "declined")
    # Bob says yes from his results: out of the old room, seated in the new one, on both pages.
    await bob.click(".invites .invite-accept")
    await in_room(bob, new)
    assert await bob.evaluate("() => window.seahaven.room.role") == "racer"
    await told(ann, "Bob accepted your invitation.")
    await answered(ann, "Bob", "accepted")
    await seated(ann, "Bob")
    await seated(bob, "Ann")
    assert await axe_problems(ann) == []
    # Cid stays where he was: the old race's results.
    assert await cid.evaluate("() => window.seahaven.room.room") == old
    for page in (ann, bob, cid):
        no_errors(page)


async def test_a_race_against_the_computer_offers_no_race_again(browser: Browser, server: RaceServer) -> None:
    ann = await player_page(browser, server, "Ann", DESKTOP)
    await ann.select_option("select[name=bot]", "brisk")
    await raced_to_the_end(ann)
    assert await ann.locator("#rematch").is_visible()
    assert await ann.locator("#race-again-all").count() == 0
    # Rightly: the server would say there is nobody to invite.
    refused = await ann.evaluate("() => window.seahaven.conn.call('race_again').then(() => null, (e) => e.code)")
    assert refused == "nobody-to-invite"
    no_errors(ann)


async def api(server: RaceServer, path: str) -> Any:
    answer = await get(server.port, f"/api/v1{path}")
    assert answer.status == 200, answer
    return answer.json()


def record(rival: dict[str, Any]) -> str:
    """A rival's wins and losses as the page says them in English."""
    wins, losses = rival["wins"], rival["losses"]
    return f"{wins} win{'' if wins == 1 else 's'}, {losses} loss{'' if losses == 1 else 'es'}"


async def keyed_page(browser: Browser, server: RaceServer, key: str, name: str, viewport: dict[str, int]) -> Page:
    """The lobby of the browser that keeps ``key`` (the player's own), once its friends are read."""
    context = await browser.new_context(viewport=viewport, has_touch=viewport == PHONE, bypass_csp=True)  # type: ignore[arg-type]
    await context.add_init_script(
        f"localStorage.setItem('seahaven.key', {json.dumps(key)});"
        f" localStorage.setItem('seahaven.name', {json.dumps(name)})"
    )
    page = watched(await context.new_page())
    await page.goto(f"http://127.0.0.1:{server.port}")
    await page.wait_for_selector("#friends", timeout=WAIT_MS)
    return page


async def registered(server: RaceServer, name: str) -> tuple[WsClient, str]:
    """A registered player's connection, and their key (what their browser keeps)."""
    first = await WsClient.open(url_of(server), name)
    identity = await first.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    await first.close()
    return await WsClient.open(url_of(server), name, key=identity.key), identity.key


async def won_by(server: RaceServer, winner: WsClient, loser: WsClient) -> str:
    """``winner`` and ``loser`` race deal 1 (every room's, on this server); ``winner`` plays it
    through, the race ends with the win. The race id, once it is on record."""
    await race_of_two(winner, loser, CreateRoom())
    for move in SOLUTION:
        await winner.call(MoveRequest(move=str(move)))
    result = await winner.expect(Result)
    await loser.expect(Result)
    for racer in (winner, loser):
        await racer.call(Leave())
    race_id = result.race_id
    assert race_id is not None
    await wait_until(lambda: archived(server, race_id), what=f"race {race_id} on record")
    return race_id


async def test_recent_rivals_show_the_head_to_head_and_add_a_friend(browser: Browser, server: RaceServer) -> None:
    ann, ann_key = await registered(server, "Ann")
    bob, bob_key = await registered(server, "Bob")
    dee = await WsClient.open(url_of(server), "Dee")  # not registered: nobody to ask
    # Two races on deal 1: Ann wins one, Bob the other, so both finished it; then Ann and Dee.
    await won_by(server, ann, bob)
    await won_by(server, bob, ann)
    await race_of_two(ann, dee, CreateRoom())
    for racer in (ann, dee):
        await racer.call(Resign())
    last = await ann.expect(Result)
    assert last.race_id is not None
    for racer in (ann, dee):
        await racer.call(Leave())
    await wait_until(lambda: archived(server, last.race_id or ""), what="the race with Dee on record")
    for client in (ann, bob, dee):
        await client.close()

    rivals = (await api(server, f"/players/{ann.player}/rivals?limit=20"))["rivals"]
    assert [r["name"] for r in rivals] == ["Dee", "Bob"]
    bob_h2h = rivals[1]
    assert (bob_h2h["wins"], bob_h2h["losses"], bob_h2h["deals"]["shared"]) == (1, 1, 1)
    faster = bob_h2h["deals"]["faster"]

    page = await keyed_page(browser, server, ann_key, "Ann", DESKTOP)
    await page.wait_for_selector("#yours .rivals li", timeout=WAIT_MS)
    row = page.locator(f"#yours .rivals li[data-player='{bob.player}']")
    # The newest rival first, each linking to their page, with the API's head-to-head in words.
    assert await page.eval_on_selector_all("#yours .rivals li > a", "as => as.map((a) => a.textContent)") == [
        "Dee",
        "Bob",
    ]
    assert await row.locator("a").get_attribute("href") == f"/players/{bob.player}"
    assert await text(page, f"#yours .rivals li[data-player='{bob.player}'] .h2h") == record(bob_h2h) == "1 win, 1 loss"
    assert (
        await text(page, f"#yours .rivals li[data-player='{bob.player}'] .deals")
        == f"faster on {faster} of 1 deal you both finished"
    )
    dee_row = f"#yours .rivals li[data-player='{dee.player}']"
    assert await text(page, f"{dee_row} .h2h") == record(rivals[0])
    assert await page.locator(f"{dee_row} .deals").count() == 0  # nobody finished: no deal to compare
    assert await page.locator(f"{dee_row} button").count() == 0  # not registered: nobody to ask
    # The friends panel lists those there is someone to ask, each with "Add friend".
    panel = page.locator("#friends .friend-rivals")
    assert await panel.locator("li").count() == 1
    assert await panel.get_by_role("button", name=re.compile(r"^Add friend\s*: Bob$")).count() == 1
    assert await axe_problems(page) == []

    # Bob's phone, in his lobby: Ann's request comes to it.
    phone = await keyed_page(browser, server, bob_key, "Bob", PHONE)
    await phone.wait_for_selector("#yours .rivals li", timeout=WAIT_MS)
    assert await phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    # Ann asks from her recent rivals: the button says it is sent, and keeps the focus.
    await row.get_by_role("button", name=re.compile(r"^Add friend\s*: Bob$")).click()
    await told(page, "Asked Bob to be friends.")
    sent = row.get_by_role("button", name=re.compile(r"^Request sent\s*: Bob$"))
    await sent.wait_for(timeout=WAIT_MS)
    assert await sent.get_attribute("aria-disabled") == "true"
    assert await page.evaluate("() => document.activeElement?.textContent") == "Request sent: Bob"
    # In the friends panel, Bob is asked now: under "Asked by you", no more among the rivals to add.
    assert "Bob" in await text(page, "#friends ul[aria-labelledby=outgoing-h]")
    assert await panel.locator(f"li[data-player='{bob.player}']").count() == 0
    await phone.wait_for_selector("#incoming-h", timeout=WAIT_MS)
    assert "Ann" in await text(phone, "#friends ul[aria-labelledby=incoming-h]")
    # Bob says yes from his own recent rivals: friends on both pages.
    await (
        phone.locator(f"#yours .rivals li[data-player='{ann.player}']")
        .get_by_role("button", name=re.compile(r"^Accept\s*: Ann$"))
        .click()
    )
    await told(phone, "You and Ann are friends now.")
    await row.locator(".rival-friend").wait_for(timeout=WAIT_MS)
    no_errors(page)
    no_errors(phone)
