"""The Lua scripts of the Redis store: each one atomic and one round trip, on the keys of one hash slot."""

from __future__ import annotations

from server.store.base import BELL_EVENTS, MEMO_FORMAT, TIP_CHARS

__all__ = [
    "APPEND",
    "APPEND_AT",
    "CLEAR_ARCHIVE",
    "DEQUEUE",
    "DROP_IF",
    "ENQUEUE",
    "EXPIRE_ROOM",
    "INDEX_ARCHIVE",
    "LEASE",
    "MATCH_WAITERS",
    "PRUNE_LISTINGS",
    "READ_FROM",
    "RECORD_DAILY",
    "UNINDEX_ARCHIVE",
    "WRITE_ARENA",
]

# The room's transactions are Lua scripts, not MULTI/EXEC: atomic and one round trip alike, but
# redis-py's asyncio cluster client runs a MULTI pipeline on a thread with its own event loop, one
# thread per queued command, blocking the server's loop (~0.7 ms per append); a script is one command
# routed by its key. Every key a script touches is one room's (one hash slot).

# Appends ARGV[2..] to the log and sets its TTL; with no events, only refreshes an existing log's TTL.
# RPUSH in slices: Lua's unpack() has a limit (~8000 values) and a healed log can be longer.
# Knows no archive marks (it sets the TTL regardless): the rooms append with APPEND_AT.
# KEYS[1] = the room's log; ARGV[1] = TTL in ms. Returns the log's length.
APPEND = """
local length = redis.call('LLEN', KEYS[1])
for i = 2, #ARGV, 1000 do
    length = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return length
"""

# A room's chain ({room:R}:chain, a list beside the log): element i is the tip after the log's first
# i + 1 events, SHA-1 of the previous tip and the event in hex, cut to TIP_CHARS (server.store.base.chain
# is the twin). Written in the script that writes the log, so a log that lost its tail lost the same
# links: the tip at an index names the history up to it, which a log grown again cannot fake. A chain
# not as long as its log (a log written by the plain APPEND, or by a build before chains, or trimmed by
# hand) is built again from the log first, with the log's TTL.
_CHAIN = """
local function tip_at(chain, n)
    if n <= 0 then return '' end
    return redis.call('LINDEX', chain, n - 1) or ''
end
local function push_chain(chain, tip, events, first, last)
    local tips = {}
    for i = first, last do
        tip = string.sub(redis.sha1hex(tip .. events[i]), 1, TIP_CHARS)
        tips[#tips + 1] = tip
    end
    for i = 1, #tips, 1000 do redis.call('RPUSH', chain, unpack(tips, i, math.min(i + 999, #tips))) end
end
local function heal_chain(log, chain, length)
    if redis.call('LLEN', chain) == length then return end
    redis.call('DEL', chain)
    if length == 0 then return end
    local events = redis.call('LRANGE', log, 0, -1)
    push_chain(chain, '', events, 1, #events)
    local ttl = redis.call('PTTL', log)
    if ttl > 0 then redis.call('PEXPIRE', chain, ttl) end
end
""".replace("TIP_CHARS", str(TIP_CHARS))

