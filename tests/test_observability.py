"""deploy/'s monitoring against the server as it runs: the alert rules pass Debian's ``promtool``
(syntax, and their unit tests in deploy/alerts.test.yml), Prometheus's config loads them, the
Grafana dashboard is well formed and covers what an operator watches, and every expression of
either names only metrics a live node exports (read from its /metrics). And the JSON log lines.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from protocol.messages import CreateRoom
from server.logs import JsonFormatter, fields
from tests.redis_proc import RedisProcess
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
ALERTS = DEPLOY / "alerts.yml"
DASHBOARD = DEPLOY / "grafana" / "seahaven-dashboard.json"
PROMQL_WORDS = {"up"}
"""Series Prometheus makes itself (per scrape target), which the rules may name besides ours."""
SUFFIXES = {"counter": ("",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}
"""Each kind's series names from its ``# TYPE`` name (a counter's names its ``_total`` already)."""


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("promtool")
    if binary is None:
        why = "promtool is not on the PATH: apt-get install prometheus (scripts/install-test-deps does)"
        pytest.fail(why, pytrace=False)
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=60, cwd=DEPLOY)


def test_the_alert_rules_pass_promtool_and_their_unit_tests() -> None:
    checked = promtool("check", "rules", str(ALERTS))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tested = promtool("test", "rules", "alerts.test.yml")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    config = promtool("check", "config", "prometheus.yml")
    assert config.returncode == 0 and "1 rule files found" in config.stdout, config.stdout + config.stderr


def test_promtool_refuses_a_broken_rule(tmp_path: Path) -> None:
    broken = tmp_path / "alerts.yml"
    broken.write_text(ALERTS.read_text().replace("> 0.1\n", "> > 0.1\n", 1))
    assert promtool("check", "rules", str(broken)).returncode != 0


@pytest.fixture
def node(redis_proc: RedisProcess) -> Iterator[ServerProcess]:
    server = ServerProcess("--redis", redis_proc.url)
    try:
        yield server
    finally:
        server.close()


def exported(server: ServerProcess) -> set[str]:
    """The series names a node's /metrics can hold, from its ``# TYPE`` lines (a labelled family with
    no sample yet is declared too)."""
    with urllib.request.urlopen(f"{server.http}/metrics", timeout=10) as response:
        body = response.read().decode()
    names = set()
    for family, kind in re.findall(r"^# TYPE (\S+) (\S+)$", body, re.MULTILINE):
        names |= {family + suffix for suffix in SUFFIXES[kind]}
    return names


def metric_names(expression: str) -> set[str]:
    """The series an expression reads: ours by their prefix, and Prometheus's own ``up``."""
    return set(re.findall(r"\bseahaven_[a-z_]+\b", expression)) | {
        w for w in re.findall(r"\b[a-z_]+\b(?=\{|\s*[=<>)])", expression) if w in PROMQL_WORDS
    }


def alert_expressions() -> dict[str, str]:
    rules = yaml.safe_load(ALERTS.read_text())
    return {rule["alert"]: rule["expr"] for group in rules["groups"] for rule in group["rules"]}


def dashboard() -> dict[str, Any]:
    document = json.loads(DASHBOARD.read_text())
    assert isinstance(document, dict)
    return document


def dashboard_expressions() -> dict[str, str]:
    return {f"{p['title']} {t['refId']}": t["expr"] for p in dashboard()["panels"] for t in p["targets"]}


async def test_every_expression_names_only_metrics_a_live_node_exports(node: ServerProcess) -> None:
    client = await WsClient.open(node.url, "Ann")
    await client.call(CreateRoom(deal_number=1))
    await client.close()
    names = await asyncio.to_thread(exported, node)
    assert {"seahaven_move_latency_seconds_bucket", "seahaven_archive_backlog", "seahaven_store_breaker_open"} <= names
    for source, expressions in (("alerts.yml", alert_expressions()), ("the dashboard", dashboard_expressions())):
        for what, expression in expressions.items():
            used = metric_names(expression)
            assert used, f"{source}: {what} names no metric"
            assert used <= names | PROMQL_WORDS, f"{source}: {what} names {sorted(used - names - PROMQL_WORDS)}"
    # The check itself catches a name the server does not export.
    assert metric_names("rate(seahaven_moves_refusd_total[5m])") - names == {"seahaven_moves_refusd_total"}


