"""A drawn room's deals (docs/fairness.md): nobody, the server included, chooses them.

The room's secret (``Settings.secret``, made by the server at creation and never shown) gives each
race its server seed, ``seed_of``; before a race the room shows ``commitment_of`` that seed
(SHA-256) to everyone; each racer's ``ready`` (or rematch vote) may carry a seed of theirs; at the
start the deal is drawn from the published list of proven-winnable deals of the room's preset and
grade by HMAC of the server seed over the racers' seeds in seat order (``seahaven.verify``, which
anyone can run); the result reveals the server seed. Deriving each race's seed from one secret lets
the room commit to a rematch's seed before the votes carry the racers' seeds, without an event
from outside the room; revealing one race's seed reveals nothing of the next.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from seahaven.verify import commitment, draw_candidates, draw_index

SEED_CONTEXT = b"seahaven-race-seed/1"


@dataclass(frozen=True, slots=True)
class Draw:
    """How a race's deal was drawn: the server's seed and the racers' seeds, in hex."""

    seed: str
    seeds: tuple[str, ...]


def seed_of(secret: str, race: int) -> bytes:
    """The server's seed of the room's race number ``race`` (1 for the first)."""
    return hmac.new(bytes.fromhex(secret), SEED_CONTEXT + race.to_bytes(4, "big"), hashlib.sha256).digest()


def commitment_of(secret: str, race: int) -> str:
    return commitment(seed_of(secret, race))


def draw_deal(preset: str, grade: str | None, secret: str, race: int, seeds: tuple[str, ...]) -> tuple[int, Draw]:
    """Race ``race``'s deal, and how it was drawn."""
    seed = seed_of(secret, race)
    candidates = draw_candidates(preset, grade)
    deal = candidates[draw_index(seed, [bytes.fromhex(s) for s in seeds], len(candidates))]
    return deal, Draw(seed.hex(), seeds)
