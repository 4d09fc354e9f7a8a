"""``seahaven-server arena``: the operator's arenas in the store (docs/arenas.md).

``arena schedule`` puts one arena in the store (the first of a series with ``--every``); the node
holding the pairing lease starts it at its time and, while an arena of a series runs, opens the
next one. ``arena list`` shows the arenas the store lists (waiting, running, finished but not yet
in the database). Both talk to the Redis the servers share (a server's in-memory store is its own).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import secrets
import sys

from seahaven.rules import PRESETS
from seahaven.winnable import GRADES
from server.play.arena_rules import ArenaMeta
from server.play.arena_schedule import keep_arena, make_series, parse_every, parse_time
from server.store.base import StoreError
from server.store.stores import check_url, open_store

__all__ = ["arena_command"]


def arena_command(argv: list[str], now_ms: int | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="seahaven-server arena", description="The operator's arenas, in the Redis the servers share."
    )
    env = os.environ
    parser.add_argument(
        "--redis",
        default=env.get("SEAHAVEN_REDIS_URL") or None,
        metavar="URL",
        help="the servers' Redis (env SEAHAVEN_REDIS_URL)",
    )
    parser.add_argument("--prefix", default=env.get("SEAHAVEN_PREFIX", "seahaven:"), help="Redis key prefix")
    commands = parser.add_subparsers(dest="command", required=True)
    schedule = commands.add_parser("schedule", help="put an arena (or a series of them) in the store")
    schedule.add_argument("--preset", required=True, choices=PRESETS)
    schedule.add_argument("--grade", choices=GRADES, default=None, help="deals of this grade only")
    schedule.add_argument("--minutes", type=int, default=30, help="how long it lasts (5 to 180; default 30)")
    schedule.add_argument("--at", required=True, help="when it starts, e.g. 2026-12-02T12:00Z (UTC if no zone)")
    schedule.add_argument("--every", default=None, help="repeat it, e.g. 1h, 30m, 1d (default: once)")
    schedule.add_argument("--name", default="", help="its name in the lists")
    commands.add_parser("list", help="the arenas the store lists")
    args = parser.parse_args(argv)
    if args.redis is None:
        parser.error("--redis is needed (or SEAHAVEN_REDIS_URL): the arenas live in the servers' Redis")
    try:
        url = check_url(args.redis)
    except ValueError as exc:
        parser.error(str(exc))
    now = now_ms if now_ms is not None else int(datetime.datetime.now(datetime.UTC).timestamp() * 1000)
    if args.command == "schedule":
        try:
            every = parse_every(args.every) if args.every else 0
            series = make_series(
                secrets.token_hex(8), args.name, args.preset, args.grade, args.minutes, parse_time(args.at), every
            )
        except ValueError as exc:
            parser.error(str(exc))
        start = series.start_due(now)
        if start is None:
            parser.error(f"an arena at {args.at} lasting {args.minutes} minutes is over already")
        meta = series.meta(start)
        return asyncio.run(_schedule(url, args.prefix, meta, now))
    return asyncio.run(_list(url, args.prefix, now))


async def _schedule(url: str, prefix: str, meta: ArenaMeta, now: int) -> int:
    store = open_store(url, prefix)
    try:
        if not await keep_arena(store, meta, now):
            print(f"seahaven-server arena: the code {meta.code} is taken: run it again", file=sys.stderr)
            return 1
    except StoreError as exc:
        print(f"seahaven-server arena: {exc}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    print(f"arena {meta.code} at {_when(meta.starts_at)} ({_length(meta)}){_repeats(meta)}: /a/{meta.code}")
    return 0


async def _list(url: str, prefix: str, now: int) -> int:
    store = open_store(url, prefix)
    try:
        found = []
        for code in await store.arena_codes():
            raw, entries = await store.arena(code)
            if raw is not None:
                found.append((ArenaMeta.load(raw), len(entries)))
    except StoreError as exc:
        print(f"seahaven-server arena: {exc}", file=sys.stderr)
        return 1
    finally:
        await store.close()
    if not found:
        print("no arenas")
    for meta, players in sorted(found, key=lambda f: (f[0].starts_at, f[0].code)):
        grade = f" {meta.deal_grade}" if meta.deal_grade else ""
        name = f" {meta.name!r}" if meta.name else ""
        print(
            f"{meta.code} {meta.phase(now):8} {_when(meta.starts_at)} {_length(meta)} {meta.preset}{grade}"
            f" players={players} by={meta.by}{name}{_repeats(meta)}"
        )
    return 0


def _when(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%MZ")


def _length(meta: ArenaMeta) -> str:
    return f"{(meta.ends_at - meta.starts_at) // 60_000}m"


def _repeats(meta: ArenaMeta) -> str:
    return f" every {meta.every // 60_000}m" if meta.every else ""
