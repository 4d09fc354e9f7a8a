"""What each consumer needs of the store: one protocol per consumer, and ``Store``, the whole backend.

A consumer is given the narrowest protocol it uses (the session table a ``SessionStore``, the deal
pool a ``DealStore``...); every one is the same guarded backend object, so each call goes through
the backend's one guarded call (``server.store.guarded``): the stall breaker and the metrics.

All TTLs are in seconds and must be > 0 (``ValueError`` otherwise). Methods are declared returning
awaitables, not as coroutines, so a backend may hand on its guarded call's awaitable without a
coroutine frame of its own (the rooms' appends do); ``doorbells`` is a coroutine (it is run as a task).
"""

from __future__ import annotations

from collections.abc import Awaitable, Collection, Sequence
from typing import Protocol

from server.store.base import Append, Appended, Ring
from server.store.guarded import Breaker, Observer
from server.store.matching import Matched, Waiter, Window

__all__ = [
    "Archives",
    "ArenaStore",
    "DailyStore",
    "DealStore",
    "Doorbells",
    "Listings",
    "MatchQueues",
    "Nodes",
    "PlayerCache",
    "RatingCache",
    "RoomLog",
    "SessionStore",
    "Store",
]


class RoomLog(Protocol):
    """Each room's append-only event log, its requests' replies and its holders (the nodes holding it).

    A room is live while its log is live; ``load`` of an unknown or expired room is ``[]``.
    """

    def append(self, room: str, events: Sequence[bytes], ttl: float) -> Awaitable[int]:
        """Append events to the room's log and set the log's time to live, atomically, in one round trip.

        Returns the log length after the append. An empty ``events`` only refreshes the TTL of an
        existing log (an unknown room stays unknown) and returns its length. The TTL applies to the
        log; the room's lobby listing keeps its own TTL (``set_listing``/``expire``).
        """
        ...

    def append_at(self, room: str, events: Sequence[bytes], append: Append) -> Awaitable[Appended]:
        """Append ``events`` as ``append`` says (:class:`~server.store.base.Append`: at the
        ``expected`` length and chain ``tip``, once per ``request``, the ``holder``, the ``archive``
        marks, the TTL), in one atomic call. ``Stored``, else ``Duplicate`` (the request was stored
        before), ``Forked`` (the log's first ``expected`` events are not the caller's: it holds
        another history from some index on) or ``Behind`` (the log was not ``expected`` long; when
        shorter, its ``tip`` says whether it is a prefix of the caller's)."""
        ...

    def read_from(self, room: str, start: int, holder: str | None = None) -> Awaitable[tuple[int, list[bytes], str]]:
        """The log's length, its events from index ``start`` on and its chain tip at ``start`` (at its
        length, when shorter), at one instant: the reader compares the tip with its own to know the
        events follow its log; a live room counts ``holder`` among its holders in the same instant
        (nothing appended later goes unrung)."""
        ...

    def memo(self, room: str, player: str) -> Awaitable[tuple[int, bytes] | None]:
        """The last stored request of ``player`` in ``room``: its seq and reply frame (None: none, or
        one written in a newer format than this node reads)."""
        ...

    def load(self, room: str, holder: str | None = None) -> Awaitable[list[bytes]]:
        """The room's whole log in append order; ``[]`` when unknown or expired. A live room counts
        ``holder`` among its holders in the same instant, as ``read_from`` does."""
        ...

    def expire(self, room: str, ttl: float) -> Awaitable[None]:
        """Set the TTL of everything the room owns (log and listing) to ``ttl`` from now."""
        ...

    def delete(self, room: str) -> Awaitable[None]:
        """Remove the room's log, listing and archive marks now."""
        ...

    def room_ids(self) -> Awaitable[list[str]]:
        """Ids of rooms with a live log, sorted (for recovery after a restart)."""
        ...


