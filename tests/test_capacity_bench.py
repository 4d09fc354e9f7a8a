"""The capacity benchmark (benchmarks/capacity.py) at tiny sizes: it seats racers, plays legal moves
until they finish and race again in new rooms, opens idle connections, and reports every figure.
Speed is measured, never asserted here: only the report's shape and that its numbers are positive."""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import pytest

from benchmarks import capacity
from benchmarks.races import PRESET, scripts, winning_line
from seahaven import Board, Move


def test_a_winning_line_is_legal_move_by_move_and_wins() -> None:
    script = winning_line(1)
    board = Board.deal(PRESET, script.deal)
    for index in range(len(script.opening)):
        move = Move.parse(script.move(index))
        assert board.is_legal(move)
        board.push(move)
    assert board.is_won()
    assert [s.deal for s in scripts(2, first_deal=5, make=winning_line)] == [5, 6]


def test_the_generators_split_racers_in_whole_rooms() -> None:
    gens = capacity.Generators.__new__(capacity.Generators)
    gens.conns = [None, None, None]  # type: ignore[list-item]
    assert gens.split(14, unit=2) == [6, 4, 4]
    assert gens.split(7) == [3, 2, 2]


def test_quick_run_at_tiny_sizes_reports_racers_per_node_and_core_and_idle_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cpus = os.sched_getaffinity(0)
    out_json = tmp_path / "capacity.json"
    argv = ["--quick", "--start", "4", "--step", "4", "--max-racers", "8", "--idle", "20"]
    # A fast pace so that races finish and new rooms start within seconds; the per-connection rate
    # limit (30 requests/s) is lifted for it. A bar no step can miss: this checks the report, not speed.
    argv += ["--pace", "0.02", "--server-arg=--rate=1000", "--server-arg=--burst=1000", "--p99-limit", "60000"]
    argv += ["--json", str(out_json)]
    assert capacity.main(argv) == 0
    assert os.sched_getaffinity(0) == cpus  # this process is given its CPUs back
    out = capsys.readouterr().out

    assert out.startswith("$ ") and "-m benchmarks.capacity --quick --start 4" in out.splitlines()[0]
    assert re.search(r"^ racers\s+moves/s\s+ack p50", out, re.MULTILINE)
    # A latency is "lost" when a rival never heard of a move in its step (a race ending under load).
    latency = r"(\d+\.\d\d|lost)"
    rows = re.findall(rf"^\s+(\d+)\s+([\d,]+)\s+{latency}\s+{latency}\s+{latency}\s+{latency}", out, re.MULTILINE)
    assert [int(r[0]) for r in rows] == [4, 8]
    assert all(float(cell.replace(",", "")) > 0 for row in rows for cell in row if cell != "lost")
    for label in ("racers per node", "racers per core of the server process", "racers per core, server + redis"):
        assert label in out
    assert re.search(r"server RSS per idle connection:\s+-?\d+\.\d KiB", out)

    report = json.loads(out_json.read_text())
    steps = report["steps"]
    assert [s["racers"] for s in steps] == [4, 8]
    for step in steps:
        for key in ("moves_per_second", "ack_p50_ms", "rival_p50_ms", "server_cpu"):
            assert math.isfinite(step[key]) and step[key] > 0, (key, step)
        for key in ("ack_p99_ms", "rival_p99_ms"):  # infinite: "lost", a move whose race ended first
            assert step[key] > 0, (key, step)
        assert step["racing"] <= step["racers"]
        assert step["seat_failures"] == 0
        assert not {code for code in step["errors"] if code != "race-over"}, step["errors"]  # every move legal
    assert sum(s["finished_races"] for s in steps) > 0  # racers finished their deals...
    assert sum(s["new_rooms"] for s in steps) > 0  # ...and raced again in new rooms
    assert report["stopped"] == "--max-racers 8 reached"
    assert report["racers_per_node"] == 8
    assert report["racers_per_core"] > 0 and report["racers_per_core_with_redis"] > 0
    idle = report["idle"]
    assert idle["opened"] == 20
    assert idle["server_kib_per_conn"] > 0


def test_the_capacity_benchmark_refuses_odd_racers_and_one_cpu_for_both() -> None:
    for argv in (["--start", "3"], ["--server-cpu", "1", "--gen-cpu", "1"], ["--no-racers", "--idle", "0"]):
        with pytest.raises(SystemExit) as exit_:
            capacity.parse_args(argv)
        assert exit_.value.code == 2
