"""The browser's friends (issue 41): the friends panel beside the lobby (in it on a phone), presence
followed live, invitations sent from the panel and answered from a toast wherever the invited
player is, and "Add friend" beside a registered rival in a race's results. In Debian's Chromium,
on a real server with records and registered players (tests/recording.py): each page registers
its player by itself on its first visit, as every browser does.

Ann races on a desktop, Bob on a phone; what each is told is read off the page they see.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from protocol.messages import Identity, JoinRoom, Ready, Register, Resign, RoomState
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
)
from tests.helpers import url_of
from tests.recording import recording_server
from tests.wsclient import WsClient


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path, players=True) as started:
        yield started


async def claim(page: Page, handle: str) -> None:
    """The page's player claims ``handle`` (as the Account panel does)."""
    await page.evaluate("h => window.seahaven.conn.call('claim_handle', { handle: h })", handle)


async def boxes(page: Page, *selectors: str) -> list[dict[str, float]]:
    """Where each element is now, measured at once (a render may replace one between two looks)."""
    read = "sels => sels.map((s) => { const r = document.querySelector(s).getBoundingClientRect();"
    read += " return { x: r.x, y: r.y, width: r.width, height: r.height }; })"
    found: list[dict[str, float]] = await page.evaluate(read, list(selectors))
    return found


async def friend_state(page: Page, name: str, state: str, within_ms: int = WAIT_MS) -> None:
    """Wait until the friends panel says ``name`` is ``state`` (its words)."""
    await page.wait_for_function(
        """([name, state]) => [...document.querySelectorAll('#friends .friend')].some((li) =>
             li.querySelector('.who').textContent.startsWith(name)
             && li.querySelector('.state').textContent === state)""",
        arg=[name, state],
        timeout=within_ms,
    )


async def friends(browser: Browser, server: RaceServer) -> tuple[Page, Page]:
    """Ann (desktop) and Bob (phone) made friends: Ann asks by Bob's handle, Bob accepts."""
    ann = await player_page(browser, server, "Ann", DESKTOP)
    bob = await player_page(browser, server, "Bob", PHONE)
    assert "No friend yet" in await text(ann, "#friends")
    await claim(bob, "bobby")
    await ann.fill("#friend-handle", "BOBBY")  # a handle as typed: case does not matter
    await ann.click("#add-friend")
    await told(ann, "Asked BOBBY to be friends.")
    await ann.wait_for_selector("#outgoing-h", timeout=WAIT_MS)
    assert "Bob @bobby" in await text(ann, "#friends ul[aria-labelledby=outgoing-h]")
    # Bob is asked at once, on his phone's lobby, and says yes.
    await bob.wait_for_selector("#incoming-h", timeout=WAIT_MS)
    assert "Ann" in await text(bob, "#friends ul[aria-labelledby=incoming-h]")
    await bob.get_by_role("button", name=re.compile(r"^Accept\s*: Ann$")).click()
    await friend_state(bob, "Ann", "in the lobby")
    await friend_state(ann, "Bob", "in the lobby")
    assert await ann.locator("#outgoing-h").count() == 0
    return ann, bob


