"""``seahaven-server --workers N``: worker processes share one port and their rooms through Redis."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from protocol.messages import CreateRoom, Moved, MoveRequest, Result
from seahaven import Board
from seahaven.solver import solve
from server.workers import exit_status
from tests.helpers import wait_until
from tests.server_proc import ServerProcess
from tests.wsclient import WsClient, race_of_two


def children(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    """Running (a zombie that exited but was not reaped yet does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@contextmanager
def two_workers(*flags: str) -> Iterator[tuple[ServerProcess, set[int]]]:
    """A supervisor with ``--workers 2`` (and ``flags``) and its two workers' pids; a worker still
    running at the end is killed, so none outlives the test."""
    server = ServerProcess("--workers", "2", *flags)
    workers: set[int] = set()
    try:
        workers = children(server.proc.pid)
        assert len(workers) == 2
        yield server, workers
    finally:
        for pid in workers:
            if alive(pid):
                os.kill(pid, 9)
        server.close()


def nodes_answering(url: str) -> set[str]:
    body = urllib.request.urlopen(url + "/metrics", timeout=5).read().decode()
    return set(re.findall(r'seahaven_node_info\{node="([^"]+)"\}', body))


def test_the_supervisor_exits_0_only_when_every_worker_did() -> None:
    assert exit_status([0, 0]) == 0 and exit_status([]) == 0
    assert exit_status([0, -signal.SIGUSR1]) == 128 + signal.SIGUSR1  # killed by a signal, not hidden by a 0
    assert exit_status([3, -9]) == 3


def test_more_than_one_worker_needs_redis() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "server", "--workers", "2", "--no-records"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 2 and "--workers above 1 needs --redis" in run.stderr


async def test_two_workers_share_the_port_and_the_rooms(redis_url: str) -> None:
    # Without records: two workers' graceful stop on one SQLite file once took over 10 s in CI (an
    # archive waiting on the other worker's write lock, it seems); that is the records' question, not
    # this test's (sharing the port and the rooms).
    with two_workers("--redis", redis_url, "--node-name", "w", "--no-records") as (server, workers):
        # Both workers answer on the one port (each names itself in /metrics); new connections come
        # from new client ports, which the kernel spreads over the listeners.
        seen: set[str] = set()

        async def both_answered() -> bool:
            seen.update(await asyncio.to_thread(nodes_answering, server.http))
            return seen == {"w-1", "w-2"}

        await wait_until(both_answered, 20, what=lambda: f"only {seen} answered", interval=0.05)
        # A race on whichever workers the racers reach runs to the end, with one result for both.
        ann = await WsClient.open(server.url, "Ann")
        bob = await WsClient.open(server.url, "Bob")
        await race_of_two(ann, bob, CreateRoom(deal_number=1))
        for move in solve(Board.deal("seahaven", 1)).moves:
            assert isinstance(await ann.call(MoveRequest(move=str(move))), Moved)
        results = [await client.expect(Result) for client in (ann, bob)]
        assert results[0].standings == results[1].standings and results[0].standings[0].player == ann.player
        for client in (ann, bob):
            await client.close()
        # A graceful stop reaches every worker, and none is left behind.
        assert server.terminate() == 0
        assert not any(alive(pid) for pid in workers)


async def test_workers_stop_when_the_supervisor_is_killed(redis_url: str) -> None:
    with two_workers("--redis", redis_url, "--node-name", "k") as (server, workers):
        server.kill()  # SIGKILL: the supervisor cannot pass anything on
        await wait_until(
            lambda: not any(alive(pid) for pid in workers), 15, what="a worker outlived its supervisor", interval=0.1
        )


async def test_a_drain_of_the_supervisor_drains_every_worker_and_none_is_started_again(redis_url: str) -> None:
    with two_workers("--redis", redis_url, "--node-name", "d", "--no-records") as (server, workers):
        server.proc.send_signal(signal.SIGUSR1)  # nobody races here: each worker's drain ends at once
        assert server.proc.wait(30) == 0
        assert not any(alive(pid) for pid in workers) and children(server.proc.pid) == set()


def test_a_drain_while_the_workers_start_reaches_each_once_it_has_started(redis_url: str) -> None:
    # The drain comes as soon as the workers are spawned, while they still import the server: each
    # holds it until its handlers are in place, then drains (exit 0), where it used to die of it.
    argv = [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--workers", "2"]
    argv += ["--redis", redis_url, "--node-name", "e", "--no-records"]
    env = {**os.environ, "SEAHAVEN_LOG_LEVEL": "INFO"}
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "event=workers.started" in line:
                break
        workers = children(proc.pid)
        assert len(workers) == 2
        proc.send_signal(signal.SIGUSR1)
        _, log = proc.communicate(timeout=30)
        assert proc.returncode == 0, log[-3000:]
        assert log.count("event=server.drained") == 2, log[-3000:]
        assert not any(alive(pid) for pid in workers)
    finally:
        if proc.poll() is None:
            for pid in children(proc.pid):
                os.kill(pid, 9)
            proc.kill()
            proc.wait(10)


def test_the_admin_api_is_one_per_process_and_wants_a_token() -> None:
    for args, said in (
        (["--admin-port", "0"], "--admin-port needs a token"),
        (["--admin-port", "0", "--admin-token", "t", "--workers", "2", "--redis", "redis://h:1"], "one process"),
    ):
        run = subprocess.run(
            [sys.executable, "-m", "server", "--no-records", *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            env={k: v for k, v in os.environ.items() if not k.startswith("SEAHAVEN_ADMIN")},
        )
        assert run.returncode == 2 and said in run.stderr, run.stderr
