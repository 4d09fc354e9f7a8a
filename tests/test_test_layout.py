"""The tests' own layout: test modules share helpers through helper modules, never through each
other; one server factory and one fake clock, in the helper modules."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
FACTORIES = {"make_server", "make_memory_server", "make_redis_server", "server_factory"}
"""Names of race-server factories (and their fixtures): defined in tests/helpers.py and conftest.py."""


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def modules_under_test() -> list[Path]:
    return sorted(TESTS.glob("test_*.py"))


def imported_modules(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
            if node.module == "tests":  # ``from tests import test_x``
                names.update(f"tests.{alias.name}" for alias in node.names)
    return names


def test_no_test_module_imports_another() -> None:
    offenders = {
        path.name: sorted(m for m in imported_modules(parsed(path)) if m.startswith("tests.test_"))
        for path in modules_under_test()
    }
    assert {name: mods for name, mods in offenders.items() if mods} == {}


def test_server_factories_are_defined_only_in_the_helpers() -> None:
    defined = {
        path.name: sorted(
            node.name
            for node in ast.walk(parsed(path))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in FACTORIES
        )
        for path in modules_under_test()
    }
    assert {name: defs for name, defs in defined.items() if defs} == {}
    # ...and where they are defined, each once.
    shared = [
        node.name
        for path in (TESTS / "helpers.py", TESTS / "conftest.py")
        for node in ast.walk(parsed(path))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in FACTORIES
    ]
    assert sorted(shared) == sorted(FACTORIES)


def test_there_is_one_fake_clock() -> None:
    clocks = [
        f"{path.name}:{node.name}"
        for path in sorted(TESTS.glob("*.py"))
        for node in ast.walk(parsed(path))
        if isinstance(node, ast.ClassDef) and node.name.endswith("Clock")
    ]
    assert clocks == ["fakeclock.py:FakeClock"]
