"""The code map of ARCHITECTURE.md, enforced: who may import whom, no import circles, no calls of
another module's underscore names, and rooms that do no I/O.

Imports are read with ``ast`` from every module, wherever they stand: at the top, inside a
function, or under ``if TYPE_CHECKING:`` (a circle hidden there is still a circle for a reader).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("seahaven", "protocol", "server", "client", "i18n")

FORBIDDEN = {
    "seahaven": {
        "protocol",
        "server",
        "client",
        "i18n",
        "websockets",
        "redis",
        "msgpack",
        "textual",
        "asyncio",
        "socket",
    },
    "protocol": {"server", "client", "i18n", "websockets", "redis", "textual"},
    "i18n": {"seahaven", "protocol", "server", "client", "websockets", "redis", "textual"},
    "client": {"server", "redis"},
    "server": {"client", "textual"},
}
"""Top-level packages (and libraries) each package must never import."""

LAYERS = {
    "server.rooms": {"server.rooms"},
    "server.store": {"server.store"},
    "server.shell": {"server.shell", "server.rooms", "server.store", "server.config", "server.logs"},
    "server.players": {
        "server.players",
        "server.shell",
        "server.rooms",
        "server.store",
        "server.config",
        "server.logs",
    },
    "server.moderation": {"server.moderation", "server.shell", "server.store", "server.config", "server.logs"},
    "server.play": {"server.play", "server.shell", "server.rooms", "server.store", "server.config", "server.logs"},
    "server.http": {"server.http", "server.moderation", "server.shell", "server.store", "server.logs"},
    "server.records": {"server.records", "server.rooms", "server.store", "server.config", "server.logs"},
    "server.config": set(),
    "server.config_file": set(),
    "server.logs": set(),
    "server.runtime": set(),
    "server.workers": set(),
}
"""Within server/, the parts each part may import: pure rooms <- shell <- app; the store below
the shell and knowing no rooms; the parts by capability above the shell, given its interfaces and
never imported by it (what it asks of them is ``server/shell/ports.py``'s): registered players
(players), the moderators (moderation), play and http (which runs the moderators' admin API);
none of them imports another but http moderation, so dependencies point one way; the records (the
database, and the archiver that fills it) beside the shell, reading rooms' records and the store's
logs, never the shell. Every part but the pure rooms and the store writes its log lines through
``server.logs``, a leaf (it imports nothing of the server).
``server.app`` (the wiring) and ``server.__main__`` (the command) may import every part."""

CLIENT_LAYERS = {
    "client.text": set(),
    "client.board": {"client.text"},
    "client.data": set(),
    "client.net": {"client.text"},
    "client.widgets": {"client.board", "client.text"},
    "client.records": {"client.widgets", "client.board", "client.text"},
    "client.screens": {
        "client.records",
        "client.widgets",
        "client.board",
        "client.net",
        "client.data",
        "client.text",
    },
    "client.race": {
        "client.screens",
        "client.records",
        "client.widgets",
        "client.board",
        "client.net",
        "client.data",
        "client.text",
    },
    "client.apps": {
        "client.race",
        "client.screens",
        "client.records",
        "client.widgets",
        "client.board",
        "client.net",
        "client.data",
        "client.text",
    },
}
"""Within client/, the parts each part may import: the words (text) and the pure board at the
bottom; the connection (net) and the data directory beside them; the widgets, then the records
(read and explained, not drawn), then the screens, which ask their room through ``RoomActions``
and never import the race; the race (a room's controller) drives the screens; the applications
(apps) wire it all. ``client.__main__`` (the command) may import every part."""

PURE = ("server.rooms",)
"""The room core and its rules: commands in, effects out, no clock, socket or store."""
IMPURE = {"asyncio", "time", "socket", "websockets", "redis", "server.store", "server.app", "server.shell"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    found = {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}
    assert all(package in found for package in PACKAGES), "a package was not found"
    return found


def imports_of(name: str) -> Iterator[str]:
    """Every module ``name`` imports, anywhere in it, relative imports resolved; ``from a import b``
    names ``a.b`` when that is a module of ours, else ``a``."""
    path = modules()[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield full if full in modules() else base


def within(module: str, part: str) -> bool:
    return module == part or module.startswith(part + ".")


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_imports_point_one_way(package: str) -> None:
    offences = {
        name: sorted({i for i in imports_of(name) if i.split(".")[0] in FORBIDDEN[package]})
        for name in modules()
        if within(name, package)
    }
    assert {k: v for k, v in offences.items() if v} == {}


def reaching_past(part: str, allowed: set[str], root: str) -> dict[str, list[str]]:
    """The modules of ``part`` that import a module of ``root`` outside ``allowed``, with them."""
    offences = {}
    for name in modules():
        if not within(name, part):
            continue
        wrong = {
            i for i in imports_of(name) if within(i, root) and i != root and not any(within(i, a) for a in allowed)
        }
        if wrong:
            offences[name] = sorted(wrong)
    return offences


def loose_modules(root: str, parts: list[str]) -> set[str]:
    """The modules of ``root`` in none of ``parts``."""
    return {
        name for name in modules() if within(name, root) and name != root and not any(within(name, p) for p in parts)
    }


@pytest.mark.parametrize("part", sorted(LAYERS))
def test_each_server_part_imports_only_the_parts_below_it(part: str) -> None:
    assert reaching_past(part, set(LAYERS[part]), "server") == {}


def test_nothing_imports_the_wiring_but_the_command() -> None:
    offences = {name for name in modules() if name != "server.__main__" and "server.app" in set(imports_of(name))}
    assert offences == set()


def test_every_server_module_belongs_to_a_part() -> None:
    assert loose_modules("server", [*LAYERS, "server.app", "server.__main__"]) == set()


@pytest.mark.parametrize("part", sorted(CLIENT_LAYERS))
def test_each_client_part_imports_only_the_parts_below_it(part: str) -> None:
    assert reaching_past(part, {part, *CLIENT_LAYERS[part]}, "client") == {}


def test_every_client_module_belongs_to_a_part() -> None:
    assert loose_modules("client", [*CLIENT_LAYERS, "client.__main__"]) == set()


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of ``graph`` with more than one module (or a loop)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("package", ["server", "client", "protocol", "seahaven", "i18n"])
def test_no_import_circles(package: str) -> None:
    graph = {
        name: {i for i in imports_of(name) if i in modules() and within(i, package) and i != package}
        for name in modules()
        if within(name, package)
    }
    assert strongly_connected(graph) == []


def test_the_circle_finder_finds_circles() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


PUBLIC_UNDERSCORED = frozenset({"_", "_exit", "_replace", "_asdict", "_fields", "_make"})
"""Names public by their documentation despite the underscore (``os._exit``, named tuples', and
gettext's ``_``: i18n's message lookup, by the convention every extraction tool knows)."""


def private_uses(path: Path) -> list[str]:
    """Uses of another object's or module's underscore names: ``x._name`` where ``x`` is not
    ``self`` or ``cls``, and ``from m import _name``. Dunder names are public protocol."""
    found = []
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute):
            name = node.attr
            base = node.value
            mine = isinstance(base, ast.Name) and base.id in ("self", "cls")
            if name.startswith("_") and not name.startswith("__") and not mine and name not in PUBLIC_UNDERSCORED:
                found.append(f"{where}:{node.lineno} .{name}")
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            found += [
                f"{where}:{node.lineno} import {a.name}"
                for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__") and a.name not in PUBLIC_UNDERSCORED
            ]
    return found


@pytest.mark.parametrize("package", ["server", "client", "i18n"])
def test_no_module_calls_another_ones_private_names(package: str) -> None:
    offences = [use for name, path in modules().items() if within(name, package) for use in private_uses(path)]
    assert offences == []


def test_the_private_use_finder_finds_them(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from m import _x\nfrom i18n import _\nself._ok = 1\nother._bad()\nobj.__len__()\n")
    assert sorted(u.split(" ", 1)[1] for u in private_uses(sample)) == ["._bad", "import _x"]


@pytest.mark.parametrize("part", PURE)
def test_the_room_core_does_no_io(part: str) -> None:
    offences = {
        name: sorted({i for i in imports_of(name) if any(within(i, bad) for bad in IMPURE)})
        for name in modules()
        if within(name, part)
    }
    assert {k: v for k, v in offences.items() if v} == {}


def wait_for_calls(path: Path) -> list[str]:
    """Where ``path`` calls ``asyncio.wait_for`` (as ``asyncio.wait_for`` or an imported ``wait_for``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name == "wait_for":
                found.append(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{node.lineno}")
    return found


def test_no_package_uses_asyncio_wait_for() -> None:
    # Python 3.11's wait_for returns the result when its inner task finishes as the outer one is
    # cancelled, and the cancellation is lost (CPython gh-86296): a task stopped then runs on, and
    # a graceful stop that waits for it never ends. ``async with asyncio.timeout(...)`` does not.
    offences = [call for path in modules().values() for call in wait_for_calls(path)]
    assert offences == []


def test_the_wait_for_finder_finds_them(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import asyncio\nfrom asyncio import wait_for\nasyncio.wait_for(f, 1)\nwait_for(f, 1)\nwait(f)\n")
    assert wait_for_calls(sample) == ["sample.py:3", "sample.py:4"]
