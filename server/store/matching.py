"""The quick match's queues as the store keeps them: a waiter, the rating window, and the one
pairing rule (``MemoryStore`` runs it here; the Redis store's Lua, scripts.ENQUEUE and
scripts.MATCH_WAITERS, is its twin, and the contract suite holds the two to the same answers).

A queue holds racers waiting for a partner, each with the rating the queue compares and the time
they began to wait. Two waiters may race each other when their ratings are within the window of
the longer waiter: ``base`` points, widened by ``widens`` points a second of that wait, and
anyone at all once that wait reaches ``anyone_after_ms``. The store knows no policy: the shell
hands it the window with every call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["QUEUE_TTL_MS", "Matched", "Waiter", "Window", "best_partner", "pair_up"]

QUEUE_TTL_MS: Final = 120_000
"""A queue lives this long past its last call (its nodes call every half second while anyone waits)."""


@dataclass(frozen=True, slots=True)
class Waiter:
    """A racer waiting in a queue: their ``rating``, when they began to wait (``joined``, server
    ms), the ``node`` their connection is on and the ``room`` they wait in (a partner joins it)."""

    player: str
    rating: int
    joined: int
    node: str
    room: str

    def __post_init__(self) -> None:
        for name, text in (("player", self.player), ("node", self.node), ("room", self.room)):
            if not text or any(ch.isspace() for ch in text):
                raise ValueError(f"a waiter's {name} is a word without spaces, not {text!r}")
        for name, number in (("rating", self.rating), ("joined", self.joined)):
            if isinstance(number, bool) or not isinstance(number, int):
                raise ValueError(f"a waiter's {name} is an int, not {number!r}")

    def entry(self) -> str:
        """The waiter as the Redis queue keeps it (its player is the hash field)."""
        return f"{self.rating} {self.joined} {self.node} {self.room}"

    @classmethod
    def read(cls, player: str, entry: str) -> Waiter:
        rating, joined, node, room = entry.split(" ")
        return cls(player, int(rating), int(joined), node, room)


@dataclass(frozen=True, slots=True)
class Window:
    """Which ratings may race: within ``base + widens * seconds waited`` of each other, and
    anyone once the longer waiter has waited ``anyone_after_ms``."""

    base: int
    widens: int
    """Points a second."""
    anyone_after_ms: int

    def __post_init__(self) -> None:
        if min(self.base, self.widens, self.anyone_after_ms) < 0:
            raise ValueError(f"a window's numbers are >= 0: {self}")

    def width(self, waited_ms: int) -> int:
        """The points a wait of ``waited_ms`` accepts either side (before ``anyone_after_ms``)."""
        return self.base + self.widens * waited_ms // 1000

    def allows(self, a: Waiter, b: Waiter, now: int) -> bool:
        """Whether ``a`` and ``b`` may race, judged by the longer of their waits at ``now``."""
        waited = now - min(a.joined, b.joined)
        # In thousandths of a point: the Lua twin compares the same integers.
        return (
            waited >= self.anyone_after_ms or abs(a.rating - b.rating) * 1000 <= self.base * 1000 + self.widens * waited
        )


@dataclass(frozen=True, slots=True)
class Matched:
    """What one look at a queue did for a node: the ``pairs`` it took out (each its waiter on
    that node, who moves, and the partner whose room they join), the node's waiters the queue
    did not hold (``missing``) and how many waiters are ``left``."""

    pairs: list[tuple[Waiter, Waiter]]
    missing: list[str]
    left: int


def _closeness(waiter: Waiter, other: Waiter) -> tuple[int, int, str]:
    """The order partners are preferred in: nearest rating, then the longest wait, then the id."""
    return (abs(waiter.rating - other.rating), other.joined, other.player)


def best_partner(waiter: Waiter, others: Iterable[Waiter], window: Window, now: int) -> Waiter | None:
    """The waiter among ``others`` that ``waiter`` may race, nearest in rating (None: none)."""
    allowed = [o for o in others if o.player != waiter.player and window.allows(waiter, o, now)]
    return min(allowed, key=lambda o: _closeness(waiter, o), default=None)


def pair_up(waiters: Iterable[Waiter], window: Window, now: int) -> list[tuple[Waiter, Waiter]]:
    """Every pair the queue allows at ``now``: the longest waiter first takes the nearest rating
    it may race, then the next longest of those left, and so on. Each pair is (older, newer)."""
    order = sorted(waiters, key=lambda w: (w.joined, w.player))
    free = {w.player: w for w in order}
    pairs = []
    for waiter in order:
        if waiter.player not in free:
            continue
        del free[waiter.player]
        partner = best_partner(waiter, free.values(), window, now)
        if partner is not None:
            del free[partner.player]
            pairs.append((waiter, partner))
    return pairs
