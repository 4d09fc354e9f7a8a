"""One room, from joining to the results: the server's messages drive a race screen.

``RaceController`` sits between a ``client.net.RaceConnection`` and a ``RaceScreen`` (a
``GameScreen`` with a Ready and a Leave key). It turns room events (``RoomState``,
``Members``, ``Countdown``, ``Started``, ``Progress``, ``Result``) into screen calls, and the
screen's actions (the ``MoveSink`` protocol) into requests, sent one at a time in order:

- a move or undo is already on the screen (optimistic); its ``moved`` reply confirms it,
  an ``error`` reply rolls it back with its reason (and drops the later queued actions,
  which the screen rolled back too);
- when the socket drops, the connection reconnects by itself; the screen is locked
  meanwhile, and the ``RoomState`` the server sends after the reconnect replaces the
  board (deal + history), the racers and the phase.

A spectator keeps every racer's board (the opening position of ``Started``, then each
``Progress.move``; ``RoomState.watching`` rebuilds them on joining or reconnecting) and the
screen shows one of them, read-only: the leader's at first, ``[`` / ``]`` switch.

The host (``client.app.RaceApp``) owns the connection, pushes the screen and takes the
player back to the lobby; see ``RaceHost``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Coroutine, Iterable
from dataclasses import replace
from typing import Any, ClassVar, Final, Protocol

from textual.binding import Binding, BindingType
from textual.timer import Timer

from protocol.messages import (
    Countdown,
    Leave,
    Members,
    Moved,
    MoveRequest,
    Ping,
    Progress,
    Racer,
    Ready,
    Rematch,
    Resign,
    Result,
    RoomState,
    Standing,
    Started,
    Undo,
    Watched,
)
from protocol.schema import Message
from seahaven import Board, Move, parse_board, preset

from .game_screen import GameScreen, PressTwice
from .net import ConnectionLost, ServerError
from .results import LOBBY, REMATCH, ResultRow, ResultsScreen
from .rivals import RacerStatus, RacerView, plural

log = logging.getLogger("seahaven.client")

OUT_OF_RACE: Final = {
    "stuck": "No legal move is left, and undo is off: you are out of this race",
    "resigned": "You resigned this race",
    "forfeit": "You were away too long: the race went on without you",
    "finished": "All 52 cards home: you finished!",
}


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class ServerClock:
    """The server's clock seen from here: ``offset`` = server time - local time when last heard."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def sync(self, server_time: int) -> None:
        self.offset_ms = server_time - now_ms()

    def now(self) -> int:
        return now_ms() + self.offset_ms


class Requester(Protocol):
    """What the controller needs of a ``RaceConnection``."""

    @property
    def player(self) -> str | None: ...

    async def request(self, message: Message) -> Message: ...


class RaceHost(Protocol):
    """What the controller needs of the App: show its screen, run tasks, go back to the lobby."""

    async def show_race_screen(self, screen: RaceScreen) -> None: ...

    def start_task(self, work: Coroutine[Any, Any, None], name: str) -> None: ...

    def back_to_lobby(self, message: str | None = None, kind: str = "info") -> None: ...


def board_from_state(deal: str | None, history: Iterable[str], board_text: str | None, preset_name: str) -> Board:
    """The racer's position: the deal replayed move by move (undo works), else the server's text."""
    if deal is not None:
        try:
            board = Board.from_code(deal)
            for text in history:
                board.push_text(text)
            return board
        except ValueError as error:  # IllegalMoveError is a ValueError too
            log.warning("cannot replay %s: %s; using the server's board text", deal, error)
    if board_text is not None:
        return parse_board(board_text, preset_name)
    return Board.deal(preset_name, 1)


def replay(opening: Board, history: Iterable[str]) -> Board:
    """``opening`` with ``history`` played on a copy (as far as the moves are legal)."""
    board = opening.copy()
    for text in history:
        try:
            board.push_text(text)
        except ValueError as error:
            log.warning("cannot replay %s on a watched board: %s", text, error)
            break
    return board


