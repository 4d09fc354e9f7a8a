"""The records pages in Debian's headless Chromium, driven by Playwright: a real race on a real
server with records (tests/recording.py: a RaceServer archiving into a SQLite file and reading it
back, live races from its store), then its replay, the winner's page and the leaderboards, as a
player opens them.

Ann (a protocol client) races Bob (a browser page) on seahaven deal 1, which the server picks as
if in secret (``deals``), so her win counts on the boards. Her first actions are spaced out, one an
undo, so that stepping and playback at the recorded speed have something to show.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.async_api import Browser, Page

from protocol.messages import (
    CreateRoom,
    JoinRoom,
    Moved,
    MoveRequest,
    Ok,
    Ready,
    Result,
    RoomState,
    Standing,
    Started,
    Undo,
)
from seahaven import Board, Move, encode, to_board_text
from seahaven.cards import Card
from seahaven.codes import decode
from seahaven.verify import passed, verify
from server.app import RaceServer
from tests.browser_pages import WAIT_MS, chromium, js, new_page, no_errors
from tests.helpers import url_of, wait_until
from tests.httpclient import get
from tests.racing import Line, solution
from tests.recording import archived, recording_server, signed_record
from tests.wsclient import WsClient

SPACED = 4
"""Ann's first actions, a quarter of a second apart (one of them an undo)."""
RANK_WORDS = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[RaceServer]:
    async with recording_server(tmp_path) as race:
        yield race


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


async def open_records(page: Page, url: str) -> None:
    """Go to a records page and wait until it has read what it shows."""
    await page.goto(url)
    await page.wait_for_function("() => window.seahavenRecords?.ready === true", timeout=WAIT_MS)


async def at_step(page: Page) -> int:
    return int(await js(page, "window.seahavenRecords.replay.at"))


def card_name(card: Card) -> str:
    """A card's accessible name on the board: an ace's or a court card's begins with its corner."""
    words = f"{RANK_WORDS[card.rank - 1]} of {SUIT_NAMES[card.suit]}"
    return f"{card.symbol} {words}" if card.rank in (1, 11, 12, 13) else words


def ann_actions() -> list[str]:
    """What Ann sends: two moves, an undo, the second again, then the rest of the solution."""
    moves = [str(m) for m in solution()]
    return [moves[0], moves[1], "undo", *moves[1:]]


def board_after(actions: list[str]) -> Board:
    board = Board.deal("seahaven", 1)
    for action in actions:
        if action == "undo":
            board.pop()
        else:
            board.push(Move.parse(action))
    return board


async def race(server: RaceServer, browser: Browser) -> tuple[str, str, Page]:
    """Bob's page joins Ann's room by its link and both race; Ann wins. The race id, Ann's player
    id and Bob's page (on the results)."""
    ann = await WsClient.open(url_of(server), "Ann")
    created = await ann.call(CreateRoom())
    assert isinstance(created, RoomState)
    bob = await new_page(browser)
    await bob.goto(f"http://127.0.0.1:{server.port}/r/{created.room}")
    await bob.fill("#name", "Bob")
    await bob.click("text=Continue")
    await bob.wait_for_selector("#ready", timeout=WAIT_MS)
    await bob.click("#ready")
    assert isinstance(await ann.call(Ready()), Ok)
    await ann.expect(Started)
    for n, action in enumerate(ann_actions()):
        if n < SPACED:
            await asyncio.sleep(0.25)
        await ann.call(Undo() if action == "undo" else MoveRequest(move=action))
    result = await ann.expect(Result)
    assert result.race_id is not None and result.standings[0].player == ann.player
    await ann.close()
    return result.race_id, ann.player, bob


