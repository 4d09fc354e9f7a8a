"""Registered players at the door: a ``hello`` with a key, checked against the players' cache (the
store), which the database fills on a miss; and the one live session each registered player has.

A hello never waits long on the database: a miss reads it for at most ``DATABASE_WAIT``; when it
cannot say in time the hello is refused ``records-unavailable`` (the client may go on anonymous).
A fill writes only where no entry is (``PlayerCache.fill_player``). Each change of a player in the
database (``changing``) first marks their entry (a mark of its own, kept ``MARK_TTL``: no fill
that read the database before the change can land on it), then, once the change is made, reads
the player again and puts them in place of that mark (``swap_player_entry``). When another change
marked the player meanwhile, the swap fails and the player is marked for good measure: hellos
then read the database until the mark expires, and fill the cache again. So the cache never
holds a player older than a change that was answered.

A registered player has one session per connection (two tabs, a phone and a desktop), and one
seat: ``P{player:ID}:session`` keeps the token of the session that last sat in a room. A hello
with the key resumes that session when it is still in a room (a client back after a restart, as a
hello with its token would: same room, same ``last_seq``), unless another connection races with it
(``Connections`` then opens a session beside it); otherwise it opens a new session. The token is
swapped only from the one a hello saw (``swap_player_session``), so two hellos at once agree.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final, TypeVar

import msgpack

from protocol.errors import ErrorCode, ProtocolError
from server.logs import log_event
from server.players.keys import matches, read_key
from server.shell.ports import Accounts
from server.shell.sessions import PLAYER_TTL, Session, SessionTable
from server.store.interfaces import PlayerCache

T = TypeVar("T")

MISSING_TTL: Final = 300.0
"""Seconds the cache remembers that a player id is not on record (a forged or deleted key)."""
MARK_TTL: Final = 60.0
"""Seconds a change's mark keeps fills out: far longer than a fill takes from its database read to
its store write (``DATABASE_WAIT`` and one store timeout)."""
DATABASE_WAIT: Final = 0.5
"""Seconds a hello waits for the database on a cache miss."""
LOOKUPS_PER_MINUTE: Final = 30
"""Database reads for keyed hellos one client address may cause a minute (then ``rate-limited``)."""
ENTRY_FORMAT: Final = 2
"""1: [format, handle, keys]; 2 adds the display name."""
SWAPS: Final = 5
"""Times a hello tries to make its session the player's while other hellos of theirs keep doing so."""

MARK: Final = b"!"
"""The first byte of a mark (an entry is a msgpack array, whose first byte is never this)."""


@dataclass(frozen=True, slots=True)
class CachedPlayer:
    """A registered player as the cache holds them (no keys: no such player on record); ``name``
    None in an entry written before names were kept (a hello then keeps its own)."""

    handle: str | None
    keys: tuple[str, ...]
    name: str | None = None

    def dump(self) -> bytes:
        data: bytes = msgpack.packb([ENTRY_FORMAT, self.handle, list(self.keys), self.name])
        return data

    @classmethod
    def load(cls, data: bytes) -> CachedPlayer | None:
        """None: an entry of a newer format, or one that does not read (read the database instead)."""
        try:
            version, handle, keys, *rest = msgpack.unpackb(data, raw=False)
            if version > ENTRY_FORMAT:
                return None
            known = cls(handle, tuple(keys), rest[0] if rest else None)
        except (ValueError, TypeError, msgpack.UnpackException):
            return None
        ok = all(isinstance(v, str) for v in (*known.keys, *(x for x in (handle, known.name) if x is not None)))
        return known if ok else None


MISSING: Final = CachedPlayer(None, ())


def unavailable() -> ProtocolError:
    return ProtocolError(ErrorCode.RECORDS_UNAVAILABLE, "the player records are unavailable; try again later")