def headline(reason: str, standings: tuple[Standing, ...], me: str) -> str:
    """The results' first line, from the player's point of view."""
    if not standings:
        return "Race over"
    first = standings[0]
    who = "you" if first.player == me else first.name
    if reason == "won":
        return "You win!" if first.player == me else f"{first.name} wins"
    if reason == "time-limit":
        return f"Time is up: {who} got furthest"
    if reason == "all-done":
        return f"Nobody finished: {who} got furthest"
    return "Race abandoned"


class RaceScreen(GameScreen):
    """The game screen of a room: adds Ready (``r``) and Leave (``l``, twice during a race)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "ready", "Ready"),
        Binding("l", "leave", "Leave room"),
        Binding("left_square_bracket", "watch(-1)", "Previous racer", key_display="["),
        Binding("right_square_bracket", "watch(1)", "Next racer", key_display="]"),
        Binding("shift+tab", "watch(-1)", "Previous racer", show=False),
        Binding("tab", "watch(1)", "Next racer", show=False),
    ]

    def __init__(self, controller: RaceController, board: Board, *, undo_allowed: bool, title: str) -> None:
        super().__init__(board, sink=controller, race=True, undo_allowed=undo_allowed, title=title)
        self.controller = controller

    def action_ready(self) -> None:
        self.controller.toggle_ready()

    def action_leave(self) -> None:
        self.controller.ask_leave()

    def action_watch(self, step: int) -> None:
        self.controller.watch(step)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        c = self.controller
        if action == "ready":
            return c.can_ready()
        if action == "resign":
            return c.racing_now()
        if action == "undo":
            return self.undo_allowed and (c.racing_now() or c.stuck_now())
        if action == "smart":
            return c.racing_now()
        if action == "watch":
            return c.can_watch()
        return super().check_action(action, parameters)


class RaceController:
    """A room on one connection; also the race screen's ``MoveSink``."""

    def __init__(self, host: RaceHost, conn: Requester, state: RoomState) -> None:
        self.host = host
        self.conn = conn
        self.me = state.you
        self.code = state.room
        self.preset = state.preset
        self.state = state
        self.role = state.role
        self.phase = state.phase
        self.deal: str | None = state.deal
        self.racers: dict[str, Racer] = {r.player: r for r in state.racers}
        self.rematch: set[str] = set(state.rematch)
        self.spectators = state.spectators
        self.clock = ServerClock()
        self.clock.sync(state.server_time)
        self.starts_at: int | None = None
        self.limit_ms: int | None = state.time_limit * 1000 if state.time_limit else None
        self.reconnecting = False
        self._reconnects = 0
        self.race_number = 0
        """Races started on this screen; ``results_for`` says which one's results were shown
        (a resync after the results must not show them again)."""
        self.results_for: int | None = None
        self.results_open = False
        self.asked_rematch = False
        self.closed = False
        self.queue: asyncio.Queue[tuple[int | None, Message]] = asyncio.Queue()
        self._lock_reason: str | None = "…"
        self._countdown_timer: Timer | None = None
        self._press_twice = PressTwice()
        self.boards: dict[str, Board] = {}
        """A spectator's copy of every racer's board, by player id."""
        self.watched: str | None = None
        """The racer whose board a spectator's screen shows."""
        self.actions: dict[str, int] = {}
        """How many of each racer's actions (moves and undos: ``Racer.moves``) their board has."""
        rules = preset(state.preset)
        self.screen = RaceScreen(
            self,
            Board.deal(state.preset, 1),
            undo_allowed=state.undo,
            title=f"Room {self.code} · {rules.title}",
        )

    # -- life -----------------------------------------------------------------

    async def start(self) -> None:
        """Show the screen, start sending, and show the room as the server described it."""
        await self.host.show_race_screen(self.screen)
        self.host.start_task(self._pump(), f"room-{self.code}")
        self.apply_state(self.state)

    def stop(self) -> None:
        self.closed = True
        self._stop_countdown()
        self._drop_queued(all_=True)
        self.queue.put_nowait((None, Leave()))  # wakes the pump, which sees ``closed`` and ends

    # -- server messages --------------------------------------------------------

    def handle(self, message: Message) -> None:
        """A server event for this room."""
        if self.closed:
            return
        if isinstance(message, RoomState):
            self.apply_state(message)
        elif isinstance(message, Members):
            self.racers = {r.player: r for r in message.racers}
            self.rematch = set(message.rematch)
            self.spectators = message.spectators
            self._refresh()
        elif isinstance(message, Countdown):
            self.clock.sync(message.server_time)
            if message.starts_at is None:
                self.phase = "waiting"
                self._stop_countdown()
                self.screen.flash("Countdown stopped: a racer is no longer ready", "error")
            else:
                self.phase = "countdown"
                self._start_countdown(message.starts_at)
            self._refresh()
        elif isinstance(message, Started):
            self._started(message)
        elif isinstance(message, Progress):
            racer = self.racers.get(message.player)
            if racer is not None:
                self.racers[message.player] = replace(
                    racer,
                    progress=message.progress,
                    moves=message.moves,
                    status=message.status,
                    time_ms=message.time_ms,
                )
            if self.role == "spectator" and message.move is not None:
                self._watch_move(message.player, message.move, message.moves, message.progress)
            self._sync_clock(message.elapsed_ms)
            self._refresh()
        elif isinstance(message, Result):
            self._finished(message.reason, message.standings)

    def apply_state(self, state: RoomState) -> None:
        """The whole room (after joining, a reconnect or a rematch): show exactly this."""
        self.state = state
        self.me = state.you
        self.role = state.role
        self.clock.sync(state.server_time)
        self.racers = {r.player: r for r in state.racers}
        self.rematch = set(state.rematch)
        self.spectators = state.spectators
        self.limit_ms = state.time_limit * 1000 if state.time_limit else None
        self.screen.set_undo_allowed(state.undo)
        was_reconnecting, self.reconnecting = self.reconnecting, False
        new_phase = state.phase
        if new_phase in ("waiting", "countdown") and self.phase in ("racing", "finished"):
            self.asked_rematch = False  # a rematch began
            self._close_results()
            self.screen.clock.reset()
        self.phase = new_phase
        self._stop_countdown()
        self.screen.set_countdown(None)
        if new_phase == "countdown" and state.starts_at is not None:
            self._start_countdown(state.starts_at)
        if new_phase in ("racing", "finished") and state.deal is not None:
            self.deal = state.deal
        if new_phase == "racing" and state.started_at is not None:
            self.screen.start_clock(max(0, self.clock.now() - state.started_at), self.limit_ms)
        if new_phase in ("racing", "finished") and state.deal is not None and self.role == "racer":
            board = board_from_state(state.deal, state.history, state.board, state.preset)
            self.screen.set_board(board, title=self._title())
        if new_phase in ("racing", "finished") and state.deal is not None and self.role == "spectator":
            self._watch_all(Board.from_code(state.deal), state.watching)
        elif self.boards:
            self.boards.clear()  # a rematch deals new boards
            self.actions.clear()
            self.screen.show_board(self.screen.board, title=self._title())
        if new_phase == "finished" and state.standings:
            won = any(s.status == "finished" for s in state.standings)
            self._finished("won" if won else "all-done", state.standings)
        self._refresh()
        if was_reconnecting:
            self.screen.flash("Reconnected: the board is in sync with the server again", "good")
        elif self.can_watch():
            self._flash_watching()

    def on_status(self, status: str) -> None:
        """The connection's state: reconnecting, connected, closed, replaced."""
        if self.closed:
            return
        if status == "reconnecting":
            self.reconnecting = True
            self._drop_queued(all_=True)
            self._refresh()
            self.screen.flash("Connection lost: reconnecting…", "error")
        elif status == "connected" and self.reconnecting:
            self.screen.flash("Reconnected: catching up with the room…")
            self._reconnects += 1
            self.host.start_task(self._probe(self._reconnects), "resync-probe")
        elif status == "closed":
            self.host.back_to_lobby("Lost the connection to the server; connect again to play on", "error")
        elif status == "replaced":
            self.host.back_to_lobby("This session was opened in another window", "error")

    async def _probe(self, attempt: int) -> None:
        """Back online: a ``room`` frame follows if we are still in the room, and comes before
        the answer to a ping (docs/protocol.md, section 10). Check once the App has handled
        what arrived before the pong."""
        try:
            await self.conn.request(Ping())
        except (ServerError, ConnectionLost, TimeoutError):
            return  # another drop: the next reconnect probes again
        if not self.closed:
            self.screen.app.call_later(self._check_resynced, attempt)

    def _check_resynced(self, attempt: int) -> None:
        """Back online but the room never came back: it is gone."""
        if attempt == self._reconnects and self.reconnecting and not self.closed:
            self.room_gone()

    def room_gone(self) -> None:
        self.host.back_to_lobby(f"Room {self.code} is gone (it expired on the server)", "error")

    # -- the screen's actions (MoveSink) ------------------------------------------

    def submit(self, seq: int, move: Move) -> None:
        self.queue.put_nowait((seq, MoveRequest(move=str(move))))
        self._show_racers()

    def undo(self, seq: int) -> None:
        self.queue.put_nowait((seq, Undo()))
        self._show_racers()

    def resign(self) -> None:
        self.queue.put_nowait((None, Resign()))

    def toggle_ready(self) -> None:
        if not self.can_ready():
            self.screen.flash("Ready is for racers before the race starts", "error")
            return
        me = self.racers.get(self.me)
        ready = me is None or me.status != RacerStatus.READY
        self.queue.put_nowait((None, Ready(ready=ready)))
        self.screen.flash("Ready! The race starts when every racer is" if ready else "Not ready any more")

    def ask_leave(self) -> None:
        if self.racing_now() and not self._press_twice("l"):
            self.screen.flash("Press l again to leave: you resign this race", "error")
            return
        self.leave()

    def leave(self) -> None:
        """Leave the room and go back to the lobby."""
        if self.closed:
            return
        self.closed = True
        self._stop_countdown()
        self._drop_queued(all_=True)
        self.host.start_task(self._leave(), "leave")

    def choose(self, choice: str) -> None:
        """The results view's answer."""
        if choice == REMATCH and self.role == "racer":
            self.asked_rematch = True
            self.queue.put_nowait((None, Rematch()))
            self._refresh()
        elif choice == REMATCH:
            self._refresh()
        elif choice == LOBBY:
            self.leave()

    # -- reading the state --------------------------------------------------------

    def can_ready(self) -> bool:
        return self.role == "racer" and self.phase in ("waiting", "countdown") and not self.reconnecting

    def racing_now(self) -> bool:
        me = self.racers.get(self.me)
        return self.role == "racer" and self.phase == "racing" and me is not None and me.status == "racing"

    def stuck_now(self) -> bool:
        return self.role == "racer" and self.phase == "racing" and self.my_status() == "stuck"

    def can_watch(self) -> bool:
        """A spectator during the race with boards to look at: the switching keys work."""
        return self.role == "spectator" and self.phase == "racing" and self.watched in self.boards

    def watched_board(self) -> Board | None:
        """The board a spectator looks at (None for racers and before the race)."""
        return self.boards.get(self.watched) if self.watched is not None else None

    def my_status(self) -> str | None:
        me = self.racers.get(self.me)
        return me.status if me is not None else None

    def racer_views(self) -> list[RacerView]:
        """You first, then the others in seat order."""
        views: list[RacerView] = []
        for player, racer in self.racers.items():
            progress, moves = racer.progress, racer.moves
            if player == self.me and self.phase == "racing":
                progress = self.screen.board.progress
            you = player == self.me
            watched = player == self.watched and player in self.boards
            view = RacerView(racer.name, progress, moves, racer.status, racer.time_ms, racer.connected, you, watched)
            if player == self.me:
                views.insert(0, view)
            else:
                views.append(view)
        return views

    def lock_reason(self) -> str | None:
        """Why the board refuses input now, or None when the player may move."""
        if self.reconnecting:
            return "Connection lost: reconnecting…"
        if self.role == "spectator":
            return "Spectating: only racers move"
        if self.phase in ("waiting", "countdown"):
            return "The race has not started: r when you are ready"
        if self.phase == "finished":
            return "The race is over"
        status = self.my_status()
        if status == "stuck" and self.screen.undo_allowed:
            return None  # only an undo is possible, and it gets the racer going again
        if status is not None and status != "racing":
            return OUT_OF_RACE.get(status, f"You are {status}")
        return None

    # -- drawing --------------------------------------------------------------------

    def _title(self) -> str:
        title = f"Room {self.code} · {preset(self.preset).title}"
        racer = self.racers.get(self.watched) if self.watched is not None else None
        if self.role == "spectator" and racer is not None and self.watched in self.boards:
            return f"Watching {racer.name} · {title}"
        return title

    def _refresh(self) -> None:
        """Bring the screen in line with the model: lock, cover, racers, status line, keys."""
        if self.closed:
            return
        screen = self.screen
        reason = self.lock_reason()
        if reason != self._lock_reason:
            self._lock_reason = reason
            screen.set_locked(reason)
        cover = self._cover()
        if cover is not None:
            screen.set_cover(*cover)
        info = [f"deal {self.deal}"] if self.deal and self.phase in ("racing", "finished") else []
        if self.role == "spectator" and self.can_watch():
            order = self.watch_order()
            info.insert(0, f"board {order.index(self.watched or '') + 1} of {len(order)}")
        elif self.role == "spectator":
            info.append("spectating")
        if self.spectators:
            info.append(plural(self.spectators, "spectator"))
        if self.reconnecting:
            info.append("⚠ reconnecting…")
        screen.set_info(" · ".join(info))
        self._show_racers()
        screen.refresh_bindings()

    def _show_racers(self) -> None:
        title = f"Racers {len(self.racers)}/{self.state.seats}"
        self.screen.update_racers(self.racer_views(), title)

    def _cover(self) -> tuple[str, ...] | None:
        """The message shown instead of the cards (empty: the cards; None: leave it as it is)."""
        n, seats = len(self.racers), self.state.seats
        ready = sum(1 for r in self.racers.values() if r.status == RacerStatus.READY)
        if self.phase == "waiting":
            lines = [f"Room {self.code}", "Share this code: your friend joins with it", ""]
            if self.role == "spectator":
                lines.append("You are watching: the race starts when every racer is ready")
            elif self.my_status() == RacerStatus.READY:
                lines.append("You are ready ✓ · waiting for the others")
                lines.append("r: not ready after all")
            else:
                lines.append("Press r when you are ready")
            lines.append(f"{n} of {seats} racers · {ready} ready" + (" · 2 needed" if n < 2 else ""))
            lines.append("l: leave the room")
            return tuple(lines)
        spectating = (f"Spectating room {self.code}", "the racers' progress is on the right", "l: leave the room")
        if self.role == "spectator" and self.phase == "racing" and self.watched_board() is not None:
            return ()  # the watched racer's board
        if self.role == "spectator" and (self.phase != "finished" or self.results_open):
            return spectating  # no board to show (an older server sends no moves), only the progress
        if self.phase == "racing" and self.screen.board.is_won():
            return None  # the screen's own "all 52 cards home" banner
        if self.phase == "finished" and self.results_open:
            return None
        if self.phase == "finished":
            present = [r for r in self.racers.values() if r.connected]
            votes = [r.name for p, r in self.racers.items() if p in self.rematch]
            if self.asked_rematch or self.role == "spectator":
                if len(present) < 2:
                    return ("Rematch?", "Nobody else is left in the room", "l: back to the lobby")
                waiting = [r.name for p, r in self.racers.items() if r.connected and p not in self.rematch]
                return (
                    "Rematch?",
                    f"{len(votes)} of {len(present)} racers want one",
                    ("waiting for " + ", ".join(waiting)) if waiting else "starting…",
                    "l: back to the lobby",
                )
            return ("The race is over", "l: back to the lobby")
        return ()

    # -- phases ---------------------------------------------------------------------

    def _start_countdown(self, starts_at: int) -> None:
        self.starts_at = starts_at
        self._tick_countdown()
        if self._countdown_timer is None:
            self._countdown_timer = self.screen.set_interval(0.1, self._tick_countdown)

    def _tick_countdown(self) -> None:
        if self.starts_at is None:
            return
        left = self.starts_at - self.clock.now()
        self.screen.set_countdown(max(1, math.ceil(left / 1000)))

    def _stop_countdown(self) -> None:
        self.starts_at = None
        if self._countdown_timer is not None:
            self._countdown_timer.stop()
            self._countdown_timer = None
        self.screen.set_countdown(None)

    def _started(self, started: Started) -> None:
        self.clock.sync(started.server_time)
        self.phase = "racing"
        self.deal = started.deal
        self.race_number += 1
        self.asked_rematch = False
        self._stop_countdown()
        try:
            board = Board.from_code(started.deal)
        except ValueError:
            board = parse_board(started.board, started.preset)
        for player, racer in self.racers.items():
            self.racers[player] = replace(racer, status="racing", progress=board.progress, moves=0, time_ms=None)
        if self.role == "spectator":
            self._watch_all(board, [Watched(player=p, history=()) for p in self.racers])
        if self.watched_board() is None:
            self.screen.set_board(board, title=self._title())
        limit = started.ends_at - started.started_at if started.ends_at is not None else None
        self.limit_ms = limit
        self.screen.start_clock(max(0, self.clock.now() - started.started_at), limit)
        self._refresh()
        if self.role == "racer":
            self.screen.flash("Go! First to bring all 52 cards home wins", "good")
        elif self.can_watch():
            self._flash_watching("The race is on")

    # -- spectating -------------------------------------------------------------------

    def _watch_all(self, opening: Board, watching: Iterable[Watched]) -> None:
        """Every racer's board from the opening position and their moves; the watched racer
        stays, else the leader (most cards home) is watched."""
        watched = tuple(watching)
        self.boards = {w.player: replay(opening, w.history) for w in watched}
        # The histories lag the live move counts by the spectator delay: count what they hold.
        self.actions = {w.player: w.actions for w in watched}
        if self.watched not in self.boards:
            self.watched = self._leader()
        self._show_watched()

    def watch_order(self) -> list[str]:
        """The racers whose boards a spectator has, in seat order: what ``[`` / ``]`` go through."""
        return [p for p in self.racers if p in self.boards] + [p for p in self.boards if p not in self.racers]

    def _leader(self) -> str | None:
        """The racer with the most cards home (the first in seat order on a tie)."""
        return max(self.watch_order(), key=lambda p: self.boards[p].progress, default=None)

    def _watch_move(self, player: str, move: str, actions: int, progress: int) -> None:
        """A racer's move (or ``undo``) reached this spectator: play it on their board.

        ``actions`` counts the racer's moves and undos so far: a move the room state already
        had (it can arrive just after the state, when the racer played while we joined) is
        not played twice."""
        board = self.boards.get(player)
        if board is None:
            if self.deal is None or self.phase != "racing":
                return
            board = self.boards[player] = Board.from_code(self.deal)  # missed the start: assume none
            if self.watched is None:
                self.watched = player
        done = self.actions.get(player, 0)
        if actions <= done:
            return
        if actions > done + 1:
            log.warning("%s's board missed %d actions", player, actions - done - 1)
        self.actions[player] = actions
        try:
            if move == "undo":
                board.pop()
            else:
                board.push_text(move)
        except (ValueError, IndexError) as error:
            log.warning("%s's board is out of step (%s): %s", player, move, error)
        if board.progress != progress:
            log.warning("%s's board has %d cards home, the server says %d", player, board.progress, progress)
        if player == self.watched:
            self._show_watched()

    def _show_watched(self) -> None:
        board = self.watched_board()
        if board is not None:
            self.screen.show_board(board.copy(), title=self._title())

    def watch(self, step: int) -> None:
        """Look at the next (``step`` 1) or previous (-1) racer's board, in seat order."""
        if not self.can_watch():
            self.screen.flash("Switching boards is for spectators during a race", "error")
            return
        order = self.watch_order()
        at = order.index(self.watched) if self.watched in order else 0
        self.watched = order[(at + step) % len(order)]
        self._show_watched()
        self._refresh()
        self._flash_watching()

    def _flash_watching(self, prefix: str = "Spectating") -> None:
        racer = self.racers.get(self.watched) if self.watched is not None else None
        if racer is not None:
            self.screen.flash(f"{prefix}: {racer.name}'s board · [ and ] switch racer · only racers move")

    def _sync_clock(self, elapsed_ms: int) -> None:
        if self.phase == "racing" and not self.screen.clock.running:
            self.screen.start_clock(elapsed_ms, self.limit_ms)

    def _finished(self, reason: str, standings: tuple[Standing, ...]) -> None:
        self.phase = "finished"
        self._stop_countdown()
        for s in standings:
            racer = self.racers.get(s.player)
            if racer is not None:
                self.racers[s.player] = replace(racer, status=s.status, progress=s.progress, moves=s.moves)
        first = standings[0] if standings else None
        final = first.time_ms if first is not None and reason == "won" else None
        if self.screen.clock.running:
            self.screen.stop_clock(final)
        show = self.results_for != self.race_number
        self.results_for = self.race_number
        self.results_open = self.results_open or show
        self._refresh()
        if show:
            rows = result_rows(standings, self.me)
            self.screen.show_results(rows, headline(reason, standings, self.me), self._chosen)

    def _chosen(self, choice: str) -> None:
        self.results_open = False
        self.choose(choice)

    def _close_results(self) -> None:
        """Take the results view down (a rematch began while it was open)."""
        app = self.screen.app
        if self.results_open and isinstance(app.screen, ResultsScreen):
            app.pop_screen()
        self.results_open = False

    # -- sending ----------------------------------------------------------------------

    def _drop_queued(self, *, all_: bool = False) -> None:
        """Forget queued board actions (after a refusal or a drop: the screen rolled them back)."""
        kept: list[tuple[int | None, Message]] = []
        while not self.queue.empty():
            item = self.queue.get_nowait()
            if item[0] is None and not all_:
                kept.append(item)
        for item in kept:
            self.queue.put_nowait(item)

    async def _pump(self) -> None:
        """Send queued requests one at a time, in order, and apply each reply."""
        while not self.closed:
            seq, message = await self.queue.get()
            if self.closed:
                return
            try:
                reply = await self.conn.request(message)
            except ServerError as error:
                if seq is not None:
                    self._drop_queued()
                    self.screen.reject(seq, error.message)
                    self._show_racers()
                else:
                    self.screen.flash(f"Refused: {error.message}", "error")
                continue
            except ConnectionLost:
                # The action may or may not have happened: the RoomState after the reconnect says.
                self._drop_queued(all_=True)
                continue
            except TimeoutError:
                if seq is not None:
                    self._drop_queued()
                    self.screen.reject(seq, "the server did not answer in time")
                continue
            except Exception:  # a bug must not stop the room
                log.exception("request %s failed", message.TYPE)
                continue
            if self.closed:
                return
            if isinstance(reply, Moved):
                if seq is not None:
                    self.screen.confirm(seq)
                racer = self.racers.get(self.me)
                if racer is not None:
                    self.racers[self.me] = replace(
                        racer, progress=reply.progress, moves=reply.moves, status=reply.status
                    )
                self._sync_clock(reply.elapsed_ms)
                self._refresh()

    async def _leave(self) -> None:
        try:
            await self.conn.request(Leave())
        except (ServerError, ConnectionLost, TimeoutError) as error:
            log.info("leave: %s", error)
        self.host.back_to_lobby(f"You left room {self.code}")


def result_rows(standings: Iterable[Standing], me: str) -> list[ResultRow]:
    """The standings for the results view: a time only for those who finished."""
    return [
        ResultRow(
            s.place,
            s.name,
            "did not finish" if s.status == "racing" else s.status,
            s.progress,
            s.moves,
            s.time_ms if s.status == "finished" else None,
            s.player == me,
        )
        for s in standings
    ]
