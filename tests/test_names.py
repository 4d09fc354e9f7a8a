"""The one name rule (server/shell/names.py): the fold that handles are unique by, handles' form,
display names (NFC, emoji joiners kept), and the keys of registered players (server/players/keys.py)."""

from __future__ import annotations

import unicodedata

import pytest

from protocol.messages import NAME_MAX
from protocol.names import clean_handle, fold, sanitise_name
from server.players.keys import matches, new_key, read_key, secret_hash
from server.shell.names import is_durable, new_durable_id, new_player_id


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Ann", "ann"),
        ("Ann", "ANN"),
        ("\u0410nn", "Ann"),  # Cyrillic capital A
        ("\u0430nn", "ann"),  # Cyrillic small a
        ("B\u043eb", "Bob"),  # Cyrillic small o
        ("\u039d\u0399\u039a\u039f", "NIKO"),  # Greek capitals
        ("\u03bdictor", "victor"),  # Greek small nu looks like v
        ("\u0440\u0430\u0443", "pay"),  # Cyrillic p, a, y
        ("A\u200bnn", "Ann"),  # zero-width space
        ("A\u200dnn", "Ann"),  # zero-width joiner
        ("A\u2060nn\ufeff", "Ann"),  # word joiner, byte order mark
        ("A\u00adnn", "Ann"),  # soft hyphen
        ("\u202eAnn", "Ann"),  # right-to-left override
        ("\uff21\uff4e\uff4e", "Ann"),  # full width
        ("\U0001d400nn", "Ann"),  # mathematical bold capital A
        ("Ann0", "Anno"),  # zero passes for o
        ("A1ice", "Alice"),  # one passes for l
        ("Stra\u00dfe", "STRASSE"),  # case folding, not lower()
        ("Zo\u00eb", "Zoe\u0308"),  # composed and decomposed
    ],
)
def test_look_alikes_fold_to_one_key(one: str, other: str) -> None:
    assert fold(one) == fold(other)


@pytest.mark.parametrize(("one", "other"), [("Ann", "Anne"), ("Zo\u00eb", "Zoe"), ("Ian", "lan"), ("bob", "dob")])
def test_different_names_stay_apart(one: str, other: str) -> None:
    assert fold(one) != fold(other)


def test_the_fold_is_stable() -> None:
    for name in ("\u0410nn", "\uff21\uff4e\uff4e", "Stra\u00dfe", "Zoe\u0308"):
        assert fold(fold(name)) == fold(name)
        assert unicodedata.is_normalized("NFC", fold(name))


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("ann", "ann"),
        ("  Ann_Lee.1  ", "Ann_Lee.1"),
        ("\u0416\u0435\u043d\u044f", "\u0416\u0435\u043d\u044f"),  # Cyrillic letters are letters
        ("\u0928\u092e\u0938\u094d\u0924\u0947", "\u0928\u092e\u0938\u094d\u0924\u0947"),  # with their marks
        ("\uff21nn", "Ann"),  # shown as NFKC
        ("a-b", "a-b"),
        ("x" * 24, "x" * 24),
        ("2cool", "2cool"),
    ],
)
def test_good_handles(raw: str, shown: str) -> None:
    assert clean_handle(raw) == shown


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("ab", "3 to 24 characters"),
        ("x" * 25, "3 to 24 characters"),
        ("ann lee", "letters, digits and _ - . only"),
        ("ann\u200b", "letters, digits and _ - . only"),  # an invisible character is refused, not dropped
        ("ann!", "letters, digits and _ - . only"),
        ("\U0001f600ann", "letters, digits and _ - . only"),
        ("12345", "not digits only"),
        ("\u0301ann", "starts with a letter"),
        ("Admin", "reserved"),
        ("\u0430dmin", "reserved"),  # a look-alike of a reserved one
    ],
)
def test_bad_handles_say_why(raw: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        clean_handle(raw)


def test_display_names_keep_emoji_joiners_and_drop_other_format_characters() -> None:
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467"  # one emoji drawn from three
    assert sanitise_name(f"{family} Ann") == f"{family} Ann"
    rainbow = "\U0001f3f3\ufe0f\u200d\U0001f308"  # a flag: the joiner after a variation selector
    assert sanitise_name(rainbow) == rainbow
    assert sanitise_name("A\u200dnn") == "Ann"  # a joiner between letters draws nothing: dropped
    assert sanitise_name("\u200dAnn\u200d") == "Ann"
    assert sanitise_name("Zoe\u0308") == "Zo\u00eb"  # NFC
    # As before: control and format characters go, white space runs become one space, 24 at most.
    assert sanitise_name("  Ann\u0007 \t  Lee  ") == "Ann Lee"
    assert sanitise_name("\u200b\u202e\t") == "player"
    assert len(sanitise_name("x" * 100)) == NAME_MAX


def test_player_ids() -> None:
    durable = new_durable_id()
    assert len(durable) == 13 and durable[0] == "u" and is_durable(durable)
    assert not is_durable(new_player_id()) and not is_durable("u123") and not is_durable(durable.lower())


def test_keys_name_their_player_and_only_the_hash_is_kept() -> None:
    player = new_durable_id()
    key, hashed = new_key(player)
    assert key.startswith(player + ".") and len(key) == 13 + 1 + 43
    assert hashed == secret_hash(key.partition(".")[2]) and key.partition(".")[2] not in hashed
    assert read_key(key) == (player, hashed)
    other_key, other_hash = new_key(player)
    assert other_key != key and other_hash != hashed
    assert matches(hashed, [other_hash, hashed]) and not matches(hashed, [other_hash]) and not matches(hashed, [])
    for forged in (key + "x", key[:-1], "p" + key[1:], key.replace(".", ":"), player, "", key.upper()):
        assert read_key(forged) is None or read_key(forged) != (player, hashed)
    assert read_key(key.replace(".", ":")) is None and read_key(player) is None
