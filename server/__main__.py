"""``seahaven-server``: run the race server."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import logging
import signal
import socket
import sys
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from pathlib import Path
from urllib.parse import urlsplit

from server.app import RaceServer
from server.config import Config, default_data_dir
from server.config_file import SettingsParser
from server.logs import FORMATS, Logs, configure, log_event
from server.play.analyst import Analyst
from server.play.arena_command import arena_command
from server.play.arena_schedule import Series, load_series
from server.play.dealpool import DealPool, worker_executor
from server.records.accounts import Accounts
from server.records.analyses import Analyses
from server.records.archive import Archive
from server.records.arenas import ArenaArchive
from server.records.challenges import ChallengeRecords
from server.records.database import Database, DatabaseUnavailable, normalise_url, open_database
from server.records.friends import FriendRecords
from server.records.migrate import SchemaMismatch, check, migrate
from server.records.reader import Reader
from server.records.signing import KEY_FILE, SigningKey
from server.runtime import freeze_heap, run, tune_gc
from server.shell.clock import SystemClock
from server.store.stores import check_url, open_store
from server.store.urls import CLUSTER_SCHEMES
from server.workers import release_held, supervise

ANALYSIS = ("idle", "low", "off")
"""How races are analysed: ``Config.analysis``."""


def at_least(low: float, kind: Callable[[str], float] = float) -> Callable[[str], float]:
    """An argparse type: a number no smaller than ``low``."""

    def parse(text: str) -> float:
        value = kind(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, not {text}")
        return value

    return parse


def cidrs(text: str) -> list[str]:
    """An argparse type: comma-separated networks, e.g. ``10.0.0.0/8,127.0.0.1``."""
    found = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        try:
            found.append(str(ipaddress.ip_network(part, strict=False)))
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return found


def redis_url(text: str) -> str:
    """An argparse type: a Redis URL the store can open."""
    try:
        return check_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def database_url(text: str) -> str | None:
    """An argparse type: a database URL the records can open ('' : the default SQLite file)."""
    if not text:
        return None
    try:
        normalise_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_records_args(parser: SettingsParser) -> None:
    env = parser.env
    parser.add_argument(
        "--database",
        type=database_url,
        default=env.get("SEAHAVEN_DATABASE_URL") or None,
        metavar="URL",
        help="keep the records (every race, players, boards) in this database: postgresql://USER@HOST/NAME or "
        "sqlite:///PATH (env SEAHAVEN_DATABASE_URL; default: the SQLite file seahaven.db in the data folder)",
    )
    parser.add_argument(
        "--data-dir",
        default=env.get("SEAHAVEN_DATA_DIR") or default_data_dir(),
        metavar="DIR",
        help="the server's own files (env SEAHAVEN_DATA_DIR; default ~/.local/share/seahaven-server)",
    )
    parser.add_argument(
        "--signing-key",
        default=env.get("SEAHAVEN_SIGNING_KEY") or None,
        metavar="FILE",
        help="the Ed25519 key (PEM) that signs archived races; share it between nodes (env SEAHAVEN_SIGNING_KEY; "
        "default: signing-key.pem in the data folder, made on first start)",
    )


def add_admin_args(parser: SettingsParser) -> None:
    """The admin API and the drain (docs/admin.md)."""
    env = parser.env
    parser.add_argument(
        "--admin-port",
        type=at_least(0, int),
        default=env.get("SEAHAVEN_ADMIN_PORT") or None,
        help="serve the admin API (HTTP, bearer token) on this port (env SEAHAVEN_ADMIN_PORT; default: none)",
    )
    parser.add_argument(
        "--admin-host",
        default=env.get("SEAHAVEN_ADMIN_HOST", "127.0.0.1"),
        help="address the admin API listens on (default 127.0.0.1: never publish it)",
    )
    parser.add_argument(
        "--admin-token",
        default=env.get("SEAHAVEN_ADMIN_TOKEN") or None,
        help="the bearer token of the admin API (env SEAHAVEN_ADMIN_TOKEN, better than the flag: ps shows flags)",
    )
    parser.add_argument(
        "--drain-limit",
        type=at_least(0),
        default=env.get("SEAHAVEN_DRAIN_LIMIT", "600"),
        help="seconds a drain (SIGUSR1, POST /drain) lets live races finish before moving their racers",
    )


def arena_file(text: str) -> list[Series]:
    """An argparse type: the operator's arenas, a TOML file (docs/arenas.md)."""
    try:
        return load_series(Path(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def command_parser(environ: Mapping[str, str] | None = None) -> SettingsParser:
    """The server's flags (each reading its SEAHAVEN_* variable, and a key of ``--config FILE``)."""
    parser = SettingsParser(
        environ=environ,
        prog="seahaven-server",
        description="Seahaven Towers race server (WebSocket). In-memory store unless a Redis URL is given. "
        "`seahaven-server migrate` upgrades the records' database; `seahaven-server arena` schedules arenas.",
    )
    env = parser.env
    parser.add_argument("--host", default=env.get("SEAHAVEN_HOST", "127.0.0.1"), help="address to listen on")
    parser.add_argument(
        "--port", type=at_least(0, int), default=env.get("SEAHAVEN_PORT", "8765"), help="port (0: any free)"
    )
    parser.add_argument(
        "--redis",
        type=redis_url,
        default=env.get("SEAHAVEN_REDIS_URL") or None,
        metavar="URL",
        help="keep live rooms in Redis at URL, e.g. redis://localhost:6379/0, or in a Redis Cluster given by "
        "seed nodes, e.g. redis+cluster://10.0.0.1:7000,10.0.0.2:7000, or the master Redis Sentinel names, "
        "followed through failovers, e.g. redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/seahaven "
        "(env SEAHAVEN_REDIS_URL)",
    )
    parser.add_argument("--prefix", default=env.get("SEAHAVEN_PREFIX", "seahaven:"), help="Redis key prefix")
    parser.add_argument(
        "--durability",
        choices=("local", "replicated"),
        default=env.get("SEAHAVEN_DURABILITY", "local"),
        help="replicated: answer a move once a Redis replica has it too (WAIT 1; one Redis server with "
        "replicas, not a Cluster); docs/durability.md (env SEAHAVEN_DURABILITY)",
    )
    parser.add_argument(
        "--grace",
        type=at_least(0),
        default=env.get("SEAHAVEN_GRACE", "30"),
        help="seconds a dropped racer keeps a seat",
    )
    parser.add_argument(
        "--countdown", type=at_least(0), default=env.get("SEAHAVEN_COUNTDOWN", "3"), help="countdown before a race, s"
    )
    parser.add_argument(
        "--spectator-delay",
        type=at_least(0),
        default=env.get("SEAHAVEN_SPECTATOR_DELAY", "10"),
        help="seconds spectators see moves late (0: live; then a racer could watch rivals from a second session)",
    )
    parser.add_argument("--rate", type=at_least(1), default=env.get("SEAHAVEN_RATE", "30"), help="requests/s")
    parser.add_argument("--burst", type=at_least(1, int), default=env.get("SEAHAVEN_BURST", "60"), help="burst")
    parser.add_argument(
        "--node-name",
        default=env.get("SEAHAVEN_NODE_NAME") or socket.gethostname(),
        help="this node's name in /metrics (default: the host name)",
    )
    parser.add_argument(
        "--trusted-proxy",
        type=cidrs,
        default=env.get("SEAHAVEN_TRUSTED_PROXIES", ""),
        metavar="CIDR,...",
        help="load balancers (networks) whose X-Forwarded-For names the client for the per-address limits",
    )
    parser.add_argument(
        "--hello-timeout",
        type=at_least(0.1),
        default=env.get("SEAHAVEN_HELLO_TIMEOUT", "10"),
        help="seconds a new connection may stay silent before its hello (then closed 4002)",
    )
    parser.add_argument(
        "--connections-per-address",
        type=at_least(1, int),
        default=env.get("SEAHAVEN_CONNECTIONS_PER_ADDRESS", "256"),
        help="open connections one client address may hold (more are closed 1013)",
    )
    parser.add_argument(
        "--sessions-per-address",
        type=at_least(1, int),
        default=env.get("SEAHAVEN_SESSIONS_PER_ADDRESS", "1000"),
        help="new sessions one client address may open an hour",
    )
    parser.add_argument(
        "--rooms-per-connection",
        type=at_least(1, int),
        default=env.get("SEAHAVEN_ROOMS_PER_CONNECTION", "10"),
        help="rooms one connection may create a minute",
    )
    parser.add_argument(
        "--rooms-per-address",
        type=at_least(1, int),
        default=env.get("SEAHAVEN_ROOMS_PER_ADDRESS", "120"),
        help="rooms one client address may create an hour",
    )
    parser.add_argument(
        "--no-uvloop",
        action="store_true",
        default=env.get("SEAHAVEN_UVLOOP", "1") == "0",
        help="run on asyncio's own event loop even when uvloop is installed (env SEAHAVEN_UVLOOP=0)",
    )
    parser.add_argument(
        "--workers",
        type=at_least(1, int),
        default=env.get("SEAHAVEN_WORKERS", "1"),
        help="server processes sharing this port and the Redis store (more than 1 needs --redis)",
    )
    add_records_args(parser)
    parser.add_argument(
        "--no-records",
        action="store_true",
        default=env.get("SEAHAVEN_RECORDS", "1") == "0",
        help="keep no records: races are not archived, no database is opened (env SEAHAVEN_RECORDS=0)",
    )
    parser.add_argument(
        "--analysis",
        choices=ANALYSIS,
        default=env.get("SEAHAVEN_ANALYSIS", "idle"),
        help="analyse each race on record in a worker that runs only on an idle CPU (idle), at nice 10 (low: "
        "keeps up on a busy node), or not (off) (env SEAHAVEN_ANALYSIS)",
    )
    parser.add_argument(
        "--arenas",
        type=arena_file,
        default=env.get("SEAHAVEN_ARENAS") or None,
        metavar="FILE",
        help="the operator's arenas, e.g. an hourly one: a TOML file of [[arena]] tables (docs/arenas.md; "
        "env SEAHAVEN_ARENAS)",
    )
    add_admin_args(parser)
    parser.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # set for each worker
    parser.add_argument("--log-level", default=env.get("SEAHAVEN_LOG_LEVEL", "INFO"), help="DEBUG, INFO, WARNING...")
    parser.add_argument(
        "--log-format",
        choices=FORMATS,
        default=env.get("SEAHAVEN_LOG_FORMAT", "text"),
        help="text lines, or one JSON object a line with each event=... field its own",
    )
    return parser


def parse_args(argv: list[str] | None = None) -> tuple[Config, Logs, int, list[Series]]:
    parser = command_parser()
    args = parser.parse_args(argv)
    if args.log_format not in FORMATS:  # argparse checks the choices of a typed flag, not of a default
        parser.error(f"--log-format: one of {', '.join(FORMATS)}, not {args.log_format!r}")
    if int(args.workers) > 1 and args.redis is None:
        parser.error("--workers above 1 needs --redis: the workers share their rooms through Redis")
    if args.durability == "replicated" and (args.redis is None or urlsplit(args.redis).scheme in CLUSTER_SCHEMES):
        parser.error("--durability replicated needs --redis on one Redis server with a replica (not a Cluster)")
    if args.admin_port is not None and int(args.workers) > 1:
        parser.error("--admin-port serves one process: run each node with --workers 1 to give it an admin API")
    if args.admin_port is not None and not args.admin_token:
        parser.error("--admin-port needs a token: --admin-token or SEAHAVEN_ADMIN_TOKEN")
    config = Config(
        host=args.host,
        port=int(args.port),
        redis_url=args.redis,
        prefix=args.prefix,
        durability=args.durability,
        grace_ms=int(args.grace * 1000),
        countdown_ms=int(args.countdown * 1000),
        spectator_delay_ms=int(args.spectator_delay * 1000),
        rate=args.rate,
        burst=int(args.burst),
        node_name=args.node_name,
        trusted_proxies=tuple(args.trusted_proxy),
        hello_timeout_ms=int(args.hello_timeout * 1000),
        connections_per_address=int(args.connections_per_address),
        sessions_per_address=int(args.sessions_per_address),
        rooms_per_connection=int(args.rooms_per_connection),
        rooms_per_address=int(args.rooms_per_address),
        uvloop=not args.no_uvloop,
        reuse_port=args.reuse_port,
        database_url=args.database,
        data_dir=args.data_dir,
        signing_key=args.signing_key,
        records=not args.no_records,
        analysis=args.analysis,
        admin_host=args.admin_host,
        admin_port=None if args.admin_port is None else int(args.admin_port),
        admin_token=args.admin_token,
        drain_limit=float(args.drain_limit),
    )
    return config, Logs(args.log_level, args.log_format), int(args.workers), args.arenas or []


def migrate_command(argv: list[str]) -> int:
    """``seahaven-server migrate``: upgrade the records' database to this build's schema."""
    parser = SettingsParser(
        strict=False,  # the server's file: its other settings are not the migration's
        prog="seahaven-server migrate",
        description="Upgrade the records' database to the schema this build needs (the server's start "
        "migrates an empty database by itself, and refuses one at an older revision).",
    )
    add_records_args(parser)
    args = parser.parse_args(argv)
    try:
        db = open_database(args.database, Path(args.data_dir))
    except ValueError as exc:
        parser.error(str(exc))
    print(f"records: {db.describe()}", flush=True)

    async def upgrade() -> str:
        try:
            return await migrate(db)
        finally:
            await db.close()

    try:
        revision = asyncio.run(upgrade())
    except DatabaseUnavailable as exc:
        print(f"seahaven-server migrate: {exc}", file=sys.stderr)
        return 1
    print(f"records at revision {revision}")
    return 0


async def serve(config: Config, arenas: list[Series]) -> None:
    # The deal pool and the daily board live in the store, shared by every node of one Redis or
    # Cluster, and go through the server's guarded store like every other store call.
    store = open_store(config.redis_url, config.prefix, 1 if config.durability == "replicated" else 0)
    executor = worker_executor(1)  # its process starts only when a pool needs refilling
    db = await open_records(config) if config.records else None
    clock = SystemClock()
    archive = Archive(db, now=clock.now, key=signing_key(config)) if db is not None else None
    reader = Reader(db, now=clock.now, live=store) if db is not None else None
    # Ghost challenges on the same records; a race not archived yet is read from the store.
    challenges = ChallengeRecords(db, archive, live=store) if db is not None and archive is not None else None
    idle = config.analysis == "idle"

    def analyst_worker() -> Executor:
        return worker_executor(1, nice=10, idle=idle)

    # Each race on record analysed once, in a worker of its own (docs/records.md).
    analyst = None if db is None or config.analysis == "off" else Analyst(Analyses(db, now=clock.now), analyst_worker)

    server = RaceServer(
        config,
        store,
        clock,
        pool=DealPool(store, executor),
        archive=archive,
        records=reader,
        challenges=challenges,
        friends=FriendRecords(db) if db is not None else None,  # friends between registered players
        accounts=Accounts(db) if db is not None else None,  # registered players, on the same records
        arena_archive=ArenaArchive(db, now=clock.now) if db is not None else None,
        arena_series=arenas,
        analyst=analyst,
    )
    # Handlers first: a SIGTERM while starting (a supervisor stopping early) stops gracefully once
    # started, instead of killing the process mid-start.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    # A drain (SIGUSR1, or the admin API) stops the node once its races are done or moved.
    with contextlib.suppress(NotImplementedError):
        loop.add_signal_handler(signal.SIGUSR1, lambda: server.drain.begin("SIGUSR1"))
    release_held()  # a worker's stop or drain that came while it started is handled now
    drained = asyncio.ensure_future(server.drain.done.wait())
    drained.add_done_callback(lambda _: stop.set())
    await server.start()
    log_event("server.loop", loop=type(asyncio.get_running_loop()).__module__)
    freeze_heap()  # start-up and recovered rooms: never walked by a collection again
    # Tests and scripts read this line to learn the port when --port 0 is given.
    print(f"listening on ws://{config.host}:{server.port}", flush=True)
    print(f"records: {db.describe() if db is not None else 'off'}", flush=True)
    if server.admin is not None:
        print(f"admin on http://{config.admin_host}:{server.admin_port}", flush=True)
    await stop.wait()
    drained.cancel()
    await server.stop()
    if db is not None:
        await db.close()
    executor.shutdown(wait=False, cancel_futures=True)  # a refill job under way ends by itself


def signing_key(config: Config) -> SigningKey:
    """The key that signs archived races (docs/fairness.md): ``--signing-key``, else the data
    folder's, made there on first start. One that cannot be read stops the start, saying why."""
    path = Path(config.signing_key) if config.signing_key else Path(config.data_dir) / KEY_FILE
    try:
        key = SigningKey.read(path) if config.signing_key else SigningKey.load_or_create(path)
    except (OSError, ValueError, TypeError) as exc:
        raise SystemExit(f"seahaven-server: signing key {path}: {exc}") from None
    log_event("records.signing_key", file=str(path), key=key.key_id)
    return key


async def open_records(config: Config) -> Database:
    """The records' database, its schema checked (an empty one is migrated). One that does not
    answer yet does not stop the start: racing never waits on it, finished races wait in the
    store until it answers. One at another schema revision does (SystemExit, saying what to do)."""
    db = open_database(config.database_url, Path(config.data_dir))
    try:
        revision = await check(db)
    except DatabaseUnavailable as exc:
        log_event("records.unavailable", database=db.describe(), error=str(exc))
        return db
    except SchemaMismatch as exc:
        await db.close()
        raise SystemExit(f"seahaven-server: records in {db.describe()}: {exc}") from None
    log_event("records.ready", database=db.describe(), revision=revision)
    return db


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["migrate"]:
        logging.basicConfig(level="WARNING")
        raise SystemExit(migrate_command(args[1:]))
    if args[:1] == ["arena"]:
        logging.basicConfig(level="WARNING")
        raise SystemExit(arena_command(args[1:]))
    config, logs, workers, arenas = parse_args(argv)
    configure(logs)
    if workers > 1:
        args = sys.argv[1:] if argv is None else argv
        raise SystemExit(supervise(args, workers, config.host, config.port, config.node_name))
    tune_gc()
    run(serve(config, arenas), uvloop=config.uvloop)


if __name__ == "__main__":
    main()
