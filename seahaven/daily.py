"""The daily deal: one proven-winnable deal per preset per UTC day, the same on every node.

    >>> import datetime
    >>> from seahaven.daily import daily_deal
    >>> daily_deal("seahaven", datetime.date(2026, 1, 1)) == daily_deal("seahaven", datetime.date(2026, 1, 1))
    True

No coordination is needed: the deal is a pure function of the preset name and the date. Candidate
``k`` (k = 0, 1, 2, ...) is the deal number read from SHA-256 of the text
``seahaven-daily/1/<preset>/<YYYY-MM-DD>/<k>``: the first 8 bytes of the digest as a big-endian
integer, modulo 2^40 - 1, plus 1. The daily deal is the first candidate the solver wins within
``DAILY_MAX_STATES`` positions (the solver is deterministic, so every node agrees). See docs/deals.md.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Iterator
from functools import lru_cache
from typing import Final

from .board import Board
from .deals import MAX_DEAL
from .rules import preset as get_preset
from .solver import solve

DAILY_MAX_STATES: Final = 200_000
"""The solver budget per candidate; changing it may change past and future daily deals."""

MAX_CANDIDATES: Final = 20_000
"""Candidates tried before giving up (even the rarest preset is won about once in 200 deals)."""


def today() -> datetime.date:
    """Today's date in UTC, the calendar of the daily deal."""
    return datetime.datetime.now(datetime.UTC).date()


def candidates(preset: str, date: datetime.date) -> Iterator[int]:
    """The deal numbers tried for ``preset`` on ``date``, in order."""
    for k in range(MAX_CANDIDATES):
        digest = hashlib.sha256(f"seahaven-daily/1/{preset}/{date.isoformat()}/{k}".encode()).digest()
        yield int.from_bytes(digest[:8], "big") % MAX_DEAL + 1


@lru_cache(maxsize=64)
def daily_deal(preset: str, date: datetime.date) -> int:
    """The deal number of ``preset``'s daily deal on ``date`` (a UTC calendar day)."""
    name = get_preset(preset).name
    for number in candidates(name, date):
        if solve(Board.deal(name, number), max_states=DAILY_MAX_STATES).solved:
            return number
    raise ValueError(f"no winnable {name} deal among {MAX_CANDIDATES} candidates for {date}")
