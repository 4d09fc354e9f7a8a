"""What redis-server spends on one room append, and on what.

Its CPU per call (``/proc/PID/schedstat``: time on a CPU, kernel included) for:

- ``RPUSH`` of one event: the judged floor's whole call;
- ``EVALSHA`` of a script that returns at once, given the append's keys and arguments: what any
  script call of that shape costs before it does anything;
- the same call of a script that only checks the log's length and appends (``LLEN``, ``RPUSH``):
  the least an append can do when several nodes write one room;
- the append script (``scripts.APPEND_AT``) as the room path calls it: one move event, the
  player's request and reply, this node as holder, the chain tip named and checked and the new one
  given (computed by the caller), the TTL left as it is;
- the same script computing the new tip itself (a SHA-1 in Lua per event), as it did before the
  caller gave it (issue 42);
- the append script without each of its duties in turn: the request memo (``HGET``/``HSET``: exactly
  once), the holders (``SCARD``/``SADD``: doorbells), the hash chain (``LLEN``/``LINDEX``/``RPUSH``:
  no mixed histories). A duty's cost is the full script's figure less this one;
- ``FCALL`` of the same two ends (the script that returns at once, the append script) loaded as a
  Redis Function instead (Redis 7): whether a function call costs less than ``EVALSHA``.

The client and a private redis-server (a free loopback port) share one CPU, as the server and its
redis-server do in ``benchmarks.load``: each call wakes redis-server from the client's caches, which
is most of what a call costs there. Calls go one at a time over ``--rooms`` rooms; the variants
alternate, ``--repeats`` times (the machine is shared), and each prints its median and least CPU per
call.

``--instructions`` counts redis-server's instructions per call instead (valgrind's callgrind, zeroed
before and dumped after each variant's calls with ``callgrind_control``): what the CPU time cannot
give on a busy machine, the same figure for the same code however busy it is, so two scripts
a few percent apart can be told apart. It leaves out what a cache miss costs (the CPU time has it).

    .venv/bin/python -m benchmarks.scriptcost [--calls 10000] [--repeats 5] [--instructions]
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import redis

from benchmarks.store import sample_event
from server.store import base, scripts
from server.store.redisstore import RedisStore
from tests.redis_proc import RedisProcess

TTL_MS = 3_600_000
REPLY = b"\x82\xa1t\xa2ok\xa3seq\xcd\x01\x00" + bytes(80)
"""A reply of about the size of a move's answer, kept as the request's memo."""


CHECKED_RPUSH = """
local length = redis.call('LLEN', KEYS[1])
if length ~= tonumber(ARGV[2]) then return {-1, length} end
return {redis.call('RPUSH', KEYS[1], ARGV[12])}
"""
"""The least a script can do that appends only to the log its caller expects (several nodes write a
room): what is left of the append without its duties."""


def without(text: str, part: str, instead: str) -> str:
    """``text`` with ``part`` replaced; a ValueError when ``part`` is not in it (the script changed:
    the variant would measure the full script under another name)."""
    if part not in text:
        raise ValueError(f"not in the append script any more: {part!r}")
    return text.replace(part, instead)


def variants() -> dict[str, str]:
    """The scripts measured, by name (``RPUSH`` is a plain command, not among them)."""
    full = scripts.APPEND_AT
    memo = without(full, "local seen = tonumber(redis.call('HGET', KEYS[2], player) or '-1')", "local seen = -1")
    hset = "local added = redis.call('HSET', KEYS[2], player, ARGV[4], player .. ':r', ARGV[5],"
    memo = without(memo, hset, "local added = 0 --")  # the rest of the line, commented out
    holders = without(full, "local others = redis.call('SCARD', KEYS[3])", "local others = 0")
    holders = without(holders, "local joined = redis.call('SADD', KEYS[3], ARGV[7])", "local joined = 0")
    links = "if links > 0 and ARGV[9] ~= '*' then"
    in_lua = without(full, links, "if false then")  # the links given are ignored: computed here
    chain = without(full, "heal_chain(KEYS[1], KEYS[5], length)", "")
    chain = without(chain, "before = tip_at(KEYS[5], expected)", "before = ARGV[9]")
    chain = without(chain, links, "if false then")
    chain = without(chain, "push_chain(KEYS[5], before, ARGV, first, #ARGV)", "")
    return {
        "EVALSHA that returns at once": "return {tonumber(ARGV[2]) + 1}",
        "EVALSHA, length check + RPUSH": CHECKED_RPUSH,
        "append script": full,
        "  with the new tip's SHA-1 in Lua": in_lua,
        "  without the request memo": memo,
        "  without the holders": holders,
        "  without the hash chain": chain,
    }


FUNCTIONS = {"FCALL that returns at once": "EVALSHA that returns at once", "FCALL of the append": "append script"}
"""The scripts also measured as Redis Functions: the FCALL row's name -> the EVALSHA row it mirrors."""


def library(texts: dict[str, str]) -> str:
    """A Redis Function library holding the scripts ``FUNCTIONS`` names, each as ``f0``, ``f1``...
    (in that order): the body unchanged, its ``KEYS`` and ``ARGV`` the function's parameters."""
    functions = [
        f"redis.register_function('f{i}', function(KEYS, ARGV)\n{texts[script]}\nend)"
        for i, script in enumerate(FUNCTIONS.values())
    ]
    return "#!lua name=scriptcost\n" + "\n".join(functions)


def cpu_seconds(pid: int) -> float:
    """Time the process has spent on a CPU (ns resolution, unlike /proc/PID/stat's ticks)."""
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


