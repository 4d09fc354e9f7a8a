"""The ``seahaven`` command: deal, play, replay and inspect positions in a terminal.

    seahaven deal PRESET N [--format text|board|json]
    seahaven deal PRESET daily [--date YYYY-MM-DD]
    seahaven deal --code CODE [--format ...]
    seahaven solve PRESET N|daily  (or: seahaven solve CODE) [--json] [--max-states S] [--max-seconds T]
    seahaven solvability PRESET --from A --to B [--max-states S] [--checkpoint FILE] [--json]
    seahaven code PRESET N
    seahaven play PRESET N            (or: seahaven play --code CODE)
    seahaven replay FILE [--format ...]
    seahaven moves BOARD_FILE --preset P
    seahaven presets
    seahaven verify RACE.json|URL [--keys URL|FILE] [--json]

Errors go to stderr with exit status 2. See docs/notation.md for the move notation.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .board import Board
from .codes import decode, encode
from .daily import daily_deal, today
from .moves import CELL, CELL_TOKENS, COLUMN, COLUMN_TOKENS, HOME, Move
from .record import GameRecord
from .rules import PRESETS, preset
from .solver import solve
from .survey import DealResult, survey, tally
from .text import parse_board, render, to_board_text
from .verify import passed, verify

FORMATS = ("text", "board", "json")

PLAY_HELP = """\
Moves (docs/notation.md): a source then a destination.
  columns 1-9 and 0 (the tenth), cells a-h, # for home
  3a    column 3 to cell a          a7   cell a to column 7
  3#    column 3 home               #H5  hearts foundation back to column 5 (app rules)
  37:3  a run of 3 cards from column 3 to column 7
A single source (3, a) plays the smart move from there: home, then the longest
column that takes it, then an empty column, then a free cell.
Commands: u undo, auto (send safe cards home), moves (list legal moves),
code (the deal code), ? help, q quit.
"""


class CliError(Exception):
    """A user error: printed to stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so main() owns the exit status and streams."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{self.format_usage()}{self.prog}: error: {message}")


