"""Quick match: racers of a similar rating paired through the store's queues (docs/protocol.md,
``quick_match``; docs/ratings.md, "Quick match").

A racer who asks is paired at once with the waiter the queue lets them race, and joins that
waiter's room (on whichever node holds it); when nobody fits, they are seated alone in a room of
their own and wait there, in the queue, with the rating window widening as they wait. Every half
second each node looks at the queues its waiters are in: the pairs the wider windows now allow are
taken out, and of each pair its waiter on that node moves into the partner's room. So a partner on
another node needs no message of its own: the partner's room's log (and its doorbell) tells their
node, which tells them (``members``). Waiting in a room keeps the old answer (``room``) and lets a
racer leave the queue by leaving the room.

A waiter who leaves, drops, is joined by someone or gets a bot is out of the queue by this node's
next look (and the queue never hands out a waiter whose room says otherwise: every partner's room
is checked before the join); one who comes back to the room is queued again. A waiter the queue
lost (taken out for a join that failed, or a store that forgot) is put back at the second look
that misses them.
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Final, Protocol

from protocol.codec import encode
from protocol.enums import Phase
from protocol.errors import ProtocolError
from protocol.messages import Matching, QuickMatch
from server.logs import log_event
from server.rooms.room import Room
from server.shell.clock import Clock, Timer
from server.shell.fanout import Fanout
from server.shell.handlers import handles
from server.shell.held import Asker, Create, HeldRoom
from server.shell.ports import Bots, Deals
from server.shell.roompath import RoomPath, Spawn
from server.shell.sessions import Session
from server.store.base import StoreError
from server.store.interfaces import MatchQueues, Nodes, RatingCache
from server.store.matching import Waiter, Window

MATCH_WINDOW: Final = Window(base=100, widens=50, anyone_after_ms=9000)
"""Ratings within 100 of each other race at once, 50 more for each second the longer waiter has
waited, and anyone after 9 s: with a look every half second, nobody waits more than 10 s while
anyone else waits for the same kind of race."""
NEW_RATING: Final = 1500
"""The rating of a player the store has none for (a new player's shown number)."""
LOOK_EVERY_MS: Final = 500
"""How often a node looks at the queues its waiters are in."""
MAX_TRIES: Final = 8
"""Partners one racer tries in a row when the ones the queue hands out have gone meanwhile."""
NO_ROOM: Final = "-"
"""The room of a racer who asks for a partner before they have a room to wait in."""


class MatchStore(MatchQueues, RatingCache, Nodes, Protocol):
    """What quick match needs of the store: the queues, the players' ratings, the nodes alive."""


class State(Enum):
    """Where a waiter of this node stands, from their room."""

    WAITING = "waiting"
    AWAY = "away"
    """Dropped (their seat kept for the grace period): out of the queue until they are back."""
    DONE = "done"
    """Left, joined by someone, seated with a bot, or the room is gone: no longer a waiter."""


@dataclass(slots=True)
class Waiting:
    """A racer of this node waiting alone in a quick-match room for a partner."""

    session: Session
    queue: str
    preset: str
    me: Waiter
    bot_at: int | None
    """When a bot may take the free seat (server ms; None: no bot)."""
    missing: int = 0
    """This node's looks in a row that found the racer missing from the queue."""
    away: bool = False


def queue_of(preset: str, deal_grade: str | None, daily: str | None) -> str:
    """The queue of one kind of race: a preset, and the deal grade or daily day asked for.
    Racers are paired within one queue only."""
    if daily is not None:
        return f"{preset}/daily/{daily}"
    return preset if deal_grade is None else f"{preset}/{deal_grade}"


class Matchmaker:
    """The ``quick_match`` request and this node's waiters: their looks at the queues, their
    moves to partners, their bots."""

    def __init__(
        self,
        path: RoomPath,
        store: MatchStore,
        create: Create,
        deals: Deals,
        bots: Bots,
        fanout: Fanout,
        clock: Clock,
        node: str,
        spawn: Spawn,
    ) -> None:
        self.path = path
        self.store = store
        self.create = create
        self.deals = deals
        self.bots = bots
        self.fanout = fanout
        self.clock = clock
        self.node = node
        self.spawn = spawn
        self.waiting: dict[str, Waiting] = {}
        """This node's waiters, by player."""
        self.timer: Timer | None = None
        self.looking = False
        self.stopped = False

    def stop(self) -> None:
        """No more looks (the server is stopping)."""
        self.stopped = True
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    # -- the request ----------------------------------------------------------------------------

    @handles(QuickMatch)
    async def on_quick_match(self, asker: Asker, message: QuickMatch) -> None:
        session = asker.session
        await self.path.check_free(session)
        daily, deal = await self.deals.daily_deal(message.preset) if message.daily else (None, None)
        queue = queue_of(message.preset, message.deal_grade, daily)
        rating = await self.store.get_rating(session.player, message.preset)
        now = self.clock.now()
        me = Waiter(session.player, NEW_RATING if rating is None else rating, now, self.node, NO_ROOM)
        alive = await self._alive()
        for _ in range(MAX_TRIES):
            partner = await self.store.enqueue(queue, me, MATCH_WINDOW, now, alive, wait=False)
            if partner is None:
                break
            held = await self._room_of(partner)
            if held is None:
                continue
            with contextlib.suppress(ProtocolError):  # taken or started meanwhile: the next one
                await self.path.join(asker, held, spectate=False)
                log_event("match.paired", player=session.player, partner=partner.player, room=held.room.code)
                return
        # Nobody to race yet: a room of one's own, to wait in.
        if daily is not None:  # the daily deal is public: its races are never rated
            settings = await self.deals.settings(message.preset, deal, daily=daily)
        else:  # the room quick match opens is rated (docs/ratings.md)
            settings = await self.deals.settings(message.preset, None, deal_grade=message.deal_grade, rated=True)
        held = await self.create(asker, settings)
        bot_at = now + message.bot_after * 1000 if message.bot_after is not None else None
        waiting = Waiting(session, queue, message.preset, dataclasses.replace(me, room=held.room.code), bot_at)
        found: list[Waiter] = []

        async def queued() -> None:  # seated, not yet told: in the queue before anyone hears of the room
            with contextlib.suppress(StoreError):  # (kept as missing: the looks put them in)
                partner = await self._enter(waiting)
                if partner is not None:
                    found.append(partner)

        await self.path.join(asker, held, spectate=False, then=queued)
        if found:  # came in the same instant: move to them
            await self._queue_up(waiting, found[0])
        else:
            self._waits(waiting)

    # -- waiting, and moving to a partner -----------------------------------------------------------

    async def _enter(self, waiting: Waiting) -> Waiter | None:
        """The waiter waits in the queue; or a partner the queue has for them now is taken out
        (and returned) and the waiter is no longer one of this node's waiters."""
        player = waiting.session.player
        self.waiting[player] = waiting
        try:
            partner = await self.store.enqueue(
                waiting.queue, waiting.me, MATCH_WINDOW, self.clock.now(), await self._alive(), wait=True
            )
        except StoreError:
            self._keep(waiting)
            raise
        if partner is not None and self.waiting.get(player) is waiting:
            del self.waiting[player]
        return partner

    def _waits(self, waiting: Waiting) -> None:
        """The waiter is in the queue: told so (unless a look has moved them meanwhile), and looked at."""
        if self.waiting.get(waiting.session.player) is waiting:
            self._tell(waiting)
        self._look_later()

    async def _queue_up(self, waiting: Waiting, partner: Waiter | None = None) -> None:
        """The waiter waits in the queue, or moves to ``partner`` (or one the queue has for them
        now); when a partner has gone meanwhile, the next one, or back to waiting."""
        player = waiting.session.player
        for _ in range(MAX_TRIES):
            if partner is None:
                partner = await self._enter(waiting)
                if partner is None:
                    self._waits(waiting)
                    return
            try:
                if await self._move(waiting, partner):
                    return
            except StoreError:
                self._keep(waiting)
                raise
            partner = None
        log_event("match.gave_up", player=player, queue=waiting.queue)

    def _keep(self, waiting: Waiting) -> None:
        """A store call failed the waiter: kept here, as missing from the queue, so that the next
        look that misses them too puts them in."""
        self.waiting[waiting.session.player] = waiting
        waiting.missing = 1
        self._look_later()

    async def _move(self, waiting: Waiting, partner: Waiter) -> bool:
        """Bring the waiter from their room into ``partner``'s; False when that room no longer
        waits for them (the waiter stays where they are, and waits again)."""
        session = waiting.session
        state = self._state(waiting)
        own = self.path.rooms.get(waiting.me.room)
        if state == State.AWAY:  # out of the queue until they are back (the partner's node puts the partner back)
            waiting.away = True
            self.waiting[session.player] = waiting
        if own is None or state != State.WAITING:
            return True
        target = await self._room_of(partner)
        if target is None:
            return False
        await self.path.leave(session, own)
        try:
            await self.path.seat_unasked(session, target)
        except (ProtocolError, StoreError) as exc:  # taken meanwhile: back to their own room
            log_event("match.move_failed", player=session.player, room=target.room.code, error=str(exc))
            try:
                back = await self.path.get(waiting.me.room)
                if back is None:
                    return True
                await self.path.seat_unasked(session, back)
            except ProtocolError as again:  # their room is gone too: in no room now (their next request says so)
                log_event("match.move_failed", player=session.player, room=waiting.me.room, error=str(again))
                return True
            return False
        log_event("match.paired", player=session.player, partner=partner.player, room=target.room.code)
        return True

    async def _room_of(self, partner: Waiter) -> HeldRoom | None:
        """The partner's room, when it still waits for a partner of theirs: them alone in it,
        connected, a seat free (else None: a partner the queue handed out in vain)."""
        try:
            held = await self.path.get(partner.room)
        except ProtocolError:  # a newer build's room: not ours to fill
            return None
        if held is None:
            return None
        if not _alone(held.room, partner.player):
            await self.path.forget_if_idle(held)
            return None
        return held

    def _state(self, waiting: Waiting) -> State:
        session = waiting.session
        held = self.path.rooms.get(waiting.me.room)
        if self.path.table.by_token.get(session.token) is not session or held is None:
            return State.DONE
        room = held.room
        seat = room.seats.get(session.player)
        if session.room != room.code or seat is None or room.phase != Phase.WAITING or len(room.seats) != 1:
            return State.DONE
        return State.WAITING if session.conn is not None and seat.connected else State.AWAY

    def _tell(self, waiting: Waiting) -> None:
        """The waiter hears how the queue looks for a partner for them."""
        waited = self.clock.now() - waiting.me.joined
        matching = Matching(
            preset=waiting.preset,
            rating=waiting.me.rating,
            window=MATCH_WINDOW.width(waited),
            widens=MATCH_WINDOW.widens,
            anyone_after_ms=MATCH_WINDOW.anyone_after_ms,
            waited_ms=waited,
        )
        self.fanout.send([(frozenset({waiting.session.player}), encode(matching))])

    async def _alive(self) -> set[str]:
        return await self.store.alive() | {self.node}

    # -- the looks ----------------------------------------------------------------------------------

    def _look_later(self, after: int | None = None) -> None:
        """The next look, half a second from now (or from ``after``, when the last look was due:
        a look that took long is followed by the next one at once, keeping the pace)."""
        if self.timer is None and not self.looking and self.waiting and not self.stopped:
            start = self.clock.now() if after is None else after
            self.timer = self.clock.call_at(start + LOOK_EVERY_MS, lambda: self._due(start + LOOK_EVERY_MS))

    def _due(self, when: int) -> None:
        self.timer = None
        self.spawn(self._look(when))

    async def _look(self, when: int) -> None:
        self.looking = True  # (no other look is set meanwhile: this one sets the next)
        try:
            await self._look_now()
        except StoreError as exc:
            log_event("store.error", error=str(exc))
        finally:
            self.looking = False
            self._look_later(when)

    async def _look_now(self) -> None:
        """Drop the waiters who are no longer, take the away ones out of the queue (and put the
        ones back who are back), then pair what each queue allows now."""
        queues: dict[str, list[Waiting]] = {}
        for player, waiting in list(self.waiting.items()):
            match self._state(waiting):
                case State.DONE:
                    del self.waiting[player]
                    await self.store.dequeue(waiting.queue, player, waiting.me.joined)
                case State.AWAY:
                    if not waiting.away:
                        waiting.away = True
                        await self.store.dequeue(waiting.queue, player, waiting.me.joined)
                case State.WAITING:
                    if waiting.away:  # back: in the queue again at this look
                        waiting.away, waiting.missing = False, 1
                    queues.setdefault(waiting.queue, []).append(waiting)
        if not queues:
            return
        alive = await self._alive()
        for queue, waiters in queues.items():
            mine = [w.session.player for w in waiters]
            now = self.clock.now()
            matched = await self.store.match_waiters(queue, self.node, alive, mine, MATCH_WINDOW, now)
            for mover, partner in matched.pairs:
                moving = self.waiting.get(mover.player)
                if moving is None or moving.me != mover:
                    continue  # an older wait's entry (the partner's node puts the partner back)
                del self.waiting[mover.player]
                await self._queue_up(moving, partner)
            missing = set(matched.missing)
            for waiting in waiters:
                player = waiting.session.player
                if self.waiting.get(player) is not waiting:
                    continue
                if player not in missing:
                    waiting.missing = 0
                    if waiting.bot_at is not None and waiting.bot_at <= now and matched.left == 1:
                        await self._bot(waiting)
                    continue
                waiting.missing += 1
                if waiting.missing >= 2:  # not a join on its way: the queue lost them
                    del self.waiting[player]
                    await self._queue_up(waiting)

    async def _bot(self, waiting: Waiting) -> None:
        """Nobody else waits and the racer's wait for a bot is over: a bot takes the free seat."""
        player = waiting.session.player
        if await self.store.dequeue(waiting.queue, player, waiting.me.joined):  # not just taken by a partner
            del self.waiting[player]
            await self.bots.offer(waiting.me.room, player)


def _alone(room: Room, player: str) -> bool:
    """``player`` waits in ``room`` alone and connected, a seat free for a partner."""
    seat = room.seats.get(player)
    return room.is_open() and len(room.seats) == 1 and seat is not None and seat.connected