# Optimistic concurrency: appends the events (ARGV[11 + ARGV[10]..]) only if the log is ARGV[2] long,
# its chain tip there is ARGV[9] ('*': not checked, for callers that keep no chain) and the request
# (player ARGV[3], seq ARGV[4]; '' for none) is newer than the player's last stored one; then marks the
# race ids ARGV[8] (space-separated, '' for none) as due for archiving, keeps the request's reply
# (ARGV[5]) in the room's replies hash, adds the node ARGV[7] ('' for none) to the room's holders and
# rings the doorbell (PUBLISH ARGV[6] the new length, and up to BELL_EVENTS events that made it so with
# the tip they follow: see room_bell) if any other node holds the room: a node alone with its rooms pays
# no PUBLISH and hears none of its own. A Duplicate, Behind or Forked returns before anything is
# written (no mark either; a chain may be built again).
# While the room has marks (a finished race not yet in the database), the log, its chain, the replies
# and the holders are PERSISTed instead of given the TTL: the log outlives its TTL until archived. That
# costs one EXISTS per append that gives the TTL (an append that marks needs none).
# Replies: {length} stored; {-1, length, gap, tip} the log is not as expected but agrees with the
# caller's up to the shorter of the two (gap: its events from the expected length on; tip: the chain
# tip at length, for the caller to compare when the log is shorter); {-3, length, log} the log's first
# ARGV[2] events are not the caller's (the whole log); {-2, length, reply or nil} the request was stored
# before (nil: a later request replaced it, or its memo's format (player..':v', absent = 1) is newer
# than MEMO_FORMAT).
# An empty reply ARGV[5] (no frame is empty) ends the player's stay (Request.stay_ended, a leave):
# nothing is checked and the player's memo is deleted, so a later stay starts with none.
# The TTL: ARGV[1] ms given to the log, chain, replies and holders; negative (-ms) when the caller
# gave it lately (within an eighth of it, server.shell.roompath.REFRESH_AFTER): then it is left as it
# is (no EXISTS, no PEXPIREs: a move costs 5 commands fewer) unless this append created a key that
# needs it (a new log, a player's first memo, a node's first hold).
# The new links: ARGV[10] = how many follow (one per event, or 0), ARGV[11..] = the chain's tips after
# each event, computed by the caller from the tip it named (base.chain: it computes them for itself
# anyway), so a move costs no SHA-1 here. They are pushed only after ARGV[9] was found at the
# index, so the chain still names the stored history: links from a tip that is not the log's are
# never written (with ARGV[9] '*' they are not trusted). With none given the script computes them,
# as before; either way the chain is the same list, so nodes of either build share a room.
# KEYS[1] = the room's log, KEYS[2] = its replies (player -> seq, player..':r' -> reply, player..':v' ->
# the memo's format), KEYS[3] = its holders, KEYS[4] = its archive marks, KEYS[5] = its chain;
# ARGV[1] = TTL ms (see above).
APPEND_AT = (
    _CHAIN
    + """
local length = redis.call('LLEN', KEYS[1])
local links = tonumber(ARGV[10])
local first = 11 + links
local player = ARGV[3]
if player ~= '' and ARGV[5] ~= '' and length > 0 then
    local seen = tonumber(redis.call('HGET', KEYS[2], player) or '-1')
    if seen >= tonumber(ARGV[4]) then
        local reply = false
        if seen == tonumber(ARGV[4]) then
            local found = redis.call('HMGET', KEYS[2], player .. ':r', player .. ':v')
            local version = 1
            if found[2] then version = tonumber(found[2]) or math.huge end
            if version <= MEMO_FORMAT then reply = found[1] end
        end
        return {-2, length, reply}
    end
end
local expected = tonumber(ARGV[2])
heal_chain(KEYS[1], KEYS[5], length)
local before = ''
if expected <= length then
    before = tip_at(KEYS[5], expected)
    if ARGV[9] ~= '*' and before ~= ARGV[9] then return {-3, length, redis.call('LRANGE', KEYS[1], 0, -1)} end
end
if length ~= expected then
    local gap = {}
    if length > expected then gap = redis.call('LRANGE', KEYS[1], expected, -1) end
    return {-1, length, gap, tip_at(KEYS[5], length)}
end
local ttl = tonumber(ARGV[1])
local refresh = ttl > 0 or length == 0
if ttl < 0 then ttl = -ttl end
if length == 0 then redis.call('DEL', KEYS[2], KEYS[5]) end
local marked = ARGV[8] ~= ''
if marked then
    local races = {}
    for race in string.gmatch(ARGV[8], '%S+') do races[#races + 1] = race end
    redis.call('SADD', KEYS[4], unpack(races))
end
for i = first, #ARGV, 1000 do
    length = redis.call('RPUSH', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
if links > 0 and ARGV[9] ~= '*' then
    for i = 11, first - 1, 1000 do redis.call('RPUSH', KEYS[5], unpack(ARGV, i, math.min(i + 999, first - 1))) end
else
    push_chain(KEYS[5], before, ARGV, first, #ARGV)
end
if player ~= '' and ARGV[5] == '' then
    redis.call('HDEL', KEYS[2], player, player .. ':r', player .. ':v')
elseif player ~= '' then
    local added = redis.call('HSET', KEYS[2], player, ARGV[4], player .. ':r', ARGV[5], player .. ':v', MEMO_FORMAT)
    if added > 0 then refresh = true end
end
local others = redis.call('SCARD', KEYS[3])
if ARGV[7] ~= '' then
    local joined = redis.call('SADD', KEYS[3], ARGV[7])
    if joined == 1 then refresh = true end
    others = others - 1 + joined
end
if refresh and not marked then marked = redis.call('EXISTS', KEYS[4]) == 1 end
if marked then
    redis.call('PERSIST', KEYS[1])
    redis.call('PERSIST', KEYS[5])
    redis.call('PERSIST', KEYS[2])
    redis.call('PERSIST', KEYS[3])
elseif refresh then
    redis.call('PEXPIRE', KEYS[1], ttl)
    redis.call('PEXPIRE', KEYS[5], ttl)
    if player ~= '' then redis.call('PEXPIRE', KEYS[2], ttl) end
    redis.call('PEXPIRE', KEYS[3], ttl)
end
if others > 0 then
    local bell = length
    if #ARGV >= first and #ARGV - first < BELL_EVENTS then
        if before == '' then before = '-' end
        bell = length .. ' ' .. before .. ' ' .. cmsgpack.pack({unpack(ARGV, first)})
    end
    redis.call('PUBLISH', ARGV[6], bell)
end
return {length}
""".replace("BELL_EVENTS", str(BELL_EVENTS)).replace("MEMO_FORMAT", str(MEMO_FORMAT))
)

