"""Deals: golden layouts from published sources, both shuffles, and every preset's layout.

Sources:
- FreeCell #1 and #617: Rosetta Code, "Deal cards for FreeCell" (rows read across the 8 columns).
- FreeCell #11982 (the famous unsolvable deal): the same Microsoft generator, as published in
  many independent implementations' test data (the first row AH AS 4H AC 2D 6S TS JS).
- Seahaven #1: PySolFC deals games 1 to 32000 with Microsoft's generator (pysolrandom: LCRandom31
  for seeds up to 32000); its Seahaven Towers ``startGame`` deals 5 rows into the 10 columns and
  the last two cards into ``reserves[1:3]`` (the middle cells; pysol_cards prints the freecells
  line as "- 2H 6H"). So Seahaven #1 is FreeCell #1's card sequence dealt 10 across, its last two
  cards in cells: we put them in cells a and b, as RULES.md says.
- SplitMix64: Vigna's reference outputs for seed 0.
"""

from __future__ import annotations

import pytest

from seahaven import CARDS, PRESETS, Board, Card, Move
from seahaven.deals import MAX_DEAL, deal_order, lay_out, ms_order, splitmix_order
from seahaven.moves import CELL, COLUMN, FOUNDATION

MICROSOFT = {
    1: [
        "JD 2D 9H JC 5D 7H 7C 5H",
        "KD KC 9S 5S AD QC KH 3H",
        "2S KS 9D QD JS AS AH 3C",
        "4C 5C TS QH 4H AC 4D 7S",
        "3S TD 4S TH 8H 2C JH 7D",
        "6D 8S 8D QS 6C 3D 8C TC",
        "6S 9C 2H 6H",
    ],
    617: [
        "7D AD 5C 3S 5S 8C 2D AH",
        "TD 7S QD AC 6D 8H AS KH",
        "TH QC 3H 9D 6S 8D 3D TC",
        "KD 5H 9S 3C 8S 7H 4D JS",
        "4C QS 9C 9H 7C 6H 2C 2S",
        "4S TS 2H 5D JC 6C JH QH",
        "JD KS KC 4H",
    ],
    11982: [
        "AH AS 4H AC 2D 6S TS JS",
        "3D 3H QS QC 8S 7H AD KS",
        "KD 6H 5S 4D 9H JH 9S 3C",
        "JC 5D 5C 8C 9D TD KH 7C",
        "6C 2C TH QH 6D TC 4S 7S",
        "JD 7D 8H 9C 2H QD 4C 5H",
        "KC 8D 2S 3S",
    ],
}

SEAHAVEN_1_ROWS = [
    "JD 2D 9H JC 5D 7H 7C 5H KD KC",
    "9S 5S AD QC KH 3H 2S KS 9D QD",
    "JS AS AH 3C 4C 5C TS QH 4H AC",
    "4D 7S 3S TD 4S TH 8H 2C JH 7D",
    "6D 8S 8D QS 6C 3D 8C TC 6S 9C",
]
SEAHAVEN_1_CELLS = ["2H", "6H", None, None]


def rows_of(board: Board) -> list[str]:
    """The columns read across, row by row, as the published layouts print them."""
    cols = board.columns
    depth = max(len(c) for c in cols)
    return [" ".join(str(c[r]) for c in cols if r < len(c)) for r in range(depth)]


@pytest.mark.parametrize("number", sorted(MICROSOFT))
@pytest.mark.parametrize("name", ["freecell", "bakers-game"])
def test_microsoft_deals(name: str, number: int) -> None:
    board = Board.deal(name, number)
    assert rows_of(board) == MICROSOFT[number]
    assert [len(c) for c in board.columns] == [7, 7, 7, 7, 6, 6, 6, 6]
    assert board.cells == (None,) * 4 and board.home == (0, 0, 0, 0)


def test_seahaven_1_is_pysolfc_game_1() -> None:
    board = Board.deal("seahaven", 1)
    assert rows_of(board) == SEAHAVEN_1_ROWS
    assert [None if c is None else str(c) for c in board.cells] == SEAHAVEN_1_CELLS
    # the same card sequence as FreeCell #1
    sequence = " ".join(MICROSOFT[1]).split()
    assert [*" ".join(SEAHAVEN_1_ROWS).split(), "2H", "6H"] == sequence