async def test_a_race_replays_move_by_move_then_the_winners_page_and_the_boards(
    server: RaceServer, browser: Browser
) -> None:
    race_id, ann, bob = await race(server, browser)
    base = f"http://127.0.0.1:{server.port}"

    # Bob's results link to the replay, the boards and his own page (each in a tab of its own).
    await bob.wait_for_selector("#replay-link", timeout=WAIT_MS)
    assert await bob.get_attribute("#replay-link", "href") == f"/races/{race_id}"
    assert await bob.get_attribute("#boards-link", "href") == "/boards"
    bob_id = await js(bob, "window.seahaven.me.player")
    assert await bob.get_attribute("#my-page-link", "href") == f"/players/{bob_id}"
    no_errors(bob)
    await wait_until(lambda: archived(server, race_id), what="the race archived")

    # The replay: settings, deal, standings, and Ann's moves step by step.
    page = await new_page(browser)
    await open_records(page, f"{base}/races/{race_id}")
    assert await page.inner_text("#race-id") == race_id
    assert await page.inner_text("#deal-code") == encode("seahaven", 1)
    assert await page.get_attribute("#race-this-deal", "href") == f"/?deal={encode('seahaven', 1)}"
    assert "Seahaven Towers · deal #1" in await page.inner_text("#race-facts")
    rows = [re.sub(r"\s+", " ", r) for r in await page.locator(".standings tbody tr").all_inner_texts()]
    actions = ann_actions()
    # Her moves left on the board, as the live results count them: the undo took one back (issue 38, bug 9).
    assert rows[0].startswith(f"1 Ann finished 52/52 {len(actions) - 2} 1 0 ") and rows[0].endswith("proven"), rows
    # Bob was still on when Ann won: on record he did not finish, with no time and no proof.
    assert rows[1].strip() == "2 Bob did not finish 0/52 0 0 0 –", rows
    proven = page.locator(".standings tbody tr").nth(1).locator("td[title]")
    assert await proven.count() == 0, "the proof's tooltip is on a proven row only"
    assert await page.get_attribute(".standings a[href^='/players/']", "href") == f"/players/{ann}"
    assert await js(page, "window.seahavenRecords.racer.name") == "Ann"
    assert await at_step(page) == 0
    assert await js(page, "window.seahavenRecords.replay.board.text()") == to_board_text(board_after([]))

    for _ in range(3):
        await page.keyboard.press("ArrowRight")
    assert await at_step(page) == 3
    after3 = board_after(actions[:3])  # two moves and the undo: one move in effect
    assert await js(page, "window.seahavenRecords.replay.board.text()") == to_board_text(after3)
    step_text = await page.inner_text("#step-text")
    assert "move 3 of" in step_text and "undo (took back" in step_text, step_text
    column = next(i for i, col in enumerate(after3.columns) if col)
    top = after3.columns[column][-1]
    label = await page.get_attribute(f"#replay-board .col[data-index='{column}'] .card:last-child", "aria-label")
    assert label == f"{card_name(top)}, column {column + 1}"
    await page.keyboard.press("ArrowLeft")
    assert await at_step(page) == 2
    assert await js(page, "window.seahavenRecords.replay.board.text()") == to_board_text(board_after(actions[:2]))
    await page.keyboard.press("End")
    assert await at_step(page) == len(actions)
    assert await page.locator("#replay-board [aria-label='hearts foundation, 13 cards']").count() == 1
    await page.click("#first")
    assert await at_step(page) == 0
    await page.click("#next")
    await page.click("#next")
    assert await at_step(page) == 2
    await page.locator("#step").fill("40")  # the slider
    assert await at_step(page) == 40
    assert await js(page, "window.seahavenRecords.replay.board.text()") == to_board_text(board_after(actions[:40]))
    assert "step=40" in page.url

    # Playback at the recorded speed: the first actions take as long as they took in the race.
    recorded = await js(page, f"window.seahavenRecords.replay.timeAt({SPACED})")
    assert recorded >= 0.25 * SPACED * 1000 * 0.9
    await page.click("#first")
    began = time.monotonic()
    await page.click("#play")
    await page.wait_for_function(f"() => window.seahavenRecords.replay.at >= {SPACED}", timeout=WAIT_MS)
    assert time.monotonic() - began >= recorded / 1000 * 0.8
    await page.click("#play")  # pause
    paused = await at_step(page)
    await asyncio.sleep(0.3)
    assert await at_step(page) == paused and await js(page, "window.seahavenRecords.playing") is False

    # Bob's moves: none.
    await page.click("[role=tab]:has-text('Bob')")
    assert await js(page, "window.seahavenRecords.racer.name") == "Bob"
    assert await at_step(page) == 0 and "Bob: move 0 of 0" in await page.inner_text("#step-text")
    no_errors(page)

    # Ann's page: her race, her win, her streak, her best time, each race linking to its replay.
    await open_records(page, f"{base}/players/{ann}")
    assert await page.inner_text("#player-name") == "Ann"
    for field, value in (("races", "1"), ("wins", "1"), ("streak", "1"), ("best-streak", "1"), ("win-rate", "100%")):
        assert await page.inner_text(f"#{field}") == value, field
    best = await page.locator(".bests tbody tr").all_inner_texts()
    assert len(best) == 1 and best[0].startswith("Seahaven Towers")
    assert await page.get_attribute(".bests a", "href") == f"/races/{race_id}"
    assert "No rated race yet" in await page.inner_text("[aria-labelledby=ratings-h]")  # a friends' room
    races = [re.sub(r"\s+", " ", r) for r in await page.locator(".races tbody tr").all_inner_texts()]
    assert len(races) == 1 and "1 of 2 finished" in races[0], races
    assert await page.is_hidden("#more-races")
    # Her rivals (issue 38, what players expect: opponents on the player page): Bob, once, behind her.
    await page.wait_for_selector("#rivals table", timeout=WAIT_MS)
    rivals = [re.sub(r"\s+", " ", r).strip() for r in await page.locator(".rivals tbody tr").all_inner_texts()]
    assert rivals == ["Bob 1 1 0"], rivals
    assert await page.get_attribute(".rivals a", "href") == f"/players/{bob_id}"
    await page.click(".races a")
    # The link goes there. By path: the replay, once loaded, puts its racer and step in the query
    # (replaceState), which a slow wait_for_url saw before the page it waited for (an exact URL).
    replay = f"/races/{race_id}"
    await page.wait_for_url(lambda url: urlsplit(url).path == replay, wait_until="commit", timeout=WAIT_MS)
    no_errors(page)

    # Bob's page: the race he did not finish, with no time.
    await open_records(page, f"{base}/players/{bob_id}")
    races = [re.sub(r"\s+", " ", r) for r in await page.locator(".races tbody tr").all_inner_texts()]
    assert len(races) == 1 and "2 of 2 did not finish – replay" in races[0], races
    await page.wait_for_selector("#rivals table", timeout=WAIT_MS)
    rivals = [re.sub(r"\s+", " ", r).strip() for r in await page.locator(".rivals tbody tr").all_inner_texts()]
    assert rivals == ["Ann 1 0 1"], rivals

    # The boards: Ann's win, all time and this week; not on the daily board (not the daily deal).
    await open_records(page, f"{base}/boards")
    await page.wait_for_selector(".board-entries", timeout=WAIT_MS)
    assert "Seahaven Towers · all time" in await page.inner_text("#board-title")
    entries = [re.sub(r"\s+", " ", r) for r in await page.locator(".board-entries tbody tr").all_inner_texts()]
    assert len(entries) == 1 and entries[0].startswith("1 Ann ") and " #1 " in entries[0], entries
    assert await page.get_attribute(".board-entries a[href^='/players/']", "href") == f"/players/{ann}"
    assert await page.get_attribute(".board-entries a[href^='/races/']", "href") == f"/races/{race_id}"
    await page.click("[data-period=week]")
    await page.wait_for_function("() => document.querySelector('#board-title').textContent.includes('the week of')")
    assert await page.locator(".board-entries tbody tr").count() == 1
    assert "period=week" in page.url
    await page.click("[data-period=day]")
    await page.wait_for_function("() => document.querySelector('#board-title').textContent.includes('daily deal of')")
    assert await page.locator(".board-entries").count() == 0
    await page.select_option("#board-preset", "freecell")
    await page.wait_for_function("() => document.querySelector('#board-title').textContent.startsWith('FreeCell')")
    assert "preset=freecell&period=day" in page.url
    no_errors(page)


