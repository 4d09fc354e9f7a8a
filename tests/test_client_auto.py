"""The terminal client with auto-move on the server (issue 37, item 1), end to end: Textual's pilot
drives RaceApp against a real RaceServer; the rival and a live spectator are bare protocol clients.

The client asks for the opening's auto-moves with ``ready``, sends each of its moves with ``auto``
(one request, where it used to send every safe card as its own move), plays the same rule on its own
board at once, takes a move back with its auto-moves, and counts the player's own moves."""

from __future__ import annotations

from textual.widgets import Button, Input, Select

from client.apps.app import RaceApp
from client.board.optimistic import OptimisticBoard
from client.board.places import Place
from client.race.controller import RaceController
from client.screens.race_screen import RaceScreen
from protocol.messages import CreateRoom, JoinRoom, MoveRequest, Progress, Ready, Result, RoomState, Undo
from protocol.schema import Message
from seahaven import COLUMN, FOUNDATION, Board, Move
from server.app import RaceServer
from tests.client_driver import SIZE, connect, data_home, room_of, server, settle, top, until
from tests.helpers import url_of
from tests.racing import Line
from tests.wsclient import WsClient

__all__ = ["data_home", "server"]  # the autouse fixture: the data directory is a temporary one

DEAL = 5
"""A deal that opens with safe cards."""


async def create_room(app: RaceApp, pilot: object) -> RaceController:
    lobby = app.lobby
    lobby.query_one("#deal-kind", Select).value = "number"
    deal = lobby.query_one("#deal", Input)
    await until(pilot, lambda: not deal.disabled, "the deal field open")  # type: ignore[arg-type]
    deal.value = str(DEAL)
    lobby.query_one("#create", Button).press()
    await until(pilot, lambda: app.room is not None and isinstance(top(app), RaceScreen), "the room")  # type: ignore[arg-type]
    return room_of(app)


def spy_requests(room: RaceController) -> list[Message]:
    """Every request the room's outbox sends from now on."""
    sent: list[Message] = []
    put = room.outbox.put

    def spying(seq: int | None, message: Message) -> None:
        sent.append(message)
        put(seq, message)

    room.outbox.put = spying  # type: ignore[method-assign]
    return sent


def pick(screen: RaceScreen, move: Move) -> None:
    """Play ``move`` as clicks would: its source (the run's first card), then its destination."""
    source = Place(move.src_area, move.src)
    depth = len(screen.board.columns[move.src]) - move.count if move.src_area == COLUMN else None
    screen.pick(source, depth)
    screen.pick(Place(FOUNDATION, 0) if move.dst_area == FOUNDATION else Place(move.dst_area, move.dst))


async def test_the_server_plays_the_safe_cards_and_the_client_agrees(server: RaceServer) -> None:
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=True)
    bob = await WsClient.open(url_of(server), "bob")
    sue = await WsClient.open(url_of(server), "sue")
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        room = await create_room(app, pilot)
        sent = spy_requests(room)
        assert isinstance(await bob.call(JoinRoom(room=room.code)), RoomState)
        await until(pilot, lambda: len(room.model.racers) == 2, "the rival")
        await pilot.press("r")
        await until(pilot, lambda: room.model.my_status() == "ready", "ready")
        ready = [m for m in sent if isinstance(m, Ready)]
        assert ready and ready[-1].auto is True, "the opening's safe cards asked of the server"
        await bob.call(Ready())
        opening = Board.deal("seahaven", DEAL).autoplay()
        screen = room.screen
        await until(pilot, lambda: screen.board.progress == len(opening), "the opening's cards home")
        assert screen.board.move_stack == opening and screen.actions == 0
        assert not screen.game.can_undo, "the opening's are no one's to undo"
        watched = await sue.call(JoinRoom(room=room.code, spectate=True))
        assert isinstance(watched, RoomState)
        (mine,) = [w for w in watched.watching if w.player == room.model.me]
        assert mine.history == tuple(str(m) for m in opening)

        # Her moves: each one request with auto; the board the server has is the one she sees.
        line = Line(screen.board.copy())
        own = 0
        while True:
            move = line.next()
            before = screen.board.copy()
            pick(screen, move)
            own += 1
            line.board.push(move)
            brought = line.board.autoplay()
            await settle(pilot, room)
            assert screen.board.move_stack == line.board.move_stack
            if brought:
                break
        moves = [m for m in sent if isinstance(m, MoveRequest)]
        assert len(moves) == own and all(m.auto for m in moves), "one request per move of hers"
        racer = next(r for r in room.model.racers.values() if r.player == room.model.me)
        assert racer.moves == own and screen.actions == own

        # The undo takes her move back with the cards it sent home.
        await pilot.press("u")
        await settle(pilot, room)
        assert screen.board.move_stack == before.move_stack
        assert sum(isinstance(m, Undo) for m in sent) == 1

        # On to the win: the race is timed at her last own move, as the live spectator saw it.
        line = Line(screen.board.copy())
        while not line.board.is_won():
            move = line.next()
            pick(screen, move)
            line.board.push(move)
            line.board.autoplay()
            await settle(pilot, room)
        assert screen.board.is_won()
        await until(pilot, lambda: room.model.phase == "finished", "the result")
        result = await sue.expect(Result)  # the frames before it are kept in ``sue.events``
        winner = result.standings[0]
        assert winner.player == room.model.me and winner.moves == screen.actions
        hers = [p for p in sue.events if isinstance(p, Progress) and p.player == room.model.me]
        last = hers[-1]
        assert last.status == "finished" and last.move is not None and last.auto, "her move and its auto-moves"
        assert winner.time_ms == last.elapsed_ms, "timed at her last own move"
    for client in (bob, sue):
        await client.close()


