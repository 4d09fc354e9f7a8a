"""An arena's rules, without I/O: its definition and players' entries as stored, the points a race
earns (by place, doubled on a streak), the standings' order and who races whom next."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import msgpack

from protocol.messages import Arena, ArenaStanding

MAX_RACE: Final = 4
"""The most racers one arena race seats."""
ON_FIRE: Final = 2
"""Wins in a row after which a race's points count double (as on lichess)."""
PODIUM: Final = 3


@dataclass(frozen=True, slots=True)
class ArenaMeta:
    """An arena's definition (stored once, never changed)."""

    code: str
    preset: str
    deal_grade: str | None
    starts_at: int
    """Server ms (unix)."""
    ends_at: int
    by: str
    """Who made it: a player id, or ``operator``."""
    name: str = ""
    every: int = 0
    """Ms from its start to the next arena of its series (0: it has none)."""
    series: str = ""
    """The operator's series it is one of ("": none); its arenas' codes derive from it
    (``arena_schedule.series_code``), so each is opened once whichever node opens it."""

    def dump(self) -> bytes:
        fields = dataclasses.astuple(self)
        if not (self.name or self.every or self.series):  # a player's arena: as a node before series reads it
            fields = fields[:6]
        data: bytes = msgpack.packb(fields)
        return data

    @classmethod
    def load(cls, data: bytes) -> ArenaMeta:
        # Six fields before arenas had names and series: the rest take their defaults.
        return cls(*msgpack.unpackb(data, raw=False))

    def phase(self, now: int) -> str:
        return "waiting" if now < self.starts_at else "running" if now < self.ends_at else "finished"


@dataclass(frozen=True, slots=True)
class ArenaPlayer:
    """One player in an arena: their points and streak, and the race they are in ("" none)."""

    player: str
    name: str
    node: str
    """The node their session was on when they last joined (where their race seat is placed)."""
    joined: int
    active: bool = True
    points: int = 0
    races: int = 0
    wins: int = 0
    streak: int = 0
    room: str = ""

    def dump(self) -> bytes:
        data: bytes = msgpack.packb(dataclasses.astuple(self))
        return data

    @classmethod
    def load(cls, data: bytes) -> ArenaPlayer:
        return cls(*msgpack.unpackb(data, raw=False))

    @property
    def free(self) -> bool:
        return self.active and not self.room


def race_points(place: int, racers: int, streak: int) -> int:
    """What a race earns: the winner as many points as there were racers, the others one fewer
    for each place behind the winner's (none for last); doubled when already ``ON_FIRE`` wins in a row."""
    base = racers if place == 1 else max(racers - place, 0)
    return base * 2 if streak >= ON_FIRE else base


def scored(entry: ArenaPlayer, place: int, racers: int) -> ArenaPlayer:
    """The entry after a race it finished at ``place`` of ``racers`` (free again)."""
    won = place == 1
    return dataclasses.replace(
        entry,
        points=entry.points + race_points(place, racers, entry.streak),
        races=entry.races + 1,
        wins=entry.wins + int(won),
        streak=entry.streak + 1 if won else 0,
        room="",
    )


def ranked(entries: Sequence[ArenaPlayer]) -> list[ArenaPlayer]:
    """The standings' order: points, then wins, then fewer races, then who joined first."""
    return sorted(entries, key=lambda e: (-e.points, -e.wins, e.races, e.joined, e.player))


def pairings(free: Sequence[ArenaPlayer]) -> list[list[ArenaPlayer]]:
    """The next races of the free players: in standings order, neighbours together, in as few
    races of 2-4 as hold them all, as even as can be (none for a player alone)."""
    order = ranked(free)
    if len(order) < 2:
        return []
    races = -(-len(order) // MAX_RACE)
    size, extra = divmod(len(order), races)
    groups, at = [], 0
    for index in range(races):
        take = size + (1 if index < extra else 0)
        groups.append(order[at : at + take])
        at += take
    return groups


def standings(entries: Sequence[ArenaPlayer]) -> tuple[ArenaStanding, ...]:
    return tuple(
        ArenaStanding(
            rank=rank,
            player=e.player,
            name=e.name,
            points=e.points,
            races=e.races,
            wins=e.wins,
            streak=e.streak,
            active=e.active,
        )
        for rank, e in enumerate(ranked(entries), start=1)
    )


def arena_message(meta: ArenaMeta, entries: Sequence[ArenaPlayer], now: int) -> Arena:
    return Arena(
        arena=meta.code,
        preset=meta.preset,
        deal_grade=meta.deal_grade,
        starts_at=meta.starts_at,
        ends_at=meta.ends_at,
        phase=meta.phase(now),
        link_path=f"/a/{meta.code}",
        standings=standings(entries),
    )


def podium(entries: Sequence[ArenaPlayer]) -> tuple[ArenaStanding, ...]:
    """The first ``PODIUM`` standings among those who raced (fewer when fewer raced)."""
    return tuple(s for s in standings(entries) if s.races)[:PODIUM]