class Identities:
    """Who a key is, and the session a hello with it gets. ``accounts`` None: no database (a key is
    known only while the cache holds it)."""

    def __init__(self, cache: PlayerCache, table: SessionTable, accounts: Accounts | None) -> None:
        self.cache = cache
        self.table = table
        self.accounts = accounts

    async def session_for(self, key: str, name: str, address: str) -> tuple[Session, bool]:
        """The session of the player whose ``key`` it is, and whether it is new (else it is their
        seat's, in a room, to resume). ProtocolError ``bad-key`` for a key that is not a live one,
        ``records-unavailable`` when the database cannot say; StoreError from the store."""
        read = read_key(key)
        if read is None:
            raise _bad_key()
        player, hashed = read
        known = await self.known(player, address)
        if not matches(hashed, known.keys):
            raise _bad_key()
        token = await self.cache.player_session(player)
        for _ in range(SWAPS):
            if token is not None:
                session = await self._live(token, player)
                if session is not None and session.room is not None:  # out of a room: nothing to resume
                    session.handle = known.handle
                    await self.cache.swap_player_session(player, token, token, PLAYER_TTL)  # kept as long again
                    return session, False
            # The player's name, whatever this device calls them (set_name changes it on purpose).
            opened = await self.table.open_identified(player, known.name or name, known.handle)
            kept = await self.cache.swap_player_session(player, token, opened.token, PLAYER_TTL)
            if kept == opened.token:
                return opened, True
            await self.table.discard(opened)  # another hello made or swapped it meanwhile: theirs counts
            token = kept
        raise ProtocolError(ErrorCode.BAD_TOKEN, "a newer connection took this session over")

    async def beside(self, seated: Session) -> Session:
        """A new session of ``seated``'s player (and name) for another connection; the seat stays
        with ``seated``."""
        return await self.table.open_identified(seated.player, seated.name, seated.handle)

    async def name_of(self, session: Session, address: str) -> str:
        """The registered player's name as on record (the session's own when the records cannot say)."""
        try:
            known = await self.known(session.player, address)
        except ProtocolError:
            return session.name
        return known.name or session.name

    async def _live(self, token: str, player: str) -> Session | None:
        try:
            session = await self.table.find(token)
        except ProtocolError:  # expired: a new session takes its place
            return None
        return session if session.player == player else None

    async def known(self, player: str, address: str) -> CachedPlayer:
        """The player as the cache holds them, filled from the database on a miss."""
        entry = await self.cache.player_entry(player)
        if entry is not None and not entry.startswith(MARK):
            known = CachedPlayer.load(entry)
            if known is not None:
                return known
        if self.accounts is None:
            raise unavailable()
        if await self.cache.count_attempt(f"lookup:{address}", 60.0) > LOOKUPS_PER_MINUTE:
            raise ProtocolError(ErrorCode.RATE_LIMITED, "too many keys tried from your address: wait a minute")
        found = await self._read(self.accounts, player, DATABASE_WAIT)
        if entry is None:  # a mark keeps fills out until it expires
            await self.cache.fill_player(player, found.dump(), _ttl(found))
        return found

    async def _read(self, accounts: Accounts, player: str, seconds: float) -> CachedPlayer:
        account = await bounded(accounts.player(player), seconds)
        return MISSING if account is None else CachedPlayer(account.handle, tuple(account.key_hashes), account.name)

    async def changing(self, accounts: Accounts, player: str, change: Callable[[], Awaitable[T]], wait: float) -> T:
        """Run ``change`` of the player in the database (bounded by ``wait`` seconds, as is the read
        after it), with their cache entry marked first and filled from the database after (see
        the module docstring). A change that fails leaves the mark: it expires."""
        mark = MARK + secrets.token_bytes(8)
        await self.cache.mark_player(player, mark, MARK_TTL)
        result = await bounded(change(), wait)
        try:
            fresh = await self._read(accounts, player, wait)
        except ProtocolError:
            return result  # the change is made; hellos read the database once the mark expires
        if not await self.cache.swap_player_entry(player, mark, fresh.dump(), _ttl(fresh)):
            await self.cache.mark_player(player, MARK, MARK_TTL)
        return result


def _ttl(known: CachedPlayer) -> float:
    return PLAYER_TTL if known.keys else MISSING_TTL


async def bounded(call: Awaitable[T], seconds: float) -> T:
    """``call``'s result; ``records-unavailable`` when the database fails or takes longer."""
    try:
        async with asyncio.timeout(seconds):
            return await call
    except (OSError, TimeoutError) as exc:
        log_event("records.error", error=str(exc) or type(exc).__name__)
        raise unavailable() from None


def _bad_key() -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_KEY, "unknown key: say hello without one (or sign in again)")
