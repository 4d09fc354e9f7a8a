"""Deal numbers to card orders. Both shuffles are specified in docs/deals.md.

Numbers below a preset's ``ms_deal_limit`` use Microsoft's FreeCell generator, so
FreeCell #N is Windows FreeCell's #N and Seahaven #N is PySolFC's game #N. Larger
numbers use a SplitMix64-driven Fisher-Yates shuffle. Python's ``random`` is never
used: a client in any language must be able to regenerate a deal.
"""

from __future__ import annotations

from typing import Final

from .cards import CARDS, Card
from .rules import Place, Rules

MAX_DEAL: Final = 2**40 - 1
"""The largest deal number (eight base-32 digits in a deal code)."""

_MASK64: Final = (1 << 64) - 1


def ms_order(number: int) -> list[Card]:
    """The 52 cards in the order Microsoft's FreeCell deals them for deal ``number``."""
    if not 1 <= number < 2**31:
        raise ValueError(f"Microsoft deals are numbered 1 to {2**31 - 1}, not {number}")
    state = number
    cards = list(range(51, -1, -1))
    for i in range(52):
        state = (state * 214013 + 2531011) & 0x7FFFFFFF
        j = 51 - (state >> 16) % (52 - i)
        cards[i], cards[j] = cards[j], cards[i]
    return [CARDS[c] for c in cards]


def splitmix_order(number: int) -> list[Card]:
    """The 52 cards shuffled by Fisher-Yates over SplitMix64 seeded with ``number``."""
    state = number & _MASK64
    cards = list(range(52))
    for i in range(51, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        z ^= z >> 31
        j = z % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return [CARDS[c] for c in cards]


def deal_order(rules: Rules, number: int) -> list[Card]:
    """The cards of deal ``number`` under ``rules``, in the order they are dealt."""
    if not 1 <= number <= MAX_DEAL:
        raise ValueError(f"deal numbers run from 1 to {MAX_DEAL}, not {number}")
    if number < rules.ms_deal_limit:
        return ms_order(number)
    return splitmix_order(number)


Layout = tuple[list[list[Card]], list[Card | None], list[int], int]
"""Columns (deepest card first), cells, cards home per suit, foundation base rank."""


def lay_out(rules: Rules, order: list[Card]) -> Layout:
    """Place the cards of ``order`` as ``rules.layout`` says."""
    columns: list[list[Card]] = [[] for _ in range(rules.columns)]
    cells: list[Card | None] = [None] * rules.cells
    home = [0, 0, 0, 0]
    base = 1
    rest = order
    if rules.beak:
        # Penguin: the first card is the beak; its three mates start on the foundations.
        base = order[0].rank
        rest = [order[0]] + [c for c in order[1:] if c.rank != base]
        for card in order:
            if card.rank == base and card is not order[0]:
                home[card.suit] = 1
    if len(rest) != len(rules.layout):
        raise ValueError(f"{rules.name}: layout places {len(rules.layout)} cards, deal has {len(rest)}")
    for card, (place, index) in zip(rest, rules.layout, strict=False):
        if place is Place.COLUMN:
            columns[index].append(card)
        else:
            cells[index] = card
    return columns, cells, home, base
