"""docs/protocol.md (the guide) and docs/protocol-examples.md (its tested frames) as text, their
numbered sections and the byte-exact frames of both, for the tests that read the contract."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_DOCS = Path(__file__).resolve().parents[1] / "docs"
DOC = (_DOCS / "protocol.md").read_text()
EXAMPLES_DOC = (_DOCS / "protocol-examples.md").read_text()
"""The companion: the byte-exact frames (section 1), the complete session (2), the error frames (3)."""


def section(number: int, doc: str = DOC) -> str:
    """Section ``number`` of ``doc``, up to the next numbered section (or the end)."""
    start = doc.index(f"\n## {number}. ")
    following = re.search(r"\n## \d+\. ", doc[start + 1 :])
    return doc[start : start + 1 + following.start()] if following else doc[start:]


@dataclass
class Example:
    title: str
    size: int
    data: bytes
    items: bytes
    """The item-by-item breakdown's bytes, concatenated."""


def examples() -> list[Example]:
    """Every byte-exact frame: the guide's few (its section 17), then the companion's (its section 1)."""
    found = []
    for text in (section(17), section(1, EXAMPLES_DOC)):
        for title, block in re.findall(r"\n#### (.+?)\n.*?\n```\n(.*?)\n```", text, re.S):
            head, _, rest = block.partition("\n\n")
            size, _, hexed = head.partition(" bytes:")
            # Each line: the bytes (two hex digits each, one space apart), then two spaces and a comment.
            columns = [re.split(r"\s{2,}", line.strip())[0] for line in rest.splitlines()]
            items = "".join(c.replace(" ", "") for c in columns if re.fullmatch(r"[0-9a-f]{2}( [0-9a-f]{2})*", c))
            found.append(Example(title, int(size), bytes.fromhex("".join(hexed.split())), bytes.fromhex(items)))
    return found