async def test_a_race_not_on_record_says_so(server: RaceServer, browser: Browser) -> None:
    page = await new_page(browser)
    await open_records(page, f"http://127.0.0.1:{server.port}/races/ZZZZZZ-1-aaaaaaaa")
    assert await page.inner_text("[role=alert]") == "No race ZZZZZZ-1-aaaaaaaa on record."
    await open_records(page, f"http://127.0.0.1:{server.port}/players/nobody_here")
    assert await page.inner_text("[role=alert]") == "No player nobody_here on record."
    no_errors(page)


async def auto_race(server: RaceServer) -> tuple[str, Standing]:
    """Ann races Bob in a rated room (its deal drawn, so the browser can check the draw too) with
    auto-move: the server plays her safe cards home after each of her moves. The first move of
    hers that brought some she takes back (an undo: the server's undos of its auto-moves, then
    hers) and plays again. Bob does nothing. The race's id and Ann's standing in the live result."""
    ann, bob = [await WsClient.open(url_of(server), name) for name in ("Ann", "Bob")]
    created = await ann.call(CreateRoom(rated=True))
    assert isinstance(created, RoomState)
    assert isinstance(await bob.call(JoinRoom(room=created.room)), RoomState)
    assert isinstance(await ann.call(Ready(auto=True, seed="5e" * 16)), Ok)
    assert isinstance(await bob.call(Ready(seed="6f" * 16)), Ok)
    started = await ann.expect(Started)
    board = Board.deal(*decode(started.deal))
    board.autoplay()  # the opening's safe cards, which the server plays at the start (ready.auto)
    line = Line(board)
    undone = False
    while not board.is_won():
        move = line.next()
        reply = await ann.call(MoveRequest(move=str(move), auto=True))
        assert isinstance(reply, Moved), reply
        board.push(move)
        brought = board.autoplay()
        assert reply.auto == tuple(str(m) for m in brought)
        if brought and not undone:
            undone = True
            taken = await ann.call(Undo())
            assert isinstance(taken, Moved) and taken.undone == len(brought) + 1, taken
            for _ in range(len(brought) + 1):
                board.pop()
            again = await ann.call(MoveRequest(move=str(move), auto=True))
            assert isinstance(again, Moved) and again.auto == reply.auto, again
            board.push(move)
            board.autoplay()
    assert undone, "a move of hers brought cards home"
    result = await bob.expect(Result)
    assert result.race_id is not None
    winner = result.standings[0]
    assert winner.player == ann.player and winner.status == "finished"
    for client in (ann, bob):
        await client.close()
    return result.race_id, winner