class Doorbells(Protocol):
    """Messages between nodes: the rooms' appends, session takeovers, wiped logs, frames to a player,
    the arenas'. A node hears a room's, a session's or a player's doorbells only while it listens to
    them (``listen``: a room while it holds it, a session and its player while their connection is
    here); the arenas' it always hears. The memory store (one process) rings every doorbell everywhere."""

    def listen(self, bells: Collection[tuple[str, str]]) -> Awaitable[None]:
        """Hear the doorbells ``bells`` (kind, key: ``room``/code, ``session``/token, ``player``/id)
        from now on; returns once nothing rung later can be missed (or, while the store's doorbells
        are down, at once: their return rings ``*``). A room's ``wiped`` comes with ``room``."""
        ...

    def unlisten(self, bells: Collection[tuple[str, str]]) -> None:
        """Stop hearing ``bells`` (in the background: a ``listen`` after it wins)."""
        ...

    def ring(self, kind: str, key: str, data: str | bytes) -> Awaitable[None]:
        """Ring a doorbell for the nodes listening to it: ``session`` (data: the node that took the session over;
        older connections close with 4001), ``wiped`` (a room's log was written back whole) or
        ``player`` (key: a player id, data: a frame for that player's connection, wherever it is) or
        ``arena`` (key: an arena's code; every node hears it)."""
        ...

    async def doorbells(self, ring: Ring) -> None:
        """Call ``ring`` for every doorbell, forever (cancel to stop); survives store outages,
        calling ``ring("*", "", b"")`` after each reconnection (doorbells may have been missed).
        Not guarded: it runs for the process's life and reconnects by itself."""
        ...


class Nodes(Protocol):
    """Which nodes are alive, and which node each room member's connection is on."""

    def beat(self, node: str, ttl: float) -> Awaitable[None]:
        """Say ``node`` is alive for ``ttl`` seconds."""
        ...

    def leave(self, node: str) -> Awaitable[None]:
        """Say ``node`` has stopped: from now on it is not alive, and counted dead (its members'
        connections closed with it)."""
        ...

    def alive(self) -> Awaitable[set[str]]:
        """The nodes whose last ``beat`` has not run out."""
        ...

    def dead(self) -> Awaitable[set[str]]:
        """The nodes whose last ``beat`` ran out within the last minute (then they are forgotten)."""
        ...

    def locate(self, room: str, player: str, node: str, ttl: float) -> Awaitable[None]:
        """Record that ``player``'s connection to ``room`` is on ``node`` (kept ``ttl`` seconds)."""
        ...

    def located(self, room: str) -> Awaitable[dict[str, str]]:
        """Player -> the node their connection to ``room`` was last on."""
        ...

    def set_due(self, room: str, at: int | None) -> Awaitable[None]:
        """Say when ``room`` next needs a node (unix ms: a countdown's end, a grace period's, the time
        limit), whether or not any node holds it then; None: never (unlisted)."""
        ...

    def claim_due(self, now: int, lease: int, count: int) -> Awaitable[list[str]]:
        """At most ``count`` rooms due by ``now`` (unix ms), each put off by ``lease`` ms so that the
        other nodes' polls pass it over while this one loads it (a claimer that dies, it comes back)."""
        ...

    def hand_over(self, node: str, now: int) -> Awaitable[int]:
        """The rooms ``node`` located members in (``locate``) become due at ``now`` at the latest,
        and ``node`` is forgotten there: how many. For a node that died or restarted: whichever node
        claims each then records its members' drops."""
        ...


class SessionStore(Protocol):
    """Sessions by token (opaque bytes), each with its own TTL."""

    def put_session(self, token: str, data: bytes, ttl: float) -> Awaitable[None]:
        """Store (or replace) a session for ``ttl`` seconds."""
        ...

    def get_session(self, token: str) -> Awaitable[bytes | None]:
        """The session's data; ``None`` when unknown or expired."""
        ...

    def delete_session(self, token: str) -> Awaitable[None]:
        """Forget a session (no error when unknown)."""
        ...


