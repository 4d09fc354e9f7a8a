"""One live race room without I/O: commands in, effects out, then commit or abort.

A ``RoomCore`` owns a ``Room``, the log it was built from and the spectators' schedule.
Each command (``move``, ``join``, ``tick``...) takes the time, applies what it causes
tentatively, and returns an ``Outcome``: the events to append, the reply, the frames for
the members once stored, and the spectators' delayed frames with their due times. The
shell appends the events, then calls ``commit`` (or ``abort`` if the store failed) and
sends. Nothing here awaits, reads a clock or touches a socket or store.

Spectators see each race a spectator delay late. What they have been sent is a function
of the log and one time, ``watermark``: a racer's move is in a spectator's ``watching``
exactly when its frame fell due by then. So a process that loads the log (after a restart,
or another node) rebuilds the same schedule and serves the same views.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace

from protocol.codec import encode
from protocol.enums import Status
from protocol.messages import Moved, Ok, RoomState
from protocol.schema import Message
from seahaven import Move
from server.rooms.events import Event, NewDeal, Started, Undone
from server.rooms.events import Moved as MovedEvent
from server.rooms.room import Room
from server.rooms.settings import Settings

# Tuples, not unions: isinstance is cheaper with one, and these are asked on every move.
_NEW_RACE = (Started, NewDeal)
"""Events after which the older race's spectator frames are stale."""
_RACER_MOVES = (MovedEvent, Undone)

Frame = tuple[frozenset[str], bytes]
"""Who gets a frame, and the frame."""


@dataclass(frozen=True, slots=True)
class Delayed:
    """A frame for whoever spectates the race when it falls due."""

    due: int
    """Server time (ms) when spectators may see it: the spectator delay after the event (or
    after a later-dated event before it in the log)."""
    race_started_at: int | None
    """The race it belongs to: a rematch makes the older race's frames stale."""
    frame: bytes


@dataclass(slots=True)
class Outcome:
    """What one command caused: append ``events``, then commit, then send ``reply`` and ``frames``."""

    events: list[Event]
    reply: Message
    frames: list[Frame] = field(default_factory=list)
    """For members, once the events are stored, after the reply."""
    delayed: list[Delayed] = field(default_factory=list)
    """For spectators, at their due time (kept by ``commit``)."""
    wake: int | None = None
    """When the shell must call ``release`` and ``tick`` next, once this is committed."""
    new_race: bool = False
    """A race began or a rematch was dealt: the older race's spectator frames are stale."""


@dataclass(slots=True)  # not frozen: one is made per move, and frozen ones take twice as long
class SeatBefore:
    """What a racer's move or undo changes in their seat, as it was before: enough to put the
    seat back exactly, in O(1), when the store refuses that move or undo."""

    player: str
    status: Status
    moves: int
    undos: int
    reached_at: int
    finished_at: int | None
    last_move: Move | None
    """What an undo takes back off the board."""

    @classmethod
    def of(cls, room: Room, player: str) -> SeatBefore | None:
        """``player``'s seat now (None when they have no board: the command will be refused)."""
        seat = room.seats.get(player)
        if seat is None or seat.board is None:
            return None
        last = seat.board.last_move
        return cls(player, seat.status, seat.moves, seat.undos, seat.reached_at, seat.finished_at, last)

    def put_back(self, room: Room, event: MovedEvent | Undone) -> None:
        """Undo ``event``, this racer's move (with its auto-moves) or undo of a move without
        any, the last thing that changed ``room``."""
        seat = room.seats[self.player]
        assert seat.board is not None
        if isinstance(event, MovedEvent):
            for _ in range(1 + len(event.auto)):
                seat.board.pop()
                seat.timeline.pop()
            seat.groups.pop()
        else:
            assert self.last_move is not None and not event.auto
            seat.board.push_legal(self.last_move)  # it was played in this very position
            seat.timeline.pop()
            seat.groups.append(0)
        while seat.served and seat.served[-1] >= len(seat.timeline):
            seat.served.pop()
        seat.status, seat.moves, seat.undos = self.status, self.moves, self.undos
        seat.reached_at, seat.finished_at = self.reached_at, self.finished_at