async def test_a_race_won_with_auto_moves_counts_the_winners_own_moves_and_verifies(
    tmp_path: Path, browser: Browser
) -> None:
    """The record lists the server's auto-moves among Ann's entries, marked (``auto``): the replay's
    Moves column says her own moves left on the board (an undo takes one back, and is counted
    apart), as the live result does, not the entries; the move list says which the server played;
    and the page's verify panel passes every check, the marks included (each is the rule's move,
    each undo takes back a move of its own hand)."""
    async with recording_server(tmp_path, drawn=True) as server:
        race_id, winner = await auto_race(server)
        document = await signed_record(server, race_id)
        assert passed(verify(document)), "the reference passes it"
        race = (await get(server.port, f"/api/v1/races/{race_id}")).json()
        hers = race["racers"][0]
        assert hers["player"] == winner.player
        assert len(hers["moves"]) - len(hers["auto"]) == winner.moves < len(hers["moves"])
        assert hers["undos"] == 1

        page = await new_page(browser)
        await open_records(page, f"http://127.0.0.1:{server.port}/races/{race_id}")
        rows = [re.sub(r"\s+", " ", r) for r in await page.locator(".standings tbody tr").all_inner_texts()]
        assert winner.undos == 1
        assert rows[0].startswith(f"1 Ann finished 52/52 {winner.moves - 2} 1 0 "), (rows, winner.moves)

        # The move list (opened) marks the server's entries; a step says so in words.
        await page.click(".moves summary")
        marked = await page.eval_on_selector_all(".move-list button.served", "(bs) => bs.map((b) => b.dataset.step)")
        assert [int(step) - 1 for step in marked] == hers["auto"]
        said = await page.locator(".move-list button.served").all_inner_texts()
        assert all(text.endswith(" auto") for text in said), said
        assert await page.is_visible(".moves p.muted"), "the list says what 'auto' means"
        first = hers["auto"][0]
        await page.locator("#step").fill(str(first + 1))
        words = await page.inner_text("#step-text")
        assert f"{hers['moves'][first][1]} (auto-move)" in words, words
        # Counted as the standings count (her own moves and undos): "move 90 of 90" said 86.
        own = sum(1 for i in range(first + 1) if i not in hers["auto"])
        assert f"Ann: move {own} of {winner.moves} · " in words, words
        undo = next(i for i in hers["auto"] if hers["moves"][i][1] == "undo")
        await page.locator("#step").fill(str(undo + 1))
        assert "undo (took back the auto-move " in await page.inner_text("#step-text")

        await page.click("#verify")
        await page.wait_for_function(
            "() => ['verified', 'not-verified', 'missing', 'busy', 'error']"
            ".includes(document.querySelector('#verify-verdict').dataset.verdict)",
            timeout=WAIT_MS,
        )
        assert await page.inner_text("#verify-verdict") == "Verified: every check passed."
        checks = await page.eval_on_selector_all(
            "#verify-checks li", "(items) => items.map((li) => [li.dataset.check, li.dataset.state, li.innerText])"
        )
        assert [state for _, state, _ in checks] == ["passed"] * len(checks), checks
        ann = next(text for name, _, text in checks if name == f"racer {winner.player}")
        assert f"({len(hers['auto'])} by auto-move)" in ann, ann
        no_errors(page)
