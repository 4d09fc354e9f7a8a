"""A drawn race in the browser (issue 37, item 2): the page shows the room's commitment before it
is ready, sends its own seed with ready, and the race's replay page checks the draw (the seed
against the commitment, the published list, the seeds drawing the deal) as passed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser

from protocol.messages import CreateRoom, MoveRequest, Ok, Ready, Result, RoomState, Started
from seahaven import Board
from seahaven.codes import decode
from seahaven.solver import solve
from seahaven.verify import passed, verify
from server.app import RaceServer
from tests.browser_pages import WAIT_MS, chromium, lobby, new_page, no_errors
from tests.recording import recording_server, signed_record
from tests.wsclient import WsClient


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path, drawn=True) as race:
        yield race


async def test_a_rated_race_s_draw_is_committed_seeded_by_the_page_and_verified_on_its_replay(
    server: RaceServer,
) -> None:
    ann = await WsClient.open(f"ws://127.0.0.1:{server.port}/", "Ann")
    state = await ann.call(CreateRoom(rated=True))
    assert isinstance(state, RoomState) and state.commitment is not None
    async with chromium() as browser:
        await race_with_a_page(server, browser, ann, state)


async def race_with_a_page(server: RaceServer, browser: Browser, ann: WsClient, state: RoomState) -> None:
    base = f"http://127.0.0.1:{server.port}"
    page = await new_page(browser)
    await lobby(page, f"{base}/r/{state.room}", "Web")
    await page.wait_for_selector("#ready", timeout=WAIT_MS)
    # The room says, before anyone is ready, that its deal is drawn and what the server committed to.
    assert state.commitment is not None
    facts = await page.inner_text(".room-head .facts")
    assert f"commitment {state.commitment[:12]}" in facts, facts
    await page.click("#ready")
    assert isinstance(await ann.call(Ready(seed="5e" * 16)), Ok)
    started = await ann.expect(Started)
    # Ann wins the drawn deal with the solver's line; the page's racer is still racing.
    preset, number = decode(started.deal)
    for move in solve(Board.deal(preset, number)).moves:
        await ann.call(MoveRequest(move=str(move)))
    result = await ann.expect(Result)
    assert result.race_id is not None and result.seed is not None
    document = await signed_record(server, result.race_id)
    draw = document["record"]["draw"]
    assert draw["kind"] == "drawn" and draw["commitment"] == state.commitment
    # Seat order: Ann created the room, the page joined it; both gave a seed (the page's its own).
    assert len(draw["seeds"]) == 2 and draw["seeds"][0] == "5e" * 16 and len(draw["seeds"][1]) == 32
    assert passed(verify(document))

    replay = await new_page(browser)
    await replay.goto(f"{base}/races/{result.race_id}")
    await replay.wait_for_function("() => window.seahavenRecords?.ready === true", timeout=WAIT_MS)
    await replay.click("#verify")
    await replay.wait_for_function(
        "() => ['verified', 'not-verified', 'error']"
        ".includes(document.querySelector('#verify-verdict').dataset.verdict)",
        timeout=WAIT_MS,
    )
    assert await replay.get_attribute("#verify-verdict", "data-verdict") == "verified"
    states = await replay.eval_on_selector_all(
        "#verify-checks li", "(items) => Object.fromEntries(items.map((li) => [li.dataset.check, li.dataset.state]))"
    )
    assert states["draw"] == "passed", states
    no_errors(page)
    no_errors(replay)
    await ann.close()


async def test_the_new_room_form_makes_a_rated_room_whose_deal_is_drawn(server: RaceServer) -> None:
    """Found on a journey walk: only quick match made rated rooms. The form's "rated" box makes one,
    and takes away what a rated room refuses (a chosen deal, hints) while it is checked."""
    async with chromium() as browser:
        page = await new_page(browser)
        await lobby(page, f"http://127.0.0.1:{server.port}/", "Rae")
        await page.fill("input[name=deal]", "7")
        await page.check("input[name=hints]")
        await page.check("#new-rated")
        assert await page.is_disabled("input[name=deal]") and await page.is_disabled("input[name=hints]")
        await page.click("text=Create room")
        await page.wait_for_selector("#room-code", timeout=WAIT_MS)
        facts = await page.inner_text(".room-head .facts")
        assert "rated" in facts and "unrated" not in facts and "commitment " in facts, facts
        assert "hints on" not in facts
        state = await page.evaluate("() => window.seahaven.room")
        assert state["rated"] is True and len(state["commitment"]) == 64 and state.get("deal") is None
        no_errors(page)
