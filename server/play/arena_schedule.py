"""The operator's arenas (docs/arenas.md): ``seahaven-server arena schedule`` and the ``--arenas``
file, a series of arenas (one, or one every so often) on a preset.

Every arena of a series has a code derived from the series and its start (``series_code``), and is
put in the store only if that code is free: whichever node opens it (the pairing lease's holder,
each second; the command, once), and however often, it is one arena. The holder keeps each series
one arena ahead: the file's series as the file says, a scheduled series from its running arena.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from seahaven.rules import PRESETS
from seahaven.winnable import GRADES
from server.play.arena_rules import ArenaMeta
from server.shell.names import CODE_ALPHABET
from server.store.interfaces import ArenaStore

OPERATOR: Final = "operator"
"""Who an operator's arena is ``by``."""
KEEP_SECONDS: Final = 3600.0
"""How long an arena's keys outlive its end (its standings stay readable)."""
MINUTES: Final = (5, 180)
"""The shortest and longest arena, minutes (as ``create_arena`` allows)."""
_DURATION: Final = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?")


@dataclass(frozen=True, slots=True)
class Series:
    """Arenas of ``minutes`` on ``preset`` (and ``grade``) from ``at`` (server ms), every
    ``every`` ms (0: just the one)."""

    key: str
    name: str
    preset: str
    grade: str | None
    minutes: int
    at: int
    every: int = 0

    def start_due(self, now: int) -> int | None:
        """The start of the series' arena that has not ended at ``now``: the running one, else
        the next (None: the series is over)."""
        length = self.minutes * 60_000
        if self.at + length > now:
            return self.at
        if not self.every:
            return None
        passed = (now - self.at - length) // self.every + 1
        return self.at + passed * self.every

    def meta(self, starts_at: int) -> ArenaMeta:
        return ArenaMeta(
            series_code(self.key, starts_at),
            self.preset,
            self.grade,
            starts_at,
            starts_at + self.minutes * 60_000,
            OPERATOR,
            self.name,
            self.every,
            self.key,
        )


def series_code(key: str, starts_at: int) -> str:
    """The code of the arena of series ``key`` starting at ``starts_at``: six characters of the
    room codes' alphabet from a hash (so every node derives the same one)."""
    digest = int.from_bytes(hashlib.sha256(f"{key}@{starts_at}".encode()).digest()[:8])
    chars = []
    for _ in range(6):
        digest, index = divmod(digest, len(CODE_ALPHABET))
        chars.append(CODE_ALPHABET[index])
    return "".join(chars)


def following(meta: ArenaMeta) -> ArenaMeta | None:
    """The next arena of ``meta``'s series (None: it is in none, or its series repeats not)."""
    if not meta.series or not meta.every:
        return None
    minutes = (meta.ends_at - meta.starts_at) // 60_000
    series = Series(meta.series, meta.name, meta.preset, meta.deal_grade, minutes, meta.starts_at, meta.every)
    return series.meta(meta.starts_at + meta.every)


async def keep_arena(store: ArenaStore, meta: ArenaMeta, now: int) -> bool:
    """Put a new arena in the store and its live index, kept until ``KEEP_SECONDS`` after its end
    (False: its code is taken)."""
    ttl = max(meta.ends_at - now, 0) / 1000 + KEEP_SECONDS
    return await store.put_arena(meta.code, meta.dump(), ttl)


# -- reading what the operator wrote ---------------------------------------------------------


def parse_time(text: str) -> int:
    """An ISO 8601 time (``2026-12-02T12:00Z``; UTC when it names no zone) as server ms."""
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"not a time: {text!r} (say e.g. 2026-12-02T12:00Z)") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return int(when.timestamp() * 1000)


def parse_every(text: str) -> int:
    """A period such as ``1h``, ``30m``, ``1d``, ``1h30m`` as ms (at least 5 minutes)."""
    found = _DURATION.fullmatch(text.strip())
    if not text.strip() or found is None:
        raise ValueError(f"not a period: {text!r} (say e.g. 1h, 30m, 1d)")
    days, hours, minutes = (int(g or 0) for g in found.groups())
    ms = ((days * 24 + hours) * 60 + minutes) * 60_000
    if ms < MINUTES[0] * 60_000:
        raise ValueError(f"a period of {text!r} is too short: at least {MINUTES[0]}m")
    return ms


def make_series(key: str, name: str, preset: str, grade: str | None, minutes: int, at: int, every: int = 0) -> Series:
    """A checked series: a preset and grade the server has, an arena's length, arenas that do not
    overlap."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    if grade is not None and grade not in GRADES:
        raise ValueError(f"unknown deal grade {grade!r}; grades: {', '.join(GRADES)}")
    if not MINUTES[0] <= minutes <= MINUTES[1]:
        raise ValueError(f"an arena lasts {MINUTES[0]} to {MINUTES[1]} minutes, not {minutes}")
    if every and every < minutes * 60_000:
        raise ValueError(f"arenas every {every // 60_000}m would overlap: each lasts {minutes}m")
    return Series(key, name, preset, grade, minutes, at, every)


def load_series(path: Path) -> list[Series]:
    """The series of an ``--arenas`` file (TOML): one ``[[arena]]`` table each, with ``name``,
    ``preset``, ``minutes`` (30 by default), ``at`` (the first start, an ISO time), optionally
    ``grade`` and ``every`` (``"1h"``). A series' key is its name: name each one differently."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: {exc}") from None
    tables: Any = data.get("arena", [])
    if set(data) - {"arena"} or not isinstance(tables, list):
        raise ValueError(f"{path}: the file holds [[arena]] tables only")
    found: list[Series] = []
    for number, table in enumerate(tables, start=1):
        try:
            found.append(_file_series(table))
        except KeyError as exc:
            raise ValueError(f"{path}: arena {number}: it needs {exc.args[0]}") from None
        except (ValueError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path}: arena {number}: {exc}") from None
    names = [s.name for s in found]
    if len(set(names)) != len(names):
        raise ValueError(f"{path}: two arenas share a name (a series is known by its name)")
    return found


def _file_series(table: Any) -> Series:
    if not isinstance(table, dict):
        raise ValueError("each arena is a [[arena]] table")
    unknown = set(table) - {"name", "preset", "grade", "minutes", "at", "every"}
    if unknown:
        raise ValueError(f"unknown keys {', '.join(sorted(unknown))}")
    name = str(table["name"])
    at = table["at"]
    start = (
        int((at if at.tzinfo else at.replace(tzinfo=datetime.UTC)).timestamp() * 1000)
        if isinstance(at, datetime.datetime)
        else parse_time(str(at))
    )
    every = parse_every(str(table["every"])) if "every" in table else 0
    minutes = table.get("minutes", 30)
    if not isinstance(minutes, int):
        raise ValueError(f"minutes must be a whole number, not {minutes!r}")
    return make_series("file:" + name, name, str(table["preset"]), table.get("grade"), minutes, start, every)
