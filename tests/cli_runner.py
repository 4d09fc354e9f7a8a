"""The ``seahaven`` command line run in-process: its status, what it wrote out and to errors."""

from __future__ import annotations

import io

from seahaven.cli import main


def run(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()
