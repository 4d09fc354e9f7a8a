"""``seahaven-client``: race at Seahaven Towers from a terminal, or practise alone.

seahaven-client [ws://host:port] [--name NAME]   (races: the lobby, then rooms; client/apps/app.py)
seahaven-client --server wss://host:8443 [--ca FILE]   (TLS; FILE: a self-signed server's certificate)
seahaven-client --solo [--preset P] [--deal N | --any-deal] [--stats FILE]
seahaven-client --demo                    (the race screen with made-up rivals)

The language: ``--lang fr`` (en, fr, it, nl), else LANGUAGE, LC_ALL, LC_MESSAGES or LANG
(i18n/languages.py: read as text, so the system's locale need not be installed).
"""

from __future__ import annotations

import argparse
import ssl
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from i18n import _, use_from_environment
from seahaven import PRESETS

from .net.connection import tls_context

DEFAULT_SERVER = "ws://127.0.0.1:8765"


def language_option(argv: Sequence[str] | None) -> str | None:
    """``--lang`` read before the rest: the other options' help is written in that language."""
    early = argparse.ArgumentParser(add_help=False)
    early.add_argument("--lang", default=None)
    known, _rest = early.parse_known_args(argv)
    return cast(str | None, known.lang)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="seahaven-client",
        description=_("Race a friend at Seahaven Towers from a terminal, or practise alone with --solo."),
    )
    p.add_argument(
        "--lang",
        default=None,
        metavar="LANG",
        help=_("the language: en, fr, it or nl (default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)"),
    )
    p.add_argument(
        "server",
        nargs="?",
        default=None,
        help=_("race server address, ws:// or wss:// (default: the last session's, else {url})").format(
            url=DEFAULT_SERVER
        ),
    )
    p.add_argument("--server", dest="server_option", default=None, metavar="URL", help=_("the same as SERVER"))
    p.add_argument(
        "--ca",
        default=None,
        metavar="FILE",
        help=_("also trust this certificate (PEM) for wss:// servers: a self-signed one, or a private authority's"),
    )
    p.add_argument("--name", default=None, help=_("your name in races (default: your login name)"))
    p.add_argument("--solo", action="store_true", help=_("offline solo practice, no server needed"))
    p.add_argument("--demo", action="store_true", help=_("show the race screen with made-up rivals (no server)"))
    p.add_argument("--preset", default="seahaven", choices=sorted(PRESETS), help=_("rules for solo play"))
    p.add_argument("--deal", type=int, default=None, help=_("deal number for solo play (default: a random one)"))
    p.add_argument(
        "--any-deal",
        action="store_true",
        help=_("solo: random deals may be unwinnable (default: only deals the solver has won)"),
    )
    p.add_argument("--code", default=None, help=_("a deal code such as SH1-ST-0001K for solo play"))
    p.add_argument("--stats", type=Path, default=None, help=_("solo statistics file (default: under XDG_DATA_HOME)"))
    return p


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The arguments, ``server`` from SERVER or ``--server``, and ``tls`` the context ``--ca`` makes.
    The language is chosen first (``--lang``, else the environment), so everything after speaks it."""
    try:
        use_from_environment(language_option(argv))
    except ValueError as error:
        parser().error(str(error))
    p = parser()
    args = p.parse_args(argv)
    if args.server_option is not None:
        if args.server not in (None, args.server_option):
            p.error(_("give the server once: SERVER or --server"))
        args.server = args.server_option
    try:
        args.tls = tls_context(args.ca)
    except (OSError, ssl.SSLError) as error:
        p.error(_("--ca {file}: not a PEM certificate file: {error}").format(file=args.ca, error=error))
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)
    if args.solo:
        return run_solo(args)
    if args.demo:
        from .apps.demo import RaceDemoApp

        RaceDemoApp().run()
        return 0
    return run_network(args)


def run_solo(args: argparse.Namespace) -> int:
    from seahaven import decode

    from .apps.solo import SoloApp

    preset_name, deal = args.preset, args.deal
    if args.code:
        try:
            preset_name, deal = decode(args.code)
        except ValueError as error:
            print(f"seahaven-client: {error}", file=sys.stderr)
            return 2
    if deal is not None and deal < 1:
        print("seahaven-client: " + _("deal numbers start at 1"), file=sys.stderr)
        return 2
    SoloApp(preset_name, deal, stats_path=args.stats, any_deal=args.any_deal).run()
    return 0


def run_network(args: argparse.Namespace) -> int:
    """Races: the lobby on ``args.server``."""
    from .apps.app import run  # Textual app modules load only when needed

    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