# KEYS[1] = the room's log, KEYS[2] = its holders, KEYS[3] = its chain; ARGV[1] = the first index to
# read, ARGV[2] = the reading node ('' for none), added to a live room's holders (same TTL as the log)
# at the instant of the read. Returns {length, events from there, the chain tip at the first index
# (at the length, when the log is shorter)}.
READ_FROM = (
    _CHAIN
    + """
local length = redis.call('LLEN', KEYS[1])
if length > 0 and ARGV[2] ~= '' then
    redis.call('SADD', KEYS[2], ARGV[2])
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) else redis.call('PERSIST', KEYS[2]) end
end
heal_chain(KEYS[1], KEYS[3], length)
local start = tonumber(ARGV[1])
return {length, redis.call('LRANGE', KEYS[1], start, -1), tip_at(KEYS[3], math.min(start, length))}
"""
)

# The room's keys get the TTL, but for the log, chain, replies and holders while the room has archive
# marks: those are PERSISTed (as the append does; and healed, should a node that knows no marks have
# given them a TTL). KEYS[1] = the room's archive marks, KEYS[2..5] = its log, chain, replies and
# holders, KEYS[6..] = its other keys (listing, where); ARGV[1] = TTL in ms.
EXPIRE_ROOM = """
local first = 2
if redis.call('EXISTS', KEYS[1]) == 1 then
    for i = 2, 5 do redis.call('PERSIST', KEYS[i]) end
    first = 6
end
for i = first, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
"""

# Unmarks races ARGV[2..] (in slices: unpack()'s limit); once no mark is left, each of the room's keys
# that has no TTL (PTTL -1: kept while marked) gets ARGV[1] ms, and those with a TTL keep theirs.
# KEYS[1] = the room's archive marks, KEYS[2..] = its other keys. Returns the marks left.
CLEAR_ARCHIVE = """
for i = 2, #ARGV, 1000 do
    redis.call('SREM', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
local left = redis.call('SCARD', KEYS[1])
if left == 0 then
    for i = 2, #KEYS do
        if redis.call('PTTL', KEYS[i]) == -1 then redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
    end
end
return left
"""

# Indexes room ARGV[1] for the archivers, stamped with Redis's clock in microseconds (TIME: one clock
# for every node), and always above the room's previous stamp, so that an index again between an
# archiver's archive_due and its unindex (same microsecond, or a clock set back) changes the stamp.
# The stamp goes to ZADD as a string: exact (< 2^53), whatever Lua's number formatting.
# KEYS[1] = the archive index. Returns the stamp.
INDEX_ARCHIVE = """
local now = redis.call('TIME')
local stamp = tonumber(now[1]) * 1000000 + tonumber(now[2])
local old = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1')
if old >= stamp then stamp = old + 1 end
local text = string.format('%.0f', stamp)
redis.call('ZADD', KEYS[1], text, ARGV[1])
return text
"""

# Takes room ARGV[1] out of the archive index if its stamp is still ARGV[2] (not indexed again since).
# KEYS[1] = the archive index. Returns 1 when taken out, else 0.
UNINDEX_ARCHIVE = """
local stamp = redis.call('ZSCORE', KEYS[1], ARGV[1])
if stamp and tonumber(stamp) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
"""

# Removes ids whose listing key the caller found gone from the listings index, unless the id's
# deadline is still ahead: then the listing was published again since the caller looked (publishing
# sets the listing key and the id's new deadline, in either order), and it stays. Touches the index key only, so it
# runs on a cluster too (the listing keys live in their rooms' slots).
# KEYS[1] = index; ARGV[1] = now (unix ms), ARGV[2..] = the ids found gone.
PRUNE_LISTINGS = """
local now = tonumber(ARGV[1])
local removed = 0
for i = 2, #ARGV do
    local deadline = redis.call('ZSCORE', KEYS[1], ARGV[i])
    if deadline and tonumber(deadline) <= now then
        removed = removed + redis.call('ZREM', KEYS[1], ARGV[i])
    end
end
return removed
"""

