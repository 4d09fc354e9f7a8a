"""The Board: legality and its reasons, push/pop, smart moves, autoplay, win and stuck detection."""

from __future__ import annotations

import pytest

from seahaven import CARDS, CELL, COLUMN, FOUNDATION, PRESETS, Board, Card, IllegalMoveError, Move, Verdict


def board_of(
    name: str,
    columns: list[str],
    cells: str = "",
    home: tuple[int, int, int, int] = (0, 0, 0, 0),
) -> Board:
    """A position from a sketch: each column lists its cards deepest first; a column starting
    with ``...`` also takes (beneath its cards) the cards the sketch does not place, spread
    evenly over such columns. Cells: tokens or ``-``. Foundations: cards home per suit (CDHS)."""
    rules = PRESETS[name]
    placed: set[Card] = {Card.of(r, s) for s in range(4) for r in range(1, home[s] + 1)}
    cols: list[list[Card]] = []
    fillers = []
    for i, text in enumerate(columns + [""] * (rules.columns - len(columns))):
        tokens = text.split()
        if tokens[:1] == ["..."]:
            fillers.append(i)
            tokens = tokens[1:]
        cols.append([Card.parse(t) for t in tokens])
        placed.update(cols[-1])
    cell_cards: list[Card | None] = [None if t == "-" else Card.parse(t) for t in cells.split()]
    cell_cards += [None] * (rules.cells - len(cell_cards))
    placed.update(c for c in cell_cards if c is not None)
    rest = [c for c in CARDS if c not in placed]
    for k, card in enumerate(rest):
        cols[fillers[k % len(fillers)]].insert(0, card)
    board = Board(rules, cols, cell_cards, home)
    board.validate()
    return board


def m(text: str) -> Move:
    return Move.parse(text)


# -- legality and its reasons ----------------------------------------------------------


REASONS = [
    ("seahaven", "3#", "8D cannot go home yet: the diamonds foundation needs AD"),
    ("seahaven", "12", "6D cannot go on 8S: columns build down by suit"),
    ("freecell", "12", "6S cannot go on 9C: columns build down in alternating colours"),
    ("seahaven", "ab", "a card does not move from cell to cell"),
    ("seahaven", "c1", "cell c is empty"),
    ("seahaven", "3a", "cell a is occupied"),
    ("seahaven", "3e", "there is no cell e"),
    ("seahaven-hard", "1b", "there is no cell b"),
    ("seahaven-hard", "b1", "there is no cell b"),
    ("seahaven", "#H1", "cards on a foundation stay there in these rules"),
    ("seahaven-easy", "#H1", "the hearts foundation is empty"),
    ("seahaven", "11", "source and destination are the same column"),
    ("freecell", "19", "there is no column 9"),
    ("freecell", "91", "there is no column 9"),
    ("seahaven", "12:6", "column 1 has only 5 card(s)"),
    ("seahaven", "12:2", "the last 2 cards of column 1 are not a run"),
]


@pytest.mark.parametrize(("name", "text", "reason"), REASONS)
def test_reasons_on_deal_1(name: str, text: str, reason: str) -> None:
    board = Board.deal(name, 1)
    verdict = board.is_legal(m(text))
    assert not verdict
    assert verdict.reason == reason
    assert repr(verdict) == f"Verdict({reason!r})"
    assert board.why_illegal(m(text)) == reason  # the server's one-call judgement says the same


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_why_illegal_is_none_for_exactly_the_legal_moves(name: str) -> None:
    board = Board.deal(name, 1)
    legal = set(board.legal_moves())
    every = [
        Move(sa, s, da, d, n)
        for sa in (COLUMN, CELL, FOUNDATION)
        for s in range(10)
        for da in (COLUMN, CELL, FOUNDATION)
        for d in range(10)
        for n in (1, 2)
    ]
    assert legal and any(move not in legal for move in every)
    for move in every:
        assert (board.why_illegal(move) is None) == (move in legal) == bool(board.is_legal(move)), move


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        (Move(COLUMN, 0, COLUMN, 1, 0), "a move carries at least one card"),
        (Move(COLUMN, 0, COLUMN, 1, -3), "a move carries at least one card"),
        (Move(COLUMN, -1, CELL, 2), "there is no column 0"),
        (Move(CELL, -1, COLUMN, 2), "there is no cell -1"),
        (Move(COLUMN, 0, CELL, 2, 2), "only single cards go to a cell or a foundation"),
        (Move(COLUMN, 0, FOUNDATION, 1), "a foundation destination is written with index 0"),
        (Move(COLUMN, 0, FOUNDATION, 0, 2), "only single cards go to a cell or a foundation"),
        (Move(CELL, 0, COLUMN, 2, 2), "a cell holds a single card"),
        (Move(7, 0, COLUMN, 2), "unknown source"),
        (Move(COLUMN, 0, 7, 2), "unknown destination"),
    ],
)
def test_reasons_for_malformed_moves(move: Move, reason: str) -> None:
    board = Board.deal("seahaven", 1)
    verdict = board.is_legal(move)
    assert not verdict and verdict.reason is not None and verdict.reason.startswith(reason)


