"""Ratings beside racers' names in the terminal client (docs/ratings.md, "The shown number").

The server tells a player only their own rating (the ``rating`` event, after each rated race), so
the rivals panel and the results show it beside my name: the number, ``?`` while provisional, and
the last rated race's change (``1523 +14``). Nothing for the others (their numbers are on their
pages in the records: F4 and the leaderboards).
"""

from __future__ import annotations

from collections.abc import Mapping

from protocol.messages import RatingNotice


def shown(rating: int, provisional: bool) -> str:
    """The shown number: ``1500``, ``1579?`` (provisional)."""
    return f"{rating}{'?' if provisional else ''}"


def with_change(notice: RatingNotice) -> str:
    """``1523 +14``, ``1486? -9``."""
    return f"{shown(notice.rating, notice.provisional)} {notice.change:+d}"


def beside_my_name(ratings: Mapping[str, RatingNotice], preset: str) -> str:
    """What goes beside my name in a race of ``preset`` (empty: not rated on it this session)."""
    notice = ratings.get(preset)
    return with_change(notice) if notice is not None else ""
