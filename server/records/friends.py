"""Friends in the records (implements the shell's ``FriendBook``): requests, friendships, blocks and
who sees a player's presence, between registered players.

One row per direction (``friendships``): a friendship is two ``friends`` rows, written and removed
together in one transaction; a request is the asker's ``requested`` row, which the other's
``add_friend`` turns into a friendship; a block is the blocker's ``blocked`` row, which ends any
friendship or request between the two first. Mutual, not "follow": what a friend sees is what the
player is doing, and only someone the player said yes to should see that.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

from sqlalchemy import and_, delete, func, insert, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ColumnElement

from protocol.names import fold
from server.records.database import Database
from server.records.schema import friendships, players, presence_settings

__all__ = ["FRIENDS", "FriendListing", "FriendRecords", "ListedPlayer", "Outcome"]

FRIENDS: Final = "friends"
REQUESTED: Final = "requested"
BLOCKED: Final = "blocked"

Outcome = Literal["requested", "friends", "already", "blocked", "you-blocked", "limit"]
"""What ``add_friend`` did: asked; became friends (they had asked); nothing (friends already, or
asked already); refused (they block the asker, or the asker blocks them: unblock first; too many)."""

_live = players.c.deleted_at.is_(None)


@dataclass(frozen=True, slots=True)
class ListedPlayer:
    """A registered player as a friends list shows them."""

    player: str
    name: str
    handle: str | None


@dataclass(frozen=True, slots=True)
class FriendListing:
    friends: tuple[ListedPlayer, ...] = ()
    incoming: tuple[ListedPlayer, ...] = ()
    outgoing: tuple[ListedPlayer, ...] = ()
    blocked: tuple[ListedPlayer, ...] = ()
    shown_to: str = "friends"
    ids: frozenset[str] = field(default=frozenset())
    """The friends' ids."""


class FriendRecords:
    """The ``friendships`` and ``presence_settings`` tables; ``limit``: the most rows either way."""

    def __init__(self, db: Database, *, limit: int = 200) -> None:
        self.db = db
        self.limit = limit

    async def find(self, *, handle: str | None = None, player: str | None = None) -> ListedPlayer | None:
        """A live registered player by handle (compared folded) or by id."""
        where = players.c.handle_key == fold(handle) if handle is not None else players.c.player == player
        query = select(players.c.player, players.c.display_name, players.c.handle).where(where, _live)
        async with self.db.read() as conn:
            row = (await conn.execute(query)).first()
        return None if row is None else ListedPlayer(row.player, row.display_name, row.handle)

    async def listing(self, player: str) -> FriendListing:
        """The player's friends, requests either way, blocks and presence setting."""
        async with self.db.read() as conn:
            return await _listing(conn, player)

    async def add(self, me: str, other: str, now: int) -> Outcome:
        """``me`` asks ``other`` (see ``Outcome``)."""
        async with self.db.write() as conn:
            rows = await _between(conn, me, other)
            if rows.get((other, me)) == BLOCKED:
                return "blocked"
            if rows.get((me, other)) == BLOCKED:
                return "you-blocked"
            if rows.get((me, other)) in (FRIENDS, REQUESTED):
                return "already"
            if rows.get((other, me)) == REQUESTED:  # they asked first: friends now
                await conn.execute(delete(friendships).where(_row(other, me)))
                pair = [dict(player=a, other=b, state=FRIENDS, since=now) for a, b in ((me, other), (other, me))]
                await conn.execute(insert(friendships), pair)
                return "friends"
            mine = await _count(conn, friendships.c.player == me, friendships.c.state != BLOCKED)
            theirs = await _count(conn, friendships.c.other == other, friendships.c.state == REQUESTED)
            if mine >= self.limit or theirs >= self.limit:
                return "limit"
            await conn.execute(insert(friendships).values(player=me, other=other, state=REQUESTED, since=now))
            return "requested"

    async def remove(self, me: str, other: str) -> bool:
        """End a friendship, withdraw a request or decline one (True: there was one)."""
        async with self.db.write() as conn:
            return await _unfriend(conn, me, other)

    async def block(self, me: str, other: str, now: int) -> None:
        async with self.db.write() as conn:
            await _unfriend(conn, me, other)
            await conn.execute(delete(friendships).where(_row(me, other)))
            await conn.execute(insert(friendships).values(player=me, other=other, state=BLOCKED, since=now))

    async def unblock(self, me: str, other: str) -> bool:
        async with self.db.write() as conn:
            gone = await conn.execute(delete(friendships).where(_row(me, other), friendships.c.state == BLOCKED))
            return bool(gone.rowcount)

    async def set_shown_to(self, me: str, shown_to: str) -> None:
        async with self.db.write() as conn:
            await conn.execute(delete(presence_settings).where(presence_settings.c.player == me))
            if shown_to != FRIENDS:
                await conn.execute(insert(presence_settings).values(player=me, shown_to=shown_to))

    async def blocks_or_friends(self, me: str, other: str) -> tuple[bool, bool]:
        """(either blocks the other, the two are friends)."""
        async with self.db.read() as conn:
            rows = await _between(conn, me, other)
        return BLOCKED in rows.values(), rows.get((me, other)) == FRIENDS


def _row(player: str, other: str) -> ColumnElement[bool]:
    return and_(friendships.c.player == player, friendships.c.other == other)


async def _between(conn: AsyncConnection, a: str, b: str) -> dict[tuple[str, str], str]:
    query = select(friendships.c.player, friendships.c.other, friendships.c.state).where(or_(_row(a, b), _row(b, a)))
    return {(r.player, r.other): r.state for r in (await conn.execute(query)).all()}


async def _unfriend(conn: AsyncConnection, me: str, other: str) -> bool:
    gone = await conn.execute(
        delete(friendships).where(or_(_row(me, other), _row(other, me)), friendships.c.state.in_((FRIENDS, REQUESTED)))
    )
    return bool(gone.rowcount)


async def _count(conn: AsyncConnection, *where: ColumnElement[bool]) -> int:
    query = select(func.count()).select_from(friendships).where(*where)
    return int((await conn.execute(query)).scalar_one())


async def _listing(conn: AsyncConnection, player: str) -> FriendListing:
    mine = (
        select(friendships.c.other, friendships.c.state, players.c.display_name, players.c.handle)
        .join(players, players.c.player == friendships.c.other)
        .where(friendships.c.player == player, _live)
        .order_by(func.lower(players.c.display_name), friendships.c.other)
    )
    asking = (
        select(friendships.c.player, players.c.display_name, players.c.handle)
        .join(players, players.c.player == friendships.c.player)
        .where(friendships.c.other == player, friendships.c.state == REQUESTED, _live)
        .order_by(friendships.c.since, friendships.c.player)
    )
    shown = select(presence_settings.c.shown_to).where(presence_settings.c.player == player)
    by_state: dict[str, list[ListedPlayer]] = {FRIENDS: [], REQUESTED: [], BLOCKED: []}
    for row in (await conn.execute(mine)).all():
        by_state[row.state].append(ListedPlayer(row.other, row.display_name, row.handle))
    incoming = [ListedPlayer(r.player, r.display_name, r.handle) for r in (await conn.execute(asking)).all()]
    setting = (await conn.execute(shown)).scalar_one_or_none()
    return FriendListing(
        friends=tuple(by_state[FRIENDS]),
        incoming=tuple(incoming),
        outgoing=tuple(by_state[REQUESTED]),
        blocked=tuple(by_state[BLOCKED]),
        shown_to=setting or FRIENDS,
        ids=frozenset(k.player for k in by_state[FRIENDS]),
    )
