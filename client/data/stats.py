"""Statistics: per preset games, wins, streaks and best times, and the history of races.

The file lives at ``$SEAHAVEN_STATS`` if set, else ``stats.json`` in the client's data
directory (client/data/userdata.py). A missing file starts from zero; an unreadable one is kept
aside as ``stats.json.bad`` rather than overwritten.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Final

from .userdata import data_dir, write_json

RACES_KEPT: Final = 200
"""The race history keeps this many races, the newest."""


def default_stats_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("SEAHAVEN_STATS"):
        return Path(env["SEAHAVEN_STATS"])
    return data_dir(env) / "stats.json"


@dataclass
class PresetStats:
    """Solo games of one preset. A game counts as played at its first move."""

    played: int = 0
    won: int = 0
    best_ms: int | None = None
    best_moves: int | None = None
    streak: int = 0
    """Wins in a row up to the last game (a game started and not won ends it)."""
    best_streak: int = 0
    open: bool = False
    """A game is under way and not won yet: the next start ends the streak."""

    @property
    def win_percent(self) -> int | None:
        return round(100 * self.won / self.played) if self.played else None


@dataclass(frozen=True)
class RaceRecord:
    """One race this player finished, as the results showed it."""

    when: str
    """ISO date and time (UTC) of the result."""
    room: str
    preset: str
    deal: str
    """The deal code: replay it in solo."""
    place: int
    racers: int
    status: str
    moves: int
    progress: int
    time_ms: int | None = None


@dataclass(frozen=True)
class RaceStats:
    """Races of one preset, from the race history: won is first place with every card home."""

    races: int = 0
    won: int = 0
    streak: int = 0
    """Races won in a row up to the last one."""
    best_streak: int = 0
    places: tuple[int, int, int] = (0, 0, 0)
    """How often this player came first, second and third."""
    best_ms: int | None = None

    @property
    def win_percent(self) -> int | None:
        return round(100 * self.won / self.races) if self.races else None


def race_won(race: RaceRecord) -> bool:
    return race.place == 1 and race.status == "finished"


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass
class Stats:
    path: Path
    presets: dict[str, PresetStats] = field(default_factory=dict)
    races: list[RaceRecord] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path | None = None) -> Stats:
        path = default_stats_path() if path is None else path
        stats = cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            for name, entry in data.get("presets", {}).items():
                stats.presets[str(name)] = PresetStats(
                    played=int(entry.get("played", 0)),
                    won=int(entry.get("won", 0)),
                    best_ms=_int(entry.get("best_ms")),
                    best_moves=_int(entry.get("best_moves")),
                    streak=int(entry.get("streak", 0)),
                    best_streak=int(entry.get("best_streak", 0)),
                    open=bool(entry.get("open", False)),
                )
            names = {f.name for f in fields(RaceRecord)}
            stats.races = [RaceRecord(**{k: v for k, v in r.items() if k in names}) for r in data.get("races", [])]
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, AttributeError):
            stats.presets.clear()
            stats.races.clear()
            with contextlib.suppress(OSError):
                path.replace(path.with_name(path.name + ".bad"))
        return stats

    def of(self, preset: str) -> PresetStats:
        return self.presets.setdefault(preset, PresetStats())

    @property
    def total_wins(self) -> int:
        return sum(p.won for p in self.presets.values())

    def record_start(self, preset: str) -> None:
        entry = self.of(preset)
        if entry.open:
            entry.streak = 0
        entry.played += 1
        entry.open = True
        self.save()

    def record_win(self, preset: str, elapsed_ms: int, moves: int) -> None:
        entry = self.of(preset)
        entry.won += 1
        entry.open = False
        entry.streak += 1
        entry.best_streak = max(entry.best_streak, entry.streak)
        if entry.best_ms is None or elapsed_ms < entry.best_ms:
            entry.best_ms = elapsed_ms
        if entry.best_moves is None or moves < entry.best_moves:
            entry.best_moves = moves
        self.save()

    def record_race(self, race: RaceRecord) -> None:
        self.races = [*self.races, race][-RACES_KEPT:]
        self.save()

    def race_summary(self, preset: str) -> tuple[int, int, int | None]:
        """Races of ``preset``: how many, how many won (first place, all home), the best time."""
        of = self.race_stats(preset)
        return of.races, of.won, of.best_ms

    def race_stats(self, preset: str) -> RaceStats:
        """Races of ``preset`` in the history (the newest ``RACES_KEPT``): wins, streaks, places."""
        mine = [r for r in self.races if r.preset == preset]
        streak = best = 0
        for race in mine:
            streak = streak + 1 if race_won(race) else 0
            best = max(best, streak)
        times = [r.time_ms for r in mine if r.status == "finished" and r.time_ms is not None]
        first, second, third = (sum(1 for r in mine if r.place == n) for n in (1, 2, 3))
        return RaceStats(
            races=len(mine),
            won=sum(1 for r in mine if race_won(r)),
            streak=streak,
            best_streak=best,
            places=(first, second, third),
            best_ms=min(times, default=None),
        )

    def save(self) -> None:
        """Write atomically (a temporary file, then a rename); errors are left to the caller."""
        write_json(
            self.path,
            {
                "version": 2,
                "presets": {name: asdict(p) for name, p in sorted(self.presets.items())},
                "races": [asdict(r) for r in self.races],
            },
        )
