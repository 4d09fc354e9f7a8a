"""Ratings beside racers' names in the terminal client (docs/ratings.md, "The shown number").

The server tells a player only their own rating (the ``rating`` event, after each rated race), so
the rivals panel and the results show it beside my name: the number, ``?`` while provisional, and
in the room of the rated race that changed it, the change (``1523 +14``; later rooms ``1523``). The
other racers' numbers come from their player pages on the server's records (``RatingBook``), shown
as ``1500?``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from i18n import _
from i18n.rules_help import preset_title
from protocol.messages import RatingNotice
from seahaven import preset


def shown(rating: int, provisional: bool) -> str:
    """The shown number: ``1500``, ``1579?`` (provisional)."""
    return f"{rating}{'?' if provisional else ''}"


def with_change(notice: RatingNotice) -> str:
    """``1523 +14``, ``1486? -9``."""
    return f"{shown(notice.rating, notice.provisional)} {notice.change:+d}"


def beside_my_name(ratings: Mapping[str, RatingNotice], preset: str, race_id: str | None = None) -> str:
    """What goes beside my name in a race of ``preset`` (empty: not rated on it this session): the
    number, with its change only beside the race that made it (``race_id``, the room's race on
    record): the last race's ``-79`` beside my name in the next room said nothing about that one."""
    notice = ratings.get(preset)
    if notice is None:
        return ""
    return (
        with_change(notice)
        if race_id is not None and notice.race_id == race_id
        else shown(notice.rating, notice.provisional)
    )


def rating_line(notice: RatingNotice) -> str:
    """What a ``rating`` says, in a line: ``Your Seahaven Towers rating: 1523? +14``."""
    try:
        rules = preset_title(preset(notice.preset).title)
    except ValueError:  # a preset this client does not know
        rules = notice.preset
    return _("Your {rules} rating: {rating}").format(rules=rules, rating=with_change(notice))


class RatingBook:
    """Other racers' ratings, as their player pages on the server's records list them (asked once
    per player and room; again after a ``rating`` event, when theirs changed too). Bots, ghosts and
    anonymous racers have none: nothing is shown for them."""

    def __init__(self) -> None:
        self.known: dict[str, dict[str, str]] = {}
        """player -> preset -> the shown number."""
        self.asked: set[str] = set()

    def to_ask(self, players: Iterable[str]) -> list[str]:
        """The players not asked for yet (now counted as asked)."""
        new = [p for p in players if p not in self.asked]
        self.asked.update(new)
        return new

    def learn(self, player: str, page: Mapping[str, Any]) -> None:
        """``page``: the read API's player document (its ``ratings``: preset, rating, provisional)."""
        rows = page.get("ratings") or []
        self.known[player] = {
            str(r["preset"]): shown(int(r["rating"]), bool(r.get("provisional")))
            for r in rows
            if isinstance(r, Mapping) and "preset" in r and "rating" in r
        }

    def text(self, player: str, preset: str) -> str:
        return self.known.get(player, {}).get(preset, "")

    def forget(self, players: Iterable[str]) -> None:
        """Ask again for ``players`` (their old numbers stay shown until the new ones come)."""
        self.asked.difference_update(players)
