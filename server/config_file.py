"""The command's settings in layers: a flag, else its ``SEAHAVEN_*`` environment variable, else the
TOML file given by ``--config FILE`` (or ``SEAHAVEN_CONFIG``), else the built-in default.

Generic over the command's flags: ``SettingsParser`` is an ``argparse.ArgumentParser`` whose
``env`` remembers which variable each argument's default read (``default=env.get("SEAHAVEN_X",
...)``, the one way the command's flags are written), so any flag added later is a file key too,
with no list to keep in step. A file key is the flag's long name without its dashes (``grace``,
``spectator-delay``; ``_`` works for ``-``); a ``store_true`` flag takes ``true`` or ``false``,
a comma-separated one also a list. A value from the file goes through the flag's own type, so it
is checked as if it had been typed, and an unknown key, a flag hidden from ``--help``, or a file
that is not TOML stops the start with a message naming the file.

``settings(parser)`` lists what the layers cover (for docs/operating.md's table, which a test
checks against it).
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NoReturn

CONFIG_ENV = "SEAHAVEN_CONFIG"


class Environment(Mapping[str, str]):
    """``os.environ`` as the flags read it, remembering the last variable asked for."""

    def __init__(self, source: Mapping[str, str]) -> None:
        self.source = source
        self.asked: str | None = None

    def __getitem__(self, key: str) -> str:
        self.asked = key
        return self.source[key]

    def get(self, key: str, default: Any = None) -> Any:
        self.asked = key
        return self.source.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self.source)

    def __len__(self) -> int:
        return len(self.source)

    def is_set(self, key: str) -> bool:
        """Whether the variable holds a value (an empty one counts as unset, as the flags read it)."""
        return bool(self.source.get(key))


@dataclass(frozen=True, slots=True)
class Setting:
    """One setting as the layers see it: its file key, flag, variable, built-in default and help."""

    key: str
    flag: str
    env: str | None
    default: Any
    help: str


class SettingsParser(argparse.ArgumentParser):
    """An ArgumentParser whose flags also come from a TOML file (the module's docstring)."""

    def __init__(
        self, *args: Any, environ: Mapping[str, str] | None = None, strict: bool = True, **kwargs: Any
    ) -> None:
        """``strict`` False: a file key this command does not take is passed over (a command that
        reads a part of another's file), not refused."""
        self.strict = strict
        self.env = Environment(os.environ if environ is None else environ)
        self.env_of: dict[str, str | None] = {}
        """Each argument's variable (by dest), None for one that reads none."""
        super().__init__(*args, **kwargs)
        self.add_argument(
            "--config",
            default=None,
            metavar="FILE",
            help=f"read settings from this TOML file (env {CONFIG_ENV}); a flag or variable given wins over it",
        )

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        return self.record(super().add_argument(*args, **kwargs))

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        return self.recording(super().add_argument_group(*args, **kwargs))

    def add_mutually_exclusive_group(self, *args: Any, **kwargs: Any) -> Any:
        return self.recording(super().add_mutually_exclusive_group(*args, **kwargs))

    def record(self, action: argparse.Action) -> argparse.Action:
        """Note the variable asked while this argument's call was evaluated (None: none)."""
        self.env_of[action.dest], self.env.asked = self.env.asked, None
        return action

    def recording(self, group: Any) -> Any:
        """``group`` with its ``add_argument`` noting variables too (a group's flags are the
        parser's, but its ``add_argument`` is argparse's own, not this class's)."""
        plain = group.add_argument
        group.add_argument = lambda *args, **kwargs: self.record(plain(*args, **kwargs))
        return group

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        path = config_path(self, args)
        if path is not None:
            self.apply(path)
        return super().parse_known_args(args, namespace)

    def settings(self) -> list[Setting]:
        """The settings a file may hold, in the order of ``--help``."""
        found = []
        for action in self._actions:  # argparse keeps no public list of them
            if action.help == argparse.SUPPRESS or action.dest in ("help", "config") or not action.option_strings:
                continue
            flag = max(action.option_strings, key=len)
            env = self.env_of.get(action.dest)
            found.append(Setting(flag.lstrip("-"), flag, env, action.default, action.help or ""))
        return found

    def apply(self, path: Path) -> None:
        """Take the file's values as defaults, except where the environment gives one."""
        table = read(path, self.fail)
        known = {setting.key: setting for setting in self.settings()}
        actions = {max(a.option_strings, key=len).lstrip("-"): a for a in self._actions if a.option_strings}
        for raw, value in table.items():
            key = raw.replace("_", "-")
            if key not in known:
                if not self.strict:
                    continue
                self.fail(path, f"unknown setting {raw!r} (the settings are the flags' long names: --help)")
            action = actions[key]
            env = self.env_of.get(action.dest)
            if env is not None and self.env.is_set(env):
                continue  # the environment wins over the file
            self.set_defaults(**{action.dest: as_default(action, value, partial(self.refuse, path, raw))})

    def fail(self, path: Path, message: str) -> NoReturn:
        self.error(f"{path}: {message}")

    def refuse(self, path: Path, key: str, why: str) -> NoReturn:
        self.fail(path, f"{key}: {why}")


def config_path(parser: SettingsParser, args: Sequence[str] | None) -> Path | None:
    """The file named by ``--config FILE`` / ``--config=FILE`` in ``args``, else by the variable."""
    given = list(args) if args is not None else sys.argv[1:]
    named: str | None = None
    for i, arg in enumerate(given):
        if arg == "--":
            break
        if arg == "--config" and i + 1 < len(given):
            named = given[i + 1]
        elif arg.startswith("--config="):
            named = arg.partition("=")[2]
    if named is None:
        named = parser.env.source.get(CONFIG_ENV) or None
    return Path(named) if named else None


def read(path: Path, fail: Callable[[Path, str], NoReturn]) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except OSError as exc:
        fail(path, f"cannot read it: {exc.strerror or exc}")
    except tomllib.TOMLDecodeError as exc:
        fail(path, f"not TOML: {exc}")


def as_default(action: argparse.Action, value: object, fail: Callable[[str], NoReturn]) -> object:
    """A file's value as the flag's default: a switch's bool as it is; anything else as the text
    that would have been typed, which argparse passes through the flag's type."""
    if action.nargs == 0:  # store_true and its kind
        if not isinstance(value, bool):
            fail("true or false")
        return value
    if isinstance(value, list) and all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        return ",".join(str(v) for v in value)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        fail(f"a string or a number, not {type(value).__name__}")
    if action.choices is not None and str(value) not in action.choices:  # argparse checks typed ones only
        fail(f"one of {', '.join(map(str, action.choices))}, not {value!r}")
    return str(value)