# A player's best time on a daily board, and the board's TTL from its first entry on (one key: runs on
# a cluster too). KEYS[1] = the board; ARGV[1] = member, ARGV[2] = time ms, ARGV[3] = TTL in seconds.
RECORD_DAILY = """
redis.call('ZADD', KEYS[1], 'LT', ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3], 'NX')
"""

# A registered player's live session token, swapped only if it is still the one the caller saw
# (one key: runs on a cluster too). KEYS[1] = the player's session key; ARGV[1] = the token
# expected ('' = none kept), ARGV[2] = the new token ('' = keep none), ARGV[3] = TTL in ms.
# Returns the token kept afterwards ('' = none).
SWAP_PLAYER_SESSION = """
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return current end
if ARGV[2] == '' then
    redis.call('DEL', KEYS[1])
else
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return ARGV[2]
"""

# A registered player's cache entry replaced only if it is still the one the caller wrote (one
# key). KEYS[1] = the player's key; ARGV[1] = the entry expected, ARGV[2] = the new one,
# ARGV[3] = TTL in ms. Returns 1 when replaced.
# Deletes KEYS[1] if it holds ARGV[1] (a node drops only the presence it wrote). Returns 1 if deleted.
DROP_IF = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

SWAP_PLAYER_ENTRY = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""

# -- arenas -------------------------------------------------------------------------------------------

# An arena's compare-and-set: every expected field as stated, the once-key not done, then every entry
# set and the keys' TTL renewed. KEYS[1] = the players' hash, KEYS[2] = the done set, KEYS[3] = the
# definition; ARGV[1] = TTL in ms, ARGV[2] = the once-key ('' none), ARGV[3] = how many expected
# fields, then (field, '' absent or '=' .. value) pairs, then (field, value) pairs to set.
# Returns 1 written, 0 a field differed, 2 the once-key was done before.
WRITE_ARENA = """
if ARGV[2] ~= '' and redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1 then
  return 2
end
local n = tonumber(ARGV[3])
for i = 0, n - 1 do
  local current = redis.call('HGET', KEYS[1], ARGV[4 + 2 * i])
  local want = ARGV[5 + 2 * i]
  if want == '' then
    if current then return 0 end
  elseif current ~= string.sub(want, 2) then
    return 0
  end
end
for i = 4 + 2 * n, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
if ARGV[2] ~= '' then
  redis.call('SADD', KEYS[2], ARGV[2])
end
local ms = tonumber(ARGV[1])
for i = 1, 3 do
  if redis.call('PTTL', KEYS[i]) < ms then redis.call('PEXPIRE', KEYS[i], ms) end
end
return 1
"""

# A lease: taken when free (or run out), renewed by its holder. KEYS[1] = the lease; ARGV[1] = the
# holder, ARGV[2] = TTL in ms. Returns 1 held, 0 another holder has it.
LEASE = """
local current = redis.call('GET', KEYS[1])
if current == false or current == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
"""

# -- the quick match's queues (server/store/matching.py: the rule these scripts are the twin of) ----
# One hash per queue, P{match:QUEUE}: player -> "rating joined node room" (joined: server ms). Every
# call renews the queue's TTL and first drops the waiters of nodes not alive. Player ids are compared
# byte by byte (Lua's < on strings follows the server's locale), as Python compares them.
_QUEUE_RULE = """
local function parse(player, entry)
    local rating, joined, node, room = string.match(entry, '^(%S+) (%S+) (%S+) (%S+)$')
    return {
        player = player, entry = entry, rating = tonumber(rating), joined = tonumber(joined), node = node, room = room
    }
end
local function bytewise_less(a, b)
    local n = math.min(#a, #b)
    for i = 1, n do
        local x, y = string.byte(a, i), string.byte(b, i)
        if x ~= y then return x < y end
    end
    return #a < #b
end
local function allows(a, b, now, base, widens, anyone)
    local waited = now - math.min(a.joined, b.joined)
    return waited >= anyone or math.abs(a.rating - b.rating) * 1000 <= base * 1000 + widens * waited
end
-- x is a better partner for w than y: nearer in rating, then the longer wait, then the id.
local function nearer(w, x, y)
    local dx, dy = math.abs(w.rating - x.rating), math.abs(w.rating - y.rating)
    if dx ~= dy then return dx < dy end
    if x.joined ~= y.joined then return x.joined < y.joined end
    return bytewise_less(x.player, y.player)
end
local function best_partner(w, others, now, base, widens, anyone)
    local best = nil
    for _, o in ipairs(others) do
        if o.player ~= w.player and allows(w, o, now, base, widens, anyone) and (best == nil or nearer(w, o, best)) then
            best = o
        end
    end
    return best
end
-- The queue's waiters of live nodes (an array), those of other nodes dropped.
local function live_waiters(key, alive)
    local flat = redis.call('HGETALL', key)
    local waiters, dead = {}, {}
    for i = 1, #flat, 2 do
        local w = parse(flat[i], flat[i + 1])
        if alive[w.node] then waiters[#waiters + 1] = w else dead[#dead + 1] = w.player end
    end
    for i = 1, #dead, 1000 do redis.call('HDEL', key, unpack(dead, i, math.min(i + 999, #dead))) end
    return waiters
end
"""