def test_freecell_1_opening_from_the_rules_digest() -> None:
    """Column 6 ends with 3D and 2C over two Aces: 3D to a cell, 2C to a cell, AC home,
    2C home from its cell, AS home."""
    board = Board.deal("freecell", 1)
    assert [str(c) for c in board.columns[5][-4:]] == ["AS", "AC", "2C", "3D"]
    for text in ("6a", "6b", "6#", "b#", "6#"):
        move = Move.parse(text)
        assert board.is_legal(move), (text, board.is_legal(move))
        board.push(move)
    assert board.home == (2, 0, 0, 1)  # clubs A-2, spades A
    assert [str(c) for c in board.cells if c is not None] == ["3D"]
    assert str(board.columns[5][-1]) == "QC"
    board.validate()


def test_seahaven_deals_follow_pysolfc_up_to_32000() -> None:
    """PySolFC uses Microsoft's generator for games 1 to 32000 inclusive, then its own."""
    assert deal_order(PRESETS["seahaven"], 32000) == ms_order(32000)
    assert deal_order(PRESETS["seahaven"], 32001) == splitmix_order(32001)
    # FreeCell keeps Microsoft's numbering through the whole 31-bit range
    assert deal_order(PRESETS["freecell"], 1_000_000) == ms_order(1_000_000)
    assert deal_order(PRESETS["freecell"], 2**31 - 1) == ms_order(2**31 - 1)
    assert deal_order(PRESETS["freecell"], 2**31) == splitmix_order(2**31)


# -- SplitMix64, written here from its published definition -------------------------

MASK = (1 << 64) - 1


def splitmix64(seed: int) -> list[int]:
    out = []
    state = seed
    for _ in range(51):
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        out.append(z ^ (z >> 31))
    return out


def test_splitmix64_reference_outputs() -> None:
    assert splitmix64(0)[:3] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@pytest.mark.parametrize("number", [32001, 99999, 2**31, 123456789012, MAX_DEAL])
def test_splitmix_shuffle_is_the_documented_fisher_yates(number: int) -> None:
    """docs/deals.md: cards 0..51 in order; for i from 51 down to 1, swap i with next() mod (i + 1)."""
    cards = list(range(52))
    outputs = iter(splitmix64(number))
    for i in range(51, 0, -1):
        j = next(outputs) % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    assert splitmix_order(number) == [CARDS[c] for c in cards]


def test_splitmix_golden_order() -> None:
    """Frozen: changing the shuffle would change every deal above the Microsoft range."""
    order = " ".join(str(c) for c in splitmix_order(32001))
    assert order == (
        "6D 9S 5D QS QH 5C 7H 4H 5S 4S AD AS 2H KH 2S 9H 6H QC QD 7S JD AH TC 8S 6C 9C KS 7D 4C AC "
        "JS JC 2D 4D 7C JH KD 2C 8C 3S TH 8D TS 6S 8H 9D 3C 3H 5H TD KC 3D"
    )
    board = Board.deal("seahaven", 32001)
    assert [str(c) for c in board.columns[0]] == ["6D", "AD", "JD", "JS", "TH"]
    assert [str(c) for c in board.cells[:2]] == ["KC", "3D"]


@pytest.mark.parametrize("number", [0, -1, MAX_DEAL + 1])
def test_deal_numbers_out_of_range(number: int) -> None:
    with pytest.raises(ValueError, match="deal numbers run from 1 to"):
        Board.deal("seahaven", number)


def test_microsoft_range() -> None:
    with pytest.raises(ValueError, match="Microsoft deals are numbered"):
        ms_order(0)
    with pytest.raises(ValueError, match="Microsoft deals are numbered"):
        ms_order(2**31)


# -- every preset's layout ---------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
@pytest.mark.parametrize("number", [1, 2, 617, 11982, 31999, 32000, 32001, 10**9, MAX_DEAL])
def test_every_deal_holds_each_card_once(name: str, number: int) -> None:
    board = Board.deal(name, number)
    board.validate()
    assert len(board.columns) == PRESETS[name].columns
    assert len(board.cells) == PRESETS[name].cells


def order_text(name: str, number: int) -> list[str]:
    return [str(c) for c in deal_order(PRESETS[name], number)]


