"""Dependencies point one way: seahaven <- protocol <- server / client; the room core does no I/O."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = {
    "seahaven": {"protocol", "server", "client", "websockets", "redis", "msgpack", "textual", "asyncio", "socket"},
    "protocol": {"server", "client", "websockets", "redis", "textual"},
    "client": {"server", "redis"},
    "server": {"client", "textual"},
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_imports_point_one_way(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no modules found in {package}/"
    offences = {
        str(f.relative_to(ROOT)): sorted(imported_roots(f) & FORBIDDEN[package])
        for f in files
        if imported_roots(f) & FORBIDDEN[package]
    }
    assert offences == {}


PURE = ("server/rooms/core.py", "server/rooms/room.py", "server/rooms/events.py", "server/rooms/settings.py")
"""The room core and its rules: commands in, effects out, no clock, socket or store."""
IMPURE = {"asyncio", "time", "socket", "websockets", "redis", "server.store", "server.app", "server.shell"}


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, relative imports resolved within its package."""
    tree = ast.parse(path.read_text(), str(path))
    package = ".".join(path.relative_to(ROOT).parent.parts)
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            modules.add(f"{package}.{module}" if node.level else module)
    return modules


@pytest.mark.parametrize("name", PURE)
def test_the_room_core_does_no_io(name: str) -> None:
    modules = imported_modules(ROOT / name)
    offences = {m for m in modules if m in IMPURE or m.split(".")[0] in IMPURE}
    assert offences == set()
