"""server/config_file.py: the settings' layers (flag > environment > TOML file > default) over the
command's own flags, and docs/operating.md's table of them checked against those flags."""

from __future__ import annotations

import asyncio
import re
import urllib.request
from pathlib import Path

import pytest

from server.__main__ import command_parser, parse_args
from server.config_file import SettingsParser
from tests.server_proc import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
OPERATING = ROOT / "docs" / "operating.md"
MACHINE_DEFAULTS = {"node-name", "data-dir"}
"""Settings whose default depends on the machine (the host name, the home folder): the table says how."""


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_the_file_fills_in_below_the_environment_and_the_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SEAHAVEN_GRACE", "SEAHAVEN_SPECTATOR_DELAY", "SEAHAVEN_TRUSTED_PROXIES", "SEAHAVEN_UVLOOP"):
        monkeypatch.delenv(name, raising=False)
    file = write(
        tmp_path / "server.toml",
        'grace = 45\nspectator_delay = 0\ntrusted-proxy = ["10.0.0.0/8", "127.0.0.1"]\n'
        'no-uvloop = true\nlog-format = "json"\ncountdown = 1.5\n',
    )
    config, logs, _, _ = parse_args(["--config", str(file)])
    assert (config.grace_ms, config.spectator_delay_ms, config.countdown_ms) == (45_000, 0, 1_500)
    assert config.trusted_proxies == ("10.0.0.0/8", "127.0.0.1/32") and not config.uvloop
    assert logs.format == "json"
    # The environment wins over the file, and a flag over both.
    monkeypatch.setenv("SEAHAVEN_GRACE", "30")  # the same as the default: still the environment's word
    assert parse_args(["--config", str(file)])[0].grace_ms == 30_000
    assert parse_args([f"--config={file}", "--grace", "7"])[0].grace_ms == 7_000
    # SEAHAVEN_CONFIG names the file when no flag does.
    monkeypatch.setenv("SEAHAVEN_CONFIG", str(file))
    assert parse_args([])[0].spectator_delay_ms == 0
    # Without any file: the defaults.
    monkeypatch.delenv("SEAHAVEN_CONFIG")
    assert parse_args([])[0].spectator_delay_ms == 10_000


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("graze = 4\n", "unknown setting 'graze'"),
        ("grace = -1\n", "must be at least 0"),
        ("no-uvloop = 1\n", "no-uvloop: true or false"),
        ("port = [1, true]\n", "port: a string or a number, not list"),
        ("reuse-port = true\n", "unknown setting 'reuse-port'"),  # hidden from --help: not a setting
        ("grace = \n", "not TOML"),
        ('log-format = "yaml"\n', "log-format: one of text, json, not 'yaml'"),
    ],
)
def test_a_bad_file_stops_the_start_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    file = write(tmp_path / "bad.toml", text)
    with pytest.raises(SystemExit) as stopped:
        parse_args(["--config", str(file)])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert said in err and (str(file) in err or "argument --grace" in err), err


def test_a_missing_file_is_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--config", str(tmp_path / "nowhere.toml")])
    assert "nowhere.toml: cannot read it" in capsys.readouterr().err


def test_a_flag_added_later_is_a_file_key_and_its_variable_is_known(tmp_path: Path) -> None:
    """What another engineer's new flag gets for nothing: written as the command's flags are."""
    parser = SettingsParser(prog="x", environ={"SEAHAVEN_DRAIN_TIMEOUT": "9"})
    parser.add_argument("--drain-timeout", type=float, default=parser.env.get("SEAHAVEN_DRAIN_TIMEOUT", "60"))
    parser.add_argument("--quiet", action="store_true")
    admin = parser.add_argument_group("admin")  # a group's flags are settings too
    admin.add_argument("--admin-port", type=int, default=parser.env.get("SEAHAVEN_ADMIN_PORT", "0"))
    assert [(s.key, s.env) for s in parser.settings()] == [
        ("drain-timeout", "SEAHAVEN_DRAIN_TIMEOUT"),
        ("quiet", None),
        ("admin-port", "SEAHAVEN_ADMIN_PORT"),
    ]
    file = write(tmp_path / "x.toml", "drain-timeout = 5\nquiet = true\nadmin-port = 9000\n")
    args = parser.parse_args(["--config", str(file)])
    assert (args.drain_timeout, args.quiet, args.admin_port) == (9.0, True, 9000)  # the environment's 9 over 5
    plain = SettingsParser(prog="x", environ={})
    plain.add_argument("--drain-timeout", type=float, default=plain.env.get("SEAHAVEN_DRAIN_TIMEOUT", "60"))
    plain.add_argument("--quiet", action="store_true")
    plain.add_argument("--admin-port", type=int, default=plain.env.get("SEAHAVEN_ADMIN_PORT", "0"))
    assert plain.parse_args(["--config", str(file)]).drain_timeout == 5.0


def test_migrate_reads_its_part_of_the_servers_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from server.__main__ import migrate_command

    db = tmp_path / "records.db"
    file = write(tmp_path / "server.toml", f'database = "sqlite:///{db}"\ngrace = 45\n')
    assert migrate_command(["--config", str(file)]) == 0
    assert db.exists() and str(db) in capsys.readouterr().out


def rows(text: str) -> dict[str, list[str]]:
    """The settings table of docs/operating.md: its rows by file key (first backticked word)."""
    section = text.split("## Settings", 1)[1].split("\n## ", 1)[0]
    found = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            key = re.match(r"`([^`]+)`", cells[0])
            assert key is not None, line
            assert key.group(1) not in found, f"{key.group(1)} documented twice"
            found[key.group(1)] = cells
    return found


def shown(default: object) -> str:
    if default is None or default == "":
        return "none"
    if isinstance(default, bool):
        return "on" if default else "off"
    return str(default)


def test_every_setting_is_documented_once_with_its_flag_variable_default_and_unit() -> None:
    table = rows(OPERATING.read_text())
    settings = command_parser(environ={}).settings()
    assert set(table) == {s.key for s in settings}, "docs/operating.md's settings table and the flags differ"
    for setting in settings:
        _, flag, env, default, unit, meaning = table[setting.key]
        assert flag == f"`{setting.flag}`", setting
        first_env = re.match(r"`([^`]+)`", env)
        assert setting.env is not None and first_env is not None and first_env.group(1) == setting.env, setting
        if setting.key not in MACHINE_DEFAULTS:
            assert default.strip("`") == shown(setting.default), setting
        assert unit and meaning, setting


def test_the_readme_points_at_the_one_table() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "docs/operating.md" in readme and "| `--spectator-delay` |" not in readme


async def test_a_server_process_takes_its_settings_from_the_file(tmp_path: Path) -> None:
    file = write(tmp_path / "server.toml", 'node-name = "from-the-file"\nno-records = true\n')
    server = ServerProcess("--config", str(file))
    try:

        def metrics() -> str:
            with urllib.request.urlopen(f"{server.http}/metrics", timeout=5) as response:
                return str(response.read().decode())

        assert 'seahaven_node_info{node="from-the-file"} 1.0' in await asyncio.to_thread(metrics)

        def health() -> bytes:
            with urllib.request.urlopen(f"{server.http}/healthz", timeout=5) as response:
                return bytes(response.read())

        assert b"database: off\n" in await asyncio.to_thread(health)
    finally:
        server.close()


def test_a_log_format_from_the_environment_is_checked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SEAHAVEN_LOG_FORMAT", "yaml")
    with pytest.raises(SystemExit):
        parse_args([])
    assert "--log-format: one of text, json, not 'yaml'" in capsys.readouterr().err
