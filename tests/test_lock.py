"""The build does not rot: the README's two commands install from the committed lock, CI runs the
README's test command as written, and every locked requirement is pinned with its hashes."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    """The two command lines of the README's first code block."""
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert block is not None, "README.md opens with no sh block"
    return [line.split("    #")[0].strip() for line in block[1].splitlines() if line.strip()]


def test_the_readme_opens_with_the_two_commands_both_from_the_lock() -> None:
    serve, test = readme_commands()
    assert "--require-hashes -r requirements/server.txt" in serve and "pip install -q --no-deps ." in serve
    assert serve.endswith(".venv/bin/seahaven-server")
    assert "--require-hashes -r requirements/dev.txt" in test and "--no-deps -e ." in test
    assert test.endswith("scripts/test")


def test_ci_runs_the_readme_test_command_as_written() -> None:
    _, test = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f'{test} "$@"' in ci.splitlines(), ".ci/run and the README's second line disagree"


def test_every_locked_requirement_is_pinned_with_hashes() -> None:
    for name in ("server.txt", "dev.txt"):
        text = (ROOT / "requirements" / name).read_text(encoding="utf-8")
        entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 1)[1].strip())
        assert len(entries) > 20, f"{name}: {len(entries)} requirements"
        for entry in entries:
            head = entry.split("\\")[0].strip()
            assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[^ ;]+( ;.+)?", head), f"{name}: not pinned: {head}"
            assert re.search(r"--hash=sha256:[0-9a-f]{64}", entry), f"{name}: no hash for {head}"
    server = (ROOT / "requirements" / "server.txt").read_text(encoding="utf-8")
    assert "\nredis==" in server and "\nwebsockets==" in server and "\npytest==" not in server
