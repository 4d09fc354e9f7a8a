"""The client's modules import one another without circles (imports under ``if TYPE_CHECKING:``
and inside functions count too); the race screen reaches its controller only through
``RoomActions`` (client/room_actions.py).

tests/test_architecture.py checks which packages may import which, not circles within client/.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "client"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def client_imports(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """The client modules ``path`` imports anywhere in the file (TYPE_CHECKING blocks and
    function bodies included), relative imports resolved."""
    tree = ast.parse(path.read_text(), str(path))
    parts = module_name(path, root).split(".")
    package = parts if path.name == "__init__.py" else parts[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            # ``from . import room_text`` names a module; ``from .race import X`` names one in it.
            names = [module, *(f"{module}.{alias.name}" for alias in node.names)]
        else:
            continue
        found.update(name for name in names if name in modules)
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    files = sorted((root / PACKAGE).rglob("*.py"))
    modules = {module_name(f, root) for f in files}
    return {module_name(f, root): client_imports(f, modules, root) - {module_name(f, root)} for f in files}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_the_graph_sees_the_clients_imports() -> None:
    graph = import_graph()
    assert "client.race_screen" in graph["client.race"]
    assert "client.room_text" in graph["client.race"], "``from . import room_text`` counts"
    assert "client.room_actions" in graph["client.race_screen"]


def test_no_import_circles_in_the_client() -> None:
    assert circles(import_graph()) == []


def test_the_race_screen_does_not_import_the_controller() -> None:
    """Not even under ``if TYPE_CHECKING:``, nor through another module: it has ``RoomActions``."""
    assert "client.race" not in reachable(import_graph(), "client.race_screen")


def test_circles_are_found_under_type_checking(tmp_path: Path) -> None:
    """The check itself: a circle closed only by a TYPE_CHECKING import is one."""
    package = tmp_path / PACKAGE
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import B\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\nclass B: ...\n"
    )
    (package / "c.py").write_text("from client import a\n")
    graph = import_graph(tmp_path)
    assert graph["client.c"] == {"client", "client.a"}, "the package's __init__ runs too"
    assert circles(graph) == [["client.a", "client.b"]]
