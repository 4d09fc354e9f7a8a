"""The store in Redis: redis-py asyncio, and the pipelined link for the rooms' appends and reads.

Every key is under a configurable prefix; one Redis server (``redis://``, ``rediss://``, ``unix://``)
or a Redis Cluster (``redis+cluster://``).

Redis key layout, format 1 (``P`` is the prefix, ``seahaven:`` by default)::

    P format             string  the key layout version written here (LAYOUT_FORMAT); no TTL
    P{room:ID}:log       list    the room's event log, one msgpack event per element; PEXPIRE = room TTL,
                                 none while the room has archive marks (but for the plain ``append``,
                                 which knows no marks: tests and benchmarks use it, the rooms never)
    P{room:ID}:chain     list    beside the log: element i is the log's chain tip after its first i + 1
                                 events (``base.chain``); the append checks the caller's tip at the
                                 index it appends at, then pushes the links the caller computed
                                 (the script computes them only for a caller that names no tip);
                                 same TTL as the log (none while marked)
    P{room:ID}:replies   hash    each player's last stored request: player -> seq, player:r -> reply
                                 frame, player:v -> the memo's format (MEMO_FORMAT; absent = 1)
    P{room:ID}:holders   set     the nodes that read or wrote the room's log: whom its doorbell rings for
    P{room:ID}:where     hash    player -> the node their connection to the room was last on
    P{room:ID}:listing   string  the room's public lobby entry (opaque summary bytes); own TTL
    P{room:ID}:archive   set     ids of the room's finished races not yet in the database, added by the
                                 append that stores each race's end; no TTL. While it exists the log,
                                 replies and holders keep no TTL; its last mark cleared, they get one
    P archive:due        zset    rooms for the archivers: room -> stamp (Redis TIME in microseconds,
                                 above the room's previous stamp), filled after the marking append; no TTL
    P listings           zset    ids that may have a listing, scored by the listing's deadline (unix ms);
                                 listings() removes members whose listing key is gone and whose deadline
                                 passed; the set's TTL is kept >= every listing's TTL
    P{session:TOKEN}     string  session data; own TTL
    P{player:ID}         string  a registered player as the database last said (PlayerCache); own TTL
    P{player:ID}:session string  the token of that player's live session; own TTL
    P{player:ID}:rating:PRESET  string  the player's shown rating on PRESET (RatingCache, an integer in
                                 decimal), written after each rated race; own TTL
    P{match:QUEUE}       hash    the quick match's waiters of one kind of race (QUEUE: the preset, and
                                 its grade or daily day): player -> "rating joined node room"
                                 (server/store/matching.py); PEXPIRE 2 minutes, renewed by every call
    P{attempts:WHAT}     string  a counter of attempts at WHAT (sign-in tries); expires with its window
    P nodes              zset    node -> the deadline of its last beat (unix ms)
    P{node:NAME}:rooms   set     the rooms NAME located members in (``locate``), until a survivor hands
                                 them over (``hand_over``) once NAME stopped beating; the sessions' TTL
    P rooms:due          zset    room -> when it next needs a node (unix ms: countdown, grace, time limit),
                                 polled by every node (``claim_due``), which loads what is due; no TTL
    P dealpool:PRESET:GRADE  set deal numbers ready to deal; SPOP hands each to one room only
    P daily:PRESET:DAY   zset    member: player id + TAB + name, score: best time (ms); DAY is
                                 YYYY-MM-DD; expires a week after its first entry
    P{room:ID}:bell      (pub/sub channel, not a key) the room's doorbell: its appends, ``wiped``
    P{session:TOKEN}:bell  (channel) the session's doorbell (taken over on another node)
    P{player:ID}:bell    (channel) frames for the player's connection, wherever it is
    P bell:arena         (channel) the arenas' and the moderators' doorbells, heard by every node
                         (the data begins with the kind and the key: "arena CODE ...", "admin bans");
                         the only channel not in a slot of its own
                         (server/store/bells.py: shard channels on a cluster, plain ones on one Redis)
    P{arena:CODE}:meta   string  an arena's definition (server/play/arenas.py); the arena's TTL
    P{arena:CODE}:players hash   player -> the player's entry in the arena (points, streak, race)
    P{arena:CODE}:done   set     what the arena did once (the races it scored, its end)
    P arenas             set     the live arenas' codes
    P NAME:lease         string  the holder of a lease (the arenas' pairing: arena); PX its TTL
    P{player:ID}:presence  string  what the player is doing, as the node holding their connection last
                                 said it (server/play/friends.py); own TTL, renewed while connected
    P{invite:ID}         string  an invitation to race, until answered (GETDEL) or expired; own TTL
    P bans               hash    the moderators' list: name:FOLD, address:IP, network:CIDR,
                                 reserved:FOLD -> the entry (server/moderation/bans.py); no TTL

The braces are Redis Cluster hash tags: every key of one room hashes to one slot, so each atomic
update of a room (a Lua script: the append, ``expire``) runs on one node; sessions are spread by their
own tags. The lobby index and the archive index are the keys shared by all rooms: each is updated in
its own call after the room's keys, never inside a room's script. So a crash between a marking append
and ``index_archive`` leaves a mark the index lacks: ``marked_rooms`` (a SCAN of every master) finds it.

Format versions, so that a later change can be rolled out node by node:

- The key layout: the first call of a store reads ``P format`` (and writes this code's
  ``LAYOUT_FORMAT`` when there is none). Absent or older is read as it is (today's layout is 1). A
  newer one means keys this code does not know how to read or write: every call (the first
  included) fails with a :class:`StoreError` saying so, before anything is written, so a node
  started on it refuses to start. Bumping ``P format`` is the step after every node runs code
  that knows the new layout.
  Archive marks came as new keys in format 1 (nothing older changed meaning, so the format stayed):
  a node of an older build does not know them, and its appends and ``expire`` give a marked room's
  log a TTL again. Run every node on a build that knows marks before archiving counts on them (a
  newer node's next append or ``expire`` of the room takes the TTL off again).
  The chains (``P{room:ID}:chain``) came the same way: a node of an older build appends without
  extending the chain, and the next newer node's append or read builds it again from the log (one
  pass over it) before checking a tip; only nodes that know chains are refused a forked log.
  The links given by the appending node (issue 42) changed no key and no format: the list holds
  the same tips whoever computed them, so nodes that compute them in Lua and nodes that hand them
  over share a room, each checking the other's tips.
- Reply memos: each stored request's reply carries its format (``player:v``; absent = 1). A memo
  in a newer format is not served: ``memo`` returns None and a resend of its request is answered
  ``Duplicate`` with no memo (as for one replaced by a later request). What clients receive of a
  memo they can read is the stored frame, byte for byte.

Every failure to talk to Redis surfaces as :class:`StoreError`.

The code is in ``server/store/redis/``: ``base`` (the connections, the one guarded call, a room's
keys) and one part per consumer's protocol (``server.store.interfaces``), each a mixin over it:
``rooms`` (``RoomLog``), ``doorbells``, ``nodes``, ``lobby`` (``Listings``), ``sessions``,
``deals``, ``daily``, ``archives``, ``players`` (``PlayerCache``), ``ratings`` (``RatingCache``),
``bans`` (``BanList``), ``friends`` (``FriendStore``), ``arenas`` (``ArenaStore``), ``queues``
(``MatchQueues``); each registers its own Lua (``server.store.scripts``). An operation added to a
protocol is written in its part only.
"""