class Listings(Protocol):
    """The public lobby: one opaque summary per listed room."""

    def set_listing(self, room: str, summary: bytes | None, ttl: float) -> Awaitable[None]:
        """Publish (or replace) the room's public lobby entry for ``ttl`` seconds; ``None`` removes it."""
        ...

    def listings(self) -> Awaitable[dict[str, bytes]]:
        """Live public entries only: room id -> summary. An entry appears only while both its listing
        and its room's log are live, so an expired (or deleted) room's entry never appears."""
        ...


class DealStore(Protocol):
    """The deal pool's sets of deal numbers, by preset and grade, shared by every node."""

    def add_deals(self, preset: str, grade: str, numbers: Sequence[int]) -> Awaitable[None]:
        """Add deal numbers to a pool (numbers already there are kept once)."""
        ...

    def pop_deal(self, preset: str, grade: str) -> Awaitable[int | None]:
        """Remove and return one deal number, atomically (each goes to one caller only); None when empty."""
        ...

    def count_deals(self, preset: str, grade: str) -> Awaitable[int]:
        """How many deals the pool holds."""
        ...


class DailyStore(Protocol):
    """The daily boards: each player's best time on a preset's deal of a day."""

    def record_daily(self, preset: str, day: str, player: str, name: str, time_ms: int, ttl: float) -> Awaitable[None]:
        """Keep ``time_ms`` for (``player``, ``name``) on the board of ``preset`` and ``day`` unless
        they have a better time there; a board expires ``ttl`` seconds after its first entry."""
        ...

    def daily_best(self, preset: str, day: str, count: int) -> Awaitable[list[tuple[str, str, int]]]:
        """The ``count`` best (player, name, time_ms) of a board, fastest first (ties in player order)."""
        ...


class Archives(Protocol):
    """Finished races on their way to the database, exactly once whatever fails.

    A race's mark lives in its room's own keys (one hash slot) and is written by the very append
    that stores the race's end (``Append.archive``), so no crash can store an end
    without its mark. Archivers find marked rooms through an index (one key) filled after the
    commit and idempotently; a crash between the commit and ``index_archive`` leaves a mark the
    index lacks, which ``marked_rooms`` (a slow scan) finds for the sweep that indexes it again.
    A mark is cleared only after its race is in the database; a room leaves the index only when its
    marks are gone and nobody indexed it again meanwhile (the stamp)."""

    def index_archive(self, room: str) -> Awaitable[None]:
        """Put ``room`` in the archivers' index with a new stamp (idempotent)."""
        ...

    def archive_due(self, count: int) -> Awaitable[list[tuple[str, int]]]:
        """Up to ``count`` indexed rooms, oldest stamp first: (room, stamp)."""
        ...

    def archive_backlog(self) -> Awaitable[int]:
        """How many rooms the index holds (one O(1) read: for /healthz and /metrics)."""
        ...

    def archive_marks(self, room: str) -> Awaitable[list[str]]:
        """The race ids marked in ``room``, sorted (``[]`` when none)."""
        ...

    def clear_archive(self, room: str, races: Sequence[str], ttl: float) -> Awaitable[int]:
        """Unmark ``races`` in ``room``; when no mark is left, the room's keys that keep no TTL get
        ``ttl``. Returns how many marks are left."""
        ...

    def unindex_archive(self, room: str, stamp: int) -> Awaitable[bool]:
        """Take ``room`` out of the index if its stamp is still ``stamp`` and it has no marks
        (True when taken out)."""
        ...

    def marked_rooms(self) -> Awaitable[list[str]]:
        """Every room holding a mark, sorted (scans every key: for the sweep, not for each race)."""
        ...


# -- players that last ------------------------------------------------------------------------------


