"""The load benchmark's helpers: its races are legal, its floor and generator speak the protocol,
its figures count what never came back. (The benchmark itself is run by hand: benchmarks/load.py.)"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import os
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import msgpack
import pytest
import redis
from websockets.asyncio.client import connect
from websockets.asyncio.server import broadcast, serve

from benchmarks import redislink, requestpath, scriptcost, stacks
from benchmarks.figures import Phase, Result, describe_step, percentile
from benchmarks.floor import SUBPROTOCOL, Floor
from benchmarks.load import Bench
from benchmarks.loadgen import Generator, Window
from benchmarks.races import Script, check, script_for, scripts
from seahaven import Board, Move
from server.store.link import Link
from server.store.stores import MemoryStore


def test_a_script_stays_legal_long_after_its_solver_line_and_never_finishes() -> None:
    script = script_for(1)
    check(script, len(script.opening) + 501)  # AssertionError on an illegal move or a finished racer
    board = Board.deal("seahaven", 1)
    for index in range(len(script.opening) + 2):
        board.push(Move.parse(script.move(index)))
    assert board.progress < 52


def test_scripts_are_for_different_deals() -> None:
    found = scripts(3, first_deal=5)
    assert [s.deal for s in found] == [5, 6, 7]
    assert all(isinstance(s, Script) and s.loop[0] != s.loop[1] for s in found)


def test_a_missing_answer_counts_as_infinitely_late() -> None:
    samples = [0.001 * i for i in range(1, 100)]  # 99 answers of 100 moves
    assert percentile(samples, 100, 0.5) == pytest.approx(0.050)
    assert percentile(samples, 100, 0.99) == pytest.approx(0.099)
    assert math.isinf(percentile(samples, 100, 1.0))
    assert math.isnan(percentile([], 0, 0.5))


def test_merged_phases_pool_samples_and_add_time() -> None:
    a = Phase(100, 2.0, Window(0, 1, sent=2, ack=[0.1, 0.2]), server_cpu=0.5, gen_cpu=0.1, redis_commands=8)
    b = Phase(100, 3.0, Window(1, 2, sent=1, ack=[0.3]), server_cpu=1.0, gen_cpu=0.1, redis_commands=4)
    merged = Phase.merge([a, b])
    assert merged.window.ack == [0.1, 0.2, 0.3]
    assert merged.seconds == 5.0
    assert merged.cpu_per_move == pytest.approx(0.5)
    assert merged.commands_per_move == pytest.approx(4.0)


def test_a_sweep_that_failed_where_the_generator_ran_out_of_cpu_gives_a_lower_bound() -> None:
    def step(rate: float, rival: float, gen_cpu: float) -> Phase:
        window = Window(0, 1, sent=int(rate), ack=[0.001] * int(rate), rival=[rival] * int(rate))
        window.sent_with_rival = int(rate)
        return Phase(rate, 1.0, window, server_cpu=0.5, gen_cpu=gen_cpu)

    server_bound = Result("floor", sweep=[step(1000, 0.002, 0.3), step(2000, 0.200, 0.5)])
    generator_bound = Result("floor", sweep=[step(1000, 0.002, 0.3), step(2000, 0.200, 0.95)])
    for result in (server_bound, generator_bound):
        assert result.best_rate == 1000
    assert not server_bound.rate_is_a_floor
    assert generator_bound.rate_is_a_floor
    assert "generator was CPU-bound" in describe_step(generator_bound.sweep[1])
    bench = Bench(argparse.Namespace(sweep_from=1000.0, server_cpu=0), [])
    assert bench._next(server_bound.sweep[:1]) == 1500  # the next step up
    assert bench._next([step(1000, 0.002, 0.95)]) is None  # a passing step, but the generator was full
    assert Result("floor", sweep=[step(1000, 0.002, 0.95)]).rate_is_a_floor


def test_a_sweep_narrows_the_gap_between_a_pass_and_a_failure_to_a_tenth() -> None:
    def step(rate: float, passes: bool) -> Phase:
        rival = 0.002 if passes else 0.200
        window = Window(0, 1, sent=int(rate), ack=[0.001] * int(rate), rival=[rival] * int(rate))
        window.sent_with_rival = int(rate)
        return Phase(rate, 1.0, window, server_cpu=0.5, gen_cpu=0.3)

    bench = Bench(argparse.Namespace(sweep_from=1000.0, server_cpu=0), [])
    steps = [step(1000, True), step(1500, True), step(2250, False)]
    rates = []
    while (rate := bench._next(steps)) is not None:
        rates.append(rate)
        steps.append(step(rate, rate < 1900))
    assert rates == [1837, 2033, 1933]  # each the geometric middle of the gap left, until it is <= 1.1x
    assert Result("floor", sweep=steps).best_rate == 1837
    assert bench._next([step(1000, False)]) is None  # nothing passed: no gap to narrow


def test_profile_lines_are_charged_to_the_innermost_frame(tmp_path: Path) -> None:
    raw = tmp_path / "raw.txt"
    raw.write_text(
        "main (server/__main__.py:9);RaceServer.request (server/app.py:287);"
        "Pipeline.execute (redis/asyncio/client.py:1) 3\n"
        "main (server/__main__.py:9);EpollSelector.select (selectors.py:468) 1\n"
    )
    parts, functions, total = stacks.read(raw)
    assert total == 4
    assert parts == {"redis-py": 3, "event loop (asyncio, selectors)": 1}
    assert functions["Pipeline.execute (redis/asyncio/client.py)"] == 3
    assert stacks.ours_inclusive(raw)["RaceServer.request (server/app.py)"] == 3


@pytest.fixture
async def floor_url() -> AsyncIterator[str]:
    async with serve(Floor().connection, "127.0.0.1", 0, subprotocols=[SUBPROTOCOL], compression=None) as server:
        yield f"ws://127.0.0.1:{next(iter(server.sockets)).getsockname()[1]}"


async def test_the_generator_races_on_the_floor_and_hears_every_move(floor_url: str) -> None:
    """... and collects no garbage while it offers load (its pauses would be either side's tail)."""
    gen = Generator([floor_url], deflate=True)
    seen: list[tuple[bool, int]] = []

    def probe() -> None:  # called as the measured part begins and as it ends
        seen.append((gc.isenabled(), sum(generation["collections"] for generation in gc.get_stats())))

    threshold = gc.get_threshold()
    try:
        await gen.connect(4)
        await gen.seat(scripts(2))
        assert all(racer.rival is not None and racer.started.done() for racer in gen.racers)
        gc.set_threshold(10)  # a collection every few allocations, were the collector on
        try:
            window = await gen.run(rate=200, warmup=0.05, measure=0.3, drain=5.0, probe=probe)
        finally:
            gc.set_threshold(*threshold)
        assert gc.isenabled()
    finally:
        await gen.close()
    assert [enabled for enabled, _ in seen] == [False, False]
    assert seen[0][1] == seen[-1][1]  # no collection while the measured moves went out
    assert window.sent > 0
    assert len(window.ack) == window.sent
    assert len(window.rival) == window.sent_with_rival == window.sent
    assert not window.errors
    assert sum(racer.played for racer in gen.racers) >= window.sent


async def race(url: str) -> tuple[Window, Generator]:
    """Two rooms of racers race on ``url`` at 200 moves/s for 0.3 s."""
    gen = Generator([url], deflate=False)
    try:
        await gen.connect(4)
        await gen.seat(scripts(2))
        return await gen.run(rate=200, warmup=0.05, measure=0.3, drain=5.0), gen
    finally:
        await gen.close()


def stored_moves(redis_url: str) -> int:
    """Moves the floor stored in its Redis."""
    client = redis.Redis.from_url(redis_url)
    try:
        return sum(client.llen(key) for key in client.scan_iter("floor:*"))
    finally:
        client.close()


async def test_the_floor_with_redis_stores_every_move_it_acks(redis_url: str) -> None:
    link = Link(redis_url)
    async with serve(Floor(link).connection, "127.0.0.1", 0, subprotocols=[SUBPROTOCOL], compression=None) as server:
        window, gen = await race(f"ws://127.0.0.1:{next(iter(server.sockets)).getsockname()[1]}")
    await link.close()
    assert window.sent > 0 and len(window.ack) == window.sent
    assert stored_moves(redis_url) == sum(racer.played for racer in gen.racers)


async def test_the_judged_floor_plays_legal_moves_and_refuses_an_illegal_one(redis_url: str) -> None:
    link = Link(redis_url)
    async with serve(
        Floor(link, judge=True).connection, "127.0.0.1", 0, subprotocols=[SUBPROTOCOL], compression=None
    ) as server:
        url = f"ws://127.0.0.1:{next(iter(server.sockets)).getsockname()[1]}"
        window, gen = await race(url)
        async with connect(url, subprotocols=[SUBPROTOCOL]) as ws:
            await ws.send(msgpack.packb({"type": "create_room", "seq": 1, "body": {"deal_number": 1}}))
            await ws.recv()
            await ws.send(msgpack.packb({"type": "move", "seq": 2, "body": {"move": "1a"}}))  # cell a is taken
            refused = msgpack.unpackb(await ws.recv())
    await link.close()
    assert window.sent > 0 and len(window.ack) == window.sent and not window.errors
    assert stored_moves(redis_url) == sum(racer.played for racer in gen.racers)  # the refused one is not there
    assert refused["type"] == "error" and refused["re"] == 2


def test_the_link_benchmark_prints_a_row_per_shape_and_loop(capsys: pytest.CaptureFixture[str]) -> None:
    assert redislink.main(["--calls", "4", "--repeats", "2"]) == 0
    out = capsys.readouterr().out
    number = r"\s+(\d+\.\d)"
    ratio = r"\s+(\d+\.\d)x"
    for shape, _ in redislink.SHAPES:
        for loop, _ in redislink.loops():
            row = re.search(rf"^{shape}\s+{loop}{number}{number}{ratio}{number}{number}{ratio}$", out, re.MULTILINE)
            assert row is not None, f"no row for {shape} on {loop} in:\n{out}"
            assert all(float(cell) > 0 for cell in row.groups())


def test_the_link_benchmark_refuses_no_calls() -> None:
    with pytest.raises(SystemExit) as exit_:
        redislink.main(["--calls", "0"])
    assert exit_.value.code == 2  # argparse's usage error


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_the_request_path_benchmark_plays_every_move_through_the_server(
    store: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert requestpath.main(["--store", store, "--rooms", "2", "--rounds", "3"]) == 0
    line = capsys.readouterr().out
    found = re.fullmatch(
        rf"{store} store, 2 rooms: (\d+\.\d) us CPU per move \(best of 5\), (\d\.\d\d) frames out per move\n", line
    )
    assert found is not None, line
    assert float(found.group(1)) > 0
    assert found.group(2) == "2.00"  # the mover's reply and the rival's progress: every move was accepted


def test_the_request_path_benchmark_refuses_to_call_refused_moves_its_figures() -> None:
    bench = requestpath.Bench(MemoryStore(), scripts(1))
    bench.racers = []

    async def refused() -> None:
        await bench.seat()
        script, session, sock = bench.racers[0]
        bench.racers = [(Script(script.deal, ("1a",), script.loop), session, sock)]  # cell a is taken
        await bench.play(1)

    with bench.counting(), pytest.raises(RuntimeError, match="refused"):
        asyncio.run(refused())
    assert bench.server.fanout.broadcast is broadcast  # the server writes to sockets again


def test_the_script_cost_benchmark_prints_every_variant_and_stores_every_append(
    capsys: pytest.CaptureFixture[str],
) -> None:
    cpus = os.sched_getaffinity(0)
    assert scriptcost.main(["--calls", "30", "--repeats", "2", "--rooms", "3"]) == 0  # raises if one was not stored
    assert os.sched_getaffinity(0) == cpus  # this process is given its CPUs back
    out = capsys.readouterr().out
    for name in ["RPUSH", *scriptcost.variants(), *scriptcost.FUNCTIONS]:
        row = re.search(rf"^{re.escape(name)}\s+(\d+\.\d\d)\s+(\d+\.\d\d)\s+(\d+\.\d\d)x$", out, re.MULTILINE)
        assert row is not None, f"no row for {name!r} in:\n{out}"
        assert float(row.group(2)) > 0


def test_the_script_cost_benchmark_counts_redis_servers_instructions(capsys: pytest.CaptureFixture[str]) -> None:
    assert shutil.which("valgrind"), "valgrind is not installed: scripts/install-test-deps installs it"
    assert scriptcost.main(["--instructions", "--calls", "20", "--repeats", "1", "--rooms", "3"]) == 0
    out = capsys.readouterr().out
    counts = {}
    for name in ["RPUSH", *scriptcost.variants()]:
        row = re.search(rf"^{re.escape(name)}\s+([\d,]+)\s+([\d,]+)\s+(\d+\.\d\d)x$", out, re.MULTILINE)
        assert row is not None, f"no row for {name!r} in:\n{out}"
        counts[name] = int(row.group(1).replace(",", ""))
    # Deterministic enough to order what each does more: a script's call costs more than RPUSH,
    # and computing the new tip in Lua more than being given it.
    assert counts["RPUSH"] < counts["EVALSHA that returns at once"] < counts["append script"]
    assert counts["append script"] < counts["  with the new tip's SHA-1 in Lua"]


def test_every_script_cost_variant_takes_out_what_it_names() -> None:
    found = scriptcost.variants()
    full = found["append script"]
    assert all(text != full for name, text in found.items() if name != "append script")
    memo = found["  without the request memo"]
    assert "redis.call('HGET'" not in memo and "redis.call('HSET'" not in memo
    assert "SCARD" not in found["  without the holders"] and "SADD', KEYS[3]" not in found["  without the holders"]
    chain = found["  without the hash chain"]  # neither read (heal, tip) nor written (the links given, or a SHA-1)
    assert all(call not in chain for call in ("heal_chain(KEYS", "tip_at(KEYS[5], expected)", "push_chain(KEYS[5]"))
    assert "if links > 0" not in chain and "if links > 0" not in found["  with the new tip's SHA-1 in Lua"]
    with pytest.raises(ValueError, match="not in the append script"):
        scriptcost.without(full, "redis.call('NOSUCH')", "")
