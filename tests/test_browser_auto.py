"""Auto-move on the server, from the browser (docs/protocol.md, section 9, "Auto-move"), in Debian's
Chromium against a real server process.

A page with auto-move on plays a move and its auto-moves on its board at once and sends ONE `move`
with `auto` true (not one request per safe card); an undo takes the move back with them; the
opening's safe cards come from the server (`ready.auto`); a room made without auto-move says so and
plays every card by hand; a spectator page follows moves that bring auto-moves and undos that take
them back. The frames a page sends and gets are read off its WebSockets (msgpack) as they pass.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from playwright.async_api import Browser, Page, WebSocket

from protocol.messages import CreateRoom, JoinRoom, Moved, MoveRequest, Ok, Progress, Ready, Result, RoomState, Undo
from seahaven import Board, Move, to_board_text
from seahaven.solver import solve
from tests.browser_pages import AUTO_OFF, WAIT_MS, http, js, key_move, no_errors, server, watched, ws
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.usefixtures("close_pages")]

SOLUTION: tuple[Move, ...] = solve(Board.deal("seahaven", 1)).moves

__all__ = ["server"]  # the module's server process, a fixture


class Frames:
    """Every frame a page sends and gets on any of its WebSockets (it opens a new one at the
    room's address), decoded: sent ``{type, seq, body}``, got ``{type, re, body}``."""

    def __init__(self, page: Page) -> None:
        self.sent: list[dict[str, Any]] = []
        self.got: list[dict[str, Any]] = []
        page.on("websocket", self._socket)

    def _socket(self, socket: WebSocket) -> None:
        socket.on("framesent", lambda payload: self.sent.append(_frame(payload)))
        socket.on("framereceived", lambda payload: self.got.append(_frame(payload)))

    def requests(self, kind: str) -> list[dict[str, Any]]:
        """The bodies of the requests of ``kind`` sent so far (a resent one counted once)."""
        seen: dict[int, dict[str, Any]] = {}
        for frame in self.sent:
            if frame.get("type") == kind:
                seen.setdefault(frame["seq"], frame["body"])
        return list(seen.values())

    def replies(self, kind: str) -> list[dict[str, Any]]:
        return [frame["body"] for frame in self.got if frame.get("type") == kind and frame.get("re") is not None]


def _frame(payload: str | bytes) -> dict[str, Any]:
    if isinstance(payload, str):
        return {"text": payload}
    frame = msgpack.unpackb(payload, raw=False)
    assert isinstance(frame, dict)
    return frame


async def open_page(browser: Browser, url: str, name: str, *, auto: bool = True) -> tuple[Page, Frames]:
    """A page at ``url`` that has said ``name``; auto-move on unless ``auto`` is false; its frames."""
    context = await browser.new_context(viewport={"width": 1200, "height": 900})
    if not auto:
        await context.add_init_script(AUTO_OFF)
    page = watched(await context.new_page())
    frames = Frames(page)
    await page.goto(url)
    await page.fill("#name", name)
    await page.click("text=Continue")
    await page.wait_for_function("() => window.seahaven.me !== null", timeout=WAIT_MS)
    return page, frames


async def settled(page: Page) -> None:
    await page.wait_for_function("() => window.seahaven.pending.length === 0", timeout=WAIT_MS)


async def board_text(page: Page) -> str:
    await settled(page)
    text = await js(page, "window.seahaven.board.text()")
    assert isinstance(text, str)
    return text


async def race_py(server: ServerProcess, browser: Browser, deal: int = 1, **room: Any) -> tuple[WsClient, Page, Frames]:
    """Py (a protocol client) makes a room on ``deal``; a page with auto-move on ("Web") joins it
    by its link; both ready, the race on."""
    py = await WsClient.open(ws(server), "Py")
    state = await py.call(CreateRoom(deal_number=deal, **room))
    assert isinstance(state, RoomState)
    page, frames = await open_page(browser, http(server, f"/r/{state.room}"), "Web")
    await page.wait_for_selector("#ready", timeout=WAIT_MS)
    assert isinstance(await py.call(Ready()), Ok)
    await page.click("#ready")
    await page.wait_for_function(
        "() => window.seahaven.room?.phase === 'racing' && document.querySelector('.board') !== null", timeout=WAIT_MS
    )
    return py, page, frames


async def test_a_move_that_frees_safe_cards_is_one_request_and_undo_takes_them_all_back(
    server: ServerProcess, browser: Browser
) -> None:
    py, page, frames = await race_py(server, browser)
    assert frames.requests("ready")[-1].get("auto") is True  # asked for the opening's safe cards too
    assert await page.is_checked("#auto-move")
    assert await page.is_disabled("#undo")  # no move of mine to take back yet
    board = Board.deal("seahaven", 1)
    board.autoplay()  # deal 1 opens with none: the board is the deal's
    assert await board_text(page) == to_board_text(board)

    # The solver's second move frees the 3 of clubs in column 4's foot... and three cards go home.
    first, second = SOLUTION[:2]
    await key_move(page, first)
    board.push(first)
    assert board.autoplay() == []
    assert await board_text(page) == to_board_text(board)
    before = to_board_text(board)
    sent = len(frames.requests("move"))
    await key_move(page, second)
    board.push(second)
    auto = [str(m) for m in board.autoplay()]
    assert len(auto) == 3, auto
    assert await board_text(page) == to_board_text(board)  # the cards home on the page at once
    assert await js(page, "window.seahaven.board.progress") == 3
    await page.wait_for_selector("[aria-label='Web: 3 of 52 cards home']", timeout=WAIT_MS)
    assert frames.requests("move")[sent:] == [{"move": str(second), "auto": True}], "one request, not four"
    moved = frames.replies("moved")[-1]
    assert moved["auto"] == auto and moved["moves"] == 2 and moved["progress"] == 3
    assert await page.inner_text(".controls .mine") == "3/52 home · 2 moves"  # the player's own moves

    # Undo takes the move back with its three auto-moves: one request, the server agrees.
    await page.keyboard.press("u")
    assert await board_text(page) == before
    assert len(frames.requests("undo")) == 1
    undone = frames.replies("moved")[-1]
    assert undone["undo"] is True and undone["undone"] == 4 and undone["progress"] == 0 and undone["moves"] == 3
    progress = await py.expect(Progress, where=lambda p: p.moves == 3)
    assert progress.progress == 0
    # The counter takes the move back (issue 38, bug 9): the server's 3 are two moves and an undo.
    assert await page.inner_text(".controls .mine") == "0/52 home · 1 move · 1 undo"

    # The page plays the rest of the solution: one request per move of the player's, each asking
    # for auto-move; the race's time is the server's time of the winning (own) move.
    own = 3  # two moves and an undo
    for _ in range(4):
        board.pop()
    for move in SOLUTION[1:]:
        if not board.is_legal(move):
            continue  # auto-move played it already
        await key_move(page, move)
        board.push(move)
        board.autoplay()
        own += 1
        if board.is_won():
            break
    assert board.is_won()
    result = await py.expect(Result)
    assert result.reason == "won"
    web = result.standings[0]
    assert web.name == "Web" and web.moves == own and web.undos == 1
    await page.wait_for_selector("#moment", timeout=WAIT_MS)
    assert await page.inner_text("#moment") == "You won!"
    await settled(page)  # every reply in, and so in the frames read
    moves = frames.requests("move")
    assert len(moves) == own - 1 and all(m.get("auto") is True for m in moves)
    last = frames.replies("moved")[-1]
    assert last["status"] == "finished" and last.get("auto"), last
    assert web.time_ms == last["elapsed_ms"], "timed at the player's own last move"
    await py.close()
    no_errors(page)


async def test_the_openings_safe_cards_come_from_the_server_and_are_nobodys_to_undo(
    server: ServerProcess, browser: Browser
) -> None:
    opening = Board.deal("seahaven", 2)
    safe = [str(m) for m in opening.autoplay()]
    assert len(safe) >= 2, "deal 2 opens with cards to send home"
    py, page, frames = await race_py(server, browser, deal=2)
    await page.wait_for_function(f"() => window.seahaven.board?.progress === {len(safe)}", timeout=WAIT_MS)
    assert await board_text(page) == to_board_text(opening)
    progress = await py.expect(Progress, where=lambda p: p.progress == len(safe))
    assert progress.moves == 0, "the server's moves, not the player's"
    assert frames.requests("move") == []
    assert await page.is_disabled("#undo")
    await page.keyboard.press("u")  # the key says so rather than ask
    await page.wait_for_function("() => document.querySelector('#toast').textContent === 'nothing to undo'")
    assert frames.requests("undo") == []
    await py.close()
    no_errors(page)


async def test_a_room_without_auto_move_says_so_and_plays_every_card_by_hand(
    server: ServerProcess, browser: Browser
) -> None:
    page, frames = await open_page(browser, http(server), "Hand")
    await page.fill("input[name=deal]", "1")
    assert await page.is_checked("input[name=auto]")  # allowed by default
    await page.uncheck("input[name=auto]")
    await page.click("text=Create room")
    await page.wait_for_selector("#room-code", timeout=WAIT_MS)
    assert frames.requests("create_room")[-1].get("auto") is False
    assert "no auto-move" in await page.inner_text(".room-head .facts")
    py = await WsClient.open(ws(server), "Py")
    assert isinstance(await py.call(JoinRoom(room=await page.inner_text("#room-code"))), RoomState)
    assert isinstance(await py.call(Ready()), Ok)
    await page.click("#ready")
    await page.wait_for_selector("#auto-move", timeout=WAIT_MS)
    assert "auto" not in frames.requests("ready")[-1]
    assert await page.is_disabled("#auto-move") and not await page.is_checked("#auto-move")
    title = await page.get_attribute(".check.auto", "title")
    assert title is not None and "by hand" in title
    board = Board.deal("seahaven", 1)
    for move in SOLUTION[:2]:
        await key_move(page, move)
        board.push(move)
    assert await board_text(page) == to_board_text(board), "the freed 3 of clubs stays where it is"
    assert [m.get("auto") for m in frames.requests("move")] == [None, None]
    assert await js(page, "window.seahaven.board.progress") == 0
    await page.keyboard.press("m")  # the key says so too
    await page.wait_for_function("() => document.querySelector('#toast').textContent.includes('by hand')")
    await py.close()
    no_errors(page)


async def test_a_spectator_page_plays_auto_moves_and_takes_them_back(server: ServerProcess, browser: Browser) -> None:
    ann, bob = await WsClient.open(ws(server), "Ann"), await WsClient.open(ws(server), "Bob")
    state = await ann.call(CreateRoom(deal_number=1))
    assert isinstance(state, RoomState)
    page, _ = await open_page(browser, http(server, f"/r/{state.room}?watch"), "Sue")
    await page.wait_for_function("() => window.seahaven.room?.role === 'spectator'", timeout=WAIT_MS)
    assert isinstance(await bob.call(JoinRoom(room=state.room)), RoomState)
    for client in (ann, bob):
        assert isinstance(await client.call(Ready(auto=True)), Ok)
    await page.wait_for_function("() => window.seahaven.room.phase === 'racing'", timeout=WAIT_MS)
    seen = f"window.seahaven.boards.get({ann.player!r})?.text()"  # a late page has no board at first
    board = Board.deal("seahaven", 1)
    for n, move in enumerate(SOLUTION[:20]):
        if not board.is_legal(move):
            continue
        reply = await ann.call(MoveRequest(move=str(move), auto=True))
        assert isinstance(reply, Moved)
        board.push(move)
        assert [str(m) for m in board.autoplay()] == list(reply.auto)
        if n == 1:  # the move with three auto-moves, then its undo
            await page.wait_for_function(f"() => {seen} === {to_board_text(board)!r}", timeout=WAIT_MS)
            undone = await ann.call(Undo())
            assert isinstance(undone, Moved) and undone.undone == 4
            for _ in range(4):
                board.pop()
            await page.wait_for_function(f"() => {seen} === {to_board_text(board)!r}", timeout=WAIT_MS)
            assert isinstance(await ann.call(MoveRequest(move=str(move), auto=True)), Moved)
            board.push(move)
            board.autoplay()
    await page.wait_for_function(f"() => {seen} === {to_board_text(board)!r}", timeout=WAIT_MS)
    # A spectator who comes now starts from watching (with its actions) and follows on.
    late, _ = await open_page(browser, http(server, f"/r/{state.room}?watch"), "Lee")
    await late.wait_for_function(f"() => {seen} === {to_board_text(board)!r}", timeout=WAIT_MS)
    for move in SOLUTION[20:30]:
        if board.is_legal(move):
            assert isinstance(await ann.call(MoveRequest(move=str(move), auto=True)), Moved)
            board.push(move)
            board.autoplay()
    for watcher in (page, late):
        await watcher.wait_for_function(f"() => {seen} === {to_board_text(board)!r}", timeout=WAIT_MS)
    for client in (ann, bob):
        await client.close()
    no_errors(page)
    no_errors(late)
