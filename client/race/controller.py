"""One room, from joining to the results: the server's messages drive a race screen.

The room's concerns live in their own modules; ``RaceController`` joins them up:

- ``RoomModel`` (client/race/room_model.py): the room as the frames describe it;
- ``Outbox`` (client/net/outbox.py): the screen's actions sent one at a time, in order, by a
  worker of the screen; a ``moved`` reply confirms the optimistic action, an ``error`` rolls
  it back with its reason;
- ``Boards`` (client/race/spectating.py): a spectator's copy of every racer's board;
- ``RaceScreen`` (client/screens/race_screen.py): a ``GameScreen`` whose reactive attributes (lock, cover, info,
  racers, countdown) redraw their widgets in ``watch_*`` methods; the controller sets them all
  at once with a ``RoomView`` (``_render``), with the words from client/race/room_text.py. The screen
  asks the controller only what ``RoomActions`` (client/screens/room_actions.py) lists.

When the socket drops, the connection reconnects by itself; the screen is locked meanwhile
(with the attempts and the time left to keep the seat), and the room frame the server sends
after the reconnect replaces the board, the racers and the phase. The host (``client.apps.app.RaceApp``)
owns the connection, pushes the screen and takes the player back to the lobby; see ``RaceHost``
(client/race/host.py). What a room offers once its race is over (race again, a ghost challenge,
the review) is the controller's part ``AfterRace`` (client/race/after_race.py), a spectator's boards
its part ``Watching`` (client/race/watching.py).
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Final

from textual.timer import Timer
from textual.worker import Worker

from i18n import _, ngettext
from protocol.enums import Phase, Role, Status
from protocol.messages import (
    Advice,
    Countdown,
    HintRequest,
    Leave,
    Lost,
    Matching,
    Members,
    Moved,
    MoveRequest,
    Ping,
    Progress,
    Racer,
    RatingNotice,
    Ready,
    Rematch,
    Resign,
    Result,
    RoomState,
    Started,
    Undo,
    Watched,
)
from protocol.schema import Message
from seahaven import Board, Move, parse_board

from ..board.places import safe_count, with_symbols
from ..data.stats import RaceRecord
from ..net.clock import ServerClock, now_ms
from ..net.connection import ConnectionLost, ServerError
from ..net.outbox import Outbox, Requester
from ..records.records_api import RecordsError
from ..screens.race_screen import RaceScreen, RoomView
from ..screens.results import BOARD, CHALLENGE, LOBBY, RACE_AGAIN, REMATCH, REVIEW, ResultRow
from ..text.rating_text import RatingBook, rating_line
from ..widgets.rivals import DID_NOT_FINISH
from . import room_text
from .after_race import AfterRace
from .host import RaceHost
from .room_model import RoomModel
from .room_text import Seen
from .spectating import Boards
from .watching import Watching

log = logging.getLogger("seahaven.client")

RATING_PAUSES: Final = (2.0, 5.0, 10.0)
"""Seconds before a rival's page that could not be read now (no answer, or the records out of
reach for a moment) is asked again, each time: else their number stays missing for the room."""


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


class RaceController(AfterRace, Watching):
    """A room on one connection; also the race screen's ``RoomActions`` (and so its ``MoveSink``)."""

    def __init__(
        self,
        host: RaceHost,
        conn: Requester,
        state: RoomState,
        *,
        created: bool = False,
        deal_asked: str | None = None,
        automove: bool = True,
        grace_ms: int | None = None,
        ratings: Mapping[str, RatingNotice] | None = None,
        matched: bool = False,
    ) -> None:
        """``matched``: the room came from quick match, whose racers asked to race: each is made
        ready once a partner is seated (in whichever room the queue pairs them)."""
        self.host = host
        self.conn = conn
        self.model = RoomModel(state, created=created, deal_asked=deal_asked, ratings=ratings)
        self.spectate = Boards()
        self.outbox = Outbox(conn, self._answered, self._refused)
        self.grace_ms = grace_ms
        self.closed = False
        self.reconnecting = False
        self.attempts = 0
        """Reconnection attempts since the drop."""
        self._dropped_at: float | None = None
        self._reconnects = 0
        self._resyncing = False
        self._resynced: set[int] = set()
        """The races whose spectator boards were resynced (once a race)."""
        self.results_for: int | None = None
        """The race whose results were shown (a resync after the results must not show them again)."""
        self.results_open = False
        self.asked_rematch = False
        self.asked_again = False
        """``race_again`` sent, no answer yet."""
        self.matched = matched
        self._readied_in: str | None = None
        """The room this client made the player ready in by itself (once: an r after it is theirs)."""
        self.opening_asked = False
        """This client's ``ready`` (or rematch vote) asked the server to play the next race's
        opening auto-moves: else (an arena seats its racers ready) the client sends the first."""
        self.hint_asked_at: int | None = None
        """The player's move count when they last asked for a hint."""
        self.challenge_code: str | None = None
        """The last ghost challenge made of my run here (shown to the player to pass on)."""
        self._sender: Worker[None] | None = None
        self._away_timer: Timer | None = None
        self._match_timer: Timer | None = None
        """Redraws the quick match's widening window each second while we wait alone."""
        self.book = RatingBook()
        """The other racers' ratings (client/text/rating_text.py), from the server's records."""
        self._ghost_asked = False
        self.ghost_lines: tuple[str, ...] = ()
        """Before a ghost race: its run in words (room_text.ghost_lines), once the records said."""
        self.spectator_delay_s: int | None = None
        """How late a spectator sees the moves (``_measure_lag``; None: not measured yet)."""
        self.screen = RaceScreen(
            self,
            Board.deal(state.preset, 1),
            undo_allowed=state.undo,
            title=self._title(),
            automove=automove,
        )

    @property
    def code(self) -> str:
        return self.model.code

    @property
    def role(self) -> Role:
        return self.model.role

    # -- life -----------------------------------------------------------------

    async def start(self) -> None:
        """Show the screen, start sending, and show the room as the server described it."""
        await self.host.show_race_screen(self.screen)
        self._sender = self.screen.run_worker(self.outbox.run(), name=f"room-{self.code}", exit_on_error=False)
        self.apply_state(self.model.state)
        self._ask_ghost()

    def _ask_ghost(self) -> None:
        """A ghost seated before its race (with the room, or just after): ask what its run is, once."""
        challenge = self._ghost_challenge()
        if challenge is not None and not self._ghost_asked and self.model.phase == Phase.WAITING:
            self._ghost_asked = True
            self.host.start_task(self._learn_ghost(challenge), "ghost-run")

    async def _learn_ghost(self, challenge: str) -> None:
        """Before a ghost race, what the run is: the records say whose, its time, who raced it."""
        try:
            found = await self.host.records().challenge(challenge)
        except RecordsError as error:
            log.info("challenge %s: %s", challenge, error)
            return
        self.ghost_lines = room_text.ghost_lines(found)
        self._render()

    def stop(self) -> None:
        self.closed = True
        self.screen.count_down_to(None)
        self.outbox.drop(board_only=False)
        self._stop_away_timer()
        if self._match_timer is not None:
            self._match_timer.stop()
            self._match_timer = None
        if self._sender is not None:
            self._sender.cancel()

    # -- server messages --------------------------------------------------------

    def handle(self, message: Message) -> None:
        """A server event for this room."""
        if self.closed:
            return
        model = self.model
        if isinstance(message, RoomState):
            self.apply_state(message)
        elif isinstance(message, Members):
            wanted = set(model.rematch_wanted_by())
            before = dict(model.racers)
            model.apply_members(message)
            self._tell_rivals(before)
            self._ask_ghost()
            new = [name for name in model.rematch_wanted_by() if name not in wanted]
            if new and model.phase == Phase.FINISHED:
                # Only a racer who has not asked yet can answer with r (spectators do not vote).
                wants = ngettext("{names} wants a rematch", "{names} want a rematch", len(new)).format(
                    names=", ".join(new)
                )
                self._say(wants + (": " + _("r to race again") if self.can_rematch() else ""))
            self._render()
        elif isinstance(message, Countdown):
            model.apply_countdown(message)
            if message.starts_at is None:
                self.screen.flash(_("Countdown stopped: a racer is no longer ready"), "error")
            self._render()
        elif isinstance(message, Started):
            self._started(message)
        elif isinstance(message, Progress):
            before = dict(model.racers)
            model.apply_progress(message)
            self._tell_rivals(before)
            if message.player == model.me and message.auto and not model.spectating:
                self.screen.opened([Move.parse(text) for text in message.auto])  # the start's auto-moves
            if model.spectating and (message.move is not None or message.auto):
                self._measure_lag(message.elapsed_ms)
                self._watch_move(message)
            self._sync_clock(message.elapsed_ms)
            self._render()
        elif isinstance(message, Result):
            model.apply_result(message)
            self._finished()
        elif isinstance(message, Matching):
            model.apply_matching(message)
            if self._match_timer is None:
                self._match_timer = self.screen.set_interval(1.0, self._render)
            self._render()
        elif isinstance(message, RatingNotice):
            self.book.forget(self._rated_people())  # the others' numbers changed too
            self._say(rating_line(message))
            self._render()
            self._rerate_results()  # it comes a moment after the result: the results are up already
        elif isinstance(message, Lost) and model.racing_now():
            way_out = _("u to undo, or R to resign") if model.undo else _("R to resign")
            self.screen.flash(
                _("Your position is lost: no win exists from here ({way_out})").format(way_out=way_out), "error"
            )

    def _tell_rivals(self, before: Mapping[str, Racer]) -> None:
        """Say when a rival resigns, forfeits or leaves (the panel alone is easy to miss)."""
        news = room_text.rival_news(before, self.model)
        if news:
            self._say(news)

    def apply_state(self, state: RoomState) -> None:
        """The whole room (after joining, a reconnect, a resync or a rematch): show exactly this."""
        model = self.model
        if model.apply_state(state):
            self.asked_rematch = False  # a rematch began
            self._close_results()
            self.screen.reset_clock()
        was_reconnecting, self.reconnecting = self.reconnecting, False
        self._stop_away_timer()
        self._resyncing = False
        self.screen.set_undo_allowed(state.undo)
        self.screen.auto_allowed = state.auto
        self.screen.count_down_to(model.starts_at)
        if model.phase == Phase.RACING and state.started_at is not None:
            self.screen.start_clock(max(0, model.clock.now() - state.started_at), model.limit_ms)
        racing = model.phase in (Phase.RACING, Phase.FINISHED) and state.deal is not None
        unsent = 0
        if racing and model.role == Role.RACER:
            me = model.racers.get(model.me)
            board = board_from_state(state.deal, state.history, state.board, state.preset)
            if was_reconnecting and me is not None:
                # Moves played here as the connection died never reached the server: said, not lost silently.
                unsent = max(0, self.screen.actions - me.moves)
            actions = me.moves if me is not None else None
            self.screen.set_board(board, title=self._title(), actions=actions, auto_played=state.auto_played)
        if racing and model.spectating and state.deal is not None:
            self.spectate.reset(Board.from_code(state.deal), state.watching, model.racers)
            self._show_watched()
        elif self.spectate.boards:
            self.spectate.clear()  # a rematch deals new boards
            self.screen.show_board(self.screen.board, title=self._title())
        if model.phase == Phase.FINISHED and state.standings:
            self._finished()
        self._render()
        if was_reconnecting and model.my_status() == Status.FORFEIT:
            self.screen.flash(*room_text.welcome_back(model))
        elif was_reconnecting and unsent:
            self.screen.flash(
                ngettext(
                    "Reconnected: {n} move never reached the server, so it is undone",
                    "Reconnected: {n} moves never reached the server, so they are undone",
                    unsent,
                ).format(n=unsent),
                "error",
            )
        elif was_reconnecting:
            self.screen.flash(_("Reconnected: the board is in sync with the server again"), "good")
        elif self.can_watch():
            self._flash_watching()

    def on_status(self, status: str) -> None:
        """The connection's state: reconnecting, retrying, connected, closed, replaced."""
        if self.closed:
            return
        if status == "reconnecting":
            self.reconnecting = True
            self.attempts = 0
            self._dropped_at = time.monotonic()
            self.outbox.drop(board_only=False)
            self._away_timer = self.screen.set_interval(1.0, self._render)
            self._render()
            self.screen.flash(_("Connection lost: reconnecting…"), "error")
        elif status == "retrying":
            self.attempts += 1
            self._render()
        elif status == "connected" and self.reconnecting:
            self.screen.flash(_("Reconnected: catching up with the room…"))
            self._reconnects += 1
            self.host.start_task(self._probe(self._reconnects), "resync-probe")
        elif status == "closed":
            self.host.back_to_lobby(_("Lost the connection to the server: the lobby keeps trying"), "error")
        elif status == "replaced":
            self.host.back_to_lobby(_("This session was opened in another window"), "error")
        elif status == "removed":
            self.host.back_to_lobby(_("The server's moderators removed you from this room"), "error")

    def _stop_away_timer(self) -> None:
        if self._away_timer is not None:
            self._away_timer.stop()
            self._away_timer = None

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

    def room_gone(self, why: str | None = None) -> None:
        why = _("it expired on the server") if why is None else why
        deal = self.model.deal
        if deal is None:
            self.host.back_to_lobby(_("Room {code} is gone ({why})").format(code=self.code, why=why), "error")
            return
        # Its deal is not lost with it: the New room form holds it, to race it again.
        self.host.back_to_lobby(
            _("Room {code} is gone ({why}): Enter races its deal again").format(code=self.code, why=why), "error"
        )
        self.host.offer_deal(deal)

    # -- the screen's actions (RoomActions, and its MoveSink) ---------------------------

    def submit(self, seq: int, move: Move, auto: bool = False) -> None:
        self.outbox.put(seq, MoveRequest(move=str(move), auto=auto))
        self._render()

    def undo(self, seq: int) -> None:
        self.outbox.put(seq, Undo())
        self._render()

    def ask_hint(self) -> None:
        """Ask the server for a hint; it queues behind the moves still unanswered, so the server
        advises on the board the player sees."""
        if not self.model.hints:
            self.screen.flash(_("Hints are off in this race"))
            return
        self.screen.flash(_("Asking the server for a hint…"))
        self.hint_asked_at = self.screen.actions
        self.outbox.put(None, HintRequest())

    def resign(self) -> None:
        self.outbox.put(None, Resign())

    def toggle_ready(self) -> None:
        """``r``: ready or not before a race; after one, ask for a rematch."""
        if self.model.phase == Phase.FINISHED and self.model.role == Role.RACER:
            if not self.asked_rematch:
                self.choose(REMATCH)
            return
        if not self.model.can_ready() or self.reconnecting:
            self.screen.flash(_("Ready is for racers before the race starts"), "error")
            return
        ready = self.model.my_status() != Status.READY
        # Our share of the deal's draw (docs/fairness.md): 128 random bits, so that nobody, the
        # server included, chooses a drawn room's deal.
        seed = secrets.token_hex(16) if ready else None
        self.opening_asked = ready and self.screen.auto_on()
        self.outbox.put(None, Ready(ready=ready, seed=seed, auto=self.opening_asked))
        self.screen.flash(_("Ready! The race starts when every racer is") if ready else _("Not ready any more"))

    def _ready_when_paired(self) -> None:
        """Quick match: pressing it said "I want to race now", so a second key once the partner
        comes would only keep them waiting (as a lobby pairing starts the game)."""
        model = self.model
        if not self.matched or self._readied_in == model.code or self.reconnecting:
            return
        if model.phase != Phase.WAITING or model.role != Role.RACER or len(model.racers) < 2:
            return
        self._readied_in = model.code
        if model.my_status() != Status.READY:
            self.toggle_ready()  # the room's line then says "you are ready, waiting for the others"

    def ask_leave(self) -> None:
        if self.model.racing_now() and not self.screen.press_twice("l"):
            self.screen.flash(_("Press l again to leave: you resign this race"), "error")
            return
        self.leave()

    def leave(self) -> None:
        """Leave the room and go back to the lobby."""
        if self.closed:
            return
        self.stop()
        self.host.start_task(self._leave(), "leave")

    async def _leave(self) -> None:
        try:
            await self.conn.request(Leave())
        except (ServerError, ConnectionLost, TimeoutError) as error:
            log.info("leave: %s", error)
        self.host.back_to_lobby(_("You left room {code}").format(code=self.code))

    def choose(self, choice: str) -> None:
        """The results view's answer."""
        self.results_open = False
        if choice == REMATCH and self.model.role == Role.RACER and (challenge := self._ghost_challenge()):
            # A ghost never votes for a rematch (its run was on this deal): race its run again from
            # its challenge, in a new room, as the browser's "Race the ghost again" does.
            self.host.start_task(self._race_ghost_again(challenge), "ghost")
            return
        if choice == REMATCH and self.model.role == Role.RACER:
            self.asked_rematch = True
            self.opening_asked = self.screen.auto_on()
            self.outbox.put(None, Rematch(seed=secrets.token_hex(16), auto=self.opening_asked))
        elif choice == CHALLENGE:
            self.challenge()
        elif choice == RACE_AGAIN:
            self.race_again()
            return
        elif choice == LOBBY:
            self.leave()
            return
        if choice in (REVIEW, BOARD):  # the final board is under the review too: its keys said
            if self.model.role != Role.RACER:
                said = _("The final board: v to review the race, l to leave the room")
            elif self.why_not_race_again() is None:
                said = _("The final board: r for a rematch, g to race again on a new deal, v to review, l to leave")
            else:
                said = _("The final board: r for a rematch, v to review the race, l to leave the room")
            self.screen.flash(said)
        if choice == REVIEW:
            self.review()
        self._render()

    # -- reading the state (RoomActions: which keys work now) -----------------------------

    @property
    def server_clock(self) -> ServerClock:
        return self.model.clock

    def can_ready(self) -> bool:
        """``r`` is ready (or not) now: a racer before the race."""
        return self.model.can_ready() and not self.reconnecting

    def can_rematch(self) -> bool:
        """``r`` asks for a rematch now: a racer after the race who has not asked yet."""
        model = self.model
        return model.phase == Phase.FINISHED and model.role == Role.RACER and not self.asked_rematch

    def undo_allowed(self) -> bool:
        return self.model.undo

    def hints_allowed(self) -> bool:
        return self.model.hints

    def can_hint(self) -> bool:
        return self.model.hints and self.model.racing_now()

    def racing_now(self) -> bool:
        return self.model.racing_now()

    def could_play(self) -> bool:
        """The player races or is stuck in the race."""
        return self.model.racing_now() or self.model.stuck_now()

    def can_review(self) -> bool:
        return self.model.phase == Phase.FINISHED and self.model.deal is not None

    def can_watch(self) -> bool:
        """A spectator during the race with boards to look at: the switching keys work."""
        model = self.model
        return model.spectating and model.phase == Phase.RACING and self.spectate.watched in self.spectate.boards

    # -- drawing --------------------------------------------------------------------

    def _seen(self) -> Seen:
        board = self.screen.board
        return Seen(
            board.progress,
            self.screen.actions,
            board.is_won(),
            self.results_open,
            self.asked_rematch,
            now_ms(),
            safe_count(board),
            self.ghost_lines,
            tuple(self.host.invited_to(self.code)) if self.model.phase == Phase.WAITING else (),
        )

    def _title(self) -> str:
        return room_text.title(self.model, self.spectate)

    def _say(self, text: str, kind: str = "info") -> None:
        self.screen.flash(with_symbols(text), kind)

    def _rated_people(self) -> list[str]:
        """The other racers who may have a rating (people only): those in the room, and those in
        the results (a rival who left after the race is still in them)."""
        model = self.model
        seen = [(p, r.bot, r.ghost) for p, r in model.racers.items()]
        seen += [(s.player, s.bot, s.ghost) for s in model.standings]
        return list(dict.fromkeys(p for p, bot, ghost in seen if p != model.me and not bot and not ghost))

    def _ask_ratings(self) -> None:
        """Ask the records for the ratings of racers not asked for yet."""
        for player in self.book.to_ask(self._rated_people()):
            self.host.start_task(self._learn_rating(player), "rating")

    async def _learn_rating(self, player: str) -> None:
        for pause in (*RATING_PAUSES, None):
            try:
                page = await self.host.records().player(player)
            except RecordsError as error:
                if not error.passing or pause is None or self.closed:
                    return  # anonymous, or a server without records: no number
                await asyncio.sleep(pause)  # the records out of reach for a moment
                continue
            self.book.learn(player, page)
            self._render()
            self._rerate_results()
            return

    def _result_rows(self) -> list[ResultRow]:
        """The standings for the results view, with the ratings known now beside the names."""
        model = self.model
        shown = {s.player: room_text.ratings_beside(model, s.player, self.book) for s in model.standings}
        return room_text.result_rows(model.standings, model.me, shown)

    def _rerate_results(self) -> None:
        """The results open while a rating came (mine by the ``rating`` message, a rival's from
        the records): their standings redrawn in place, as the racers panel under them."""
        if self.results_open and not self.closed and self.model.phase == Phase.FINISHED:
            self.screen.update_results(self._result_rows())

    def _render(self) -> None:
        """Bring the screen in line with the model."""
        if self.closed:
            return
        model = self.model
        if self._match_timer is not None and model.match_wait(now_ms()) is None:
            self._match_timer.stop()  # a partner came (or we left): the window is no news any more
            self._match_timer = None
        self._ready_when_paired()
        self._ask_ratings()
        seen = self._seen()
        # The status line stays within 80 columns: the rest goes to the racers panel's title.
        info: list[str] = []
        if model.spectating and not self.can_watch():
            info.append(_("spectating"))
        if model.spectating and model.phase == Phase.RACING:
            late = self.spectator_delay_s
            if late is not None:
                info.append(_("{n} s late").format(n=late) if late else _("live"))
        if self.reconnecting:
            info.append(self._away_text())
        title = _("Racers {n}/{seats}").format(n=len(model.racers), seats=model.seats)
        if model.spectators:
            title += "\n" + ngettext("{n} watching", "{n} watching", model.spectators).format(n=model.spectators)
        if model.deal and model.phase in (Phase.RACING, Phase.FINISHED):
            # The deal code, to play it again later, written as the lobby's daily box and the results write it.
            title += "\n" + _("deal {code}").format(code=model.deal)
        self.screen.show_room(
            RoomView(
                lock=room_text.lock_reason(model, reconnecting=self.reconnecting),
                cover=room_text.cover(model, self.spectate, seen),
                between_races=model.phase in (Phase.WAITING, Phase.COUNTDOWN),
                starts_at=model.starts_at if model.phase == Phase.COUNTDOWN else None,
                info=" · ".join(info),
                racers=tuple(room_text.racer_views(model, self.spectate, seen, self.book)),
                racers_title=title,
                spectator_delay_s=self.spectator_delay_s,
            )
        )

    def _away_text(self) -> str:
        """The reconnection's attempts, and how long the server keeps the seat."""
        text = "⚠ " + (
            _("reconnecting…") if not self.attempts else _("reconnecting (attempt {n})").format(n=self.attempts + 1)
        )
        if self.grace_ms and self._dropped_at is not None and self.model.role == Role.RACER:
            left = self.grace_ms / 1000 - (time.monotonic() - self._dropped_at)
            kept = _("seat kept {n} s").format(n=max(0, math.ceil(left))) if left > 0 else _("the seat may be lost")
            text += " · " + kept
        return text

    # -- phases ---------------------------------------------------------------------

    def _started(self, started: Started) -> None:
        model = self.model
        try:
            board = Board.from_code(started.deal)
        except ValueError:
            board = parse_board(started.board, started.preset)
        model.apply_started(started, board.progress)
        self.asked_rematch = False
        if model.spectating:
            self.spectate.reset(board, [Watched(player=p, history=()) for p in model.racers], model.racers)
        self.screen.set_board(board, title=self._title())
        self._show_watched()
        limit = started.ends_at - started.started_at if started.ends_at is not None else None
        self.screen.start_clock(max(0, model.clock.now() - started.started_at), limit)
        self._render()
        if model.role == Role.RACER:
            self.screen.flash(_("Go! First to bring all 52 cards home wins"), "good")
            # The opening's auto-moves, when asked for with ready, come from the server (progress).
            if not self.opening_asked:
                self.screen.play_opening()
            self.opening_asked = False
        elif self.can_watch():
            self._flash_watching(_("The race is on"))

    def _finished(self) -> None:
        model = self.model
        self.screen.count_down_to(None)
        final = model.final_ms(live=self.screen.clock_running)
        if self.screen.clock_running or final is not None:
            self.screen.stop_clock(final)
        show = self.results_for != model.race_number
        self.results_for = model.race_number
        self.results_open = self.results_open or show
        self._render()
        if not show:
            return
        self._record()
        self.screen.show_results(
            self._result_rows(),
            room_text.headline(model.reason, model.standings, model.me),
            self.choose,
            can_rematch=model.role == Role.RACER,
            can_review=model.deal is not None,
            can_challenge=model.role == Role.RACER and model.race_id is not None,
            note="" if model.role == Role.RACER else _("You watched this race: the racers decide on a rematch"),
            deal=model.deal,
            again=self._again_line(),
            no_again=self.why_not_race_again() or "",
        )

    def _record(self) -> None:
        """Keep this player's race in the statistics."""
        model = self.model
        mine = next((s for s in model.standings if s.player == model.me), None)
        if mine is None or model.deal is None:
            return
        self.host.race_over(
            RaceRecord(
                when=datetime.now(UTC).isoformat(timespec="seconds"),
                room=model.code,
                preset=model.preset,
                deal=model.deal,
                place=mine.place,
                racers=len(model.standings),
                status=DID_NOT_FINISH if mine.status == Status.RACING else mine.status,
                moves=mine.moves,
                progress=mine.progress,
                time_ms=mine.time_ms if mine.status == Status.FINISHED else None,
            )
        )

    def _close_results(self) -> None:
        """Take the results view down (a rematch began while it was open)."""
        if self.results_open:
            self.screen.close_results()
        self.results_open = False

    def _sync_clock(self, elapsed_ms: int) -> None:
        if self.model.phase == Phase.RACING and not self.screen.clock_running:
            self.screen.start_clock(elapsed_ms, self.model.limit_ms)

    # -- answers ----------------------------------------------------------------------

    def _answered(self, seq: int | None, reply: Message) -> None:
        if self.closed:
            return
        if isinstance(reply, RoomState):
            self.apply_state(reply)  # a spectator's resync
            return
        if isinstance(reply, Advice):
            self._advised(reply)
            return
        if isinstance(reply, Moved):
            if seq is not None:
                self._check_auto(seq, reply)
                self.screen.confirm(seq)
            self.model.apply_moved(reply)
            self._sync_clock(reply.elapsed_ms)
            self._render()

    def _check_auto(self, seq: int, reply: Moved) -> None:
        """The server's auto-moves are the ones played here (the same engine's rule); where they
        are not, the server's board is the one that counts."""
        mine = self.screen.game.auto_of(seq)
        if mine is None or reply.undo:
            if mine is not None and reply.undone != 1 + len(mine):  # an undo's count: logged only
                log.warning("undo out of step: took back %d here, %d on the server", 1 + len(mine), reply.undone)
            return
        if tuple(str(m) for m in mine) != reply.auto:
            log.warning("auto-moves out of step: played %s, the server %s", mine, reply.auto)
            try:
                self.screen.take_servers_auto(seq, [Move.parse(text) for text in reply.auto])
            except ValueError as error:  # IllegalMoveError too: not even the server's apply here
                self.screen.flash(_("The board is out of step with the server: {reason}").format(reason=error), "error")

    def _advised(self, advice: Advice) -> None:
        """The server's answer to ``hint``: the move highlighted and named, or why there is none."""
        if advice.kind == "hint" and advice.move is not None:
            try:
                move = Move.parse(advice.move)
            except ValueError:
                self.screen.flash(_("The server's hint '{move}' is not a move").format(move=advice.move), "error")
                return
            if self.hint_asked_at != self.screen.actions:
                self.screen.flash(_("Hint for the board before your last moves: {move}").format(move=move))
                return
            self.screen.show_hint(move)
        elif advice.kind == "lost":
            way_out = _("u to undo, or R to resign") if self.model.undo else _("R to resign")
            self.screen.flash(
                _("No hint: this position can no longer be won ({way_out})").format(way_out=way_out), "error"
            )
        elif advice.kind == "won":
            self.screen.flash(_("No hint needed: every card is home"))
        else:
            self.screen.flash(_("No hint found in time: try again in a few moves"))

    def _refused(self, seq: int | None, reason: str) -> None:
        if self.closed:
            return
        if seq is not None:
            self.screen.reject(seq, reason)
            self._render()
        else:
            self._say(_("Refused: {reason}").format(reason=reason), "error")
