"""What the client keeps between runs, in the user's data directory: settings and the race session.

The directory is ``$XDG_DATA_HOME/seahaven``, else ``~/.local/share/seahaven`` (stdlib only, the
XDG rule platformdirs follows on Linux). Files are small JSON documents written atomically; a
missing or unreadable one reads as the defaults.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

SETTINGS_FILE = "settings.json"
SESSION_FILE = "session.json"


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where the client keeps its files."""
    env = os.environ if env is None else env
    base = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else Path.home() / ".local" / "share"
    return base / "seahaven"


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; empty when the file is missing or unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write atomically (a temporary file, then a rename); OSError is left to the caller."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


DECKS: Final = ("two", "four", "safe")
"""The card colours: red and black; the browser's four colours (clubs green, diamonds blue);
four colours safe for colour-blind eyes (Okabe and Ito's palette)."""


@dataclass
class Settings:
    """The player's choices: auto-move (safe cards home by themselves, auto-finish), the deck's colours."""

    automove: bool = True
    deck: str = "two"

    @classmethod
    def load(cls, directory: Path | None = None) -> Settings:
        data = read_json((directory or data_dir()) / SETTINGS_FILE)
        deck = data.get("deck")
        return cls(automove=data.get("automove", True) is not False, deck=deck if deck in DECKS else "two")

    def save(self, directory: Path | None = None) -> None:
        write_json((directory or data_dir()) / SETTINGS_FILE, asdict(self))


@dataclass(frozen=True)
class SavedSession:
    """The race session to come back to: a restarted client says hello with this token to this
    server, and the server puts it back in its room if the grace period has not run out."""

    server: str
    token: str
    name: str
    room: str | None = None

    @classmethod
    def load(cls, directory: Path | None = None) -> SavedSession | None:
        data = read_json((directory or data_dir()) / SESSION_FILE)
        server, token, name, room = (data.get(k) for k in ("server", "token", "name", "room"))
        if not (isinstance(server, str) and isinstance(token, str) and isinstance(name, str)):
            return None
        return cls(server, token, name, room if isinstance(room, str) else None)

    def save(self, directory: Path | None = None) -> None:
        write_json((directory or data_dir()) / SESSION_FILE, asdict(self))

    @staticmethod
    def forget(directory: Path | None = None) -> None:
        with contextlib.suppress(OSError):
            ((directory or data_dir()) / SESSION_FILE).unlink()


PLAYER_FILE = "player.json"


def write_private(path: Path, text: str) -> None:
    """Write ``text`` atomically, the file created with mode 0600 (never readable by others, not
    even for a moment): a player's key, their exported data. OSError is left to the caller."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()  # a leftover may have other permissions
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    tmp.replace(path)


@dataclass(frozen=True)
class PlayerKeys:
    """The secret key of the registered player this user is on each server (a server keeps its own
    players): ``player.json``, readable by the user only, for the key proves who they are.
    ``anonymous``: the servers where the user deleted their player, so that the client does not
    register a new one there by itself (signing in or registering from the account screen does)."""

    keys: Mapping[str, str]
    anonymous: frozenset[str] = frozenset()

    @classmethod
    def load(cls, directory: Path | None = None) -> PlayerKeys:
        data = read_json((directory or data_dir()) / PLAYER_FILE)
        found, declined = data.get("keys"), data.get("anonymous")
        keys = (
            {server: key for server, key in found.items() if isinstance(server, str) and isinstance(key, str)}
            if isinstance(found, dict)
            else {}
        )
        servers = frozenset(s for s in declined if isinstance(s, str)) if isinstance(declined, list) else frozenset()
        return cls(keys, servers - keys.keys())

    def key_for(self, server: str) -> str | None:
        return self.keys.get(server)

    def stays_anonymous(self, server: str) -> bool:
        """The user deleted their player on ``server``: register none there by itself."""
        return server in self.anonymous

    def with_key(self, server: str, key: str | None) -> PlayerKeys:
        """These keys with ``server``'s replaced (None: forgotten, as a key the server refused)."""
        keys = {s: k for s, k in self.keys.items() if s != server}
        if key is not None:
            keys[server] = key
        return PlayerKeys(keys, self.anonymous - {server} if key is not None else self.anonymous)

    def without_player(self, server: str) -> PlayerKeys:
        """``server``'s key forgotten and the user anonymous there from now on (a deleted account)."""
        return PlayerKeys({s: k for s, k in self.keys.items() if s != server}, self.anonymous | {server})

    def save(self, directory: Path | None = None) -> None:
        """Write atomically with mode 0600 (``write_private``); OSError is left to the caller."""
        data = {"keys": dict(self.keys), "anonymous": sorted(self.anonymous)}
        write_private((directory or data_dir()) / PLAYER_FILE, json.dumps(data, indent=2) + "\n")
