"""The engine's words in the player's language: places, suits, plurals and the reasons a move is refused.

The engine (``seahaven``) and the server speak English, which other clients may show as they are;
this client translates them. A refusal's reason is matched against the engine's sentences
(``seahaven/board.py``, ``Board.why_illegal``) and said again from the catalog with the same
cards and numbers; a sentence we do not know is shown as it came.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from i18n import N_, _, current, ngettext
from seahaven import CELL, COLUMN, encode
from seahaven.moves import CELL_TOKENS

FOUNDATION_NAMES: Final = (
    N_("the clubs foundation"),
    N_("the diamonds foundation"),
    N_("the hearts foundation"),
    N_("the spades foundation"),
)
"""Indexed like seahaven.cards.SUIT_NAMES."""
SUITS_BY_NAME: Final = {"clubs": 0, "diamonds": 1, "hearts": 2, "spades": 3}


def place_name(area: int, index: int) -> str:
    """``column 3``, ``cell b``, ``the foundations`` in the language in use."""
    if area == COLUMN:
        return _("column {number}").format(number=index + 1)
    if area == CELL:
        token = CELL_TOKENS[index] if 0 <= index < len(CELL_TOKENS) else str(index)
        return _("cell {letter}").format(letter=token)
    return _(FOUNDATION_NAMES[index]) if 0 <= index < 4 else _("the foundations")


def cards(n: int) -> str:
    """``1 card``, ``5 cards``."""
    return ngettext("{n} card", "{n} cards", n).format(n=n)


def moves(n: int) -> str:
    """``1 move``, ``96 moves``."""
    return ngettext("{n} move", "{n} moves", n).format(n=n)


def hints(n: int) -> str:
    return ngettext("{n} hint", "{n} hints", n).format(n=n)


def undos(n: int) -> str:
    """``1 undo``: a racer's own undos, beside the moves they took back."""
    return ngettext("{n} undo", "{n} undos", n).format(n=n)


def races(n: int) -> str:
    return ngettext("{n} race", "{n} races", n).format(n=n)


def wins(n: int) -> str:
    return ngettext("{n} win", "{n} wins", n).format(n=n)


def rated_races(n: int) -> str:
    return ngettext("{n} rated race", "{n} rated races", n).format(n=n)


def racers(n: int) -> str:
    return ngettext("{n} racer", "{n} racers", n).format(n=n)


def minutes(n: int) -> str:
    return ngettext("{n} minute", "{n} minutes", n).format(n=n)


def _suit_foundation(name: str) -> str:
    suit = SUITS_BY_NAME.get(name)
    return _(FOUNDATION_NAMES[suit]) if suit is not None else name


def _place(text: str) -> str:
    """The engine's ``column 3`` / ``cell b`` again in the language in use."""
    match = re.fullmatch(r"column (\d+)", text)
    if match:
        return place_name(COLUMN, int(match[1]) - 1)
    match = re.fullmatch(r"cell (-?\w+)", text)
    if match:
        index = CELL_TOKENS.index(match[1]) if match[1] in CELL_TOKENS else -1
        return place_name(CELL, index) if index >= 0 else _("cell {letter}").format(letter=match[1])
    return text


def _build(text: str) -> str:
    return {"down by suit": _("down by suit"), "down in alternating colours": _("down in alternating colours")}.get(
        text, text
    )


Say = Callable[[re.Match[str]], str]

REASONS: Final[tuple[tuple[re.Pattern[str], Say], ...]] = tuple(
    (re.compile(pattern), say)
    for pattern, say in (
        (r"not a move", lambda m: _("not a move")),
        (r"a move carries at least one card", lambda m: _("a move carries at least one card")),
        (r"there is no (column \d+|cell -?\w+)", lambda m: _("there is no {place}").format(place=_place(m[1]))),
        (
            r"only single cards go to a cell or a foundation",
            lambda m: _("only single cards go to a cell or a foundation"),
        ),
        (
            r"the last (\d+) cards of (column \d+) are not a run",
            lambda m: _("the last {n} cards of {place} are not a run").format(n=m[1], place=_place(m[2])),
        ),
        (r"(cell \w) is empty", lambda m: _("{place} is empty").format(place=_place(m[1]))),
        (r"(column \d+) is empty", lambda m: _("{place} is empty").format(place=_place(m[1]))),
        (
            r"(column \d+) has only (\d+) card\(s\)",
            lambda m: ngettext("{place} has only {n} card", "{place} has only {n} cards", int(m[2])).format(
                place=_place(m[1]), n=m[2]
            ),
        ),
        (r"a cell holds a single card", lambda m: _("a cell holds a single card")),
        (
            r"cards on a foundation stay there in these rules",
            lambda m: _("cards on a foundation stay there in these rules"),
        ),
        (r"there are four foundations", lambda m: _("there are four foundations")),
        (
            r"the (\w+) foundation is empty",
            lambda m: _("{foundation} is empty").format(foundation=_suit_foundation(m[1])),
        ),
        (
            r"cards come back from a foundation one at a time",
            lambda m: _("cards come back from a foundation one at a time"),
        ),
        (
            r"source and destination are the same column",
            lambda m: _("source and destination are the same column"),
        ),
        (
            r"(\S+) cannot go on (\S+): columns build (.+)",
            lambda m: _("{card} cannot go on {target}: columns build {build}").format(
                card=m[1], target=m[2], build=_build(m[3])
            ),
        ),
        (
            r"an empty column takes only a King or a King-led run",
            lambda m: _("an empty column takes only a King or a King-led run"),
        ),
        (
            r"a run of (\d+) cards is too long: (\d+) can move now",
            lambda m: _("a run of {n} cards is too long: {room} can move now").format(n=m[1], room=m[2]),
        ),
        (r"a card does not move from cell to cell", lambda m: _("a card does not move from cell to cell")),
        (r"(cell \w) is occupied", lambda m: _("{place} is occupied").format(place=_place(m[1]))),
        (r"the card is already on its foundation", lambda m: _("the card is already on its foundation")),
        (
            r"(\S+) cannot go home yet: the (\w+) foundation needs (\S+)",
            lambda m: _("{card} cannot go home yet: {foundation} needs {wanted}").format(
                card=m[1], foundation=_suit_foundation(m[2]), wanted=m[3]
            ),
        ),
        (
            r"a foundation destination is written with index 0 \(the card's suit picks the foundation\)",
            lambda m: _("a foundation destination is written with index 0 (the card's suit picks the foundation)"),
        ),
        (r"unknown source", lambda m: _("unknown source")),
        (r"unknown destination", lambda m: _("unknown destination")),
    )
)