def test_not_a_move() -> None:
    board = Board.deal("seahaven", 1)
    assert board.is_legal((1, 2, 3)).reason == "not a move"  # type: ignore[arg-type]


def test_king_only_empty_columns() -> None:
    board = board_of("seahaven", ["... 5H", "", "... KS", "... KD QD JD"], cells="- - - -")
    assert board.is_legal(m("32"))
    assert board.is_legal(m("42:3"))
    assert board.is_legal(m("12")).reason == "an empty column takes only a King or a King-led run"
    assert board.is_legal(m("42:2")).reason == "an empty column takes only a King or a King-led run"
    assert board.is_legal(m("42")).reason == "an empty column takes only a King or a King-led run"
    relaxed = board_of("seahaven-relaxed", ["... 5H", "", "... KS", "... KD QD JD"], cells="- - - -")
    assert relaxed.is_legal(m("12")) and relaxed.is_legal(m("42:2")) and relaxed.is_legal(m("42"))


def test_a_run_too_long_names_the_room() -> None:
    # two free cells: three cards may move, not four
    board = board_of("seahaven", ["... 9H 8H 7H 6H", "... TH"], cells="2C 3C - -")
    assert board.capacity() == 3
    verdict = board.is_legal(m("12:4"))
    assert verdict.reason == "a run of 4 cards is too long: 3 can move now"
    assert board.is_legal(m("12:4")) == Verdict("a run of 4 cards is too long: 3 can move now")
    unlimited = board_of("seahaven-unlimited", ["... 9H 8H 7H 6H", "... TH"], cells="2C 3C 4C 5C")
    assert unlimited.is_legal(m("12:4"))


@pytest.mark.parametrize(
    ("name", "room"),
    [
        ("seahaven", 3),  # two free cells
        ("seahaven-relaxed", 3),
        ("seahaven-unlimited", 52),
        ("seahaven-3cells", 2),
        ("seahaven-easy", 3),  # (2 + 1) x 2^0
        ("seahaven-medium", 1),
        ("seahaven-hard", 1),
        ("freecell", 5),
        ("bakers-game", 5),
        ("eight-off", 5),
        ("penguin", 8),
    ],
)
def test_capacity_of_dealt_boards(name: str, room: int) -> None:
    assert Board.deal(name, 1).capacity() == room


# -- push and pop ---------------------------------------------------------------------------


def test_push_pop_restore_the_position() -> None:
    board = Board.deal("seahaven", 1)
    start = board.copy()
    played = []
    for text in ("3c", "08", "3d", "3#", "3#"):
        board.push(m(text))
        played.append(m(text))
    assert board.move_stack == played
    assert board.progress == 2
    while board.move_stack:
        assert board.last_move == played[-1]
        assert board.pop() == played.pop()
    assert board.last_move is None
    assert board == start and board.position() == start.position()
    with pytest.raises(IndexError):
        board.pop()


def test_illegal_push_changes_nothing() -> None:
    board = Board.deal("seahaven", 1)
    board.push(m("3c"))
    before = (board.position(), board.move_stack)
    with pytest.raises(IllegalMoveError) as info:
        board.push(m("3#"))
    assert info.value.reason == "3S cannot go home yet: the spades foundation needs AS"
    assert info.value.reason == board.is_legal(m("3#")).reason
    assert info.value.move == m("3#")
    assert str(info.value) == f"illegal move 3#: {info.value.reason}"
    assert isinstance(info.value, ValueError)
    assert (board.position(), board.move_stack) == before


def test_copy_is_independent() -> None:
    board = Board.deal("freecell", 617)
    board.push(m("1a"))
    twin = board.copy()
    bare = board.copy(stack=False)
    assert twin == board == bare and hash(twin) == hash(board)
    assert twin.move_stack == [m("1a")] and bare.move_stack == []
    twin.push(m("2b"))
    assert twin != board
    assert board.cells[1] is None