async def test_friends_by_handle_see_each_other_and_race_on_an_invitation(browser: Browser, server: RaceServer) -> None:
    ann, bob = await friends(browser, server)

    # The panel is beside the lobby on a desktop, and within the phone's width on a phone.
    panel, create = await boxes(ann, "#friends", ".create")
    assert panel["x"] > create["x"] + create["width"]
    assert panel["x"] + panel["width"] <= DESKTOP["width"]
    (box,) = await boxes(bob, "#friends")
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    assert await bob.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert await axe_problems(ann) == []

    # Bob makes a room: Ann sees him waiting in it.
    await bob.click(".create button[type=submit]")
    await bob.wait_for_selector("#room-code", timeout=WAIT_MS)
    code = await bob.inner_text("#room-code")
    await friend_state(ann, "Bob", f"waiting in room {code}")  # how soon: benchmarks/invitations.py
    # Back to the lobby: so Ann sees.
    await bob.click("#leave")
    await friend_state(ann, "Bob", "in the lobby")
    # And waits in a room of his own again: an invitation reaches him there.
    await bob.click(".create button[type=submit]")
    await bob.wait_for_selector("#room-code", timeout=WAIT_MS)
    own = await bob.inner_text("#room-code")

    # Ann invites Bob from the panel: the server makes her a room, and she is told.
    await ann.get_by_role("button", name=re.compile(r"^Invite to .*\s*: Bob$")).click()
    await ann.wait_for_selector("#room-code", timeout=WAIT_MS)
    room = await ann.inner_text("#room-code")
    await told(ann, "Invitation sent to Bob.")
    # Bob's page shows the invitation at once, with its seconds left.
    toast = bob.locator(".invites .invite")
    await toast.wait_for(timeout=WAIT_MS)
    words = await text(bob, ".invites .invite")
    assert "Ann invites you to race (Seahaven Towers)" in words
    secs = int(re.search(r"(\d+) s", words).group(1))  # type: ignore[union-attr]
    assert 50 <= secs <= 60
    assert await axe_problems(bob) == []
    # One click, and he is out of his room and seated in Ann's; Ann is told, and sees him there.
    assert own != room
    await bob.click(".invites .invite-accept")
    await bob.wait_for_function(
        "c => document.getElementById('room-code')?.textContent === c", arg=room, timeout=WAIT_MS
    )
    assert await bob.evaluate("() => window.seahaven.room.role") == "racer"
    assert await bob.locator(".invites .invite").count() == 0
    await told(ann, "Bob accepted your invitation.")
    await ann.wait_for_function(
        "() => [...document.querySelectorAll('.racers .who')].some((w) => w.textContent.startsWith('Bob'))",
        timeout=WAIT_MS,
    )
    no_errors(ann)
    no_errors(bob)


async def test_a_declined_invitation_is_told_and_a_stranger_is_not_offered_one(
    browser: Browser, server: RaceServer
) -> None:
    ann, bob = await friends(browser, server)
    # Ann waits in a room of her own, and invites Bob into it from the panel beside it.
    await ann.click(".create button[type=submit]")
    await ann.wait_for_selector("#room-code", timeout=WAIT_MS)
    await friend_state(ann, "Bob", "in the lobby")
    await ann.get_by_role("button", name=re.compile(r"^Invite to .*\s*: Bob$")).click()
    assert (await ann.inner_text("#friends .friend .acts button")).startswith("Invite to my room")
    await told(ann, "Invitation sent to Bob.")
    # Bob is in the lobby; his invitation has the focus: "d" declines it (its button too).
    await bob.locator(".invites .invite").wait_for(timeout=WAIT_MS)
    assert await bob.evaluate("() => document.activeElement.classList.contains('invite')")
    await bob.keyboard.press("d")
    await bob.locator(".invites .invite").wait_for(state="detached", timeout=WAIT_MS)
    await told(ann, "Bob declined your invitation.")
    assert await bob.evaluate("() => window.seahaven.room") is None

    # Cid, whom Ann does not know, is nowhere to invite; asked, he is a request, not a friend.
    cid = await player_page(browser, server, "Cid", DESKTOP)
    await claim(cid, "cid")
    assert "Cid" not in await text(ann, "#friends")
    await ann.fill("#friend-handle", "cid")
    await ann.click("#add-friend")
    await ann.wait_for_selector("#outgoing-h", timeout=WAIT_MS)
    assert await ann.get_by_role("button", name=re.compile(r"^Invite .*\s*: Cid$")).count() == 0
    assert await ann.locator("#friends .friend").count() == 1  # Bob only
    # A handle of nobody: said in words.
    await ann.fill("#friend-handle", "nobody-here")
    await ann.click("#add-friend")
    await told(ann, "No player has that handle.")
    for page in (ann, bob, cid):
        no_errors(page)