class PlayerCache(Protocol):
    """Registered players as the database last said (opaque entries the shell fills on a miss, so a
    hello never waits on the database for a player it saw lately), each one's live session, and
    counted attempts (sign-in tries), all shared by every node."""

    def player_entry(self, player: str) -> Awaitable[bytes | None]:
        """The player's cached entry; None when nothing is cached."""
        ...

    def fill_player(self, player: str, entry: bytes, ttl: float) -> Awaitable[bool]:
        """Cache ``entry`` for ``ttl`` seconds unless the player has an entry already (then nothing
        changes: False). So a fill read from the database before a change cannot overwrite the mark
        the change left (``mark_player``)."""
        ...

    def mark_player(self, player: str, entry: bytes, ttl: float) -> Awaitable[None]:
        """Cache ``entry`` for ``ttl`` seconds whatever is there (before a change in the database:
        a mark that keeps older fills out until it expires)."""
        ...

    def swap_player_entry(self, player: str, expected: bytes, entry: bytes, ttl: float) -> Awaitable[bool]:
        """Atomically: if the player's entry is ``expected``, make it ``entry`` for ``ttl`` seconds
        (True); else change nothing (False)."""
        ...

    def player_session(self, player: str) -> Awaitable[str | None]:
        """The token of the player's live session; None when none is kept."""
        ...

    def swap_player_session(
        self, player: str, expected: str | None, token: str | None, ttl: float
    ) -> Awaitable[str | None]:
        """Atomically: if the player's session token is ``expected`` (None: none kept), make it
        ``token`` for ``ttl`` seconds (None: keep none). Returns the token kept afterwards (``token``
        when the swap happened, else the one another caller put there)."""
        ...

    def count_attempt(self, what: str, window: float) -> Awaitable[int]:
        """Count one attempt at ``what``: how many were made in the window of ``window`` seconds
        that the first of them opened (a new window opens once it has passed)."""
        ...


class RatingCache(Protocol):
    """Each player's shown rating per preset as the database last said (docs/ratings.md), for what
    must not wait on the database (the quick match): the archive writes it after each rated race."""

    def put_rating(self, player: str, preset: str, rating: int, ttl: float) -> Awaitable[None]:
        """Keep ``rating`` (the shown number) for ``player`` on ``preset`` for ``ttl`` seconds,
        replacing what was there."""
        ...

    def get_rating(self, player: str, preset: str) -> Awaitable[int | None]:
        """The player's shown rating on ``preset``; None when none is kept (unrated, or expired:
        then the database has it)."""


# -- arenas (server/play/arenas.py) ------------------------------------------------------------------


class ArenaStore(Protocol):
    """Arenas: each one's definition, its players' entries (opaque bytes, changed only by a
    compare-and-set), the live arenas' index, and a lease that one node holds at a time."""

    def put_arena(self, code: str, meta: bytes, ttl: float) -> Awaitable[bool]:
        """Keep a new arena's definition and index it as live (False: the code is taken)."""
        ...

    def arena(self, code: str) -> Awaitable[tuple[bytes | None, dict[str, bytes]]]:
        """An arena's definition (None: unknown or expired) and its players' entries, in one read."""
        ...

    def arena_codes(self) -> Awaitable[set[str]]:
        """The arenas indexed as live."""
        ...

    def unlist_arena(self, code: str) -> Awaitable[None]:
        """Take a finished arena out of the live index (its keys expire by their TTL)."""
        ...

    def write_arena(
        self,
        code: str,
        expected: dict[str, bytes | None],
        entries: dict[str, bytes],
        ttl: float,
        once: str | None = None,
    ) -> Awaitable[int]:
        """Set ``entries`` if every field of ``expected`` holds what it says (None: absent) and the
        arena has not done ``once`` before (then it has), atomically: 1 written, 0 a field differed
        (nothing written: read and try again), 2 ``once`` was done before (nothing written)."""
        ...

    def lease(self, name: str, holder: str, ttl: float) -> Awaitable[bool]:
        """Take the lease ``name`` for ``ttl`` seconds, or renew it when ``holder`` holds it
        (False: another holder's lease has not run out)."""
        ...


