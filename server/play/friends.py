"""Friends, presence and invitations (docs/protocol.md, section 24), between registered players.

- **Friends** are kept in the records (``FriendBook``): a request the other accepts, removal, blocks.
  Each change is pushed to the other player as a ``friends`` event, through their doorbell.
- **Presence**: every half second this node looks at the players connected here (their sessions'
  rooms, seats and phases: nothing asks the database or waits on a move) and, for each whose state
  changed, keeps it in the store (``FriendStore``, read by ``friends`` on any node) and rings each
  friend's doorbell with a ``presence`` event. A player who moved to another node is left to it: a
  node drops only the presence it wrote, and says "offline" only when it dropped one. Who the
  friends are is read from the records when a player is first seen here, after a change (made
  here, or heard of through the player's doorbell), and at the latest every ``CIRCLE_SECONDS``.
- **Invitations** live in the store until answered (taken once) or expired; the inviter's node
  says "expired" to both when nobody answered in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Final, Protocol, TypeVar

import msgpack

from protocol.codec import encode
from protocol.enums import Phase, Status
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import (
    INVITE_LEN,
    AddFriend,
    AnswerInvite,
    BlockPlayer,
    Friend,
    FriendRef,
    Friends,
    FriendsRequest,
    Invitation,
    Invite,
    InviteClosed,
    Invited,
    JoinRoom,
    Presence,
    RaceAgain,
    RemoveFriend,
    SetPresence,
    UnblockPlayer,
)
from protocol.schema import Message
from server.logs import log_event
from server.rooms.room import MACHINES, Room
from server.shell.clock import Clock
from server.shell.handlers import handles
from server.shell.held import Asker, Create
from server.shell.names import CODE_ALPHABET
from server.shell.ports import Deals, FriendBook, FriendListing, ListedPlayer
from server.shell.roompath import RoomPath, Spawn, seated_elsewhere
from server.shell.sessions import PLAYER_BELL, Session, SessionTable
from server.store.base import StoreError
from server.store.interfaces import Doorbells, FriendStore

__all__ = ["FriendRequests"]

T = TypeVar("T")

PRESENCE_EVERY: Final = 0.5
"""Seconds between two looks at the players connected here."""
PRESENCE_TTL: Final = 90.0
"""Seconds a presence is kept unless renewed: a node that died leaves its players offline after it."""
RENEW_AFTER: Final = 30.0
"""Seconds after which an unchanged presence is written again."""
CIRCLE_SECONDS: Final = 60.0
"""How long a player's friends, as read from the records, are trusted here: a change anywhere
reaches this node sooner, through the doorbell that brings the player a ``friends`` event."""
INVITE_SECONDS: Final = 60
"""How long an invitation waits for its answer."""
INVITE_KEPT_AFTER: Final = 30
"""Seconds the store keeps an invitation after its end (its expiry is said by the inviter's node)."""
INVITES_PER_MINUTE: Final = 10
"""Invitations one player may send in a minute."""

_FRIENDS_FRAME: Final = msgpack.packb({"type": "friends"})[1:]
"""How a ``friends`` frame begins after its map's head (server frames begin with their type)."""
_RANK: Final = {"offline": 0, "lobby": 1, "waiting": 2, "watching": 3, "racing": 4}
_OUT: Final = (Status.FINISHED, Status.RESIGNED, Status.FORFEIT)


Handler = Callable[[Asker, JoinRoom], Awaitable[Message | None]]
State = tuple[str, str | None]
"""A presence: the state and the room (None: none)."""


class FriendsStore(FriendStore, Doorbells, Protocol):
    """What friends ask of the store."""


@dataclass(slots=True)
class _Circle:
    ids: frozenset[str]
    hidden: bool
    until: float


@dataclass(slots=True)
class _Shown:
    state: State
    value: bytes
    """What this node keeps in the store for the player (b"": nothing)."""
    at: float
    told: bool = True
    """The player's friends heard this state (False: their circle changed: tell it again)."""


def _ref(known: ListedPlayer) -> FriendRef:
    return FriendRef(player=known.player, name=known.name, handle=known.handle)


class FriendRequests:
    """The friends requests, the presence loop (``run``) and the invitations' expiries.

    ``book``: the records (None: no records, every request answers ``records-unavailable``);
    ``join``: the ``join_room`` handler (an accepted invitation seats the player as a join would);
    ``create``: a new room within the asker's budgets (``invite`` from no room)."""

    def __init__(
        self,
        path: RoomPath,
        table: SessionTable,
        store: FriendsStore,
        book: FriendBook | None,
        deals: Deals,
        create: Create,
        join: Handler,
        clock: Clock,
        spawn: Spawn,
        node: str,
    ) -> None:
        self.path = path
        self.table = table
        self.store = store
        self.book = book
        self.deals = deals
        self.create = create
        self.join = join
        self.clock = clock
        self.spawn = spawn
        self.node = node
        self.circles: dict[str, _Circle] = {}
        self.shown: dict[str, _Shown] = {}
        # Each player's circle changes so far (``_retell``): a look or a read that began before one
        # knows it is out of date when it ends.
        self.changes: Counter[str] = Counter()
        self.sent: dict[str, deque[float]] = {}
        self.failures = 0

    # -- requests ------------------------------------------------------------------------------------

    @handles(FriendsRequest)
    async def on_friends(self, asker: Asker, message: FriendsRequest) -> Message:
        return await self.listing(self._me(asker).player)

    @handles(AddFriend)
    async def on_add_friend(self, asker: Asker, message: AddFriend) -> Message:
        me, book = self._me(asker), self._book()
        if (message.handle is None) == (message.player is None):
            raise ProtocolError(ErrorCode.BAD_FIELD, "give handle or player, one of them")
        other = await _records(book.find(handle=message.handle, player=message.player))
        if other is None:
            raise ProtocolError(ErrorCode.PLAYER_NOT_FOUND, "no registered player by that handle or id")
        if other.player == me.player:
            raise ProtocolError(ErrorCode.BAD_FIELD, "you cannot be your own friend")
        outcome = await _records(book.add(me.player, other.player, self.clock.now()))
        if outcome == "blocked":
            raise ProtocolError(ErrorCode.BLOCKED, "that player takes no requests from you")
        if outcome == "you-blocked":
            raise ProtocolError(ErrorCode.BLOCKED, "you block that player: unblock them first")
        if outcome == "limit":
            raise ProtocolError(ErrorCode.FRIENDS_LIMIT, "too many friends or requests: remove some first")
        log_event("friends.add", player=me.player, other=other.player, outcome=outcome)
        return await self._changed(me.player, other.player)

    @handles(RemoveFriend)
    async def on_remove_friend(self, asker: Asker, message: RemoveFriend) -> Message:
        me = self._me(asker)
        if await _records(self._book().remove(me.player, message.player)):
            return await self._changed(me.player, message.player)
        return await self.listing(me.player)

    @handles(BlockPlayer)
    async def on_block_player(self, asker: Asker, message: BlockPlayer) -> Message:
        me = self._me(asker)
        if message.player == me.player:
            raise ProtocolError(ErrorCode.BAD_FIELD, "you cannot block yourself")
        if await _records(self._book().find(player=message.player)) is None:
            raise ProtocolError(ErrorCode.PLAYER_NOT_FOUND, "no registered player by that id")
        await _records(self._book().block(me.player, message.player, self.clock.now()))
        return await self._changed(me.player, message.player)

    @handles(UnblockPlayer)
    async def on_unblock_player(self, asker: Asker, message: UnblockPlayer) -> Message:
        me = self._me(asker)
        await _records(self._book().unblock(me.player, message.player))
        return await self.listing(me.player)

    @handles(SetPresence)
    async def on_set_presence(self, asker: Asker, message: SetPresence) -> Message:
        me = self._me(asker)
        await _records(self._book().set_shown_to(me.player, message.shown_to))
        self._retell(me.player)  # shown again, as it now is, at the next look
        shown = self.shown.get(me.player)
        if message.shown_to == "nobody" and shown is not None and shown.value:
            self.shown[me.player] = _Shown(("offline", None), b"", time.monotonic())
            if await self.store.drop_presence(me.player, shown.value):
                await self._tell(me.player, ("offline", None), await self._circle(me.player))
        return await self.listing(me.player)

    @handles(Invite)
    async def on_invite(self, asker: Asker, message: Invite) -> Message | None:
        me, book = self._me(asker), self._book()
        if message.player == me.player:
            raise ProtocolError(ErrorCode.BAD_FIELD, "invite someone else")
        self._spend_invite(me.player)
        blocked, friends = await _records(book.blocks_or_friends(me.player, message.player))
        if blocked:
            raise ProtocolError(ErrorCode.BLOCKED, "you cannot invite that player")
        if not friends:
            raise ProtocolError(ErrorCode.NOT_FRIENDS, "you can invite only your friends")
        created = me.room is None
        if created:  # a race now: a private room of two, the asker seated (answered with its state)
            await self.path.check_free(me)  # not while racing on another connection of theirs
            settings = await self.deals.settings("seahaven", None, seats=2, public=False)
            held = await self.create(asker, settings)
            await self.path.join(asker, held, spectate=False)
        else:
            held = self.path.held_by(me)
        room = held.room
        if room.phase != Phase.WAITING:
            raise ProtocolError(ErrorCode.RACE_IN_PROGRESS, "invite between races, from the waiting room")
        if me.player not in room.seats:
            raise ProtocolError(ErrorCode.NOT_A_RACER, "only a racer of the room invites")
        if len(room.seats) >= room.settings.seats:
            raise ProtocolError(ErrorCode.ROOM_FULL, f"all {room.settings.seats} seats are taken")
        reply = await self._send_invite(me, message.player, room)
        if not created:
            return reply
        await asker.ws.send(encode(reply))  # the reply was the room's state: the invitation follows
        return None

    @handles(RaceAgain)
    async def on_race_again(self, asker: Asker, message: RaceAgain) -> None:
        me, book = self._me(asker), self._book()
        held = self.path.held_by(me)
        room = held.room
        if room.phase != Phase.FINISHED:
            raise ProtocolError(ErrorCode.NOT_FINISHED, "race again once the race is over")
        if me.player not in room.seats:
            raise ProtocolError(ErrorCode.NOT_A_RACER, "only a racer of the race asks to race again")
        group = [p for p in room.seats if p != me.player and not p.startswith(MACHINES)]
        if not group:
            raise ProtocolError(ErrorCode.NOBODY_TO_INVITE, "nobody else raced: start a new room instead")
        invited = [p for p in group if not (await _records(book.blocks_or_friends(me.player, p)))[0]]
        if not invited:
            raise ProtocolError(ErrorCode.BLOCKED, "you cannot invite the players you raced")
        self._spend_invite(me.player, len(invited))
        elsewhere = await self.path.seat_elsewhere(me)  # not while racing on another connection of theirs
        if elsewhere is not None:
            raise seated_elsewhere(elsewhere[1].room.code)
        old = room.settings
        settings = await self.deals.settings(
            old.preset,
            None,
            seats=max(2, len(invited) + 1),
            public=False,
            time_limit_ms=old.time_limit_ms,
            undo=old.undo,
            hints=old.hints,
            lost_notice=old.lost_notice,
            auto=old.auto,
            rated=old.rated,
            any_deal=old.any_deal,
            deal_grade=old.deal_grade,
        )
        new = await self.create(asker, settings)  # before leaving: a refusal keeps me where I was
        try:
            await self.path.leave(me, held)
        except BaseException:
            await self.path.forget_if_idle(new)  # nobody was seated in it
            raise
        await self.path.join(asker, new, spectate=False)
        for player in invited:  # the reply was the new room's state: the invitations follow
            await asker.ws.send(encode(await self._send_invite(me, player, new.room, again=True)))

    async def _send_invite(self, me: Session, player: str, room: Room, again: bool = False) -> Invitation:
        """Invite ``player`` to ``room``: kept in the store, rung to them, its expiry timed here."""
        invite = "".join(secrets.choice(CODE_ALPHABET) for _ in range(INVITE_LEN))
        expires_at = self.clock.now() + INVITE_SECONDS * 1000
        kept = [me.player, me.name, player, room.code, room.settings.preset, expires_at]
        # Kept past its end, for the inviter's node to take it then and say it expired.
        await self.store.put_invite(invite, msgpack.packb(kept), INVITE_SECONDS + INVITE_KEPT_AFTER)
        invited = Invited(
            invite=invite,
            player=me.player,
            name=me.name,
            room=room.code,
            preset=room.settings.preset,
            expires_at=expires_at,
            again=again,
        )
        await self.store.ring(PLAYER_BELL, player, encode(invited))
        self.clock.call_at(expires_at, lambda: self.spawn(self._expire(invite, me.player, player)))
        log_event("friends.invite", invite=invite, player=me.player, other=player, room=room.code, again=again)
        return Invitation(invite=invite, player=player, room=room.code, expires_at=expires_at)

    @handles(AnswerInvite)
    async def on_answer_invite(self, asker: Asker, message: AnswerInvite) -> Message | None:
        me = self._me(asker)
        kept = await self.store.take_invite(message.invite)
        if kept is None:
            raise ProtocolError(ErrorCode.INVITE_NOT_FOUND, "that invitation was answered or has expired")
        inviter, _name, invited, code, _preset, expires_at = msgpack.unpackb(kept)
        if invited != me.player:  # not theirs to answer: kept for the one it is for
            left = max(0.001, (expires_at - self.clock.now()) / 1000)
            await self.store.put_invite(message.invite, kept, left + INVITE_KEPT_AFTER)
            raise ProtocolError(ErrorCode.INVITE_NOT_FOUND, "that invitation is not yours")
        if self.clock.now() >= expires_at:
            await self._closed(message.invite, inviter, invited, "expired")
            raise ProtocolError(ErrorCode.INVITE_NOT_FOUND, "that invitation has expired")
        if not message.accept:
            await self._closed(message.invite, inviter, invited, "declined")
            return None
        try:
            reply = await self.join(asker, JoinRoom(room=code))
        except ProtocolError:
            await self._closed(message.invite, inviter, invited, "expired")  # it could not be used
            raise
        await self._closed(message.invite, inviter, invited, "accepted")
        return reply

    def renamed(self, player: str) -> None:
        """The player's handle or name on record changed: each friend, and each player with a
        request either way, gets their list again, saying it (off the request's path)."""
        if self.book is not None:
            self.spawn(self._renamed(self.book, player))

    async def _renamed(self, book: FriendBook, player: str) -> None:
        with contextlib.suppress(StoreError, OSError):  # their lists say it at their next look
            found = await book.listing(player)
            for other in sorted({k.player for k in (*found.friends, *found.incoming, *found.outgoing)}):
                await self.store.ring(PLAYER_BELL, other, encode(await self.listing(other)))

    def heard(self, player: str, frame: bytes) -> None:
        """A frame the player's doorbell brought here: a ``friends`` one means their circle changed
        on another node (read it again, and tell it their presence, at the next look)."""
        if frame[1:].startswith(_FRIENDS_FRAME):
            self._retell(player)

    # -- presence ------------------------------------------------------------------------------------

    async def run(self) -> None:
        """Look at the players connected here every ``PRESENCE_EVERY`` seconds, until cancelled."""
        while True:
            await asyncio.sleep(PRESENCE_EVERY)
            try:
                await self.look()
            except (StoreError, OSError) as exc:
                self.failures += 1
                if self.failures == 1:
                    log_event("presence.unavailable", error=str(exc))
            else:
                self.failures = 0

    async def look(self) -> None:
        """Keep and tell each change of presence of the registered players held here."""
        now = time.monotonic()
        states = {player: self.state_of(sessions.values()) for player, sessions in self.table.of_player.items()}
        for player, state in states.items():
            if state is None:
                continue
            shown = self.shown.get(player)
            if shown is not None and shown.state == state and shown.told and now - shown.at < RENEW_AFTER:
                continue
            # The circle may change while this look awaits the store: its friends then hear the
            # player again at the next look (told False), not after RENEW_AFTER.
            changes = self.changes[player]
            circle = await self._circle(player)
            if circle.hidden or state[0] == "offline":  # hidden: what this node showed goes
                if shown is not None and shown.value and await self.store.drop_presence(player, shown.value):
                    await self._tell(player, state if not circle.hidden else ("offline", None), circle)
                self.shown[player] = _Shown(state, b"", now, self.changes[player] == changes)
                continue
            value = msgpack.packb([state[0], state[1], self.node, self.clock.now()])
            await self.store.put_presence(player, value, PRESENCE_TTL)
            self.shown[player] = fresh = _Shown(state, value, now)
            if shown is None or shown.state != state or not shown.told:
                await self._tell(player, state, circle)
            fresh.told = self.changes[player] == changes
        for player in [p for p in self.shown if states.get(p) is None]:  # no session here any more
            shown = self.shown.pop(player)
            self.circles.pop(player, None)
            if shown.value and await self.store.drop_presence(player, shown.value):
                await self._tell(player, ("offline", None), await self._circle(player))

    def state_of(self, sessions: Iterable[Session]) -> State | None:
        """A registered player's presence from their sessions here (None: none of theirs is a
        registered player's): the busiest of them."""
        best: State | None = None
        for session in sessions:
            if not session.identified:
                continue
            state = self._session_state(session)
            if best is None or _RANK[state[0]] > _RANK[best[0]]:
                best = state
        return best

    def _session_state(self, session: Session) -> State:
        if session.conn is None:
            return ("offline", None)
        if session.room is None:
            return ("lobby", None)
        held = self.path.rooms.get(session.room)
        if held is None:
            return ("waiting", session.room)
        room = held.room
        seat = room.seats.get(session.player)
        if seat is None:
            return ("watching", room.code)
        if room.phase in (Phase.COUNTDOWN, Phase.RACING) and seat.status not in _OUT:
            return ("racing", room.code)
        return ("waiting", room.code)

    async def listing(self, player: str) -> Friends:
        """The player's friends list, each friend with their presence from the store."""
        found: FriendListing = await _records(self._book().listing(player))
        values = await self.store.presences([k.player for k in found.friends])
        friends = []
        for known, value in zip(found.friends, values, strict=True):
            state, room = ("offline", None) if value is None else tuple(msgpack.unpackb(value)[:2])
            friends.append(Friend(player=known.player, name=known.name, handle=known.handle, state=state, room=room))
        return Friends(
            friends=tuple(friends),
            incoming=tuple(_ref(k) for k in found.incoming),
            outgoing=tuple(_ref(k) for k in found.outgoing),
            blocked=tuple(_ref(k) for k in found.blocked),
            shown_to=found.shown_to,
        )

    # -- helpers -------------------------------------------------------------------------------------

    def _me(self, asker: Asker) -> Session:
        self._book()
        if not asker.session.identified:
            raise ProtocolError(ErrorCode.NOT_IDENTIFIED, "friends are for registered players: register first")
        return asker.session

    def _book(self) -> FriendBook:
        if self.book is None:
            raise ProtocolError(ErrorCode.RECORDS_UNAVAILABLE, "this server keeps no records: no friends")
        return self.book

    def _spend_invite(self, player: str, count: int = 1) -> None:
        """Take ``count`` invitations from the player's minute, all or none."""
        now = time.monotonic()
        sent = self.sent.setdefault(player, deque())
        while sent and now - sent[0] > 60:
            sent.popleft()
        if len(sent) + count > INVITES_PER_MINUTE:
            raise ProtocolError(ErrorCode.RATE_LIMITED, f"{INVITES_PER_MINUTE} invitations a minute: wait a little")
        sent.extend([now] * count)

    async def _changed(self, me: str, other: str) -> Friends:
        """After a change between two players: both circles read again, the other told."""
        self._retell(me)  # each tells the other their presence at the next look
        self._retell(other)
        theirs = await self.listing(other)
        await self.store.ring(PLAYER_BELL, other, encode(theirs))
        return await self.listing(me)

    def _retell(self, player: str) -> None:
        """The player's friends changed: read them again, and tell them the player's presence, at
        the next look (what this node keeps in the store stays known: it can still drop it)."""
        self.changes[player] += 1
        self.circles.pop(player, None)
        shown = self.shown.get(player)
        if shown is not None:
            shown.told = False

    async def _circle(self, player: str) -> _Circle:
        circle = self.circles.get(player)
        if circle is None or circle.until < time.monotonic():
            changes = self.changes[player]
            found = await self._book().listing(player)  # OSError while the database is away
            circle = _Circle(found.ids, found.shown_to == "nobody", time.monotonic() + CIRCLE_SECONDS)
            if self.changes[player] == changes:  # else read before the change: not kept
                self.circles[player] = circle
        return circle

    async def _tell(self, player: str, state: State, circle: _Circle) -> None:
        frame = encode(Presence(player=player, state=state[0], room=state[1]))
        for friend in circle.ids:
            await self.store.ring(PLAYER_BELL, friend, frame)

    async def _closed(self, invite: str, inviter: str, invited: str, answer: str) -> None:
        frame = encode(InviteClosed(invite=invite, player=invited, answer=answer))
        for player in (inviter, invited):
            await self.store.ring(PLAYER_BELL, player, frame)

    async def _expire(self, invite: str, inviter: str, invited: str) -> None:
        with contextlib.suppress(StoreError):
            if await self.store.take_invite(invite) is not None:
                await self._closed(invite, inviter, invited, "expired")


async def _records(call: Awaitable[T]) -> T:
    """The records' answer; records-unavailable when the database cannot be reached."""
    try:
        return await call
    except OSError:
        raise ProtocolError(ErrorCode.RECORDS_UNAVAILABLE, "the records are unavailable: try again") from None
