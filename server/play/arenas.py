"""Arenas (docs/arenas.md): the requests (``create_arena``, ``join_arena``, ``leave_arena``), the
pairing loop, and each node's side of the ``arena`` doorbell.

One node at a time pairs (the store's lease ``arena``, renewed every second; a node that dies loses it
within ``LEASE_SECONDS`` and the next node to ask takes it over). Each second the holder, for each
live arena: scores the races that ended (the players' entries changed by one compare-and-set keyed by
the race's room, so a race is scored once whichever node scores it), seats every free player in a new
race with the free players next to them in the standings (a room made through the room path, its
racers joined and ready, each seat placed on the node that holds its player's session), and rings
``arena``: ``seat ROOM PLAYER...`` (the players' nodes put them in the room and send them its state)
or ``standings`` (every node sends the arena to its players there), and at the end ``end`` (the podium).
Standings live only in the store: every node sends what it reads there. At its end the holder
writes the arena to the database (``ArenaArchive``, keyed by its code, so once); until that write
lands the arena stays in the live index, its keys kept, and the write is tried again. The holder
also opens the operator's arenas when due (``arena_schedule``), and every node answers the read
API's live arenas (``live_arenas``, ``live_arena``) from the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Collection, Sequence
from typing import Any, Final, Protocol

from protocol.codec import encode
from protocol.enums import Phase, Status
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import Arena, CreateArena, JoinArena, LeaveArena, Podium
from protocol.schema import Message
from server.logs import log_event
from server.play.arena_rules import (
    ArenaMeta,
    ArenaPlayer,
    arena_message,
    pairings,
    podium,
    ranked,
    scored,
)
from server.play.arena_schedule import KEEP_SECONDS, Series, following, keep_arena
from server.rooms.room import Room
from server.shell.clock import Clock
from server.shell.fanout import Fanout, Withheld
from server.shell.handlers import handles
from server.shell.held import Asker, Command, HeldRoom
from server.shell.names import new_room_code, normalise_room_code
from server.shell.ports import ArenaArchive, Deals
from server.shell.roompath import RoomPath, Spawn
from server.shell.sessions import Session, SessionTable
from server.store.base import StoreError
from server.store.interfaces import ArenaStore, Doorbells, Nodes

LEASE: Final = "arena"
LEASE_SECONDS: Final = 3.0
"""How long the pairing lease lasts unrenewed: how soon another node pairs after the holder died."""
PAIR_SECONDS: Final = 1.0
"""How often the lease holder scores and pairs."""
LAST_PAIRING_SECONDS: Final = 30.0
"""No race is made in an arena's last 30 s: its races end with the arena."""
RECORD_SECONDS: Final = 10.0
"""How long a finished arena waits before its write is tried again after the database failed."""
RECORD_TIMEOUT: Final = 5.0
"""How long one write of a finished arena may take (the pairing of the others waits on it)."""
WRITE_TRIES: Final = 10
BELL: Final = "arena"


class ArenaKeys(ArenaStore, Doorbells, Nodes, Protocol):
    """What arenas need of the store: the arenas, the doorbells, each race seat's node."""


