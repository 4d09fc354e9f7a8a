"""The ``seahaven`` command: deal, play, replay and inspect positions in a terminal.

    seahaven deal PRESET N [--format text|board|json]
    seahaven deal --code CODE [--format ...]
    seahaven code PRESET N
    seahaven play PRESET N            (or: seahaven play --code CODE)
    seahaven replay FILE [--format ...]
    seahaven moves BOARD_FILE --preset P
    seahaven presets

Errors go to stderr with exit status 2. See docs/notation.md for the move notation.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Sequence
from typing import NoReturn, TextIO

from .board import Board
from .codes import decode, encode
from .moves import CELL, CELL_TOKENS, COLUMN, COLUMN_TOKENS, HOME, Move
from .record import GameRecord
from .rules import PRESETS, preset
from .text import parse_board, render, to_board_text

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
    deal.add_argument("number", nargs="?", metavar="N", help="deal number (1 to 2^40-1)")
    deal.add_argument("--code", help="a deal code such as SH1-ST-0001G, instead of PRESET N")
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

    sub.add_parser("presets", help="list the rule presets", description="List the rule presets.")
    return parser


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
            "presets": _presets,
        }[args.command]
        return command(args, inp, out)
    except CliError as exc:
        err.write(f"{exc}\n")
        return 2
    except (ValueError, OSError) as exc:
        err.write(f"seahaven: error: {exc}\n")
        return 2


# -- commands -----------------------------------------------------------------


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
        name, number = preset(args.preset).name, _number(args.number)
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
    board, code = _board_from_args(args, "deal")
    out.write(_show(board, args.format, code))
    return 0


def _code(args: argparse.Namespace, inp: TextIO, out: TextIO) -> int:
    out.write(encode(preset(args.preset).name, _number(args.number)) + "\n")
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
