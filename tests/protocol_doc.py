"""docs/protocol.md as text, and its numbered sections, for the tests that read the contract."""

from __future__ import annotations

from pathlib import Path

DOC = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text()


def section(number: int) -> str:
    start = DOC.index(f"\n## {number}. ")
    return DOC[start : DOC.index(f"\n## {number + 1}. ", start)]