def test_equality_depends_on_the_rules() -> None:
    assert Board.deal("seahaven", 1) != Board.deal("seahaven-relaxed", 1)
    assert Board.deal("seahaven", 1) != "a board"


# -- construction and validation ---------------------------------------------------------------


def test_constructor_checks_sizes() -> None:
    rules = PRESETS["seahaven"]
    with pytest.raises(ValueError, match="seahaven has 10 columns, not 9"):
        Board(rules, [[]] * 9, [None] * 4)
    with pytest.raises(ValueError, match="seahaven has 4 cells, not 3"):
        Board(rules, [[]] * 10, [None] * 3)
    with pytest.raises(ValueError, match="foundations hold 0 to 13 cards"):
        Board(rules, [[]] * 10, [None] * 4, (14, 0, 0, 0))
    with pytest.raises(ValueError, match="foundations hold 0 to 13 cards"):
        Board(rules, [[]] * 10, [None] * 4, (0, 0, 0))


def test_validate_names_duplicates_and_missing_cards() -> None:
    rules = PRESETS["seahaven"]
    cards = list(CARDS)
    columns = [cards[i * 5 : i * 5 + 5] for i in range(10)]
    columns[9][0] = Card.parse("AC")  # QD replaced: AC twice, QD missing
    board = Board(rules, columns, [cards[50], cards[51], None, None])
    with pytest.raises(ValueError) as info:
        board.validate()
    text = str(info.value)
    assert "AC appears twice (column 1 and column 10)" in text
    assert "missing cards: QD" in text
    home_dup = Board(
        rules, [cards[i * 5 : i * 5 + 5] for i in range(10)], [cards[50], cards[51], None, None], (1, 0, 0, 0)
    )
    with pytest.raises(ValueError, match="AC appears twice \\(column 1 and the clubs foundation\\)"):
        home_dup.validate()


def test_foundation_tops_and_progress() -> None:
    board = board_of("seahaven", ["... KS"], home=(13, 0, 2, 12))
    assert board.progress == 27
    assert [None if c is None else str(c) for c in map(board.foundation_top, range(4))] == ["KC", None, "2H", "QS"]
    assert board.home == (13, 0, 2, 12)


# -- win and stuck ------------------------------------------------------------------------------


def test_win_detection() -> None:
    board = board_of("seahaven", ["KS"], home=(13, 13, 13, 12))
    assert not board.is_won() and not board.is_stuck()
    assert m("1#") in board.legal_moves()
    board.push(m("1#"))
    assert board.is_won() and board.progress == 52
    assert board.legal_moves() == []
    assert not board.is_stuck()  # won, not stuck


def test_stuck_detection() -> None:
    """Cells full, no empty column, no Ace exposed, no exposed card one below another of its suit."""
    tops = ["KC", "KD", "KH", "KS", "5C", "5D", "5H", "5S", "9C", "9D"]
    board = board_of("seahaven", ["... " + t for t in tops], cells="2C 2D 2H 2S")
    assert board.legal_moves() == []
    assert board.is_stuck() and not board.is_won()
    # free one cell: not stuck any more (a card may go there)
    loose = board_of("seahaven", ["... " + t for t in tops], cells="2C 2D 2H -")
    assert not loose.is_stuck()
    assert all(mv.dst_area == CELL for mv in loose.legal_moves())


# -- foundation take-back ---------------------------------------------------------------


@pytest.mark.parametrize("name", [name for name, rules in PRESETS.items() if not rules.beak])
def test_takeback_only_where_the_rules_allow(name: str) -> None:
    rules = PRESETS[name]
    sketch = ["... 4C", "... 8H", "... KD", "... KH", "... KS", "... QD", "... QH", "... QS", "... JD", "... JH"]
    board = board_of(name, sketch[: rules.columns], home=(3, 0, 0, 0))
    back = m("#C1")
    to_cell = m("#Ca")
    if rules.foundation_takeback:
        assert board.is_legal(back) and board.is_legal(to_cell)
        assert back in board.legal_moves() and to_cell in board.legal_moves()
        assert board.is_legal(m("#C2")).reason is not None  # 3C does not go on 8H
        board.push(back)
        assert str(board.columns[0][-1]) == "3C" and board.home[0] == 2
        board.pop()
        assert board.home[0] == 3
    else:
        assert board.is_legal(back).reason == "cards on a foundation stay there in these rules"
        assert not any(mv.src_area == FOUNDATION for mv in board.legal_moves())