class Arenas:
    """The arenas' requests, pairing and doorbell on this node."""

    def __init__(
        self,
        path: RoomPath,
        table: SessionTable,
        fanout: Fanout,
        store: ArenaKeys,
        deals: Deals,
        clock: Clock,
        node: str,
        spawn: Spawn,
        session_ttl: float,
        archive: ArenaArchive | None = None,
        series: Sequence[Series] = (),
    ) -> None:
        self.path = path
        self.table = table
        self.fanout = fanout
        self.store = store
        self.deals = deals
        self.clock = clock
        self.node = node
        self.spawn = spawn
        self.session_ttl = session_ttl
        self.archive = archive
        """Where finished arenas go (None: records are off; a finished arena is just unlisted)."""
        self.series = tuple(series)
        """The operator's series from the ``--arenas`` file."""
        self.opened: set[str] = set()
        """The operator's arenas this node put in the store, or found there (put once)."""
        self.unstarted: dict[str, int] = {}
        """Arena race rooms seen waiting to start, since when (server ms): ``_stuck``."""
        self.record_after: dict[str, int] = {}
        """Finished arenas whose write failed: when to try again (server ms)."""
        self.pairing = False
        """This node holds the lease (as of its last try)."""
        self.joined: dict[str, set[str]] = {}
        """The arenas each player joined through this node (and has not left)."""
        self.away: dict[str, set[str]] = {}
        """The arenas of this node's players whose connection closed: back on their hello."""

    # -- requests ----------------------------------------------------------------------------------

    @handles(CreateArena)
    async def on_create_arena(self, asker: Asker, message: CreateArena) -> Message:
        now = self.clock.now()
        starts = now + message.starts_in * 1000
        meta = await self.open(message.preset, message.deal_grade, starts, message.minutes, asker.session.player)
        return await self._join(asker.session, meta.code)

    async def open(self, preset: str, grade: str | None, starts_at: int, minutes: int, by: str) -> ArenaMeta:
        """A new arena under a free code (a player's: the operator's have their series' codes, ``arena_schedule``)."""
        ends = starts_at + minutes * 60_000
        for _ in range(20):
            meta = ArenaMeta(new_room_code(), preset, grade, starts_at, ends, by)
            if await keep_arena(self.store, meta, self.clock.now()):
                log_event("arena.created", arena=meta.code, preset=preset, by=by)
                return meta
        raise ProtocolError(ErrorCode.INTERNAL, "could not find a free arena code")

    @handles(JoinArena)
    async def on_join_arena(self, asker: Asker, message: JoinArena) -> Message:
        return await self._join(asker.session, normalise_room_code(message.arena))

    async def _join(self, session: Session, code: str) -> Message:
        for _ in range(WRITE_TRIES):
            meta, entries = await self._read(code)
            if meta.phase(self.clock.now()) == "finished":
                raise ProtocolError(ErrorCode.ARENA_OVER, f"arena {code} is over")
            old = entries.get(session.player)
            entry = (
                ArenaPlayer(session.player, session.name, self.node, self.clock.now())
                if old is None
                else dataclasses.replace(old, active=True, name=session.name, node=self.node)
            )
            if await self._swap(meta, {session.player: old}, {session.player: entry}) == 1:
                entries[entry.player] = entry
                self.joined.setdefault(session.player, set()).add(code)
                await self.store.ring(BELL, code, "standings")
                return arena_message(meta, list(entries.values()), self.clock.now())
        raise ProtocolError(ErrorCode.STORE_UNAVAILABLE, "the arena is busy: try again")

    @handles(LeaveArena)
    async def on_leave_arena(self, asker: Asker, message: LeaveArena) -> Message:
        return await self._leave_for_good(normalise_room_code(message.arena), asker.session.player)

    async def _leave_for_good(self, code: str, player: str) -> Message:
        """``player`` leaves arena ``code`` and is not brought back by a later hello."""
        self._forget(player, code)
        return await self._leave(code, player)

    def _forget(self, player: str, code: str) -> None:
        """``player`` is out of arena ``code`` for good (left it, or it ended): not brought back."""
        for found in (self.joined, self.away):
            codes = found.get(player)
            if codes is not None:
                codes.discard(code)
                if not codes:
                    del found[player]

    async def _leave(self, code: str, player: str) -> Message:
        """``player`` paired no more in arena ``code`` (their points stay); the arena as it is then."""
        for _ in range(WRITE_TRIES):
            meta, entries = await self._read(code)
            old = entries.get(player)
            if old is None or not old.active:
                return arena_message(meta, list(entries.values()), self.clock.now())
            left = dataclasses.replace(old, active=False)
            if await self._swap(meta, {player: old}, {player: left}) == 1:
                entries[player] = left
                await self.store.ring(BELL, code, "standings")
                return arena_message(meta, list(entries.values()), self.clock.now())
        raise ProtocolError(ErrorCode.STORE_UNAVAILABLE, "the arena is busy: try again")

    async def _read(self, code: str) -> tuple[ArenaMeta, dict[str, ArenaPlayer]]:
        raw, stored = await self.store.arena(code)
        if raw is None:
            raise ProtocolError(ErrorCode.ARENA_NOT_FOUND, f"no arena {code!r}: check the code")
        return ArenaMeta.load(raw), {player: ArenaPlayer.load(data) for player, data in stored.items()}

    async def _swap(
        self, meta: ArenaMeta, old: dict[str, ArenaPlayer | None], new: dict[str, ArenaPlayer], once: str | None = None
    ) -> int:
        expected = {p: None if e is None else e.dump() for p, e in old.items()}
        ttl = max(meta.ends_at - self.clock.now(), 0) / 1000 + KEEP_SECONDS
        return await self.store.write_arena(meta.code, expected, {p: e.dump() for p, e in new.items()}, ttl, once)

    # -- the pairing loop (on the lease holder) ----------------------------------------------------

    async def run(self) -> None:
        """Forever: take or renew the lease, and while held, score and pair every live arena."""
        while True:
            try:
                held = await self.store.lease(LEASE, self.node, LEASE_SECONDS)
                if held != self.pairing:
                    log_event("arena.lease", node=self.node, held=held)
                self.pairing = held
                if held:
                    codes = await self.store.arena_codes()
                    await self.open_due(codes)
                    alive = await self.store.alive() if codes else set()
                    for code in sorted(codes):
                        await self.tick(code, alive)
            except (StoreError, ProtocolError) as exc:
                log_event("arena.error", error=str(exc))
            await asyncio.sleep(PAIR_SECONDS)

    async def tick(self, code: str, alive: Collection[str] | None = None) -> None:
        """One look at an arena: end it, or score its ended races and pair its free players
        (those whose node is ``alive``, None: all; a dead node's connections died with it, so its
        players wait unpaired until they join again through a live one)."""
        raw, stored = await self.store.arena(code)
        if raw is None:
            await self.store.unlist_arena(code)
            return
        meta = ArenaMeta.load(raw)
        entries = {player: ArenaPlayer.load(data) for player, data in stored.items()}
        phase = meta.phase(self.clock.now())
        if phase == "finished":
            if await self._swap(meta, {}, {}, once="end") == 1:
                log_event("arena.ended", arena=code, players=len(entries))
                await self.store.ring(BELL, code, "end")
            if await self._record(meta, list(entries.values())):
                await self.store.unlist_arena(code)
            return
        if phase == "waiting":
            return
        await self._open_next(meta)
        changed = await self._score(meta, entries)
        free = [e for e in entries.values() if e.free and (alive is None or e.node in alive)]
        if meta.ends_at - self.clock.now() < LAST_PAIRING_SECONDS * 1000:
            free = []  # a race made now would end as it began
        for group in pairings(free):
            await self._race(meta, group)
        if changed:
            await self.store.ring(BELL, code, "standings")

    async def _record(self, meta: ArenaMeta, entries: list[ArenaPlayer]) -> bool:
        """Write the finished arena to the database (True: it is there now, or records are off).
        When the database fails, its keys are kept another ``KEEP_SECONDS`` and it stays listed:
        the next try comes ``RECORD_SECONDS`` later, so it is never lost."""
        if self.archive is None:
            return True
        now = self.clock.now()
        if self.record_after.get(meta.code, 0) > now:
            return False
        arena = _arena_fields(meta)
        rows = [
            {"player": e.player, "name": e.name, "place": place, "points": e.points, "wins": e.wins, "races": e.races}
            for place, e in enumerate(ranked(entries), start=1)
        ]
        try:
            async with asyncio.timeout(RECORD_TIMEOUT):
                written = await self.archive.write_arena(arena, rows)
        except (OSError, TimeoutError) as exc:  # a timed-out write that landed anyway: the next is a no-op
            self.record_after[meta.code] = now + int(RECORD_SECONDS * 1000)
            log_event("arena.record_failed", arena=meta.code, error=str(exc) or type(exc).__name__)
            await self._swap(meta, {}, {})  # its keys outlive the wait
            return False
        self.record_after.pop(meta.code, None)
        log_event("arena.recorded", arena=meta.code, players=len(rows), written=written)
        return True

    async def open_due(self, listed: set[str]) -> None:
        """Open the arena each of the ``--arenas`` file's series has due (running or next)."""
        now = self.clock.now()
        for series in self.series:
            start = series.start_due(now)
            if start is not None:
                await self._open_scheduled(series.meta(start), listed)

    async def _open_next(self, meta: ArenaMeta) -> None:
        """While an arena of a repeating series runs, open the series' next one."""
        after = following(meta)
        if after is not None:
            await self._open_scheduled(after, set())

    async def _open_scheduled(self, meta: ArenaMeta, listed: set[str]) -> None:
        """Put ``meta`` in the store unless it is there (its code is the series' own: a second
        put of it changes nothing)."""
        if meta.code in listed or meta.code in self.opened:
            return
        if await keep_arena(self.store, meta, self.clock.now()):
            log_event("arena.scheduled", arena=meta.code, name=meta.name, starts_at=meta.starts_at)
        self.opened.add(meta.code)

    async def _score(self, meta: ArenaMeta, entries: dict[str, ArenaPlayer]) -> bool:
        """Score every race of the arena that ended; True when any was."""
        rooms: dict[str, list[ArenaPlayer]] = {}
        for entry in entries.values():
            if entry.room:
                rooms.setdefault(entry.room, []).append(entry)
        changed = False
        for room, racers in sorted(rooms.items()):
            held = await self.path.get(room)
            if held is not None and held.room.phase == Phase.WAITING and self._stuck(room):
                held = None  # never started: its players are freed unscored
            elif held is not None and held.room.phase != Phase.FINISHED:
                continue
            elif held is not None:
                # The command that ended the race may still be sending its result: its racers
                # hear it before they are seated in the next race (whose seating leaves out, for
                # a moment, every room frame to them: the result would be lost).
                await self.path.settled(held)
            self.unstarted.pop(room, None)
            places = {} if held is None else {s.player: s.place for s in held.room.standings}
            count = len(places)
            new = {
                e.player: scored(e, places[e.player], count) if e.player in places else dataclasses.replace(e, room="")
                for e in racers
            }
            done = await self._swap(meta, {e.player: e for e in racers}, new, once=room)
            if done == 1:
                entries.update(new)
                changed = True
                log_event("arena.scored", arena=meta.code, room=room)
            elif done == 2:  # scored before (a node that died before freeing them): free them
                await self._swap(
                    meta, {e.player: e for e in racers}, {p: dataclasses.replace(e, room="") for p, e in new.items()}
                )
        return changed

    def _stuck(self, room: str) -> bool:
        """Whether an arena race's room has waited to start for ``LEASE_SECONDS``: its racers are
        joined and ready within the pairing round that made it, so one still waiting is a room
        whose pairing node died mid-round (its racers claimed, never seated)."""
        now = self.clock.now()
        return now - self.unstarted.setdefault(room, now) >= LEASE_SECONDS * 1000

    async def _race(self, meta: ArenaMeta, group: list[ArenaPlayer]) -> None:
        """A new race for ``group``: the room, its racers claimed, joined and ready, their nodes told."""
        settings = await self.deals.settings(
            meta.preset, None, drawn=True, deal_grade=meta.deal_grade, seats=len(group), public=False
        )
        # The race ends with the arena: one still running then is not scored, so it does not run on
        # (its clock shows the racers the time left).
        settings = dataclasses.replace(
            settings, time_limit_ms=max(1, meta.ends_at - self.clock.now() - settings.countdown_ms)
        )
        held = await self.path.create(settings)
        code = held.room.code
        claimed = {e.player: dataclasses.replace(e, room=code) for e in group}
        if await self._swap(meta, {e.player: e for e in group}, claimed) != 1:
            await self.path.forget_if_idle(held)  # someone joined, left or raced meanwhile: next second
            return
        # Those on this node hear the room's joins and countdown only in its state, sent when they
        # are seated: a client meets the new room first, then its events (docs/protocol.md).
        here = [s.conn for e in group if (s := self.table.by_player.get(e.player)) is not None and s.conn is not None]
        with self.fanout.withheld(here) as withheld:
            for entry in group:
                await self.path.run(held, _join(entry))
                await self.store.locate(code, entry.player, entry.node, self.session_ttl)
            for entry in group:
                await self.path.run(held, _ready(entry.player))
            await self._seat_here(meta.code, held, [e.player for e in group], withheld)
        log_event("arena.race", arena=meta.code, room=code, players=len(group))
        await self.store.ring(BELL, meta.code, "seat " + " ".join([code, *(e.player for e in group)]))

    # -- the read API's live arenas (every node) ---------------------------------------------------

    async def live_arenas(self) -> list[dict[str, Any]]:
        """Every arena in the live index (waiting, running, or finished and not yet in the
        database), in the read API's shape, by start."""
        found = []
        for code in sorted(await self.store.arena_codes()):
            raw, stored = await self.store.arena(code)
            if raw is not None:
                found.append(arena_summary(ArenaMeta.load(raw), len(stored), self.clock.now()))
        return sorted(found, key=lambda a: (a["starts_at"], a["code"]))

    async def live_arena(self, code: str) -> dict[str, Any] | None:
        """The arena ``code`` as the store has it, with its standings (None: not there)."""
        raw, stored = await self.store.arena(code)
        if raw is None:
            return None
        entries = [ArenaPlayer.load(data) for data in stored.values()]
        rows = [
            {"place": p, "player": e.player, "name": e.name, "points": e.points, "wins": e.wins, "races": e.races}
            for p, e in enumerate(ranked(entries), start=1)
        ]
        return {**arena_summary(ArenaMeta.load(raw), len(entries), self.clock.now()), "standings": rows}

    # -- the doorbell (every node) -----------------------------------------------------------------

    def ring(self, key: str, data: bytes) -> None:
        words = data.decode(errors="replace").split()
        if not words:
            return
        if words[0] == "seat" and len(words) > 2:
            self.spawn(self._seat(key, words[1], words[2:]))
        elif words[0] in ("standings", "end"):
            self.spawn(self._tell(key, words[0] == "end"))

    async def _seat(self, arena: str, room: str, players: list[str]) -> None:
        """Put this node's players of a new arena race in its room and send them its state."""
        if not any(self._connected(p) for p in players):
            return
        try:
            held = await self.path.get(room)
        except (StoreError, ProtocolError) as exc:
            log_event("arena.seat_failed", room=room, error=str(exc))
            return
        if held is not None:
            await self._seat_here(arena, held, players)

    def _connected(self, player: str) -> bool:
        session = self.table.by_player.get(player)
        return session is not None and session.conn is not None

    async def _seat_here(
        self, arena: str, held: HeldRoom, players: list[str], withheld: Withheld | None = None
    ) -> None:
        """Seat this node's ``players``; those racing in another room step out first, so the
        others' room state already has them out. ``withheld``: their room frames, left out until
        each is sent the room's state (the pairing node's own players)."""
        try:
            for player in players:
                if self._racing_elsewhere(held, player):
                    await self._step_out(arena, held, player)
            for player in players:
                await self._seat_one(held, player, withheld)
        except (StoreError, ProtocolError) as exc:
            log_event("arena.seat_failed", room=held.room.code, error=str(exc))

    def _racing_elsewhere(self, held: HeldRoom, player: str) -> bool:
        session = self.table.by_player.get(player)
        if session is None or session.conn is None or not session.room or session.room == held.room.code:
            return False
        before = self.path.rooms.get(session.room)
        return before is not None and _racing_in(before.room, player)

    async def _seat_one(self, held: HeldRoom, player: str, withheld: Withheld | None = None) -> None:
        """Seat ``player``, if on this node and not seated already (the pairing node seats its own
        players as it makes the race, before the doorbell): out of the last race's room, the new
        room's state sent before anything is awaited, so no frame of the room comes before it."""
        session = self.table.by_player.get(player)
        if session is None or session.conn is None or session.room == held.room.code:
            return  # not connected here, or seated already
        if not held.room.has_member(player):
            return  # stepped out
        before = self.path.rooms.get(session.room) if session.room else None
        if before is not None and before.room.has_member(player):  # the last race's room: out of it
            with contextlib.suppress(ProtocolError, StoreError):
                await self.path.run(before, lambda core, now: core.leave(player, now))
            await self.path.forget_if_idle(before)
        if session.conn is None:
            return
        session.room = held.room.code
        held.visitors.add(player)
        self.fanout.write([session.conn], encode(held.core.state_for(player, self.clock.now())))
        if withheld is not None:
            # From its state on, the room's frames are this player's: the next racer's seating
            # awaits the store, and a countdown may end meanwhile (its start was left out here,
            # and the racer waited for a start that had come).
            withheld.release(session.conn)
        await self.table.save(session)
        await self.table.seat(session)
        await self.store.locate(held.room.code, player, self.node, self.session_ttl)

    async def _step_out(self, arena: str, held: HeldRoom, player: str) -> None:
        """``player`` was paired while they race in another room (the pairing node cannot see
        that): out of the new race before it starts (the others race on; one left alone is freed
        once the room is stuck) and out of the arena's pairing, as by ``leave_arena``; sent the
        arena, to join again when they like."""
        if held.room.has_member(player):
            await self.path.run(held, lambda core, now: core.leave(player, now))
            await self.path.forget_if_idle(held)
        message = await self._leave_for_good(arena, player)
        log_event("arena.stepped_out", arena=arena, room=held.room.code, player=player)
        self.fanout.write(self.fanout.connections({player}), encode(message))

    # -- players who drop and come back (this node's) ------------------------------------------------

    def closed(self, session: Session) -> None:
        """A hook for each connection that closed while its session was its own (not in a drain):
        its player is paired no more in the arenas they joined here until a hello brings them back
        (``welcomed``), so no race is made for a player who is not there."""
        arenas = self.joined.get(session.player)
        if arenas:
            self.away.setdefault(session.player, set()).update(arenas)  # at once: a hello may come next
            self.spawn(self._away(session, set(arenas)))

    async def _away(self, session: Session, arenas: set[str]) -> None:
        player = session.player
        for code in sorted(arenas):
            if code not in self.away.get(player, ()):
                continue  # back already
            try:
                await self._leave(code, player)
                log_event("arena.away", arena=code, player=player)
                if code not in self.away.get(player, ()):  # back while it was written: in again
                    await self._join(session, code)
            except (ProtocolError, StoreError) as exc:
                log_event("arena.not_away", arena=code, player=player, error=str(exc))

    def welcomed(self, session: Session) -> None:
        """A hook for each hello: a player who dropped is back in the arenas they were paired in."""
        arenas = self.away.pop(session.player, None)
        if arenas:
            self.spawn(self._back(session, arenas))

    async def _back(self, session: Session, arenas: set[str]) -> None:
        for code in sorted(arenas):
            try:
                message = await self._join(session, code)
            except (ProtocolError, StoreError) as exc:  # over meanwhile, or the store failed
                log_event("arena.not_back", arena=code, player=session.player, error=str(exc))
                continue
            self.fanout.write(self.fanout.connections({session.player}), encode(message))

    async def _tell(self, code: str, ended: bool) -> None:
        """Send the arena's standings (and at its end the podium) to its players on this node."""
        try:
            raw, stored = await self.store.arena(code)
        except StoreError as exc:
            log_event("arena.read_failed", arena=code, error=str(exc))
            return
        if raw is None:
            return
        meta = ArenaMeta.load(raw)
        entries = [ArenaPlayer.load(data) for data in stored.values()]
        if ended:
            for entry in entries:
                self._forget(entry.player, code)
        conns = self.fanout.connections({e.player for e in entries if e.active})
        if not conns:
            return
        message: Arena | Podium = arena_message(meta, entries, self.clock.now())
        self.fanout.write(conns, encode(message))
        if ended:
            self.fanout.write(conns, encode(Podium(arena=code, podium=podium(entries))))