def _parser() -> argparse.ArgumentParser:
    names = ", ".join(PRESETS)
    parser = _Parser(
        prog="seahaven",
        description="Seahaven Towers and its cousins: deal, play, replay and inspect positions.",
        epilog="Presets: " + names + ". Move notation: docs/notation.md; deal numbering: docs/deals.md.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    deal = sub.add_parser("deal", help="print the opening position of a deal", description="Print a deal.")
    deal.add_argument("preset", nargs="?", metavar="PRESET", help=f"one of: {names}")
    deal.add_argument("number", nargs="?", metavar="N", help="deal number (1 to 2^40-1), or daily")
    deal.add_argument("--code", help="a deal code such as SH1-ST-0001G, instead of PRESET N")
    deal.add_argument("--date", type=_date, help="with daily: that UTC day's deal (YYYY-MM-DD; default today)")
    deal.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (for people, the default), board (the solver board format) or json",
    )

    code = sub.add_parser("code", help="print the deal code of a deal", description="Print a deal code.")
    code.add_argument("preset", metavar="PRESET", help=f"one of: {names}")
    code.add_argument("number", metavar="N", help="deal number")

    play = sub.add_parser(
        "play",
        help="play a deal by hand at a prompt",
        description="Play a deal at a plain prompt.\n\n" + PLAY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument("preset", nargs="?", metavar="PRESET", help=f"one of: {names}")
    play.add_argument("number", nargs="?", metavar="N", help="deal number")
    play.add_argument("--code", help="a deal code, instead of PRESET N")

    replay = sub.add_parser(
        "replay",
        help="replay a game record (JSON) and print the final position",
        description="Replay a game record: a JSON object with a deal 'code' and a list of 'moves'.",
    )
    replay.add_argument("file", metavar="FILE", help="the game record, or - for standard input")
    replay.add_argument("--format", choices=FORMATS, default="text", help="how to print the final position")

    moves = sub.add_parser(
        "moves",
        help="list the legal moves of a position",
        description="List the legal moves of a position written in the solver board format.",
    )
    moves.add_argument("board_file", metavar="BOARD_FILE", help="the position, or - for standard input")
    moves.add_argument("--preset", required=True, metavar="P", help=f"the rules: one of {names}")

    solve_ = sub.add_parser(
        "solve",
        help="solve a deal: a winning move list, or a proof that there is none",
        description="Solve a deal. 'unwinnable' is only said after an exhaustive search; a search "
        "that runs out of budget says 'undecided'.",
    )
    solve_.add_argument("preset", metavar="PRESET|CODE", help=f"one of: {names}; or a deal code alone")
    solve_.add_argument("number", nargs="?", metavar="N|CODE", help="deal number, daily, or a deal code")
    solve_.add_argument("--date", type=_date, help="with daily: that UTC day's deal (YYYY-MM-DD)")
    solve_.add_argument("--json", action="store_true", help="print the verdict as JSON")
    solve_.add_argument("--max-states", type=_positive, default=200_000, help="position budget (default 200000)")
    solve_.add_argument("--max-seconds", type=float, help="time budget in seconds (default none)")

    solv = sub.add_parser(
        "solvability",
        help="count winnable, unwinnable and undecided deals over a range",
        description="Solve every deal from A to B and count the verdicts (every win is replayed).",
    )
    solv.add_argument("preset", metavar="PRESET", help=f"one of: {names}")
    solv.add_argument("--from", dest="first", type=_positive, required=True, metavar="A", help="first deal")
    solv.add_argument("--to", dest="last", type=_positive, required=True, metavar="B", help="last deal")
    solv.add_argument("--max-states", type=_positive, default=200_000, help="position budget per deal")
    solv.add_argument("--checkpoint", type=Path, metavar="FILE", help="record each verdict here; resume from it")
    solv.add_argument("--json", action="store_true", help="print the counts as JSON")
    solv.add_argument("--progress", action="store_true", help="a line on stderr every 500 deals")

    sub.add_parser("presets", help="list the rule presets", description="List the rule presets.")

    check = sub.add_parser(
        "verify",
        help="check a signed race record",
        description="Check a signed race record (docs/fairness.md): its signature, the deal's draw, every move "
        "replayed by the engine, times and standings. Exit status 0: every check passed; 1: one failed.",
    )
    check.add_argument("race", metavar="RACE", help="a record's file (RACE.json), or its URL (a replay page's too)")
    check.add_argument("--keys", metavar="URL|FILE", help="also check the record's key against these published keys")
    check.add_argument("--json", action="store_true", help="print the checks as JSON")
    return parser


def _date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date like 2026-11-30") from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command line; returns the exit status (0 fine, 2 usage or input error)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    inp = stdin if stdin is not None else sys.stdin
    parser = _parser()
    try:
        try:
            with contextlib.redirect_stdout(out):  # where argparse prints --help
                args = parser.parse_args(argv)
        except SystemExit as exc:  # after --help
            return int(exc.code or 0)
        if args.command is None:
            out.write(parser.format_help())
            return 0
        command = {
            "deal": _deal,
            "code": _code,
            "play": _play,
            "replay": _replay,
            "moves": _moves,
            "solve": _solve,
            "solvability": _solvability,
            "presets": _presets,
            "verify": _verify,
        }[args.command]
        return command(args, inp, out)
    except CliError as exc:
        err.write(f"{exc}\n")
        return 2
    except (ValueError, OSError) as exc:
        err.write(f"seahaven: error: {exc}\n")
        return 2


# -- commands -----------------------------------------------------------------


def _verify(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    document = _read_json(args.race, _record_url)
    keys = None
    if args.keys is not None:
        listed = _read_json(args.keys, _keys_url)
        if not isinstance(listed, dict) or not isinstance(listed.get("keys"), list):
            raise CliError(f"seahaven verify: error: {args.keys} is not a list of keys (/api/v1/keys)")
        keys = listed["keys"]
    checks = verify(document, keys)
    if args.json:
        json.dump({"passed": passed(checks), "checks": [dataclasses.asdict(c) for c in checks]}, out, indent=2)
        out.write("\n")
    else:
        marks = {True: "ok  ", False: "FAIL", None: "--  "}
        for check in checks:
            out.write(f"{marks[check.ok]} {check.name}: {check.detail}\n")
        record = document.get("record", {}) if isinstance(document, dict) else {}
        verdict = "verified" if passed(checks) else "NOT verified"
        out.write(f"race {record.get('race', '?')}: {verdict}\n")
    return 0 if passed(checks) else 1


def _record_url(url: str) -> str:
    """A race's URL as given (its API record, its replay page or its API race) -> its record's."""
    parts = urllib.parse.urlsplit(url)
    found = re.fullmatch(r"(?:/api/v1)?/races/([^/]+)(?:/record)?/?", parts.path)
    if found is None:
        return url
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, f"/api/v1/races/{found[1]}/record", "", ""))