from __future__ import annotations

from server.store.redis.archives import RedisArchives
from server.store.redis.arenas import RedisArenas
from server.store.redis.bans import RedisBans
from server.store.redis.daily import RedisDaily
from server.store.redis.deals import RedisDeals
from server.store.redis.doorbells import RedisDoorbells
from server.store.redis.friends import RedisFriends
from server.store.redis.lobby import RedisListings
from server.store.redis.nodes import RedisNodes
from server.store.redis.players import RedisPlayers
from server.store.redis.queues import RedisQueues
from server.store.redis.ratings import RedisRatings
from server.store.redis.rooms import RedisRoomLog
from server.store.redis.sessions import RedisSessions

__all__ = ["RedisStore"]


class RedisStore(
    RedisRoomLog,
    RedisDoorbells,
    RedisNodes,
    RedisSessions,
    RedisListings,
    RedisDeals,
    RedisDaily,
    RedisArchives,
    RedisPlayers,
    RedisRatings,
    RedisArenas,
    RedisQueues,
    RedisBans,
    RedisFriends,
):
    """The store in Redis (>= 7.0), every key under ``prefix`` (see the module docstring for the layout).

    ``url`` is one Redis server (``redis://``, ``rediss://``, ``unix://``) or a Redis Cluster given by
    one or more seed nodes (``redis+cluster://host:port[,host:port...]``, ``rediss+cluster://`` for TLS);
    on a cluster it uses redis-py's ``RedisCluster``, which follows slot moves by itself.

    ``timeout`` bounds connecting and every reply (seconds); at most ``max_connections`` calls run at
    once, more wait their turn. On one server over TCP (``redis://``) the rooms' appends and
    reads go, unless ``pipelined`` is False, over one pipelined connection instead
    (:class:`~server.store.link.Link`: commands issued in one event-loop turn share a write).
    The client never retries by itself: an append is not idempotent and a blind resend after a lost
    reply would store a move twice. Idempotent operations are retried once, immediately, on a connection
    error (a connection dropped while idle in the pool). Failures raise :class:`StoreError`; once Redis
    is back the next call reconnects.
    ``redis_options`` go to ``redis.asyncio.ConnectionPool.from_url`` (e.g. ``connection_class``), or
    to ``RedisCluster`` on a cluster.

    Every public method (but ``doorbells`` and ``close``) goes through :meth:`_run`, the guarded call.
    TTLs are checked when a method is called (bad input never reaches the guard).
    """