async def registered(server: RaceServer, name: str) -> WsClient:
    """A registered player's connection (a protocol client with its key)."""
    first = await WsClient.open(url_of(server), name)
    identity = await first.call(Register())
    assert isinstance(identity, Identity) and identity.key is not None
    await first.close()
    return await WsClient.open(url_of(server), name, key=identity.key)


async def test_a_registered_rival_in_the_results_can_be_asked_to_be_friends(
    browser: Browser, server: RaceServer
) -> None:
    ann = await player_page(browser, server, "Ann", DESKTOP)
    dan = await registered(server, "Dan")
    await ann.click(".create button[type=submit]")
    await ann.wait_for_selector("#room-code", timeout=WAIT_MS)
    code = await ann.inner_text("#room-code")
    assert isinstance(await dan.call(JoinRoom(room=code)), RoomState)
    await dan.call(Ready(ready=True))
    await ann.click("#ready")
    await ann.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    await dan.call(Resign())
    await ann.evaluate("() => window.seahaven.conn.call('resign')")
    await ann.wait_for_selector("#add-rivals", timeout=WAIT_MS)
    assert await axe_problems(ann) == []
    add = ann.locator(".results").get_by_role("button", name="Add Dan as a friend")
    await add.click()
    await told(ann, "Asked Dan to be friends.")
    await add.wait_for(state="detached", timeout=WAIT_MS)  # asked once: offered no more
    # Not offered beside my own name.
    assert await ann.locator(".results .add-rival").count() == 0
    await dan.close()
    no_errors(ann)


async def test_an_invitation_accepted_mid_race_asks_first_then_leaves_the_race(
    browser: Browser, server: RaceServer
) -> None:
    ann, bob = await friends(browser, server)
    # Bob races Dan.
    dan = await registered(server, "Dan")
    await bob.click(".create button[type=submit]")
    await bob.wait_for_selector("#room-code", timeout=WAIT_MS)
    code = await bob.inner_text("#room-code")
    assert isinstance(await dan.call(JoinRoom(room=code)), RoomState)
    await dan.call(Ready(ready=True))
    await bob.click("#ready")
    await bob.wait_for_function("() => window.seahaven.room?.phase === 'racing'", timeout=WAIT_MS)
    await friend_state(ann, "Bob", "racing")
    # Ann invites him all the same; accepting would resign his race: he is asked first.
    await ann.get_by_role("button", name=re.compile(r"^Invite to .*\s*: Bob$")).click()
    await ann.wait_for_selector("#room-code", timeout=WAIT_MS)
    room = await ann.inner_text("#room-code")
    await bob.locator(".invites .invite-accept").click()
    await bob.wait_for_selector("#ask", timeout=WAIT_MS)
    assert "leaving a race resigns it" in await text(bob, "#ask")
    await bob.click("#ask-yes")
    await bob.wait_for_function(
        "c => document.getElementById('room-code')?.textContent === c", arg=room, timeout=WAIT_MS
    )
    await told(ann, "Bob accepted your invitation.")
    await dan.close()
    no_errors(ann)
    no_errors(bob)


async def test_a_friend_waiting_in_a_room_is_joined_from_the_panel(browser: Browser, server: RaceServer) -> None:
    """From the lobby, a friend shown waiting in a room has "Join": one click seats me there."""
    ann, bob = await friends(browser, server)
    await bob.fill("input[name=deal]", "1")
    await bob.click("text=Create room")
    await bob.wait_for_selector("#room-code", timeout=WAIT_MS)
    code = await bob.inner_text("#room-code")
    await friend_state(ann, "Bob", f"waiting in room {code}")
    await ann.get_by_role("button", name=re.compile(r"^Join\s*: Bob$")).click()
    await ann.wait_for_function(f"() => window.seahaven.room?.room === {code!r}", timeout=WAIT_MS)
    assert await ann.inner_text("#room-code") == code
    await bob.wait_for_function("() => window.seahaven.room?.racers.length === 2", timeout=WAIT_MS)
    no_errors(ann)
    no_errors(bob)