# Takes out the waiter ARGV[1] may race (nearest rating first); none: with ARGV[8] = '1', ARGV[1]
# waits (ARGV[2] its entry). ARGV[1]'s earlier entry is dropped either way. ARGV[3] = now,
# ARGV[4..6] = the window (base, widens, anyone_after_ms), ARGV[7] = TTL ms, ARGV[9] = how many live
# nodes follow. KEYS[1] = the queue. Returns {player, entry} of the partner, or {} (none).
ENQUEUE = (
    _QUEUE_RULE
    + """
local alive = {}
for i = 10, 9 + tonumber(ARGV[9]) do alive[ARGV[i]] = true end
local now, base, widens, anyone = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
redis.call('HDEL', KEYS[1], ARGV[1])
local me = parse(ARGV[1], ARGV[2])
local partner = best_partner(me, live_waiters(KEYS[1], alive), now, base, widens, anyone)
if partner then
    redis.call('HDEL', KEYS[1], partner.player)
elseif ARGV[8] == '1' then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[7]) end
if partner then return {partner.player, partner.entry} end
return {}
"""
)

# Pairs the queue's waiters (the longest waiter first takes the nearest rating it may race, then the
# next longest of those left...) and takes out the pairs with a waiter on node ARGV[1]: that one
# moves (both: the newer). ARGV[2] = now, ARGV[3..5] = the window, ARGV[6] = TTL ms, ARGV[7] = how
# many live nodes follow, then the players waiting on ARGV[1]. KEYS[1] = the queue. Returns
# {{mover, entry, stayer, entry, ...}, {those of ARGV[1]'s players the queue lacked}, waiters left}.
MATCH_WAITERS = (
    _QUEUE_RULE
    + """
local node, now = ARGV[1], tonumber(ARGV[2])
local base, widens, anyone = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local alive = {}
local first_mine = 8 + tonumber(ARGV[7])
for i = 8, first_mine - 1 do alive[ARGV[i]] = true end
local waiters = live_waiters(KEYS[1], alive)
local held = {}
for _, w in ipairs(waiters) do held[w.player] = true end
local missing = {}
for i = first_mine, #ARGV do
    if not held[ARGV[i]] then missing[#missing + 1] = ARGV[i] end
end
table.sort(waiters, function(a, b)
    if a.joined ~= b.joined then return a.joined < b.joined end
    return bytewise_less(a.player, b.player)
end)
local free, taken = {}, {}
for _, w in ipairs(waiters) do free[w.player] = true end
local left = #waiters
for _, w in ipairs(waiters) do
    if free[w.player] then
        free[w.player] = nil
        local others = {}
        for _, o in ipairs(waiters) do if free[o.player] then others[#others + 1] = o end end
        local partner = best_partner(w, others, now, base, widens, anyone)
        if partner then
            free[partner.player] = nil
            if partner.node == node or w.node == node then
                local mover, stayer = w, partner
                if partner.node == node then mover, stayer = partner, w end
                redis.call('HDEL', KEYS[1], w.player, partner.player)
                left = left - 2
                for _, x in ipairs({mover.player, mover.entry, stayer.player, stayer.entry}) do
                    taken[#taken + 1] = x
                end
            end
        end
    end
end
if left > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[6]) end
return {taken, missing, left}
"""
)

# Takes player ARGV[1] out of the queue if their entry's wait began at ARGV[2]. KEYS[1] = the queue.
# Returns 1 when taken out, else 0.
DEQUEUE = """
local entry = redis.call('HGET', KEYS[1], ARGV[1])
if entry and string.match(entry, '^%S+ (%S+) ') == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""