def reason(text: str) -> str:
    """An engine's (or the server's) reason for refusing a move, in the language in use."""
    for pattern, say in REASONS:
        match = pattern.fullmatch(text.strip())
        if match:
            return say(match)
    return text


STATUS_WORDS: Final = {
    "waiting": N_("waiting"),
    "ready": N_("ready"),
    "racing": N_("racing"),
    "finished": N_("finished"),
    "stuck": N_("stuck"),
    "resigned": N_("resigned"),
    "forfeit": N_("forfeit"),
    "did not finish": N_("did not finish"),
    "countdown": N_("countdown"),
}
"""A racer's status or a room's phase as the protocol (and the statistics file) spells it -> the
words shown; the stored value stays English."""


def status_word(status: str) -> str:
    """A status or phase in the language in use (an unknown one as it came)."""
    word = STATUS_WORDS.get(str(status))
    return _(word) if word is not None else str(status)


GRADE_WORDS: Final = {"gentle": N_("gentle"), "tricky": N_("tricky"), "fiendish": N_("fiendish")}
"""The solver's grades of winnable deals (protocol.messages.DEAL_GRADES)."""
PACE_WORDS: Final = {"stroll": N_("stroll"), "brisk": N_("brisk"), "sprint": N_("sprint")}
"""The bots' paces (protocol.messages.BOT_PACES)."""


def grade_word(grade: str) -> str:
    word = GRADE_WORDS.get(grade)
    return _(word) if word is not None else grade


def pace_word(pace: str) -> str:
    word = PACE_WORDS.get(pace)
    return _(word) if word is not None else pace


BOT_NAME: Final = re.compile(r"Computer \((\w+)\)")
"""How the server names a bot racer: ``Computer (PACE)`` (docs/protocol.md, section 6)."""


def bot_name(name: str) -> str:
    """A bot's name in the player's language (``Ordinateur (rapide)``); any other name as it is."""
    named = BOT_NAME.fullmatch(name)
    if named is None or named[1] not in PACE_WORDS:
        return name
    return _("Computer ({pace})").format(pace=pace_word(named[1]))


ORDINALS: Final = {"one": N_("{n}st"), "two": N_("{n}nd"), "few": N_("{n}rd"), "other": N_("{n}th")}
"""CLDR's ordinal categories (Babel's ``Locale.ordinal_form``: 1st, 2nd, 3rd, 4th in English; 1er,
2e in French) -> the catalog's forms; a category English lacks (Italian's ``many``) takes ``other``."""


def ordinal(n: int) -> str:
    """``1st``, ``22nd`` (en); ``1er``, ``2e`` (fr); ``1º`` (it); ``1e`` (nl)."""
    form = current().locale.ordinal_form(n)
    return _(ORDINALS.get(form, ORDINALS["other"])).format(n=n)


def points(n: int) -> str:
    return ngettext("{n} point", "{n} points", n).format(n=n)


def deal_label(deal: str | None) -> str:
    """A deal as every screen writes it: its code, ``deal SH1-ST-0001K`` (what ``--code`` and the
    lobby's deal box take, and it names the rules too); one way everywhere, never ``#1`` here and
    the code there."""
    return _("deal chosen at start") if deal is None else _("deal {code}").format(code=deal)


def deal_code(preset_name: str, number: int) -> str:
    """A deal number of ``preset_name`` written as its code (``#N`` for rules the codes do not know)."""
    try:
        return encode(preset_name, number)
    except ValueError:
        return f"#{number}"
