"""docs/protocol.md as text, its numbered sections and section 17's byte-exact frames, for the
tests that read the contract."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

DOC = (Path(__file__).resolve().parents[1] / "docs" / "protocol.md").read_text()


def section(number: int) -> str:
    start = DOC.index(f"\n## {number}. ")
    return DOC[start : DOC.index(f"\n## {number + 1}. ", start)]


@dataclass
class Example:
    title: str
    size: int
    data: bytes
    items: bytes
    """The item-by-item breakdown's bytes, concatenated."""


def examples() -> list[Example]:
    found = []
    for title, block in re.findall(r"\n#### (.+?)\n.*?\n```\n(.*?)\n```", section(17), re.S):
        head, _, rest = block.partition("\n\n")
        size, _, hexed = head.partition(" bytes:")
        # Each line: the bytes (two hex digits each, one space apart), then two spaces and a comment.
        columns = [re.split(r"\s{2,}", line.strip())[0] for line in rest.splitlines()]
        items = "".join(c.replace(" ", "") for c in columns if re.fullmatch(r"[0-9a-f]{2}( [0-9a-f]{2})*", c))
        found.append(Example(title, int(size), bytes.fromhex("".join(hexed.split())), bytes.fromhex(items)))
    return found
