"""Cards and suits: 52 immutable values that are also small integers.

A card's integer is ``(rank - 1) * 4 + suit`` with suits in the order clubs,
diamonds, hearts, spades: the numbering Microsoft's FreeCell deal generator uses,
so a shuffle of ``range(52)`` is directly a shuffle of cards.
"""

from __future__ import annotations

from typing import Final

SUITS: Final = "CDHS"
SUIT_SYMBOLS: Final = "♣♦♥♠"
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")
RANKS: Final = "A23456789TJQK"
RANK_NAMES: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


class Card(int):
    """One playing card. ``Card.parse("TH")`` is the ten of hearts; ``str()`` gives it back."""

    __slots__ = ()

    @property
    def rank(self) -> int:
        """1 (Ace) to 13 (King)."""
        return (int(self) >> 2) + 1

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
        return int(self) & 3

    @property
    def is_red(self) -> bool:
        return (int(self) & 3) in (DIAMONDS, HEARTS)

    @property
    def symbol(self) -> str:
        """Rank and suit symbol for people, e.g. ``10♥``."""
        return RANK_NAMES[self.rank - 1] + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @staticmethod
    def of(rank: int, suit: int) -> Card:
        """The card of this rank (1-13) and suit (0-3)."""
        if not 1 <= rank <= 13 or not 0 <= suit <= 3:
            raise ValueError(f"no card of rank {rank} and suit {suit}")
        return CARDS[(rank - 1) * 4 + suit]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse ``TH``, ``10h``, ``As``, ``K♠``; raise ValueError naming the bad token."""
        token = text.strip()
        upper = token.upper()
        if len(upper) == 3 and upper.startswith("10"):
            upper = "T" + upper[2]
        if len(upper) == 2:
            rank_ch, suit_ch = upper[0], upper[1]
            suit = SUITS.find(suit_ch)
            if suit < 0:
                suit = SUIT_SYMBOLS.find(suit_ch)
            rank = RANKS.find(rank_ch)
            if rank >= 0 and suit >= 0:
                return CARDS[rank * 4 + suit]
        raise ValueError(f"{token!r} is not a card (write rank then suit, like TH or 7s)")


CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(52))
"""All 52 cards, indexed by their integer."""