def test_takeback_into_an_empty_column_follows_its_rule() -> None:
    board = board_of("seahaven-easy", ["... 5H", ""], home=(13, 2, 0, 0))
    assert board.is_legal(m("#C2"))  # a King
    assert board.is_legal(m("#D2")).reason == "an empty column takes only a King or a King-led run"


# -- smart moves -------------------------------------------------------------------------------------


def test_smart_move_prefers_a_foundation() -> None:
    board = board_of("seahaven", ["... AC", "... 2C"])
    assert board.is_legal(m("12"))
    assert board.smart_move(COLUMN, 0) == m("1#")


def test_smart_move_prefers_the_longest_accepting_column() -> None:
    board = board_of("freecell", ["... 5H", "6C", "... 6S", "... 9D"])
    assert board.is_legal(m("12")) and board.is_legal(m("13"))
    assert board.smart_move(COLUMN, 0) == m("13")
    # equal lengths: the first such column
    even = board_of("freecell", ["... 5H", "... 6C", "... 6S"])
    assert len(even.columns[1]) == len(even.columns[2])
    assert even.smart_move(COLUMN, 0) == m("12")


def test_smart_move_then_an_empty_column_for_a_king_then_a_cell() -> None:
    board = board_of("seahaven", ["... 5H", "", "... KS"], cells="2C - - -")
    assert board.smart_move(COLUMN, 2) == m("32")  # a King: the empty column, not a cell
    assert board.smart_move(COLUMN, 0) == m("1b")  # no column takes 5H: the first free cell
    full = board_of("seahaven", ["... 5H", "... 9C"], cells="2C 3C 4C 5C")
    assert full.smart_move(COLUMN, 0) is None
    assert full.smart_move(COLUMN, 5) is None  # an empty column: nothing to move


def test_smart_move_any_card_may_take_an_empty_column() -> None:
    board = board_of("freecell", ["... 5H", ""], cells="- - - -")
    assert board.smart_move(COLUMN, 0) == m("12")


def test_smart_move_from_a_cell_and_for_a_run() -> None:
    board = board_of("seahaven", ["... 6H", "... 9S 8S", "... 9C"], cells="5H 7S AD -")
    assert board.smart_move(CELL, 0) == m("a1")
    assert board.smart_move(CELL, 2) == m("c#")
    assert board.smart_move(CELL, 1) == m("b2")
    assert board.smart_move(CELL, 3) is None  # an empty cell
    run = board_of("freecell", ["... 6S 5H", "... 7D", "... KC"])
    assert run.smart_move(COLUMN, 0) == m("12:2")


# -- autoplay ------------------------------------------------------------------------------------------


def test_safe_cards_in_alternating_colours() -> None:
    """Seed 004: Aces and 2s go home by themselves, and any card whose two lower cards of the
    other colour are home."""
    # home: clubs A-2, hearts A-2, spades A
    board = board_of("freecell", ["3H", "AD", "2S", "... KC", "3C"], home=(2, 0, 2, 1))
    playable = {mv for mv in board.legal_moves() if mv.dst_area == FOUNDATION}
    assert playable == {m("1#"), m("2#"), m("3#"), m("5#")}
    assert set(board.safe_home_moves()) == {m("2#"), m("3#")}  # 3H waits for 2S, 3C for two red 2s
    played = board.autoplay()
    assert played == [m("2#"), m("3#"), m("1#")]  # once 2S is home, 3H is safe too
    assert board.home == (2, 1, 3, 2)
    assert str(board.columns[4][-1]) == "3C"  # playable but not safe: 2D is not home
    assert board.move_stack[-3:] == played
    for _ in played:
        board.pop()
    assert board.home == (2, 0, 2, 1)


def test_every_foundation_move_is_safe_by_suit() -> None:
    board = board_of("seahaven", ["... KD", "9C", "3H", "AS"], home=(8, 0, 0, 0))
    assert set(board.safe_home_moves()) == {m("2#"), m("4#")}  # 9C although no red card is home
    assert board.autoplay() == [m("2#"), m("4#")]
    assert board.autoplay() == []


@pytest.mark.parametrize("name", list(PRESETS))
def test_autoplay_only_plays_legal_foundation_moves(name: str) -> None:
    for number in (1, 2, 3, 40000):
        board = Board.deal(name, number)
        for move in board.autoplay():
            assert move.dst_area == FOUNDATION
        board.validate()
        assert not board.safe_home_moves()
