"""The networked client end to end: Textual's pilot drives RaceApp against a real RaceServer.

The rival is a bare protocol client (tests.wsclient.WsClient) on the same server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from textual.widgets import DataTable, Input, Select

from client.apps.app import RaceApp
from client.board.places import Place
from client.race.controller import RaceController
from client.screens.game_screen import GameScreen
from client.screens.lobby import LobbyScreen
from client.screens.race_screen import RaceScreen
from client.screens.results import ResultsScreen
from client.widgets.board_view import BoardView
from client.widgets.rivals import RacerView, RivalsPanel, status_text
from protocol.enums import Phase, Status
from protocol.messages import (
    CreateRoom,
    JoinRoom,
    Moved,
    MoveRequest,
    Ok,
    Ping,
    Pong,
    Progress,
    QuickMatch,
    Racer,
    Ready,
    Rematch,
    RoomState,
    Started,
    Undo,
    Watched,
)
from protocol.schema import Message
from seahaven import CELL, COLUMN, Board, Move, to_board_text
from server.app import RaceServer
from tests.client_driver import (
    SIZE,
    ScriptedConnection,
    board_after,
    connect,
    create_deal_1,
    data_home,
    enter_room,
    keys_of,
    play,
    race_bots,
    racing_state,
    room_of,
    room_requests,
    scripted_app,
    server,
    settle,
    shown,
    spectate,
    start_race,
    top,
    two_bots,
    until,
)
from tests.helpers import url_of
from tests.racing import solution
from tests.wsclient import WsClient

__all__ = ["data_home", "server"]  # the autouse fixture: the data directory is a temporary one

DEAL = Board.deal("seahaven", 1)


def place_of(key: str) -> Place:
    """The column (1-9, 0) or cell (a-h) a key names."""
    return Place(COLUMN, (int(key) - 1) % 10) if key.isdigit() else Place(CELL, ord(key) - ord("a"))


def rival(room: RaceController) -> RacerView:
    return next(v for v in shown(room) if not v.you)


# -- the whole race ---------------------------------------------------------------------


async def test_race_from_lobby_to_results_then_rematch_then_lobby(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    moves = solution()
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        screen = room.screen
        assert screen.view.cover[0] == f"Room {room.code}", "the code to share shows first"
        assert "1 of 2 racers" in " ".join(screen.view.cover)
        await start_race(app, pilot, bob, room)
        assert screen.board == DEAL and not screen.view.cover
        assert screen.clock.running

        # The first moves by real keypresses, the next two by clicks.
        for move in moves[:5]:
            await pilot.press(*keys_of(move))
        view = screen.view
        for move in moves[5:7]:  # 5a then d5: a column to a cell and back
            for key in keys_of(move):
                await pilot.click(BoardView, offset=view.point_of(place_of(key)))
        await settle(pilot, room)
        played = len(screen.board.move_stack)
        assert played >= 6
        assert screen.board.move_stack == list(moves[:played])
        seat = server.rooms[room.code].room.seats[room.model.me]
        assert seat.board is not None and seat.board.move_stack == list(moves[:played]), "the server has them"

        # The rival's bar moves when the rival plays.
        for move in moves[:5]:
            assert isinstance(await bob.call(MoveRequest(move=str(move))), Moved)
        await until(pilot, lambda: rival(room).progress == 3 and rival(room).moves == 5, "the rival's progress")

        # Finish: most moves through the screen's key action, the last ones by real keys.
        for move in moves[played:-4]:
            for key in keys_of(move):
                screen.action_pick(key)
        for move in moves[-4:]:
            await pilot.press(*keys_of(move))
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        results = top(app)
        assert isinstance(results, ResultsScreen)
        assert results.headline == "You win!"
        first, second = results.rows
        assert (first.place, first.name, first.status, first.progress, first.you) == (1, "alice", "finished", 52, True)
        assert first.time_ms is not None and first.moves == len(moves)
        assert (second.place, second.name, second.progress, second.you) == (2, "bob", 3, False)
        assert (second.status, second.time_ms) == ("did not finish", None)
        assert not screen.clock.running

        # Rematch: both ask, a new deal counts down and starts.
        await pilot.press("r")
        await until(pilot, lambda: room.asked_rematch and isinstance(top(app), RaceScreen), "back on the table")
        await until(pilot, lambda: "Rematch?" in view.cover, "the rematch wait")
        await bob.drain()
        await bob.call(Rematch())
        await until(pilot, lambda: room.model.race_number == 2 and room.model.phase == "racing", "the rematch race")
        started = await bob.expect(Started)
        assert room.model.deal == started.deal
        assert to_board_text(screen.board) == started.board and screen.board.move_stack == []
        assert all(v.progress == 0 for v in shown(room))

        # Leaving mid-race takes two presses, then the lobby shows again.
        await pilot.press("l")
        assert isinstance(top(app), RaceScreen) and "Press l again" in screen.message_text
        await pilot.press("l")
        await until(pilot, lambda: isinstance(top(app), LobbyScreen), "the lobby")
        assert f"You left room {room.code}" in app.lobby.status_text
        assert app.room is None
    await bob.close()


# -- refusals -------------------------------------------------------------------------------


async def test_a_refused_move_is_rolled_back_with_the_servers_reason(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        screen = room.screen
        # The race has not started: the screen refuses moves itself...
        await pilot.press("7", "0")
        assert screen.board.move_stack == []
        assert "has not started" in screen.message_text
        # ...so unlock it by force to make the server refuse one.
        screen.set_locked(None)
        screen.set_cover()
        sent: list[list[Move]] = []
        submit = room.submit

        def spy(seq: int, move: Move, auto: bool = False) -> None:
            sent.append(list(screen.board.move_stack))
            submit(seq, move, auto)

        room.submit = spy  # type: ignore[method-assign]
        await pilot.press("7", "0")
        await until(pilot, lambda: sent and not screen.game.pending, "the refusal")
        assert sent == [[Move.parse("70")]], "applied at once, then sent"
        assert screen.board.move_stack == [] and screen.board == DEAL, "rolled back"
        assert screen.message_text == "Refused: the race has not started yet"


async def test_lobby_explains_unreachable_servers_and_bad_codes(server: RaceServer) -> None:
    nowhere = RaceApp("ws://127.0.0.1:9", "alice", autoconnect=True, automove=False)
    async with nowhere.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "Cannot connect" in nowhere.lobby.status_text, "the connect error")
        assert "cannot reach ws://127.0.0.1:9" in nowhere.lobby.status_text
        assert nowhere.lobby.query_one("#columns").disabled, "no room controls without a session"

    # A full room and a race in progress, made by bare clients.
    ann, ben, cid, dan = [await WsClient.open(url_of(server), n) for n in ("ann", "ben", "cid", "dan")]
    full = await ann.call(CreateRoom())
    assert isinstance(full, RoomState)
    await ben.call(JoinRoom(room=full.room))
    racing = await cid.call(CreateRoom())
    assert isinstance(racing, RoomState)
    await dan.call(JoinRoom(room=racing.room))
    await cid.call(Ready())
    await dan.call(Ready())
    await cid.expect(Started)

    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        lobby = app.lobby
        await connect(app, pilot)
        code = lobby.query_one("#code", Input)
        for text, expected in (
            ("zzzzzz", "No room ZZZZZZ: check the code"),
            (full.room, f"Room {full.room} is full"),
            (racing.room, f"The race in room {racing.room} has already begun"),
        ):
            code.value = ""
            await pilot.click("#code")
            await pilot.press(*text, "enter")
            await until(pilot, lambda e=expected: e in lobby.status_text, expected)  # type: ignore[misc]
            assert isinstance(top(app), LobbyScreen)
        # The form's own checks, before anything is sent.
        lobby.query_one("#deal-kind", Select).value = "code"
        await pilot.pause()
        lobby.query_one("#deal", Input).value = "SH1-XX"
        await pilot.click("#create")
        assert "deal code is not valid" in lobby.status_text
        # A race in progress can still be watched.
        code.value = racing.room
        await pilot.click("#spectate")
        await until(pilot, lambda: app.room is not None, "spectating")
        room = room_of(app)
        assert room.role == "spectator" and room.model.phase == "racing"
        assert room.screen.locked == "Spectating: only racers move"
        assert not room.screen.view.cover and room.model.deal is not None, "spectators see a racer's board"
        assert room.screen.board == Board.from_code(room.model.deal) and room.screen.board.move_stack == []
        assert {v.name for v in shown(room)} == {"cid", "dan"}
        before = room.screen.board.copy()
        await pilot.press("7", "0")
        assert room.screen.board == before, "spectators cannot move"
        await cid.call(MoveRequest(move="3c"))
        await until(pilot, lambda: any(v.name == "cid" and v.moves == 1 for v in shown(room)), "cid's progress")
        assert room.spectate.watched == cid.player and room.screen.board.move_stack == [Move.parse("3c")]
    for client in (ann, ben, cid, dan):
        await client.close()


async def test_public_rooms_list_quick_match_and_spectate(server: RaceServer) -> None:
    host = await WsClient.open(url_of(server), "host")
    state = await host.call(CreateRoom(preset="seahaven", seats=3))
    assert isinstance(state, RoomState)
    hidden = await (await WsClient.open(url_of(server), "shy")).call(CreateRoom(public=False))
    assert isinstance(hidden, RoomState)
    app = RaceApp(url_of(server), "alice", autoconnect=True, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        lobby = app.lobby
        await until(pilot, lambda: bool(lobby.rooms), "the public rooms")
        await pilot.pause()  # the table appears: let the layout settle before clicking below it
        table = lobby.query_one("#rooms", DataTable)
        assert [r.room for r in lobby.rooms] == [state.room], "private rooms are not listed"
        assert table.get_row_at(0) == [state.room, "1/3", "0", "waiting", "Seahaven Towers"]
        # Spectate the listed room, then leave and quick-match: wait alone, until a racer comes.
        await pilot.click("#watch-selected")
        await until(pilot, lambda: app.room is not None, "the spectated room")
        room = room_of(app)
        assert room.role == "spectator" and room.code == state.room
        assert "You are watching" in " ".join(room.screen.view.cover)
        await pilot.press("l")
        await until(pilot, lambda: isinstance(top(app), LobbyScreen), "the lobby")
        await pilot.click("#quick")
        await until(pilot, lambda: app.room is not None, "the quick match")
        room = room_of(app)
        assert room.role == "racer" and room.code != state.room  # a room of her own, to wait in
        await until(pilot, lambda: "Looking for a racer near 1500 ±100" in room.screen.view.cover, "the window")
        waiter = await WsClient.open(url_of(server), "waiter")
        joined = await waiter.call(QuickMatch())
        assert isinstance(joined, RoomState) and joined.room == room.code
        await until(pilot, lambda: [v.name for v in shown(room)] == ["alice", "waiter"], "her partner")
        assert not any("Looking" in line for line in room.screen.view.cover)
        # Quick match asked to race: paired, she is ready with no second key, and the race starts
        # on her partner's ready alone.
        await until(pilot, lambda: room.model.my_status() == Status.READY, "alice ready by herself")
        await until(pilot, lambda: "you are ready" in room.screen.message_text, "said so")
        assert isinstance(await waiter.call(Ready(ready=True)), Ok)
        await until(pilot, lambda: room.model.phase in (Phase.COUNTDOWN, Phase.RACING), "the race")
    await host.close()
    await waiter.close()


# -- spectators follow the boards ---------------------------------------------------------------


def server_board(server: RaceServer, code: str, bot: WsClient) -> Board:
    board = server.rooms[code].room.seats[bot.player].board
    assert board is not None
    return board


def watched(room: RaceController) -> list[str]:
    """The racers the panel marks as watched."""
    return [v.name for v in shown(room) if v.watched]


def moves_of(room: RaceController, name: str) -> int:
    return next(v.moves for v in shown(room) if v.name == name)


async def test_spectator_follows_each_racers_board_and_switches_between_them(server: RaceServer) -> None:
    ann, ben, code = await two_bots(server)
    moves = solution()
    app = RaceApp(url_of(server), "sam", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        room = await spectate(app, pilot, code)
        screen = room.screen
        assert room.model.phase == "waiting" and not room.can_watch()
        assert "You are watching" in " ".join(screen.view.cover)
        await race_bots(ann, ben)
        await until(pilot, lambda: room.model.phase == "racing", "the start")
        # Everyone is level at the start: the first racer's board, the opening position.
        assert room.spectate.watched == ann.player and watched(room) == ["ann"]
        assert screen.board == DEAL and not screen.view.cover
        assert "Watching ann" in str(screen.info.content)

        # ann plays six moves and takes the last back; ben plays two.
        await play(ann, *moves[:6])
        assert isinstance(await ann.call(Undo()), Moved)
        await play(ben, *moves[:2])
        await until(pilot, lambda: moves_of(room, "ann") == 7 and moves_of(room, "ben") == 2, "every move")
        assert screen.board == board_after(moves[:5]) == server_board(server, code, ann)
        assert screen.board.move_stack == list(moves[:5]), "the undo took the sixth move back"
        assert f"{screen.board.progress}/52 home" in str(screen.info.content)

        # ] shows ben's board, [ goes back to ann's.
        await pilot.press("]")
        assert room.spectate.watched == ben.player and watched(room) == ["ben"]
        assert screen.board == board_after(moves[:2]) == server_board(server, code, ben)
        assert screen.board.move_stack == list(moves[:2])
        assert "Watching ben" in str(screen.info.content) and "ben's board" in screen.message_text
        # ann plays on meanwhile: ben's board stays on the screen, ann's is kept up to date.
        await play(ann, moves[5])
        await until(pilot, lambda: moves_of(room, "ann") == 8, "ann's next move")
        assert screen.board == board_after(moves[:2])
        await pilot.press("[")
        assert room.spectate.watched == ann.player and watched(room) == ["ann"]
        assert screen.board == board_after(moves[:6]) == server_board(server, code, ann)
        assert "Watching ann" in str(screen.info.content)
        # tab and shift+tab switch too (two racers: each goes to the other one).
        await pilot.press("tab")
        assert room.spectate.watched == ben.player and screen.board == board_after(moves[:2])
        await pilot.press("shift+tab")
        assert room.spectate.watched == ann.player and screen.board == board_after(moves[:6])

        # The board is read-only: a move's keys change nothing, here or on the server.
        await pilot.press(*keys_of(moves[6]))
        await pilot.pause(0.1)
        assert screen.board == board_after(moves[:6]) == server_board(server, code, ann)
        assert screen.locked == "Spectating: only racers move" and "only racers move" in screen.message_text

        # The race ends: the results show for the spectator too, and switching stops.
        await play(ann, *moves[6:])
        await until(pilot, lambda: isinstance(top(app), ResultsScreen), "the results")
        assert room.model.phase == "finished" and not room.can_watch()
        assert room.spectate.boards[ann.player] == board_after(moves) and room.spectate.boards[ann.player].is_won()
    for bot in (ann, ben):
        await bot.close()


async def test_spectator_joining_mid_race_sees_the_current_boards_and_after_a_drop(server: RaceServer) -> None:
    ann, ben, code = await two_bots(server)
    moves = solution()
    await race_bots(ann, ben)
    await play(ann, *moves[:2])
    await play(ben, *moves[:5])
    assert board_after(moves[:5]).progress > board_after(moves[:2]).progress, "ben leads"
    app = RaceApp(url_of(server), "sam", autoconnect=False, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        room = await spectate(app, pilot, code)
        screen = room.screen
        # Straight away: the leader's board as it is now, no cover.
        assert room.model.phase == "racing" and room.spectate.watched == ben.player and watched(room) == ["ben"]
        assert screen.board == board_after(moves[:5]) == server_board(server, code, ben)
        assert screen.board.move_stack == list(moves[:5]) and not screen.view.cover
        assert "Watching ben" in str(screen.info.content)
        await pilot.press("]")  # after the last racer comes the first again
        assert room.spectate.watched == ann.player
        assert screen.board == board_after(moves[:2]) == server_board(server, code, ann)
        # Moves after joining are played on top of the state.
        await play(ann, moves[2])
        await until(pilot, lambda: moves_of(room, "ann") == 3, "ann's move")
        assert screen.board == board_after(moves[:3]) and screen.board.move_stack == list(moves[:3])

        # Spoil the boards, then have the server drop the spectator (which takes them out of the
        # room): the client comes back, joins again and rebuilds every board from the room state.
        room.spectate.boards = {ann.player: DEAL.copy(), ben.player: DEAL.copy()}
        session = server.players[room.model.me]
        assert session.conn is not None
        await session.conn.close()
        await until(pilot, lambda: room.reconnecting, "the reconnecting state")
        await play(ben, moves[5])  # played while the spectator is away
        await until(pilot, lambda: not room.reconnecting, "the rejoin", wait=8)
        assert app.room is room and room.role == "spectator" and isinstance(top(app), RaceScreen)
        assert "Reconnected" in screen.message_text
        assert room.spectate.watched == ann.player, "still watching the same racer"
        assert screen.board == board_after(moves[:3]) == server_board(server, code, ann)
        assert room.spectate.boards[ben.player] == board_after(moves[:6]) == server_board(server, code, ben)
        await pilot.press("]")
        assert screen.board.move_stack == list(moves[:6])
        await play(ben, moves[6])
        await until(pilot, lambda: screen.board.move_stack == list(moves[:7]), "ben's move after the rejoin")
    for bot in (ann, ben):
        await bot.close()


# -- reconnecting ------------------------------------------------------------------------------


async def test_dropped_socket_reconnects_resyncs_the_board_and_play_goes_on(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=False)
    bob = await WsClient.open(url_of(server), "bob")
    moves = solution()
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_deal_1(app, pilot)
        await start_race(app, pilot, bob, room)
        screen = room.screen
        for move in moves[:3]:
            await pilot.press(*keys_of(move))
        await settle(pilot, room)
        # Make the local board wrong, then have the server drop us: the resync must fix it.
        screen.set_board(Board.deal("seahaven", 1))
        session = server.players[room.model.me]
        assert session.conn is not None
        await session.conn.close()
        await until(pilot, lambda: room.reconnecting, "the reconnecting state")
        assert "reconnecting" in str(screen.info.content)
        await until(pilot, lambda: not room.reconnecting, "the resync", wait=8)
        assert screen.board.move_stack == list(moves[:3])
        assert "Reconnected" in screen.message_text
        assert server.players[room.model.me].conn is not None
        # Play goes on: a keypress move is accepted by the server.
        await pilot.press(*keys_of(moves[3]))
        await settle(pilot, room)
        seat = server.rooms[room.code].room.seats[room.model.me]
        assert seat.board is not None and seat.board.move_stack == list(moves[:4])
        # A rival who drops shows as disconnected.
        await bob.close()
        await until(pilot, lambda: not rival(room).connected, "bob disconnected")
        assert status_text(rival(room))[0] == "disconnected"
        assert isinstance(top(app), GameScreen)


def test_cli_starts_the_lobby_with_the_address_and_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import client.__main__ as client_main

    seen: list[tuple[str, str, str]] = []

    def fake_run(self: RaceApp) -> None:
        seen.append((self.server, self.player_name, self.lobby.server))

    monkeypatch.setattr(RaceApp, "run", fake_run)
    assert client_main.main(["ws://example.org:9000", "--name", "zoe"]) == 0
    assert client_main.main([]) == 0
    assert seen[0] == ("ws://example.org:9000", "zoe", "ws://example.org:9000")
    assert seen[1][0] == "ws://127.0.0.1:8765" and seen[1][1], "the default address and a default name"


# -- corner cases against a scripted connection ----------------------------------------------


def moved(status: str, undo: bool = False) -> Callable[[Message], Message]:
    return lambda m: Moved(move="70", undo=undo, progress=0, moves=1, status=status, elapsed_ms=1000)


@pytest.mark.parametrize("undo", [True, False])
async def test_stuck_racer_may_undo_only_when_the_room_allows(undo: bool) -> None:
    ScriptedConnection.replies = {
        "join_room": lambda m: racing_state(undo),
        "move": moved("stuck"),
        "undo": moved("racing", undo=True),
    }
    app = scripted_app()
    async with app.run_test(size=SIZE) as pilot:
        room = await enter_room(app, pilot, "#join")
        await pilot.press("]", "tab")  # a racer's board is their own: no switching
        assert not room.can_watch() and room.screen.board == DEAL and not room.spectate.boards
        assert "right_square_bracket" not in room.screen.active_bindings and "tab" not in room.screen.active_bindings
        assert "Switching" not in room.screen.message_text, "the keys are off for racers, not refused"
        await pilot.press("7", "0")
        await until(pilot, lambda: room.model.my_status() == "stuck", "stuck")
        if undo:
            assert room.screen.locked is None
            await pilot.press("u")
            await until(pilot, lambda: room.model.my_status() == "racing", "racing again")
            assert room_requests(ScriptedConnection.last) == [
                "join_room",
                "move",
                "undo",
            ]
            assert room.screen.board == DEAL
        else:
            assert room.screen.locked is not None and "out of this race" in room.screen.locked
            await pilot.press("u")
            assert room_requests(ScriptedConnection.last) == ["join_room", "move"]


async def test_a_spectator_plays_each_racers_move_once() -> None:
    """A move the room state already had (it may arrive just after the state) is not played again."""
    moves = solution()
    racers = tuple(
        Racer(
            player=p, name=p, status="racing", connected=True, progress=board_after(h).progress, moves=3, time_ms=None
        )
        for p, h in (("ann", moves[:1]), ("bob", moves[:3]))
    )
    watching = (
        Watched(player="ann", history=(str(moves[0]),), actions=3),
        Watched(player="bob", history=tuple(map(str, moves[:3])), actions=3),
    )
    state = replace(racing_state(True), role="spectator", racers=racers, watching=watching)
    ScriptedConnection.replies = {"join_room": lambda m: state}
    app = scripted_app()
    async with app.run_test(size=SIZE) as pilot:
        room = await enter_room(app, pilot, "#spectate")
        assert room.spectate.watched == "bob" and room.screen.board == board_after(moves[:3]), (
            "bob leads: 1 card home to 0"
        )
        assert "» bob" in str(room.screen.query_one(RivalsPanel).render())
        conn = ScriptedConnection.last

        def progress(player: str, n: int, move: str, played: int) -> Progress:
            home = board_after(moves[:played]).progress
            return Progress(player=player, progress=home, moves=n, status="racing", elapsed_ms=1000, move=move)

        conn.on_event(progress("bob", 3, str(moves[2]), 3))  # already in the state
        conn.on_event(progress("bob", 4, str(moves[3]), 4))
        # ann played two moves and took the second back (3 actions): the undo is in the state too.
        conn.on_event(progress("ann", 3, "undo", 1))
        conn.on_event(progress("ann", 4, str(moves[1]), 2))
        await until(pilot, lambda: room.model.racers["ann"].moves == 4, "the progress")
        assert room.screen.board.move_stack == list(moves[:4])
        assert "right_square_bracket" in room.screen.active_bindings, "the switching keys are on"
        await pilot.press("[")
        assert room.spectate.watched == "ann" and room.screen.board.move_stack == list(moves[:2])


async def test_room_gone_after_a_reconnect_goes_back_to_the_lobby() -> None:
    ScriptedConnection.replies = {"join_room": lambda m: racing_state(True), "ping": lambda m: Pong(server_time=0)}
    app = scripted_app()
    async with app.run_test(size=SIZE) as pilot:
        room = await enter_room(app, pilot, "#join")
        conn = ScriptedConnection.last
        conn.on_status("reconnecting")
        await until(pilot, lambda: room.screen.locked == "Connection lost: reconnecting…", "the lock")
        # Welcome still names the room, but no room frame comes before the pong.
        assert conn.welcome is not None
        conn.welcome = replace(conn.welcome, room="ABCDEF")
        conn.on_status("connected")
        await until(pilot, lambda: isinstance(top(app), LobbyScreen), "the lobby")
        assert "Room ABCDEF is gone" in app.lobby.status_text
        assert any(isinstance(m, Ping) for m in conn.sent), "it asked"
        # Its deal is not lost with it: the New room form holds it, and Enter there races it again.
        assert "Enter races its deal again" in app.lobby.status_text
        assert room.model.deal is not None
        assert app.lobby.query_one("#deal-kind", Select).value == "code"
        deal = app.lobby.query_one("#deal", Input)
        assert deal.value == room.model.deal
        await until(pilot, lambda: deal.has_focus, "the deal's field focused")
        ScriptedConnection.replies["create_room"] = lambda m: racing_state(True)
        await pilot.press("enter")
        await until(pilot, lambda: any(isinstance(m, CreateRoom) for m in conn.sent), "a room asked for")
        (asked,) = [m for m in conn.sent if isinstance(m, CreateRoom)]
        assert asked.deal_code == room.model.deal


async def test_lobby_reconnects_by_itself(server: RaceServer, monkeypatch: pytest.MonkeyPatch) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=True, automove=False)
    async with app.run_test(size=SIZE) as pilot:
        lobby = app.lobby
        await until(pilot, lambda: "Connected to" in lobby.status_text, "connected")
        # Every line the lobby said, with whether its room form was shut then: a quick
        # reconnection may pass "reconnecting" between two looks at the screen.
        said: list[tuple[str, bool]] = []
        show = lobby.show_status

        def heard(text: str, kind: str = "info") -> None:
            show(text, kind)
            said.append((text, lobby.query_one("#columns").disabled))

        monkeypatch.setattr(lobby, "show_status", heard)
        player = app.conn.player if app.conn else None
        session = server.players[player or ""]
        assert session.conn is not None
        await session.conn.close()
        await until(pilot, lambda: lobby.status_text == "Connected again", "back", wait=8)
        texts = [text for text, _shut in said]
        assert texts[0] == "Connection lost: reconnecting…" and said[0][1], said  # the form shut while away
        assert texts[-1] == "Connected again", said
        assert not lobby.query_one("#columns").disabled and app.conn is not None and app.conn.player == player
