"""Where live rooms, the public lobby listing, sessions, the deal pool and the daily boards live:
opening a store by URL, and the names its callers use.

Rooms are event-sourced: the room's pure state machine emits events (msgpack bytes), the store keeps
each room's append-only event log, and the server rebuilds a room by replaying its log. A room is
*live* exactly while its log is live: every store key a room owns has a time to live, so finished or
idle rooms vanish on their own and nothing is left behind. The store holds bytes and strings: it
knows nothing of rooms, moves or players beyond their ids.

The package's modules:

- ``base``: :class:`StoreError`, :class:`Request`, :class:`Append` (how a room append goes), the
  append results (``Stored | Duplicate | Behind | Forked``), doorbell data, TTL checks, the format
  versions;
- ``interfaces``: one protocol per consumer (``RoomLog``, ``Doorbells``, ``Nodes``,
  ``SessionStore``, ``Listings``, ``DealStore``, ``DailyStore``, ``Archives``, ``PlayerCache``,
  ``RatingCache``, ``ArenaStore``, ``MatchQueues``, ``BanList``, ``FriendStore``) and ``Store``,
  the whole backend;
- ``guarded``: the one guarded call's parts: the stall :class:`Breaker`, the :class:`Observer`
  the metrics implement, and the :class:`CallGuard` each backend's chokepoint consults;
- ``memory``: :class:`MemoryStore`, process memory, for ``seahaven-server`` with no Redis and tests
  (a package: ``base`` and one part per protocol, composed in its ``__init__``);
- ``redisstore``: :class:`RedisStore`, redis-py asyncio on one server or a Cluster (its module
  docstring has the key layout and the format versions), composed of the parts in ``redis/``
  (``base`` and one per protocol); ``scripts``: its Lua; ``link``: its pipelined connection;
  ``urls``: the URLs it opens.

Both backends share one contract (``tests/test_store.py`` runs on memory, Redis and Cluster).
"""

from __future__ import annotations

from server.store.base import (
    BELL_EVENTS,
    DEAD_NODES_KEPT,
    Append,
    Appended,
    Behind,
    Duplicate,
    Forked,
    Request,
    Ring,
    Stored,
    StoreError,
    room_bell,
)
from server.store.guarded import Breaker, Observer
from server.store.interfaces import Store
from server.store.memory import MemoryStore
from server.store.redisstore import RedisStore
from server.store.urls import check_url

__all__ = [
    "BELL_EVENTS",
    "DEAD_NODES_KEPT",
    "Append",
    "Appended",
    "Behind",
    "Breaker",
    "Duplicate",
    "Forked",
    "MemoryStore",
    "Observer",
    "RedisStore",
    "Request",
    "Ring",
    "Store",
    "StoreError",
    "Stored",
    "check_url",
    "open_store",
    "room_bell",
]


def open_store(url: str | None, prefix: str = "seahaven:", replicas: int = 0) -> Store:
    """A :class:`MemoryStore` when ``url`` is None, else a :class:`RedisStore` on ``url`` (a server or a
    cluster) whose room appends wait for ``replicas`` replicas (``--durability replicated``: 1)."""
    if url is None:
        return MemoryStore()
    return RedisStore(url, prefix=prefix, replicas=replicas)
