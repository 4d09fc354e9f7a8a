"""A race room's rules of play: a pure state machine, no sockets, no store, no clock.

Commands (``join``, ``move``, ``tick``...) take the current server time in
milliseconds, check the request, and return the events it caused, already applied.
A refused command raises ``RoomError`` and changes nothing. Events are the room's
whole history: ``Room.replay`` rebuilds a room from them, which is how the server
persists rooms (an append-only log per room) and recovers them after a restart.
Anything random (room code, deal numbers) is chosen by the caller and passed in, so
replay is exact.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Final, NamedTuple

from protocol.enums import EndReason, Phase, Role, Status
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    GHOST_PREFIX,
    NAME_MAX,
    Countdown,
    Members,
    Progress,
    Racer,
    Result,
    RoomState,
    RoomSummary,
    Standing,
    Started,
    Watched,
)
from protocol.schema import Message
from seahaven import Board, Move, encode, preset, to_board_text
from seahaven.moves import read_move
from server.rooms.draw import Draw, commitment_of, draw_deal
from server.rooms.events import (
    AutoMoved,
    CountdownSet,
    Created,
    Ended,
    Event,
    Forfeited,
    Hinted,
    Joined,
    Left,
    Moved,
    NewDeal,
    Presence,
    ReadySet,
    RematchVoted,
    Resigned,
    Undone,
)
from server.rooms.events import (
    Started as StartedEvent,
)
from server.rooms.raceid import race_id
from server.rooms.settings import Settings

BOT_PREFIX: Final = "bot-"
"""Player ids of bot racers start so (a human's start with "p"): the room shows them as bots."""
# Player ids of ghost racers (a recorded run raced again: ``server/play/ghosts.py``) start with
# protocol.messages.GHOST_PREFIX, followed by the challenge's id: the room shows them as ghosts,
# the records find a challenge's races.
MACHINES: Final = (BOT_PREFIX, GHOST_PREFIX)
"""Seats nobody plays: bots and ghosts."""
DONE: Final = frozenset({Status.FINISHED, Status.STUCK, Status.RESIGNED, Status.FORFEIT})
DONE_WITH_UNDO: Final = DONE - {Status.STUCK}
"""Done where undo is on: a stuck racer can still undo their way out."""
MAX_MOVES: Final = 5000
"""Moves and undos one racer may make in one race (a solution takes about 90), auto-moves
included (each racer's move can bring up to 52 of them, and its undo takes them back): bounds the log."""
MAX_CHANGES: Final = 50
"""Joins and readiness changes one player may make in one room between races: bounds the log
(each is an event replayed on every load) however often someone toggles ``ready`` or comes and
goes as a spectator."""

_RACER_MOVES: Final = (Moved, Undone)
"""A tuple built once (``Moved | Undone`` in an ``isinstance`` builds a union at every call)."""
_notation = functools.lru_cache(maxsize=4096)(Move.__str__)
"""And back, in canonical form (for the log and the frames): the same few hundred."""


def _auto_after(board: Board, move: Move | None) -> tuple[str, ...]:
    """The auto-moves the server plays after ``move`` (a legal one; None: in the position as it
    is), found by playing them and taking them back: ``board`` is left as it was."""
    if move is not None:
        board.push_legal(move)
    played: list[str] = []
    while (auto := board.auto_move()) is not None:
        board.push_legal(auto)
        played.append(_notation(auto))
    for _ in range(len(played) + (move is not None)):
        board.pop()
    return tuple(played)


def _auto_played(seat: Seat) -> tuple[int, ...]:
    """The indices in ``seat``'s move stack of the moves the server played: the opening's, then
    after each of the racer's own moves the auto-moves it brought."""
    if seat.board is None:
        return ()
    index = len(seat.board.move_stack) - len(seat.groups) - sum(seat.groups)
    played = list(range(index))
    for count in seat.groups:
        played += range(index + 1, index + 1 + count)
        index += 1 + count
    return tuple(played)


class RoomError(ProtocolError):
    """A command the room refuses (nothing changed)."""


@dataclass(slots=True)
class Seat:
    """A racer's place in the room."""

    name: str
    ready: bool = False
    connected: bool = True
    dropped_at: int | None = None
    status: Status = Status.WAITING
    board: Board | None = None
    moves: int = 0
    undos: int = 0
    reached_at: int = 0
    """When the racer's progress last changed: ties in progress go to the earlier."""
    finished_at: int | None = None
    timeline: list[tuple[int, str]] = field(default_factory=list)
    """(time, move or "undo") of this race, to show spectators the board as it was a delay ago."""
    left: bool = False
    """Walked out after the start: keeps a place in the standings, hears nothing more."""
    hints: int = 0
    """Hints given this race."""
    seed: str | None = None
    """The racer's share of the next race's draw (a drawn room's), given with ready or a rematch vote."""
    auto: bool = False
    """The racer asked for auto-move at the start (with ready or a rematch vote)."""
    groups: list[int] = field(default_factory=list)
    """For each of the racer's own moves in effect, how many auto-moves the server played after
    it: an undo takes back the last one with them (the opening's auto-moves are no one's to undo)."""
    served: list[int] = field(default_factory=list)
    """The indices in ``timeline`` of what the server played for the racer: auto-moves, and the
    undos that took them back (the records mark them: the rest is the racer's own)."""


Audience = frozenset[str] | None
"""Who a message is for: None for every member of the room."""


class Outbound(NamedTuple):
    """A message for the shell to send: to whom, and how many milliseconds after the event
    (delayed messages go to whoever spectates when they fall due)."""

    audience: Audience
    message: Message
    delay_ms: int = 0


@dataclass
class Room:
    code: str
    settings: Settings
    created_at: int
    phase: Phase = Phase.WAITING
    seats: dict[str, Seat] = field(default_factory=dict)
    spectators: dict[str, str] = field(default_factory=dict)
    starts_at: int | None = None
    started_at: int | None = None
    end_reason: str | None = None
    standings: tuple[Standing, ...] = ()
    rematch: set[str] = field(default_factory=set)
    changes: dict[str, int] = field(default_factory=dict)
    """Joins and readiness changes by player since the last race began (see ``MAX_CHANGES``)."""
    opened: bool = False
    """Someone has joined: the creator's first seat is not counted in ``changes``."""
    races: int = 0
    """Races started in this room: the current one's number (its id: ``server.rooms.raceid``)."""
    abandoned: bool = False
    """Everyone left before a race began: the room takes no one again (a link to it would seat a
    newcomer in a room its creator gave up, alone, with nobody to race)."""
    draw: Draw | None = None
    """How the current (or last) race's deal was drawn (a drawn room's; server/rooms/draw.py)."""

    # -- construction -------------------------------------------------------

    @classmethod
    def create(cls, code: str, settings: Settings, now: int) -> tuple[Room, list[Event]]:
        """A new empty room and its first event."""
        preset(settings.preset)  # ValueError for an unknown preset
        room = cls(code, settings, now)
        return room, [Created(now, code, settings)]

    @classmethod
    def replay(cls, events: list[Event], then: Callable[[Room, Event], None] | None = None) -> Room:
        """Rebuild a room from its whole event history (``then``: called after each event)."""
        if not events or not isinstance(events[0], Created):
            raise ValueError("a room's history starts with Created")
        first = events[0]
        room = cls(first.code, first.settings, first.at)
        for event in events[1:]:
            try:
                room.apply(event)
            except (KeyError, IndexError, ValueError, AssertionError) as exc:  # IllegalMoveError is a ValueError
                raise ValueError(f"room {first.code}: event {event} does not fit its history: {exc!r}") from None
            if then is not None:
                then(room, event)
        return room

    # -- reading ------------------------------------------------------------

    @property
    def members(self) -> set[str]:
        """Everyone who hears the room's news: seated racers who have not left, and spectators."""
        return {p for p, s in self.seats.items() if not s.left} | set(self.spectators)

    def has_member(self, player: str) -> bool:
        """Whether ``player`` hears the room's news (a seated racer who has not left, or a spectator)."""
        seat = self.seats.get(player)
        return (seat is not None and not seat.left) or player in self.spectators

    def race_id(self) -> str:
        """The id of the room's current (or last) race."""
        return race_id(self.code, self.created_at, self.races)

    def deal_code(self) -> str:
        return encode(self.settings.preset, self.settings.deal)

    def commitment(self) -> str | None:
        """A drawn room's commitment to the seed of the race it is racing, else of its next one."""
        if self.settings.secret is None:
            return None
        return commitment_of(self.settings.secret, self.races + (0 if self.phase == Phase.RACING else 1))

    def elapsed(self, now: int) -> int:
        return max(0, now - self.started_at) if self.started_at is not None else 0

    def next_deadline(self) -> int | None:
        """The earliest time ``tick`` has something to do, or None (asked after every command:
        no list is built for it)."""
        soonest = None
        if self.phase == Phase.COUNTDOWN:
            soonest = self.starts_at
        elif self.phase == Phase.RACING and self.started_at is not None and self.settings.time_limit_ms:
            soonest = self.started_at + self.settings.time_limit_ms
        for seat in self.seats.values():
            if seat.dropped_at is not None and self._grace_matters(seat):
                due = seat.dropped_at + self.settings.grace_ms
                if soonest is None or due < soonest:
                    soonest = due
        return soonest

    def _grace_matters(self, seat: Seat) -> bool:
        """A dropped racer's grace period can still cost them something: a seat or a race."""
        if seat.dropped_at is None:
            return False
        if self.phase in (Phase.WAITING, Phase.COUNTDOWN):
            return True
        return self.phase == Phase.RACING and self._still_in(seat)

    def _still_in(self, seat: Seat) -> bool:
        """Racing, or stuck where an undo can still get them going."""
        return seat.status == Status.RACING or (seat.status == Status.STUCK and self.settings.undo)

    def racer_view(self, player: str) -> Racer:
        seat = self.seats[player]
        return Racer(
            player=player,
            name=seat.name,
            status=seat.status,
            connected=seat.connected,
            progress=seat.board.progress if seat.board else 0,
            moves=seat.moves,
            time_ms=self._time_of(seat),
            bot=player.startswith(BOT_PREFIX),
            hints=seat.hints,
            ghost=player.startswith(GHOST_PREFIX),
        )

    def _time_of(self, seat: Seat) -> int | None:
        if seat.finished_at is not None and self.started_at is not None:
            return seat.finished_at - self.started_at
        return None

    def state_for(self, player: str, now: int, watched_until: int | None = None) -> RoomState:
        """Everything ``player`` may see: for joins, reconnects and rematches.

        ``watched_until``: spectators have been sent the moves that fell due by then (a
        spectator delay after they were made); a spectator's ``watching`` stops there. Once the
        race is over its racers see every racer's history.
        """
        seat = self.seats.get(player)
        if seat is not None and seat.left:
            seat = None  # walked out: watches like a spectator from now on
        racing = self.phase in (Phase.RACING, Phase.FINISHED)
        board = seat.board if seat is not None else None
        return RoomState(
            room=self.code,
            you=player,
            role=Role.RACER if seat is not None else Role.SPECTATOR,
            preset=self.settings.preset,
            seats=self.settings.seats,
            public=self.settings.public,
            time_limit=self.settings.time_limit_ms // 1000 if self.settings.time_limit_ms else None,
            undo=self.settings.undo,
            phase=self.phase,
            racers=tuple(self.racer_view(p) for p in self.seats),
            spectators=len(self.spectators),
            server_time=now,
            starts_at=self.starts_at if self.phase == Phase.COUNTDOWN else None,
            started_at=self.started_at if racing else None,
            deal=self.deal_code() if racing or self.settings.chosen else None,
            board=self._board_text(board) if racing else None,
            history=tuple(str(m) for m in board.move_stack) if board is not None and racing else (),
            standings=self.standings,
            rematch=tuple(sorted(self.rematch)),
            watching=self._watching_for(seat, watched_until) if racing else (),
            any_deal=self.settings.any_deal,
            deal_grade=self.settings.deal_grade,
            hints=self.settings.hints,
            lost_notice=self.settings.lost_notice,
            daily=self.settings.daily,
            rated=self.settings.rated,
            commitment=self.commitment(),
            auto=self.settings.auto,
            auto_played=_auto_played(seat) if seat is not None and racing else (),
        )

    def _board_text(self, board: Board | None) -> str:
        """A racer's own board; for a spectator, the opening position the moves apply to."""
        return to_board_text(board if board is not None else Board.deal(self.settings.preset, self.settings.deal))

    def _watching_for(self, seat: Seat | None, watched_until: int | None) -> tuple[Watched, ...]:
        """Every racer's moves that ``seat``'s holder may see: all of them for a racer once the race
        is over, none for a racer before; for a spectator, those that fell due by ``watched_until``."""
        if seat is not None:
            return self.histories() if self.phase == Phase.FINISHED else ()
        delay = self.settings.spectator_delay_ms
        if delay == 0 or watched_until is None:
            return self.histories(None if delay == 0 else -1)
        return self.histories(watched_until - delay)

    def histories(self, until: int | None = None) -> tuple[Watched, ...]:
        """Every racer's moves in effect, in seat order, counting the moves and undos made by
        ``until`` (None: all of them)."""
        watched = []
        for player, seat in self.seats.items():
            count = len(seat.timeline)
            if until is not None:
                count = bisect.bisect_right(seat.timeline, until, key=lambda entry: entry[0])
            history: list[str] = []
            for _, move in seat.timeline[:count]:
                if move == "undo":
                    history.pop()
                else:
                    history.append(move)
            watched.append(Watched(player=player, history=tuple(history), actions=count))
        return tuple(watched)

    def summary(self) -> RoomSummary:
        return RoomSummary(
            room=self.code,
            preset=self.settings.preset,
            seats=self.settings.seats,
            racers=len(self.seats),
            spectators=len(self.spectators),
            phase=self.phase,
            time_limit=self.settings.time_limit_ms // 1000 if self.settings.time_limit_ms else None,
            undo=self.settings.undo,
            any_deal=self.settings.any_deal,
            deal_grade=self.settings.deal_grade,
            deal=self.deal_code() if self.settings.chosen else None,
            hints=self.settings.hints,
            daily=self.settings.daily,
            rated=self.settings.rated,
        )

    def is_open(self) -> bool:
        """Waiting for racers and has a free seat: what quick match and the lobby offer."""
        return self.phase == Phase.WAITING and len(self.seats) < self.settings.seats

    def is_empty(self) -> bool:
        return not self.spectators and not any(s.connected for s in self.seats.values())

    # -- commands -----------------------------------------------------------

    def join(self, player: str, name: str, spectate: bool, now: int) -> list[Event]:
        if player in self.members:
            raise RoomError(ErrorCode.ALREADY_IN_ROOM, f"you are already in room {self.code}")
        self._may_change(player)
        if self.abandoned:
            raise RoomError(ErrorCode.ROOM_NOT_FOUND, f"room {self.code} is closed: everyone left it before its race")
        if not spectate:
            if self.phase == Phase.FINISHED:
                raise RoomError(ErrorCode.RACE_IN_PROGRESS, "the race is over: join as a spectator")
            if self.phase != Phase.WAITING:
                raise RoomError(ErrorCode.RACE_IN_PROGRESS, "the race has begun: join as a spectator")
            if len(self.seats) >= self.settings.seats:
                raise RoomError(ErrorCode.ROOM_FULL, f"all {self.settings.seats} seats are taken")
        if spectate:
            return self._emit(Joined(now, player, name, Role.SPECTATOR))
        return self._emit(Joined(now, player, self._unique_name(name), Role.RACER))

    def _unique_name(self, name: str) -> str:
        """``name``, or ``name (2)``, ``name (3)``... if a racer here has it (within NAME_MAX)."""
        taken = {seat.name for seat in self.seats.values()}
        unique, number = name, 1
        while unique in taken:
            number += 1
            suffix = f" ({number})"
            unique = name[: NAME_MAX - len(suffix)].rstrip() + suffix
        return unique

    def check_hint(self, player: str) -> Board:
        """The board of a racer who may have a hint now (RoomError if they may not)."""
        seat = self._racer(player)
        if not self.settings.hints:
            raise RoomError(ErrorCode.HINTS_OFF, "this room races without hints")
        if self.phase != Phase.RACING or seat.board is None or not self._still_in(seat):
            raise RoomError(ErrorCode.NOT_RACING, "hints are for racers in a race")
        return seat.board

    def use_hint(self, player: str, now: int) -> list[Event]:
        """A hint was given to ``player``: counted in the standings."""
        self.check_hint(player)
        return self._emit(Hinted(now, player))

    def leave(self, player: str, now: int) -> list[Event]:
        self._member(player)
        events: list[Event] = []
        seat = self.seats.get(player)
        if seat is not None and self.phase == Phase.RACING and self._still_in(seat):
            events += self._emit(Resigned(now, player))
        events += self._emit(Left(now, player))
        return events + self._after_change(now)

    def set_ready(self, player: str, ready: bool, now: int, seed: str | None = None, auto: bool = False) -> list[Event]:
        seat = self._racer(player)
        if self.phase == Phase.FINISHED:
            raise RoomError(ErrorCode.RACE_OVER, "the race is over: ask for a rematch")
        if self.phase != Phase.WAITING and self.phase != Phase.COUNTDOWN:
            raise RoomError(ErrorCode.RACE_IN_PROGRESS, "the race has already begun")
        if seat.ready == ready:
            return []
        self._may_change(player)
        event = ReadySet(now, player, ready, seed if ready else None, auto and ready)
        return self._emit(event) + self._after_change(now)

    def _may_change(self, player: str) -> None:
        if self.changes.get(player, 0) >= MAX_CHANGES:
            raise RoomError(
                ErrorCode.RATE_LIMITED, f"{MAX_CHANGES} joins and ready changes in one room: wait for the next race"
            )

    def move(self, player: str, text: str, now: int, auto: bool = False) -> list[Event]:
        """``player``'s move; with ``auto`` (where the room allows it), the auto-moves after it too."""
        seat = self._playing(player)
        board = seat.board
        assert board is not None
        try:
            move = read_move(text)
        except ValueError as exc:
            raise RoomError(ErrorCode.BAD_FIELD, f"body.move: {exc}") from None
        if len(seat.timeline) >= MAX_MOVES:
            raise RoomError(ErrorCode.MOVE_LIMIT, f"{MAX_MOVES} moves is the most one race allows: resign or wait")
        reason = board.why_illegal(move)
        if reason is not None:
            raise RoomError(ErrorCode.ILLEGAL_MOVE, reason)
        played = _auto_after(board, move) if auto and self.settings.auto else ()
        moved = Moved(now, player, _notation(move), played)
        self.apply(moved, judged=True)
        return [moved, *self._after_change(now)]

    def undo(self, player: str, now: int) -> list[Event]:
        seat = self._playing(player, also_stuck=True)
        assert seat.board is not None
        if not self.settings.undo:
            raise RoomError(ErrorCode.UNDO_DISABLED, "this room was created without undo")
        limit = preset(self.settings.preset).undo_limit
        if not seat.groups:  # the opening's auto-moves are not the racer's to take back
            raise RoomError(ErrorCode.NOTHING_TO_UNDO, "no move of yours to take back")
        if len(seat.timeline) >= MAX_MOVES:
            raise RoomError(ErrorCode.MOVE_LIMIT, f"{MAX_MOVES} moves is the most one race allows: resign or wait")
        if limit is not None and seat.undos >= limit:
            raise RoomError(ErrorCode.UNDO_LIMIT, f"these rules allow {limit} undos in a row")
        return self._emit(Undone(now, player, seat.groups[-1])) + self._after_change(now)

    def resign(self, player: str, now: int) -> list[Event]:
        self._playing(player, also_stuck=self.settings.undo)
        return self._emit(Resigned(now, player)) + self._after_change(now)

    def disconnect(self, player: str, now: int) -> list[Event]:
        """The member's connection dropped: a racer keeps the seat for the grace period."""
        if player in self.spectators:
            return self._emit(Left(now, player))
        seat = self.seats.get(player)
        if seat is None or not seat.connected:
            return []
        return self._emit(Presence(now, player, False)) + self._after_change(now)

    def reconnect(self, player: str, now: int) -> list[Event]:
        seat = self.seats.get(player)
        if seat is None or seat.connected or seat.left:
            return []
        return self._emit(Presence(now, player, True)) + self._after_change(now)

    def vote_rematch(
        self, player: str, next_deal: int, now: int, seed: str | None = None, auto: bool = False
    ) -> list[Event]:
        """Vote for a rematch; when every connected racer has, a new deal starts counting down."""
        self._racer(player)
        if self.phase != Phase.FINISHED:
            raise RoomError(ErrorCode.NOT_FINISHED, "a rematch can be asked for once the race is over")
        events = self._emit(RematchVoted(now, player, seed, auto)) if player not in self.rematch else []
        if self.rematch_due():
            events += self._emit(NewDeal(now, next_deal))
            events += self._emit(CountdownSet(now, now + self.settings.countdown_ms))
        return events

    def rematch_due(self) -> bool:
        """Whether every racer still connected (two at least) has voted for a rematch of the
        finished race: a vote that makes it so starts the rematch; so does a vote again once the
        racers who had not voted left or dropped (``server.play.rematches`` sends it)."""
        if self.phase != Phase.FINISHED or not self.rematch:
            return False
        present = {p for p, s in self.seats.items() if s.connected}
        return len(present) >= 2 and present <= self.rematch

    def tick(self, now: int) -> list[Event]:
        """Whatever the clock caused by ``now``: start, time limit, forfeits."""
        events: list[Event] = []
        for player, seat in list(self.seats.items()):
            if self._grace_matters(seat) and now >= (seat.dropped_at or 0) + self.settings.grace_ms:
                if self.phase == Phase.RACING:
                    events += self._emit(Forfeited(now, player))
                elif self.phase in (Phase.WAITING, Phase.COUNTDOWN):
                    events += self._emit(Left(now, player))
        if self.phase == Phase.COUNTDOWN and self.starts_at is not None and now >= self.starts_at:
            start = self.starts_at
            events += self._emit(StartedEvent(start))
            for player, seat in self.seats.items() if self.settings.auto else ():
                opening = _auto_after(seat.board, None) if seat.auto and seat.board is not None else ()
                if opening:
                    events += self._emit(AutoMoved(start, player, opening))
        limit = self.settings.time_limit_ms
        if self.phase == Phase.RACING and limit and self.started_at is not None and now >= self.started_at + limit:
            events += self._emit(Ended(self.started_at + limit, EndReason.TIME_LIMIT))
        return events + self._after_change(now)

    # -- checks -------------------------------------------------------------

    def _member(self, player: str) -> None:
        if not self.has_member(player):
            raise RoomError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.code}")

    def _racer(self, player: str) -> Seat:
        seat = self.seats.get(player)
        if seat is None or seat.left:
            self._member(player)  # not in the room at all comes first
            raise RoomError(ErrorCode.NOT_A_RACER, "spectators watch; only racers play")
        return seat

    def _playing(self, player: str, *, also_stuck: bool = False) -> Seat:
        seat = self.seats.get(player)
        if seat is None or seat.left:
            seat = self._racer(player)  # raises: not in the room, or not a racer
        if self.phase in (Phase.WAITING, Phase.COUNTDOWN):
            raise RoomError(ErrorCode.NOT_STARTED, "the race has not started yet")
        if self.phase == Phase.FINISHED:
            raise RoomError(ErrorCode.RACE_OVER, "the race is over")
        if seat.status != Status.RACING and not (also_stuck and seat.status == Status.STUCK):
            raise RoomError(ErrorCode.NOT_RACING, f"you are {seat.status}: no more moves in this race")
        return seat

    def _after_change(self, now: int) -> list[Event]:
        """Events that follow from the state: countdown on all ready, the end of the race."""
        if self.phase == Phase.WAITING:
            ready = len(self.seats) >= 2 and all(s.ready and s.connected for s in self.seats.values())
            if ready:
                return self._emit(CountdownSet(now, now + self.settings.countdown_ms))
        elif self.phase == Phase.COUNTDOWN:
            if len(self.seats) < 2 or not all(s.ready and s.connected for s in self.seats.values()):
                return self._emit(CountdownSet(now, None))
        elif self.phase == Phase.RACING:
            # With undo on, a stuck racer can still undo their way out: not done yet.
            done = DONE_WITH_UNDO if self.settings.undo else DONE
            all_done = people_done = True
            people = False
            for player, seat in self.seats.items():  # one pass, no generator: this runs after every move
                if seat.status == Status.FINISHED:
                    return self._emit(Ended(now, EndReason.WON))
                over = seat.status in done
                all_done = all_done and over
                if not player.startswith(MACHINES):
                    people, people_done = True, people_done and over
            if all_done:
                return self._emit(Ended(now, EndReason.ALL_DONE if self.seats else EndReason.ABANDONED))
            if people and people_done:  # nobody waits for a bot or a ghost: they stop with the last person
                stopped = [p for p, seat in self.seats.items() if seat.status not in done]
                events = [e for p in stopped for e in self._emit(Resigned(now, p))]
                return events + self._emit(Ended(now, EndReason.ALL_DONE))
        return []

    # -- applying events ----------------------------------------------------

    def _emit(self, event: Event, *, judged: bool = False) -> list[Event]:
        self.apply(event, judged=judged)
        return [event]

    def apply(self, event: Event, *, judged: bool = False) -> None:
        """Change the state as ``event`` says. The only place state changes.

        ``judged``: a move the engine has just accepted is played without being judged again
        (a replayed log's moves are judged: a corrupt log must not corrupt a board)."""
        match event:  # racers' moves first: almost every event is one
            case Moved(at, player, text, auto):
                seat = self.seats[player]
                board = seat.board
                assert board is not None
                before = board.progress
                if judged:  # the auto-moves were found by playing them: legal as well
                    board.push_legal(read_move(text))
                    for played in auto:
                        board.push_legal(read_move(played))
                else:
                    board.push(read_move(text))
                    for played in auto:
                        board.push(read_move(played))
                seat.timeline.append((at, text))
                if auto:
                    seat.served += range(len(seat.timeline), len(seat.timeline) + len(auto))
                    seat.timeline += [(at, played) for played in auto]
                seat.groups.append(len(auto))
                seat.moves += 1
                seat.undos = 0
                self._moved(seat, board, before, at)
            case Undone(at, player, auto):
                seat = self.seats[player]
                board = seat.board
                assert board is not None
                before = board.progress
                seat.served += range(len(seat.timeline), len(seat.timeline) + auto)  # the auto-moves go first
                for _ in range(auto + 1):
                    board.pop()
                    seat.timeline.append((at, "undo"))
                seat.groups.pop()
                seat.moves += 1
                seat.undos += 1
                seat.status = Status.RACING  # an undo can unstick
                if board.progress != before:
                    seat.reached_at = at
            case AutoMoved(at, player, moves):
                seat = self.seats[player]
                board = seat.board
                assert board is not None
                before = board.progress
                for played in moves:
                    board.push(read_move(played))
                seat.served += range(len(seat.timeline), len(seat.timeline) + len(moves))
                seat.timeline += [(at, played) for played in moves]
                self._moved(seat, board, before, at)
            case Joined(at, player, name, role):
                # The creator's own seat (the first join of a new room) came with create_room, not
                # join_room: it leaves them the whole budget for ready changes.
                if self.opened:
                    self.changes[player] = self.changes.get(player, 0) + 1
                self.opened = True
                if role == Role.RACER:
                    self.seats[player] = Seat(name)
                else:
                    self.spectators[player] = name
            case Left(_, player):
                self.spectators.pop(player, None)
                if player in self.seats:
                    if self.phase in (Phase.WAITING, Phase.COUNTDOWN):
                        del self.seats[player]
                    else:
                        seat = self.seats[player]
                        seat.connected = False
                        seat.dropped_at = None
                        seat.left = True
                self.rematch.discard(player)
                if self.phase in (Phase.WAITING, Phase.COUNTDOWN) and not self.seats and not self.spectators:
                    self.abandoned = True
            case ReadySet(_, player, ready, seed, auto):
                self.changes[player] = self.changes.get(player, 0) + 1
                seat = self.seats[player]
                seat.ready = ready
                seat.seed = seed
                seat.auto = auto
                seat.status = Status.READY if ready else Status.WAITING
            case CountdownSet(_, starts_at):
                self.starts_at = starts_at
                self.phase = Phase.COUNTDOWN if starts_at is not None else Phase.WAITING
            case StartedEvent(at):
                self.phase = Phase.RACING
                self.started_at = at
                self.races += 1
                self.changes.clear()
                self.starts_at = None
                secret = self.settings.secret
                if secret is not None:  # a drawn room: the deal is drawn now, from the seeds in seat order
                    seeds = tuple(seat.seed for seat in self.seats.values() if seat.seed is not None)
                    deal, self.draw = draw_deal(
                        self.settings.preset, self.settings.deal_grade, secret, self.races, seeds
                    )
                    self.settings = replace(self.settings, deal=deal)
                for seat in self.seats.values():
                    seat.board = Board.deal(self.settings.preset, self.settings.deal)
                    seat.status = Status.RACING
                    seat.moves = seat.undos = seat.hints = 0
                    seat.reached_at = at
                    seat.finished_at = None
                    seat.timeline = []
                    seat.groups = []
                    seat.served = []
            case Resigned(_, player):
                self.seats[player].status = Status.RESIGNED
            case Forfeited(_, player):
                self.seats[player].status = Status.FORFEIT
            case Presence(at, player, connected):
                seat = self.seats[player]
                seat.connected = connected
                seat.dropped_at = None if connected else at
            case Ended(_, reason):
                self.phase = Phase.FINISHED
                self.end_reason = reason
                self.standings = self._standings()
                self.rematch.clear()
            case RematchVoted(_, player, seed, auto):
                self.rematch.add(player)
                self.seats[player].seed = seed
                self.seats[player].auto = auto
            case Hinted(_, player):
                self.seats[player].hints += 1
            case NewDeal(_, deal):
                self.changes.clear()
                # The server picked it (a daily room's deal is the day's, public on the daily board).
                self.settings = replace(self.settings, deal=deal, chosen=self.settings.daily is not None)
                self.seats = {
                    p: Seat(s.name, ready=True, status=Status.READY, seed=s.seed, auto=s.auto)
                    for p, s in self.seats.items()
                    if s.connected
                }
                self.started_at = None
                self.end_reason = None
                self.standings = ()
                self.rematch.clear()
            case Created():
                raise ValueError("Created comes only first")

    @staticmethod
    def _moved(seat: Seat, board: Board, before: int, at: int) -> None:
        """A racer's board went forward: when they last got somewhere, and whether they are done."""
        if board.progress != before:
            seat.reached_at = at
        if board.is_won():
            seat.status = Status.FINISHED
            seat.finished_at = at
        elif not board.has_legal_move():  # stuck (``is_stuck``, whose is_won was just asked)
            seat.status = Status.STUCK

    def _standings(self) -> tuple[Standing, ...]:
        """Finishers by time; then by progress, ties to whoever reached it first; quitters last."""

        def key(item: tuple[str, Seat]) -> tuple[int, int, int]:
            _, seat = item
            progress = seat.board.progress if seat.board else 0
            if seat.status == Status.FINISHED:
                return (0, seat.finished_at or 0, 0)
            quit_ = 2 if seat.status in (Status.RESIGNED, Status.FORFEIT) else 1
            return (quit_, -progress, seat.reached_at)

        ranked = sorted(self.seats.items(), key=key)
        return tuple(
            Standing(
                place=i + 1,
                player=player,
                name=seat.name,
                status=seat.status,
                progress=seat.board.progress if seat.board else 0,
                moves=seat.moves,
                time_ms=(seat.finished_at if seat.finished_at is not None else seat.reached_at) - self.started_at
                if self.started_at is not None
                else None,
                bot=player.startswith(BOT_PREFIX),
                hints=seat.hints,
                ghost=player.startswith(GHOST_PREFIX),
                # Each own undo is counted in ``moves`` and takes back one own move (``groups``).
                undos=(seat.moves - len(seat.groups)) // 2,
            )
            for i, (player, seat) in enumerate(ranked)
        )

    # -- what to tell whom --------------------------------------------------

    def messages(self, event: Event, *, spectators: bool = True) -> list[Outbound]:
        """The messages an applied event sends to the room's members (the shell sends them).

        Racers hear of each other's progress at once; spectators hear of moves, resignations
        and the result a spectator delay later, with the moves themselves. ``spectators=False``
        leaves out what only spectators would get (the caller has nobody to give it to).

        Every message derives from the log alone: its times are the event's own (``at``), never
        a clock's, so every node that applies the event, now or on a later load, sends the same
        bytes (a node that heard of a move a millisecond later must not date it later).
        """
        delay = self.settings.spectator_delay_ms
        if isinstance(event, _RACER_MOVES):  # racers' moves first: almost every event is one
            player = event.player
            progress = self._progress(player, event.at)
            rivals = []  # a loop, not a comprehension: that is a function call per move
            for other, seat in self.seats.items():
                if not seat.left and other != player:
                    rivals.append(other)
            sent = [Outbound(frozenset(rivals), progress)]
            if spectators and (self.spectators or delay):  # with a delay, someone may join before it falls due
                seen = self._seen(progress, event)
                sent.append(Outbound(frozenset(self.spectators), seen, delay))
            return sent
        racers = frozenset(p for p, s in self.seats.items() if not s.left)
        watchers = frozenset(self.spectators)
        match event:
            case Joined() | Left() | ReadySet() | Presence() | RematchVoted() | Hinted():
                return [Outbound(None, self._members_message())]
            case CountdownSet(at, starts_at):
                return [Outbound(None, Countdown(starts_at=starts_at, server_time=at))]
            case StartedEvent(at):
                opening = Board.deal(self.settings.preset, self.settings.deal)
                limit = self.settings.time_limit_ms
                started = Started(
                    deal=self.deal_code(),
                    preset=self.settings.preset,
                    board=to_board_text(opening),
                    started_at=at,
                    ends_at=at + limit if limit else None,
                    server_time=at,
                )
                return [Outbound(None, started)]
            case Resigned(at, player) | Forfeited(at, player):
                progress = self._progress(player, at)
                return [Outbound(racers, progress), Outbound(watchers, progress, delay)]
            case AutoMoved(at, player, moves):
                progress = self._progress(player, at)
                seen = self._seen(progress, event)
                others = frozenset(p for p in racers if p != player)
                mine = Outbound(frozenset({player}), replace(progress, auto=moves))
                return [mine, Outbound(others, progress), Outbound(watchers, seen, delay)]
            case Ended(_, reason):
                result = Result(
                    reason=reason,
                    standings=self.standings,
                    histories=self.histories(),
                    race_id=self.race_id() if self.started_at is not None else None,
                    seed=self.draw.seed if self.draw is not None and self.started_at is not None else None,
                    commitment=self.commitment(),
                )
                return [Outbound(racers, result), Outbound(watchers, result, delay)]
            case NewDeal(at):
                return [Outbound(frozenset({p}), self.state_for(p, at)) for p in self.members]
        return []

    def _members_message(self) -> Members:
        return Members(
            racers=tuple(self.racer_view(p) for p in self.seats),
            spectators=len(self.spectators),
            rematch=tuple(sorted(self.rematch)),
        )

    def _seen(self, progress: Progress, event: Moved | Undone | AutoMoved) -> Progress:
        """``progress`` as spectators get it: with the moves, to play on that racer's board, and
        the count of moves and undos it brings the racer's timeline to (their ``actions``)."""
        timeline = len(self.seats[event.player].timeline)
        actions = None if timeline == progress.moves else timeline  # absent while they are equal
        if isinstance(event, Moved):
            return replace(progress, move=event.move, auto=event.auto, actions=actions)
        if isinstance(event, Undone):
            return replace(progress, move="undo", undone=event.auto + 1, actions=actions)
        return replace(progress, auto=event.moves, actions=actions)

    def _progress(self, player: str, at: int) -> Progress:
        """``player``'s progress as an event at ``at`` left it."""
        seat = self.seats[player]
        return Progress(
            player=player,
            progress=seat.board.progress if seat.board else 0,
            moves=seat.moves,
            status=seat.status,
            elapsed_ms=self.elapsed(at),
            time_ms=self._time_of(seat),
        )