@pytest.mark.parametrize("number", [1, 40000])
def test_seahaven_family_layouts(number: int) -> None:
    for name in ("seahaven", "seahaven-relaxed", "seahaven-unlimited", "seahaven-easy"):
        board = Board.deal(name, number)
        order = order_text(name, number)
        assert [len(c) for c in board.columns] == [5] * 10
        assert [str(c) for c in board.columns[3]] == order[3:50:10]  # dealt round-robin
        assert [str(c) for c in board.cells] == [order[50], order[51], "None", "None"]
    three = Board.deal("seahaven-3cells", number)
    order = order_text("seahaven-3cells", number)
    assert [None if c is None else str(c) for c in three.cells] == [order[50], order[51], None]
    medium = Board.deal("seahaven-medium", number)
    assert [str(c) for c in medium.cells] == order[50:52]
    assert [len(c) for c in medium.columns] == [5] * 10
    hard = Board.deal("seahaven-hard", number)
    assert [str(c) for c in hard.cells] == [order[50]]
    assert [len(c) for c in hard.columns] == [5, 6, 5, 5, 5, 5, 5, 5, 5, 5]
    assert str(hard.columns[1][-1]) == order[51]  # the second extra card goes to column 2


def test_eight_off_layout() -> None:
    """PySolFC's Eight Off: 6 rows of 8, the last four cards into cells 1, 3, 5, 7 (a, c, e, g)."""
    board = Board.deal("eight-off", 1)
    order = order_text("eight-off", 1)
    assert [len(c) for c in board.columns] == [6] * 8
    assert [None if c is None else str(c) for c in board.cells] == [
        order[48],
        None,
        order[49],
        None,
        order[50],
        None,
        order[51],
        None,
    ]
    assert rows_of(board) == MICROSOFT[1][:6]


@pytest.mark.parametrize("number", [1, 2, 617, 40000, 10**12])
def test_penguin_beak(number: int) -> None:
    """The first card dealt is the beak: it sets the foundation base rank and stays at the bottom of
    column 1; its three mates start on their foundations; the other 48 cards follow round-robin."""
    board = Board.deal("penguin", number)
    order = deal_order(PRESETS["penguin"], number)
    beak = order[0]
    assert board.base == beak.rank
    assert board.columns[0][0] is beak
    mates = [c for c in order[1:] if c.rank == beak.rank]
    assert len(mates) == 3
    assert board.home == tuple(1 if s != beak.suit else 0 for s in range(4))
    assert all(board.foundation_top(m.suit) is m for m in mates)
    assert board.foundation_top(beak.suit) is None
    rest = [c for c in order[1:] if c.rank != beak.rank]
    assert [len(c) for c in board.columns] == [7] * 7
    for col in range(7):
        assert list(board.columns[col]) == ([beak, *rest])[col::7]
    assert board.progress == 3
    board.validate()


def test_penguin_beak_from_freecell_1() -> None:
    """Deal #1 starts with JD: Jacks are the base, JC JH JS start home, the tops are Tens."""
    board = Board.deal("penguin", 1)
    assert str(board.columns[0][0]) == "JD"
    assert board.base == 11
    assert [None if c is None else str(c) for c in map(board.foundation_top, range(4))] == ["JC", None, "JH", "JS"]


def test_penguin_plays_from_its_base() -> None:
    """On a Penguin board the foundation after the base goes up and wraps past the King;
    an empty column takes the rank just below the base."""
    rules = PRESETS["penguin"]
    card = Card.parse
    # hand-made position: base Jack; clubs J-Q-K home; AC exposed; a King and a Ten exposed; column 2 empty
    rest = [c for c in CARDS if str(c) not in ("JC", "QC", "KC", "AC", "TD", "KD")]
    columns: list[list[Card]] = [[*rest[0:24], card("AC")], [], [*rest[24:], card("KD")], [card("TD")], [], [], []]
    board = Board(rules, columns, [None] * 7, (3, 0, 0, 0), base=11)
    board.validate()
    assert board.is_legal(Move(COLUMN, 0, FOUNDATION, 0))  # AC follows KC when the base is J
    assert board.is_legal(Move(COLUMN, 3, COLUMN, 1))  # a Ten (base - 1) into an empty column
    verdict = board.is_legal(Move(COLUMN, 2, COLUMN, 1))  # a King does not
    assert not verdict and "empty column" in str(verdict.reason)
    board.push(Move(COLUMN, 0, FOUNDATION, 0))
    assert board.foundation_top(0) == card("AC") and board.home[0] == 4
    assert Move(CELL, 0, COLUMN, 1) not in board.legal_moves()


def test_lay_out_refuses_a_layout_of_the_wrong_size() -> None:
    from dataclasses import replace

    rules = replace(PRESETS["seahaven"], layout=PRESETS["seahaven"].layout[:-1])
    with pytest.raises(ValueError, match="layout places 51 cards, deal has 52"):
        lay_out(rules, ms_order(1))