class Rooms:
    """Rooms appended to one event at a time, as the room path does: each call names the length and
    chain tip it expects, and must be stored."""

    def __init__(self, client: redis.Redis, count: int, tag: str) -> None:
        self.client = client
        self.store = RedisStore("redis://unused", prefix=f"cost:{tag}:")  # its key names only
        self.count = count
        self.lengths = [0] * count
        self.tips = [""] * count
        self.seq = 0
        self.event = sample_event()

    def keys(self, room: str) -> list[str]:
        s = self.store
        return [s.log_key(room), s.replies_key(room), s.holders_key(room), s.archive_key(room), s.chain_key(room)]

    def append(self, run: Callable[..., Any], n: int) -> None:
        i = n % self.count
        room, length, tip = f"R{i}", self.lengths[i], self.tips[i]
        self.seq += 1
        ttl = -TTL_MS if length else TTL_MS  # a move leaves the TTL; a new log gets it
        bell = self.store.bell("room", room)
        new = base.chain(tip, [self.event])[-1]  # the caller's work, as in the room path
        args: list[bytes | str | int] = [ttl, length, "ann", self.seq, REPLY, bell, "node", "", tip, 1, new, self.event]
        reply = run(5, *self.keys(room), *args)
        if reply[0] != length + 1:
            raise RuntimeError(f"an append was not stored: {reply!r}")
        self.lengths[i] = length + 1
        self.tips[i] = new

    def rpush(self, n: int) -> None:
        self.client.rpush(self.store.log_key(f"R{n % self.count}"), self.event)


class Callgrind(RedisProcess):
    """A private redis-server run under valgrind's callgrind, counting its instructions between
    ``zero`` and ``dump`` (``callgrind_control``: the process is asked while it runs)."""

    def __init__(self) -> None:
        super().__init__(startup_timeout=60.0)
        self.out = self.dir / "callgrind.out"

    def _argv(self) -> list[str]:
        return ["valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={self.out}", *super()._argv()]

    def _control(self, option: str) -> None:
        subprocess.run(["callgrind_control", option, str(self.pid)], check=True, capture_output=True, timeout=60)

    def zero(self) -> None:
        self._control("-z")

    def dump(self) -> int:
        """The instructions counted since the last ``zero`` (a new dump file's summary)."""
        before = set(self.dir.glob("callgrind.out.*"))
        self._control("-d")
        (made,) = set(self.dir.glob("callgrind.out.*")) - before
        found = re.search(r"^summary: (\d+)$", made.read_text(), re.MULTILINE)
        if found is None:
            raise RuntimeError(f"no summary in {made}")
        return int(found.group(1))


def measure(calls: int, repeats: int, rooms: int, instructions: bool = False) -> dict[str, list[float]]:
    """Microseconds of redis-server CPU per call (or its instructions), per variant, one figure per
    repeat."""
    figures: dict[str, list[float]] = {}
    cpus = os.sched_getaffinity(0)
    with Callgrind() if instructions else RedisProcess() as proc:
        client = redis.Redis.from_url(proc.url)
        try:
            pid = int(client.info("server")["process_id"])
            for who in (pid, 0):  # 0: this process
                os.sched_setaffinity(who, {min(cpus)})
            texts = variants()
            runs: dict[str, Callable[..., Any]] = {
                name: functools.partial(client.evalsha, str(client.script_load(text))) for name, text in texts.items()
            }
            client.function_load(library(texts))
            for i, name in enumerate(FUNCTIONS):
                runs[name] = functools.partial(client.fcall, f"f{i}")
            for repeat in range(repeats):
                names = ["RPUSH", *runs]
                if repeat % 2:  # who goes first swaps, so a slow spell falls on all of them
                    names.reverse()
                for name in names:
                    client.flushall()
                    subject = Rooms(client, rooms, str(repeat))
                    call: Callable[[int], None] = subject.rpush
                    if name != "RPUSH":
                        call = functools.partial(subject.append, runs[name])
                    for n in range(min(calls, 2 * rooms)):  # warm up: every room has a log
                        call(n)
                    if isinstance(proc, Callgrind):
                        proc.zero()
                        for n in range(calls):
                            call(n)
                        figures.setdefault(name, []).append(proc.dump() / calls)
                        continue
                    began = cpu_seconds(pid)
                    for n in range(calls):
                        call(n)
                    figures.setdefault(name, []).append((cpu_seconds(pid) - began) / calls * 1e6)
        finally:
            client.close()
            os.sched_setaffinity(0, cpus)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=10_000, help="calls per variant and repeat")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--instructions", action="store_true", help="count instructions (callgrind), not CPU time")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.repeats < 1 or args.rooms < 1:
        parser.error("--calls, --repeats and --rooms must be at least 1")
    figures = measure(args.calls, args.repeats, args.rooms, args.instructions)
    floor = statistics.median(figures["RPUSH"])
    if args.instructions:
        print(f"redis-server instructions per call (callgrind), {args.calls} calls x {args.repeats} repeats")
        print(f"{'':<32}{'median':>10}{'least':>10}{'/ RPUSH':>9}")
    else:
        print(f"redis-server CPU per call, client on the same CPU, {args.calls} calls x {args.repeats} repeats")
        print(f"{'':<32}{'median us':>10}{'least us':>10}{'/ RPUSH':>9}")
    shown = "{:>10,.0f}" if args.instructions else "{:>10.2f}"
    for name, values in figures.items():
        median = statistics.median(values)
        print(f"{name:<32}{shown.format(median)}{shown.format(min(values))}{median / floor:>8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