def test_the_dashboard_is_well_formed_and_covers_what_an_operator_watches() -> None:
    board = dashboard()
    assert board["uid"] == "seahaven" and board["title"]
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    panels = board["panels"]
    assert len({p["id"] for p in panels}) == len(panels) and len({p["title"] for p in panels}) == len(panels)
    cells: set[tuple[int, int]] = set()
    for panel in panels:
        assert panel["type"] in ("timeseries", "stat", "gauge"), panel["title"]
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        grid = panel["gridPos"]
        x, y, w, h = grid["x"], grid["y"], grid["w"], grid["h"]
        assert set(grid) == {"x", "y", "w", "h"} and x >= 0 and x + w <= 24, panel["title"]
        here = {(i, j) for i in range(x, x + w) for j in range(y, y + h)}
        assert not here & cells, f"{panel['title']} overlaps another panel"
        cells |= here
        assert panel["targets"] and len({t["refId"] for t in panel["targets"]}) == len(panel["targets"])
        assert all(t["datasource"] == panel["datasource"] and t["expr"].strip() for t in panel["targets"])
        assert panel["fieldConfig"]["defaults"]["unit"], panel["title"]
    used = set().union(*(metric_names(e) for e in dashboard_expressions().values()))
    watched = {
        "seahaven_move_latency_seconds_bucket",
        "seahaven_moves_refused_total",
        "seahaven_store_errors_total",
        "seahaven_store_breaker_open",
        "seahaven_connections",
        "seahaven_rooms",
        "seahaven_archive_backlog",
        "seahaven_http_requests_total",
    }
    assert watched <= used, sorted(watched - used)


def test_the_alerts_watch_the_same() -> None:
    used = set().union(*(metric_names(e) for e in alert_expressions().values()))
    assert {
        "up",
        "seahaven_store_breaker_open",
        "seahaven_store_errors_total",
        "seahaven_move_latency_seconds_bucket",
        "seahaven_moves_refused_total",
        "seahaven_archive_backlog",
    } <= used


# -- JSON logs ------------------------------------------------------------------------------------


def test_an_event_lines_fields_are_its_own() -> None:
    assert fields("event=room.created room=ABCD name='Ann Lee' seats=2") == {
        "event": "room.created",
        "room": "ABCD",
        "name": "Ann Lee",
        "seats": "2",
    }
    assert fields("a line of text") == {} and fields("event=x 'unclosed") == {}


async def test_a_server_process_logs_json_lines(tmp_path: Path) -> None:
    server = ServerProcess("--log-format", "json", "--log-level", "INFO")
    try:
        client = await WsClient.open(server.url, "Ann")
        await client.close()
        assert server.terminate() == 0
        lines = [json.loads(line) for line in server.log.read_text().splitlines() if line.strip()]
    finally:
        server.close()
    assert lines and all({"time", "level", "logger", "message"} <= set(line) for line in lines)
    ready = [line for line in lines if line.get("event") == "records.ready"]
    assert ready and ready[0]["revision"] and ready[0]["level"] == "INFO"
    assert ready[0]["time"].endswith("+00:00")


def test_a_traceback_is_one_field() -> None:
    import logging

    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("seahaven.x", logging.ERROR, __file__, 1, "event=x.failed why=%s", ("boom",), None)
        import sys

        record.exc_info = sys.exc_info()
    line = json.loads(JsonFormatter().format(record))
    assert line["event"] == "x.failed" and line["why"] == "boom" and "ValueError: boom" in line["exception"]