def test_the_servers_auto_moves_are_the_boards_where_they_differ() -> None:
    board = Board.deal("seahaven", DEAL)
    game = OptimisticBoard(board)
    line = Line(board.copy())
    line.board.autoplay()
    game.play_auto(board.copy().autoplay())  # the opening's, final
    while True:
        move = line.next()
        seq = game.play(move, auto=True)
        line.board.push(move)
        line.board.autoplay()
        if game.auto_of(seq):
            break
        game.confirm(seq)
    played = game.auto_of(seq)
    assert played and board.move_stack == line.board.move_stack
    later = game.play(line.next(), auto=True)
    # Say the server played only the first of them: that is the board now, and the move played
    # after it (on the other board) is rolled back.
    dropped = game.take_servers_auto(seq, played[:1])
    assert [p.seq for p in dropped] == [later]
    assert board.move_stack == line.board.move_stack[: len(line.board.move_stack) - len(played) + 1]
    assert game.auto_of(seq) == played[:1] and game.confirm(seq)
    # The undo takes back the move and the one auto-move the server played.
    undo_seq, taken = game.undo()
    assert taken == move and game.auto_of(undo_seq) == played[:1]
    assert board.move_stack == line.board.move_stack[: len(line.board.move_stack) - len(played) - 1]


async def test_a_room_that_forbids_auto_move_gets_every_card_by_hand(server: RaceServer) -> None:
    bob = await WsClient.open(url_of(server), "bob")
    created = await bob.call(CreateRoom(deal_number=DEAL, auto=False))
    assert isinstance(created, RoomState) and created.auto is False
    app = RaceApp(url_of(server), "alice", autoconnect=False, automove=True)
    async with app.run_test(size=SIZE) as pilot:
        await connect(app, pilot)
        app.lobby.query_one("#code", Input).value = created.room
        await pilot.click("#join")
        await until(pilot, lambda: app.room is not None and isinstance(top(app), RaceScreen), "the room")
        room = room_of(app)
        assert "every card by hand" in " ".join(room.screen.view.cover)
        sent = spy_requests(room)
        await pilot.press("r")
        await bob.call(Ready())
        screen = room.screen
        await until(pilot, lambda: room.model.phase == "racing" and not screen.locked, "the start")
        assert screen.board.progress == 0, "no opening card sent home"
        assert not screen.auto_on()
        move = Board.deal("seahaven", DEAL).safe_home_moves()[0]
        pick(screen, move)
        await settle(pilot, room)
        requests = [m for m in sent if isinstance(m, MoveRequest | Ready)]
        assert [getattr(m, "auto", None) for m in requests] == [False, False]
        assert screen.board.move_stack == [move], "nothing but the card played"
    await bob.close()
