"""``seahaven-client``: race at Seahaven Towers from a terminal, or practise alone.

seahaven-client [ws://host:port] [--name NAME]   (races: the lobby, then rooms; client/app.py)
seahaven-client --server wss://host:8443 [--ca FILE]   (TLS; FILE: a self-signed server's certificate)
seahaven-client --solo [--preset P] [--deal N | --any-deal] [--stats FILE]
seahaven-client --demo                    (the race screen with made-up rivals)
"""

from __future__ import annotations

import argparse
import ssl
import sys
from collections.abc import Sequence
from pathlib import Path

from seahaven import PRESETS

from .net import tls_context

DEFAULT_SERVER = "ws://127.0.0.1:8765"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="seahaven-client",
        description="Race a friend at Seahaven Towers from a terminal, or practise alone with --solo.",
    )
    p.add_argument(
        "server",
        nargs="?",
        default=None,
        help=f"race server address, ws:// or wss:// (default: the last session's, else {DEFAULT_SERVER})",
    )
    p.add_argument("--server", dest="server_option", default=None, metavar="URL", help="the same as SERVER")
    p.add_argument(
        "--ca",
        default=None,
        metavar="FILE",
        help="also trust this certificate (PEM) for wss:// servers: a self-signed one, or a private authority's",
    )
    p.add_argument("--name", default=None, help="your name in races (default: your login name)")
    p.add_argument("--solo", action="store_true", help="offline solo practice, no server needed")
    p.add_argument("--demo", action="store_true", help="show the race screen with made-up rivals (no server)")
    p.add_argument("--preset", default="seahaven", choices=sorted(PRESETS), help="rules for solo play")
    p.add_argument("--deal", type=int, default=None, help="deal number for solo play (default: a random one)")
    p.add_argument(
        "--any-deal",
        action="store_true",
        help="solo: random deals may be unwinnable (default: only deals the solver has won)",
    )
    p.add_argument("--code", default=None, help="a deal code such as SH1-ST-0001K for solo play")
    p.add_argument("--stats", type=Path, default=None, help="solo statistics file (default: under XDG_DATA_HOME)")
    return p


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The arguments, ``server`` from SERVER or ``--server``, and ``tls`` the context ``--ca`` makes."""
    p = parser()
    args = p.parse_args(argv)
    if args.server_option is not None:
        if args.server not in (None, args.server_option):
            p.error("give the server once: SERVER or --server")
        args.server = args.server_option
    try:
        args.tls = tls_context(args.ca)
    except (OSError, ssl.SSLError) as error:
        p.error(f"--ca {args.ca}: not a PEM certificate file: {error}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if args.solo:
        return run_solo(args)
    if args.demo:
        from .demo import RaceDemoApp

        RaceDemoApp().run()
        return 0
    return run_network(args)


def run_solo(args: argparse.Namespace) -> int:
    from seahaven import decode

    from .solo import SoloApp

    preset_name, deal = args.preset, args.deal
    if args.code:
        try:
            preset_name, deal = decode(args.code)
        except ValueError as error:
            print(f"seahaven-client: {error}", file=sys.stderr)
            return 2
    if deal is not None and deal < 1:
        print("seahaven-client: deal numbers start at 1", file=sys.stderr)
        return 2
    SoloApp(preset_name, deal, stats_path=args.stats, any_deal=args.any_deal).run()
    return 0


def run_network(args: argparse.Namespace) -> int:
    """Races: the lobby on ``args.server``."""
    from .app import run  # Textual app modules load only when needed

    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