def arena_summary(meta: ArenaMeta, players: int, now: int) -> dict[str, Any]:
    """An arena as the read API lists it (``server/records/arenas.py`` the same for finished ones)."""
    return {
        **_arena_fields(meta),
        "phase": meta.phase(now),
        "link_path": f"/a/{meta.code}",
        "player_count": players,
        "archived": False,
    }


def _arena_fields(meta: ArenaMeta) -> dict[str, Any]:
    """What an arena is, as the records keep it and the read API shows it first (in that order)."""
    return {
        "code": meta.code,
        "name": meta.name,
        "preset": meta.preset,
        "deal_grade": meta.deal_grade,
        "created_by": meta.by,
        "starts_at": meta.starts_at,
        "ends_at": meta.ends_at,
    }


def _racing_in(room: Room, player: str) -> bool:
    """Whether ``player`` races in ``room`` now, or will once its countdown ends: a player the
    arena must not take out of it (one waiting for a room to fill, done with a race others still
    run, or in a race room that never started, is taken out)."""
    seat = room.seats.get(player)
    if seat is None or seat.left:
        return False
    return room.phase == Phase.COUNTDOWN or (room.phase == Phase.RACING and seat.status == Status.RACING)


def _join(entry: ArenaPlayer) -> Command:
    return lambda core, now: core.join(entry.player, entry.name, False, now)


def _ready(player: str) -> Command:
    return lambda core, now: core.ready(player, True, now)
