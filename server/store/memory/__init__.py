"""The store in process memory: for ``seahaven-server`` with no Redis, and for tests.

One part per consumer's protocol (``server.store.interfaces``), each a mixin over
:class:`~server.store.memory.base.MemoryBase` (the tables and the one guarded call): ``rooms``
(``RoomLog``), ``doorbells``, ``nodes``, ``lobby`` (``Listings``), ``sessions``, ``deals``,
``daily``, ``archives``, ``players`` (``PlayerCache``), ``ratings`` (``RatingCache``), ``bans``
(``BanList``), ``friends`` (``FriendStore``), ``arenas`` (``ArenaStore``), ``queues``
(``MatchQueues``). An operation added to a protocol is written in its part only.
"""

from __future__ import annotations

from server.store.memory.archives import MemoryArchives
from server.store.memory.arenas import MemoryArenas
from server.store.memory.bans import MemoryBans
from server.store.memory.daily import MemoryDaily
from server.store.memory.deals import MemoryDeals
from server.store.memory.doorbells import MemoryDoorbells
from server.store.memory.friends import MemoryFriends
from server.store.memory.lobby import MemoryListings
from server.store.memory.nodes import MemoryNodes
from server.store.memory.players import MemoryPlayers
from server.store.memory.queues import MemoryQueues
from server.store.memory.ratings import MemoryRatings
from server.store.memory.rooms import MemoryRoomLog
from server.store.memory.sessions import MemorySessions

__all__ = ["MemoryStore"]


class MemoryStore(
    MemoryRoomLog,
    MemoryDoorbells,
    MemoryNodes,
    MemorySessions,
    MemoryListings,
    MemoryDeals,
    MemoryDaily,
    MemoryArchives,
    MemoryPlayers,
    MemoryRatings,
    MemoryArenas,
    MemoryQueues,
    MemoryBans,
    MemoryFriends,
):
    """The store in process memory, same semantics as :class:`~server.store.redisstore.RedisStore`.

    TTLs use ``clock`` (``time.monotonic`` by default; inject one to move time in tests). An entry is
    expired once ``clock() >= deadline``; expired entries are dropped when touched and by a sweep of
    everything that runs at most once per ``sweep_interval`` seconds (piggybacked on calls), so memory
    stays bounded by the live data. ``rng`` picks the deal ``pop_deal`` hands out.

    Every public method (but ``doorbells`` and ``close``) goes through :meth:`_run`, the guarded call.
    TTLs are checked when a method is called (bad input never reaches the guard).
    """
