"""Cards: the 52 values, their numbering, parsing and printing."""

from __future__ import annotations

import pytest

from seahaven import CARDS, Card
from seahaven.cards import CLUBS, DIAMONDS, HEARTS, SPADES


def test_numbering_is_microsofts() -> None:
    """(rank - 1) * 4 + suit, suits clubs, diamonds, hearts, spades: AC=0, AD=1, ..., KS=51."""
    assert [str(c) for c in CARDS[:5]] == ["AC", "AD", "AH", "AS", "2C"]
    assert str(CARDS[51]) == "KS"
    assert Card.parse("TH") == 9 * 4 + HEARTS == 38
    for card in CARDS:
        assert card == (card.rank - 1) * 4 + card.suit
        assert Card.of(card.rank, card.suit) is card


def test_every_card_round_trips_through_text() -> None:
    texts = {str(c) for c in CARDS}
    assert len(texts) == 52
    for card in CARDS:
        assert Card.parse(str(card)) is card
        assert eval(repr(card), {"Card": Card}) is card


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("TH", 10, HEARTS),
        ("10h", 10, HEARTS),
        ("10H", 10, HEARTS),
        ("As", 1, SPADES),
        ("as", 1, SPADES),
        (" kd ", 13, DIAMONDS),
        ("K♠", 13, SPADES),
        ("7♣", 7, CLUBS),
        ("Q♥", 12, HEARTS),
        ("2♦", 2, DIAMONDS),
    ],
)
def test_parse_forms(text: str, rank: int, suit: int) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit)


@pytest.mark.parametrize("text", ["", "T", "1H", "11H", "ZH", "TX", "THH", "H10", "10", "♠K", "0S"])
def test_parse_refuses_non_cards_naming_the_token(text: str) -> None:
    with pytest.raises(ValueError, match="is not a card") as info:
        Card.parse(text)
    assert repr(text.strip()) in str(info.value)


def test_properties() -> None:
    card = Card.parse("10H")
    assert card.rank == 10 and card.suit == HEARTS and card.is_red
    assert card.symbol == "10♥"
    assert str(card) == "TH"
    assert not Card.parse("QC").is_red and not Card.parse("QS").is_red
    assert Card.parse("QD").is_red
    assert Card.parse("AS").symbol == "A♠"
    assert sum(c.is_red for c in CARDS) == 26


@pytest.mark.parametrize(("rank", "suit"), [(0, 0), (14, 0), (1, -1), (1, 4)])
def test_of_refuses_out_of_range(rank: int, suit: int) -> None:
    with pytest.raises(ValueError, match=f"no card of rank {rank} and suit {suit}"):
        Card.of(rank, suit)
