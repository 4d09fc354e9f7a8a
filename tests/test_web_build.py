"""The browser client's sources: rule vectors in step with the engine, JS rules agreeing with them,
and the committed build (server/http/webroot) the same as a fresh one."""

from __future__ import annotations

import filecmp
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from seahaven import vectors
from server.http.static import WEBROOT

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
NODE = shutil.which("node")


def _node() -> str:
    assert NODE is not None, "node is not on the PATH: the web client's tests need Node.js (see .ci/run)"
    return NODE


def test_the_vectors_and_presets_are_what_the_engine_writes(tmp_path: Path) -> None:
    written = vectors.write(tmp_path)
    for fresh in written:
        committed = WEB / fresh.relative_to(tmp_path)
        assert committed.read_text() == fresh.read_text(), f"{committed} is stale: run scripts/build-web"


def test_the_vectors_cover_every_preset_and_each_kind_of_move() -> None:
    data = vectors.vectors()
    assert {p["preset"] for p in data["positions"]} == set(data["presets"])
    legal = [m for p in data["positions"] for m in p["legal"]]
    assert any(":" in m for m in legal), "a group move"
    assert any(m.startswith("#") for m in legal), "a foundation take-back"
    assert any(p["won"] for p in data["positions"]) and any(p["stuck"] for p in data["positions"])


def test_the_browser_rules_agree_with_the_engine() -> None:
    run = subprocess.run([_node(), "--test", "test/"], cwd=WEB, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert re.search(r"^# fail 0$", run.stdout, re.M) and re.search(r"^# pass [1-9]", run.stdout, re.M)


def test_the_committed_build_matches_a_fresh_build(tmp_path: Path) -> None:
    assert (WEB / "node_modules").is_dir(), "web/node_modules is missing: run `npm ci` in web/ (.ci/run does)"
    out = tmp_path / "webroot"
    run = subprocess.run([_node(), "build.mjs", str(out)], cwd=WEB, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    fresh = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(WEBROOT).as_posix() for p in WEBROOT.rglob("*") if p.is_file())
    assert committed == fresh, "server/http/webroot is stale: run scripts/build-web"
    _, mismatch, errors = filecmp.cmpfiles(out, WEBROOT, fresh, shallow=False)
    assert mismatch == [] and errors == [], "server/http/webroot is stale: run scripts/build-web"


@pytest.mark.parametrize("source", sorted(p.name for p in (WEB / "src").glob("*.js")))
def test_web_sources_import_only_each_other_and_msgpack(source: str) -> None:
    text = (WEB / "src" / source).read_text()
    imports = re.findall(r"""^(?:import|export)[^'"]*?from\s+["']([^"']+)["']|^import\s+["']([^"']+)["']""", text, re.M)
    for found in (a or b for a, b in imports):
        assert found == "@msgpack/msgpack" or re.fullmatch(r"\./[\w.]+", found), f"{source} imports {found}"