def _keys_url(url: str) -> str:
    """A server's address -> its published keys (a URL with a path is taken as it is)."""
    parts = urllib.parse.urlsplit(url)
    if parts.path in ("", "/"):
        return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/api/v1/keys", "", ""))
    return url


RETRIES = 3
"""Times a rate-limited read (HTTP 429) is asked again, after the server's Retry-After."""
LONGEST_WAIT = 10.0
"""Seconds the longest Retry-After is waited (a longer one is cut to this)."""


def _read_json(source: str, url_of: Callable[[str], str]) -> Any:
    """JSON from a file or an http(s) URL (a 429 waits its Retry-After, as a polite client does)."""
    try:
        text = _fetch(url_of(source)) if re.match(r"https?://", source) else Path(source).read_text(encoding="utf-8")
        return json.loads(text)
    except urllib.error.HTTPError as exc:
        raise CliError(f"seahaven verify: error: {url_of(source)}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise CliError(f"seahaven verify: error: {source}: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"seahaven verify: error: {source} is not JSON: {exc}") from None


def _fetch(url: str) -> str:
    for attempt in range(RETRIES + 1):
        try:
            with urllib.request.urlopen(url, timeout=30) as reply:
                text: str = reply.read().decode("utf-8")
                return text
        except urllib.error.HTTPError as exc:
            if exc.code != 429 or attempt == RETRIES:
                raise
            wait = exc.headers.get("Retry-After", "1")
            time.sleep(min(LONGEST_WAIT, float(wait) if wait.replace(".", "", 1).isdigit() else 1.0))
    raise AssertionError("unreachable")


def _number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CliError(f"seahaven: error: {text!r} is not a deal number") from None


def _board_from_args(args: argparse.Namespace, command: str) -> tuple[Board, str]:
    """The dealt board and its code, from PRESET N or --code."""
    if args.code is not None:
        if args.preset is not None or args.number is not None:
            raise CliError(f"seahaven {command}: error: give either PRESET N or --code, not both")
        name, number = decode(args.code)
    else:
        if args.preset is None or args.number is None:
            raise CliError(
                f"seahaven {command}: error: give PRESET N (for example: seahaven {command} seahaven 1) or --code CODE"
            )
        name = preset(args.preset).name
        if args.number == "daily":
            number = daily_deal(name, getattr(args, "date", None) or today())
        else:
            number = _number(args.number)
    code = encode(name, number)
    return Board.deal(name, number), code


def _show(board: Board, fmt: str, code: str | None) -> str:
    if fmt == "board":
        return to_board_text(board)
    if fmt == "json":
        return json.dumps(board_json(board, code), indent=1) + "\n"
    head = f"{board.rules.title}" + (f"  {code}" if code else "")
    return f"{head}\n{render(board)}"


def board_json(board: Board, code: str | None = None) -> dict[str, object]:
    """A position as JSON-ready data (cards in the TH style; ``null`` for an empty cell)."""
    data: dict[str, object] = {}
    if code is not None:
        name, number = decode(code)
        data.update(code=code, preset=name, deal=number)
    else:
        data["preset"] = board.rules.name
    data.update(
        columns=[[str(c) for c in col] for col in board.columns],
        cells=[None if c is None else str(c) for c in board.cells],
        foundations={"CDHS"[s]: board.home[s] for s in range(4)},
        base_rank=board.base,
        progress=board.progress,
        board=to_board_text(board),
    )
    return data