class MatchQueues(Protocol):
    """The quick match's queues (server/store/matching.py): racers waiting for a partner of a
    similar rating, one queue per kind of race, shared by every node. Each call is atomic on its
    queue: a waiter is taken out by one call only, so nobody is matched twice. ``alive``: the
    nodes alive now; the waiters of any other node are dropped first (their connections died with
    it). ``now``: server ms, the clock the waits are measured on."""

    def enqueue(
        self, queue: str, waiter: Waiter, window: Window, now: int, alive: Collection[str], *, wait: bool
    ) -> Awaitable[Waiter | None]:
        """Take out the waiter ``waiter`` may race (nearest rating first) and return it; None when
        there is none, and then, with ``wait``, ``waiter`` waits in the queue. Any earlier entry of
        ``waiter.player`` is dropped either way."""
        ...

    def match_waiters(
        self, queue: str, node: str, alive: Collection[str], mine: Collection[str], window: Window, now: int
    ) -> Awaitable[Matched]:
        """Pair the queue's waiters as ``window`` allows at ``now`` (``matching.pair_up``), and take
        out the pairs with a waiter on ``node`` (the one that moves; when both are, the newer);
        the other pairs are left for their nodes. Says which players of ``mine`` (``node``'s
        waiters) the queue did not hold, and how many waiters are left."""
        ...

    def dequeue(self, queue: str, player: str, joined: int) -> Awaitable[bool]:
        """Take ``player`` out of the queue if they still wait there since ``joined`` (True: taken
        out by this call)."""
        ...


class BanList(Protocol):
    """The moderators' list (docs/admin.md): bans of names, addresses and networks, and reserved
    names, each an opaque entry under its key (``name:FOLD``, ``address:IP``, ``network:CIDR``,
    ``reserved:FOLD``), shared by every node. Entries say when they end; the reader drops ended ones."""

    def put_ban(self, key: str, entry: bytes) -> Awaitable[None]:
        """Keep ``entry`` under ``key``, replacing what was there."""
        ...

    def lift_ban(self, key: str) -> Awaitable[bool]:
        """Remove the entry under ``key`` (True: there was one)."""
        ...

    def bans(self) -> Awaitable[dict[str, bytes]]:
        """Every entry, by key."""
        ...


class FriendStore(Protocol):
    """What friends share across nodes (server/play/friends.py): each player's presence as the node
    holding their connection last said it (opaque bytes), and invitations until answered or expired."""

    def put_presence(self, player: str, value: bytes, ttl: float) -> Awaitable[None]:
        """Keep ``value`` as the player's presence for ``ttl`` seconds, replacing what was there."""
        ...

    def presences(self, players: Sequence[str]) -> Awaitable[list[bytes | None]]:
        """Each player's presence, in order (None: none kept: offline)."""
        ...

    def drop_presence(self, player: str, value: bytes) -> Awaitable[bool]:
        """Remove the player's presence if it is still ``value`` (True: removed): a node drops only
        what it wrote, not what the node the player moved to wrote since."""
        ...

    def put_invite(self, invite: str, value: bytes, ttl: float) -> Awaitable[None]:
        """Keep an invitation for ``ttl`` seconds."""
        ...

    def take_invite(self, invite: str) -> Awaitable[bytes | None]:
        """The invitation, removed: one caller gets it (None: answered, expired or never made)."""
        ...


class Store(
    RoomLog,
    Doorbells,
    Nodes,
    SessionStore,
    Listings,
    DealStore,
    DailyStore,
    Archives,
    PlayerCache,
    RatingCache,
    ArenaStore,
    MatchQueues,
    BanList,
    FriendStore,
    Protocol,
):
    """A whole backend: every consumer's protocol, and its guard, ping and close."""

    def guard(self, breaker: Breaker | None, observer: Observer | None) -> None:
        """Send every call from now on through ``breaker`` (refused while stalled, tripped by a slow
        failure) and report each one's latency and outcome to ``observer``. A store has one guard (the
        last attached): give each server its own store."""
        ...

    def ping(self) -> Awaitable[bool]:
        """True when the store answers (for ``/healthz``); never raises. Guarded: False at once while
        the breaker is open; a failed ping trips it."""
        ...

    def close(self) -> Awaitable[None]:
        """Release connections (and stop the breaker's probe). The store must not be used afterwards."""
        ...
