"""Solo statistics: games played and won per preset, best times, in a small JSON file.

The file lives at ``$SEAHAVEN_STATS`` if set, else ``$XDG_DATA_HOME/seahaven/stats.json``,
else ``~/.local/share/seahaven/stats.json``. A missing or unreadable file starts from zero
(an unreadable one is kept aside as ``stats.json.bad`` rather than overwritten).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path


def default_stats_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("SEAHAVEN_STATS"):
        return Path(env["SEAHAVEN_STATS"])
    base = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else Path.home() / ".local" / "share"
    return base / "seahaven" / "stats.json"


@dataclass
class PresetStats:
    played: int = 0
    won: int = 0
    best_ms: int | None = None
    best_moves: int | None = None


@dataclass
class Stats:
    path: Path
    presets: dict[str, PresetStats] = field(default_factory=dict)

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
                    best_ms=None if entry.get("best_ms") is None else int(entry["best_ms"]),
                    best_moves=None if entry.get("best_moves") is None else int(entry["best_moves"]),
                )
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, AttributeError):
            stats.presets.clear()
            with contextlib.suppress(OSError):
                path.replace(path.with_name(path.name + ".bad"))
        return stats

    def of(self, preset: str) -> PresetStats:
        return self.presets.setdefault(preset, PresetStats())

    @property
    def total_wins(self) -> int:
        return sum(p.won for p in self.presets.values())

    def record_start(self, preset: str) -> None:
        self.of(preset).played += 1
        self.save()

    def record_win(self, preset: str, elapsed_ms: int, moves: int) -> None:
        entry = self.of(preset)
        entry.won += 1
        if entry.best_ms is None or elapsed_ms < entry.best_ms:
            entry.best_ms = elapsed_ms
        if entry.best_moves is None or moves < entry.best_moves:
            entry.best_moves = moves
        self.save()

    def save(self) -> None:
        """Write atomically (a temporary file, then a rename); errors are left to the caller."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": 1, "presets": {name: asdict(p) for name, p in sorted(self.presets.items())}}
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        tmp.replace(self.path)
