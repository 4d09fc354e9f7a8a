"""Where a server's time goes, from a py-spy profile in its ``raw`` (collapsed stacks) format.

Each sample is charged to the innermost frame (self time) and that frame's file decides the part:
our packages, redis-py, websockets, msgpack, the event loop, or the rest of Python. py-spy cannot see
the garbage collector: a collection is charged to whatever allocation set it off.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

PARTS = (
    ("ours: server/", "/server/"),
    ("ours: protocol/", "/protocol/"),
    ("ours: seahaven/", "/seahaven/"),
    ("redis-py", "/redis/"),
    ("websockets", "/websockets/"),
    ("msgpack", "/msgpack/"),
    ("event loop (asyncio, selectors)", "/asyncio/"),
    ("event loop (asyncio, selectors)", "/selectors.py"),
)
_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")


def part_of(path: str) -> str:
    path = "/" + path.lstrip("/")  # py-spy names files from the import root: "server/app.py"
    for name, marker in PARTS:
        if marker in path:
            return name
    return "other Python (stdlib, dataclasses, logging...)"


def read(path: Path) -> tuple[Counter[str], Counter[str], int]:
    """(samples per part, samples per innermost function, total samples) of a raw py-spy file."""
    parts: Counter[str] = Counter()
    functions: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        leaf = stack.rsplit(";", 1)[-1]
        match = _FRAME.match(leaf)
        file = match["file"] if match else leaf
        func = match["func"] if match else leaf
        parts[part_of(file)] += count
        functions[f"{func} ({_short(file)})"] += count
        total += count
    return parts, functions, total


def ours_inclusive(path: Path) -> Counter[str]:
    """Samples whose stack passes through each of our own functions (inclusive time)."""
    inclusive: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        seen = set()
        for frame in stack.split(";"):
            match = _FRAME.match(frame)
            if match and part_of(match["file"]).startswith("ours"):
                seen.add(f"{match['func']} ({_short(match['file'])})")
        for name in seen:
            inclusive[name] += int(count_text)
    return inclusive


def _short(file: str) -> str:
    """A file as its import path (py-spy gives that already, an absolute path for a script)."""
    for marker in ("/site-packages/", "/lib/python3.11/"):
        if marker in file:
            return file.split(marker, 1)[1]
    return file


def summary(path: Path, top: int = 12) -> str:
    parts, functions, total = read(path)
    if total == 0:
        return f"  (no samples in {path})"
    lines = [f"  {total} samples (self time, idle excluded)"]
    lines += [f"  {count / total:6.1%}  {name}" for name, count in parts.most_common()]
    lines.append("  busiest functions (self time):")
    lines += [f"  {count / total:6.1%}  {name}" for name, count in functions.most_common(top)]
    lines.append("  our functions (inclusive time):")
    lines += [f"  {count / total:6.1%}  {name}" for name, count in ours_inclusive(path).most_common(top)]
    return "\n".join(lines)