class RoomCore:
    """One live room: its rules state, its stored log, and what spectators are due to see."""

    def __init__(self, room: Room, log: list[Event], watermark: int) -> None:
        self.room = room
        self.log = log
        """The events the store holds, in order (the room is their replay plus a pending command)."""
        self.watermark = watermark
        """Spectator frames due by this time have been handed out; later ones are in ``schedule``."""
        self.schedule: list[Delayed] = []
        self.latest = max((e.at for e in log), default=watermark)
        """The latest event time in the log: a spectator frame falls due a delay after it, so
        that frames fall due in event order (a time-limit end is dated before the moves that
        beat the timer to it)."""
        self._takeback: tuple[SeatBefore, MovedEvent | Undone] | None = None
        """The command awaiting commit or abort, when it was one racer's move or undo and
        nothing else: ``abort`` puts their seat back instead of replaying the log."""

    # -- construction -------------------------------------------------------

    @classmethod
    def create(cls, code: str, settings: Settings, now: int) -> tuple[RoomCore, Outcome]:
        """A new room, and the outcome that stores its first event."""
        room, events = Room.create(code, settings, now)
        return cls(room, [], now), Outcome(events, Ok())

    @classmethod
    def load(cls, events: list[Event], watermark: int) -> RoomCore:
        """The room of a stored log (ValueError if it does not replay), with the spectator
        frames due after ``watermark`` scheduled again, exactly as they were first built."""
        pending: list[Delayed] = []
        latest = 0

        def schedule(room: Room, event: Event) -> None:
            nonlocal latest
            latest = max(latest, event.at)
            if latest + room.settings.spectator_delay_ms > watermark:
                pending.extend(_delayed(room, event, latest))

        core = cls(Room.replay(events, schedule), list(events), watermark)
        started = core.room.started_at
        core.schedule = [d for d in pending if d.race_started_at == started and d.due > watermark]
        return core

    # -- reading ------------------------------------------------------------

    def state_for(self, player: str, now: int) -> RoomState:
        """The room as ``player`` may see it now (spectators: as far as they have been sent)."""
        return self.room.state_for(player, now, self.watermark)

    def next_wake(self) -> int | None:
        """When the shell must call ``release`` and ``tick`` next (after a load; a command's
        outcome says it too). Spectator frames wake nobody while nobody watches."""
        times = [d.due for d in self.schedule] if self.room.spectators else []
        deadline = self.room.next_deadline()
        if deadline is not None:
            times.append(deadline)
        return min(times, default=None)

    # -- commands -----------------------------------------------------------

    def join(self, player: str, name: str, spectate: bool, now: int) -> Outcome:
        """Seat or admit ``player``; the reply is their room state."""
        if not self.room.spectators:
            self.release(now)  # the first spectator's watching starts from what is due now
            if spectate:
                self.schedule = self._unwatched(now)
        outcome = self._outcome(self.room.join(player, name, spectate, now), now)
        outcome.reply = self.state_for(player, now)
        return outcome

    def leave(self, player: str, now: int) -> Outcome:
        return self._outcome(self.room.leave(player, now), now)

    def ready(self, player: str, ready: bool, now: int, seed: str | None = None, auto: bool = False) -> Outcome:
        return self._outcome(self.room.set_ready(player, ready, now, seed, auto), now)

    def move(self, player: str, move: str, now: int, auto: bool = False) -> Outcome:
        before = SeatBefore.of(self.room, player)
        return self._outcome(self.room.move(player, move, now, auto), now, mover=player, before=before)

    def undo(self, player: str, now: int) -> Outcome:
        before = SeatBefore.of(self.room, player)
        return self._outcome(self.room.undo(player, now), now, mover=player, before=before)

    def hint(self, player: str, now: int) -> Outcome:
        """Count a hint given to ``player`` (the solving happened elsewhere, off the loop)."""
        return self._outcome(self.room.use_hint(player, now), now)

    def resign(self, player: str, now: int) -> Outcome:
        return self._outcome(self.room.resign(player, now), now)

    def rematch(self, player: str, next_deal: int, now: int, seed: str | None = None, auto: bool = False) -> Outcome:
        return self._outcome(self.room.vote_rematch(player, next_deal, now, seed, auto), now)

    def disconnect(self, player: str, now: int) -> Outcome:
        return self._outcome(self.room.disconnect(player, now), now)

    def reconnect(self, player: str, now: int) -> Outcome:
        return self._outcome(self.room.reconnect(player, now), now)

    def take_seat(self, player: str, now: int) -> Outcome:
        """Another connection of ``player`` takes their seat: the seat drops and is back at once
        (the log says when the connection changed, and its append ends the old connection's
        stay); the reply is their room state."""
        outcome = self._outcome(self.room.disconnect(player, now) + self.room.reconnect(player, now), now)
        outcome.reply = self.state_for(player, now)
        return outcome

    def tick(self, now: int) -> Outcome:
        """What the clock caused by ``now``: the start, the time limit, forfeits."""
        return self._outcome(self.room.tick(now), now)

    def apply(self, events: list[Event], now: int) -> Outcome:
        """Events another node stored after this log (read back from the store), applied and
        committed one by one, judged like a replayed log's (ValueError if one does not fit).
        The outcome has no reply: its frames are what the events imply for the members."""
        total = Outcome([], Ok())
        for event in events:
            try:
                self.room.apply(event)
            except (KeyError, IndexError, ValueError, AssertionError) as exc:
                self._replay()  # no command to take back: what the event changed before it failed goes
                raise ValueError(f"room {self.room.code}: event {event} does not fit its log: {exc!r}") from None
            outcome = self._outcome([event], now)
            self.commit(outcome, None)
            total.events.append(event)
            total.frames += outcome.frames
            total.new_race = total.new_race or outcome.new_race
        total.wake = self.next_wake()
        return total

    def release(self, now: int) -> list[Frame]:
        """The spectator frames due by ``now``, in event order, for the spectators there now."""
        # The schedule is in due order: the frames due are its head (most moves find none).
        if not self.schedule or self.schedule[0].due > now:
            self.watermark = max(self.watermark, now)
            return []
        split = bisect.bisect_right(self.schedule, now, key=_due)
        due = self.schedule[:split]
        del self.schedule[:split]
        self.watermark = max(self.watermark, now)
        race = self.room.started_at
        watchers = frozenset(self.room.spectators)
        return [(watchers, d.frame) for d in due if d.race_started_at == race]

    # -- commit or abort ----------------------------------------------------

    def commit(self, outcome: Outcome, stored: int | None) -> bool:
        """The store holds ``outcome.events``; ``stored`` is the log length it reported (None
        when there was nothing to append). False: the stored log is not this one (heal it)."""
        self._takeback = None
        self.log.extend(outcome.events)
        for event in outcome.events:
            if event.at > self.latest:
                self.latest = event.at
        if outcome.new_race:
            self.schedule = []
        self.schedule += outcome.delayed
        return stored is None or stored == len(self.log)

    def abort(self) -> None:
        """The store refused ``outcome.events``: back to what the log holds. A racer's lone move
        or undo (racers clash on those) is taken back in O(1); anything else replays the log."""
        takeback, self._takeback = self._takeback, None
        if takeback is not None:
            before, event = takeback
            before.put_back(self.room, event)
        else:
            self._replay()

    def _replay(self) -> None:
        if self.log:
            self.room = Room.replay(self.log)

    # -- effects ------------------------------------------------------------

    def _outcome(
        self, events: list[Event], now: int, mover: str | None = None, before: SeatBefore | None = None
    ) -> Outcome:
        # A move or undo that caused nothing else (such as the end of the race) is taken back alone
        # (an undo that took back auto-moves too replays the log: it does not say what they were).
        lone = events[0] if len(events) == 1 else None
        self._takeback = None
        if before is not None and (type(lone) is MovedEvent or (type(lone) is Undone and not lone.auto)):
            self._takeback = (before, lone)
        room = self.room
        watched = bool(room.spectators)
        if not watched:
            self.release(now)  # due frames for nobody: the watermark moves on, nothing wakes for them
        outcome = Outcome(events, self._reply(events, mover))
        latest = self.latest
        for event in events:
            if event.at > latest:
                latest = event.at
            outcome.new_race = outcome.new_race or isinstance(event, _NEW_RACE)
            for out in room.messages(event, spectators=watched):
                if out.delay_ms:
                    # Nobody watches: no frame. A first spectator's join rebuilds them from the log.
                    if watched:
                        outcome.delayed.append(Delayed(latest + out.delay_ms, room.started_at, encode(out.message)))
                else:
                    audience = frozenset(room.members) if out.audience is None else out.audience
                    outcome.frames.append((audience, encode(out.message)))
        wake = room.next_deadline()
        if room.spectators:
            # The schedule is in due order: its head, or else the first new frame, is the earliest.
            heads = outcome.delayed[:1] if outcome.new_race else self.schedule[:1] + outcome.delayed[:1]
            for head in heads:
                if wake is None or head.due < wake:
                    wake = head.due
        outcome.wake = wake
        return outcome

    def _unwatched(self, now: int) -> list[Delayed]:
        """The spectator frames due after ``now`` that were not built while nobody watched: the
        log's replay (as a load does), only when an event is recent enough to have one."""
        if self.latest + self.room.settings.spectator_delay_ms <= now:
            return []
        return RoomCore.load(self.log, now).schedule

    def _reply(self, events: list[Event], mover: str | None) -> Message:
        """``moved`` for the mover's own move or undo, ``ok`` for anything else."""
        for event in events:
            if mover is not None and isinstance(event, _RACER_MOVES) and event.player == mover:
                seat = self.room.seats[mover]
                assert seat.board is not None
                reply = Moved(
                    move=event.move if isinstance(event, MovedEvent) else "undo",
                    undo=isinstance(event, Undone),
                    progress=seat.board.progress,
                    moves=seat.moves,
                    status=seat.status,
                    elapsed_ms=self.room.elapsed(event.at),  # as the rivals' progress says
                )
                if not event.auto:  # most moves: no auto-move came with it
                    return reply
                if isinstance(event, MovedEvent):
                    return replace(reply, auto=event.auto)
                return replace(reply, undone=event.auto + 1)
        return Ok()


def _delayed(room: Room, event: Event, latest: int) -> list[Delayed]:
    """The spectators' frames of ``event``, due a spectator delay after ``latest``."""
    return [
        Delayed(latest + out.delay_ms, room.started_at, encode(out.message))
        for out in room.messages(event)
        if out.delay_ms
    ]


def _due(delayed: Delayed) -> int:
    return delayed.due