def _deal(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    if args.date is not None and args.number != "daily":
        raise CliError("seahaven deal: error: --date goes with daily (seahaven deal PRESET daily --date ...)")
    board, code = _board_from_args(args, "deal")
    if args.number == "daily" and args.format == "text":
        out.write(f"Daily deal for {(args.date or today()).isoformat()} (UTC)\n")
    out.write(_show(board, args.format, code))
    return 0


def _code(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    out.write(encode(preset(args.preset).name, _number(args.number)) + "\n")
    return 0


def _solve(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    first, second = args.preset, args.number
    if second is None:  # a code alone
        code_args = argparse.Namespace(code=first, preset=None, number=None)
    elif "-" in second:  # PRESET CODE: the code must be of that preset
        if decode(second).preset != preset(first).name:
            raise CliError(f"seahaven solve: error: {second} is a {decode(second).preset} deal, not {first}")
        code_args = argparse.Namespace(code=second, preset=None, number=None)
    else:
        code_args = argparse.Namespace(code=None, preset=first, number=second, date=args.date)
    if args.date is not None and second != "daily":
        raise CliError("seahaven solve: error: --date goes with daily")
    if args.max_seconds is not None and not args.max_seconds > 0:
        raise CliError("seahaven solve: error: --max-seconds must be positive")
    board, code = _board_from_args(code_args, "solve")
    started = time.perf_counter()
    solution = solve(board, max_states=args.max_states, max_seconds=args.max_seconds)
    seconds = time.perf_counter() - started
    verdict = {"solved": "winnable", "unsolvable": "unwinnable", "gave-up": "undecided"}[solution.status]
    moves = [str(m) for m in solution.moves]
    if args.json:
        data = {
            "code": code,
            "preset": board.rules.name,
            "deal": decode(code).number,
            "verdict": verdict,
            "moves": moves,
            "states": solution.states,
            "seconds": round(seconds, 3),
            "max_states": args.max_states,
            "max_seconds": args.max_seconds,
        }
        out.write(json.dumps(data, indent=1) + "\n")
        return 0
    head = f"{board.rules.title}  {code}: {verdict}"
    if solution.status == "solved":
        out.write(f"{head} in {len(moves)} moves ({solution.states} positions, {seconds:.2f} s)\n")
        for i in range(0, len(moves), 20):
            out.write(" ".join(moves[i : i + 20]) + "\n")
    elif solution.status == "unsolvable":
        out.write(f"{head}: every one of the {solution.states} reachable positions was searched ({seconds:.2f} s)\n")
    else:
        out.write(f"{head}: no win in {solution.states} positions ({seconds:.2f} s); raise --max-states to go on\n")
    return 0


def _solvability(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    name = preset(args.preset).name
    if args.first > args.last:
        raise CliError("seahaven solvability: error: --from must not be after --to")
    errors = sys.stderr

    def progress(result: DealResult) -> None:
        if args.progress and (result.number - args.first + 1) % 500 == 0:
            errors.write(f"{name}: deal {result.number} done\n")

    started = time.perf_counter()
    results = survey(
        name, args.first, args.last, max_states=args.max_states, checkpoint=args.checkpoint, on_result=progress
    )
    wall = time.perf_counter() - started
    counts = tally(results)
    solve_seconds = sum(r.seconds for r in results)
    total = len(results)
    if args.json:
        data = {
            "preset": name,
            "from": args.first,
            "to": args.last,
            "max_states": args.max_states,
            "winnable": counts["solved"],
            "unwinnable": counts["unsolvable"],
            "undecided": counts["gave-up"],
            "solve_seconds": round(solve_seconds, 1),
        }
        out.write(json.dumps(data) + "\n")
        return 0
    out.write(f"{PRESETS[name].title}: deals {args.first}..{args.last}, {args.max_states} positions per deal at most\n")
    for label, status in (("winnable", "solved"), ("unwinnable", "unsolvable"), ("undecided", "gave-up")):
        count = counts[status]  # type: ignore[index]
        out.write(f"  {label:<11}{count:>7}  {100 * count / total:5.1f}%\n")
    out.write(f"  solving time {solve_seconds:.1f} s (this run {wall:.1f} s)\n")
    return 0


def _presets(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    width = max(len(name) for name in PRESETS)
    for name, rules in PRESETS.items():
        out.write(f"{name:<{width}}  {rules.tag}  {rules.title}\n")
    return 0


def _read(path: str, inp: TextIO) -> str:
    if path == "-":
        return inp.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def _replay(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    record = GameRecord.from_json(_read(args.file, inp))
    board = record.replay()
    out.write(_show(board, args.format, record.code))
    if args.format == "text":
        state = "won" if board.is_won() else "stuck" if board.is_stuck() else "in play"
        out.write(f"{len(record.moves)} moves replayed: {state}, {board.progress}/52 cards home\n")
    return 0


def _moves(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    board = parse_board(_read(args.board_file, inp), args.preset)
    for move in board.legal_moves():
        out.write(f"{move}\n")
    return 0


# -- play ------------------------------------------------------------------------


def _source(token: str) -> tuple[int, int] | None:
    """A single source token (``3``, ``a``) as (area, index), else None."""
    if len(token) == 1 and token in COLUMN_TOKENS:
        return COLUMN, COLUMN_TOKENS.index(token)
    if len(token) == 1 and token in CELL_TOKENS:
        return CELL, CELL_TOKENS.index(token)
    return None


def _play(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    board, code = _board_from_args(args, "play")
    undo_limit = board.rules.undo_limit
    undos_in_a_row = 0
    out.write(f"{board.rules.title}, deal code {code}. Type ? for help, q to quit.\n")
    out.write(render(board))
    while True:
        out.write("move> ")
        out.flush()
        line = inp.readline()
        if not line:
            out.write("\n")
            return 0
        text = line.strip()
        command = text.lower()
        if not text:
            continue
        if command in ("q", "quit", "exit"):
            out.write(f"Bye: {board.progress}/52 cards home after {len(board.move_stack)} moves.\n")
            return 0
        if command in ("?", "h", "help"):
            out.write(PLAY_HELP)
            continue
        if command == "code":
            out.write(code + "\n")
            continue
        if command == "moves":
            out.write(" ".join(str(m) for m in board.legal_moves()) + "\n")
            continue
        played: list[Move] = []
        if command in ("u", "undo"):
            if not board.move_stack:
                out.write("Nothing to undo.\n")
                continue
            if undo_limit is not None and undos_in_a_row >= undo_limit:
                out.write(f"No more undo: these rules allow {undo_limit} in a row.\n")
                continue
            undone = board.pop()
            undos_in_a_row += 1
            out.write(f"Undid {undone}.\n")
        elif command == "auto":
            played = board.autoplay()
            if not played:
                out.write("No card can go home safely.\n")
                continue
        else:
            source = _source(command)
            try:
                if source is not None:
                    move = board.smart_move(*source)
                    if move is None:
                        out.write(f"Nothing can move from {text}.\n")
                        continue
                else:
                    move = Move.parse(_normalise(text))
                board.push(move)
            except ValueError as exc:  # a notation error or an IllegalMoveError
                out.write(f"{exc}\n")
                continue
            played = [move]
        if played:
            undos_in_a_row = 0
            out.write("Played " + " ".join(str(m) for m in played) + ".\n")
        out.write(render(board))
        if board.is_won():
            out.write(f"You won! All 52 cards home in {len(board.move_stack)} moves.\n")
            return 0
        if board.is_stuck():
            out.write(f"No legal move left: {board.progress}/52 cards home. Type u to undo or q to quit.\n")


def _normalise(text: str) -> str:
    """Forgive upper-case cell letters (``3A``) while keeping the suit after ``#``."""
    out = []
    after_home = False
    for ch in text:
        out.append(ch if after_home else ch.lower())
        after_home = ch == HOME
    return "".join(out)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
