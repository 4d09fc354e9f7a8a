"""The terminal and rules catalogs (issue 26): every language has every message, with the same
placeholders and its own plural forms, nothing fuzzy or empty; Babel's extraction from client/
finds exactly the catalog's messages; and no user-facing text in client/ skips the catalog."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.plurals import get_plural

from i18n.catalogs import DOMAINS, LOCALE_DIR, read_catalog
from i18n.languages import LANGUAGES, SOURCE

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "client"
BABEL_CONFIG = ROOT / "i18n" / "babel-terminal.cfg"


def strings(message: Message) -> list[str]:
    value = message.string
    return [str(v or "") for v in value] if isinstance(value, (list, tuple)) else [str(value or "")]


def ids(message: Message) -> list[str]:
    value = message.id
    return list(value) if isinstance(value, (list, tuple)) else [value]


def placeholders(text: str) -> set[str]:
    """The str.format names in ``text`` (``{n}``, ``{code}``)."""
    return {name for _literal, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


def entries(catalog: Catalog) -> dict[tuple[str | None, str], Message]:
    return {(m.context, ids(m)[0]): m for m in catalog if m.id}


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_language_has_a_catalog_of_every_domain(domain: str) -> None:
    present = sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{domain}.po"))
    assert present == sorted(LANGUAGES)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_catalog_has_every_message_with_its_placeholders_and_plural_forms(domain: str, language: str) -> None:
    source = entries(read_catalog(SOURCE, domain))
    catalog = read_catalog(language, domain)
    assert catalog.locale is not None and str(catalog.locale) == language
    plural = get_plural(language)
    assert catalog.num_plurals == plural.num_plurals and catalog.plural_expr == plural.plural_expr
    mine = entries(catalog)
    assert set(mine) == set(source), "the same messages as the English catalog"
    for key, message in mine.items():
        assert not message.fuzzy, key
        said = strings(message)
        assert all(s.strip() for s in said), f"empty translation: {key}"
        wanted = set().union(*(placeholders(i) for i in ids(message)))
        if message.pluralizable:
            assert len(said) == plural.num_plurals, key
        for text in said:
            assert placeholders(text) == wanted, (key, text)
            text.format(**dict.fromkeys(wanted, 1))  # a brace out of place fails here


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != SOURCE])
def test_a_translation_is_not_the_english_left_in_place(language: str) -> None:
    """Most messages read differently in another language; the few that may not are names and symbols."""
    for domain in DOMAINS:
        catalog = read_catalog(language, domain)
        same = [m.id for m in catalog if m.id and strings(m) == ids(m)]
        assert len(same) <= len(list(catalog)) // 8, (domain, same)


def extracted() -> dict[tuple[str | None, str], tuple[str, ...]]:
    """What Babel's extractor finds in client/ with the project's mapping (what pybabel extract runs)."""
    method_map = [("**.py", "python")]
    config = BABEL_CONFIG.read_text(encoding="utf-8")
    assert "[python: client/**.py]" in config and "-k NP_:1c,2" in config
    keywords = {**DEFAULT_KEYWORDS, "NP_": ((1, "c"), 2)}
    found: dict[tuple[str | None, str], tuple[str, ...]] = {}
    for _file, _line, message, _comments, context in extract_from_dir(str(CLIENT), method_map, keywords=keywords):
        forms = (message,) if isinstance(message, str) else tuple(m for m in message if m)
        found[(context, forms[0])] = forms
    return found


def test_extraction_finds_exactly_the_catalogs_messages() -> None:
    """A text marked in client/ but missing from the catalog, or a catalog entry nothing uses."""
    found = extracted()
    catalog = entries(read_catalog(SOURCE, "terminal"))
    assert sorted(set(found) - set(catalog), key=str) == [], "marked in client/ but not in the catalog"
    assert sorted(set(catalog) - set(found), key=str) == [], "in the catalog but marked nowhere in client/"
    for key, forms in found.items():
        assert tuple(ids(catalog[key])) == forms, key


WORDS = re.compile(r"[A-Za-z]{3,}")
SHOWN_BY = {"Label", "Static", "Button", "TickBox", "Checkbox", "Input", "Content", "Text", "Binding"}
"""Textual and Rich constructors whose text arguments reach the screen."""
HEADERS = {"add_column", "add_columns"}
"""A table's column headers (Rich's Table, Textual's DataTable): every argument but a symbol."""
DOCS_TOOLS = {"apps/screenshots.py"}
"""client/apps/screenshots.py writes docs/'s SVGs for developers: its window titles and --help stay English."""
SAYS = {"notify", "flash", "show_status", "set_locked", "back_to_lobby", "say", "_say", "set_cover", "update", "error"}
"""Methods whose first argument is a message for the player."""
SHOWN_ATTRIBUTES = {"border_title", "border_subtitle", "label", "placeholder", "title", "tooltip"}
TEXT_KEYWORDS = {"placeholder", "title", "label", "tooltip", "description", "help"}


def words_in(node: ast.expr) -> bool:
    """``node`` is (or builds) a text with words in it that is not a call to the catalog."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return WORDS.search(node.value) is not None and "://" not in node.value
    if isinstance(node, ast.JoinedStr):
        return any(
            isinstance(v, ast.Constant) and isinstance(v.value, str) and WORDS.search(v.value) for v in node.values
        )
    if isinstance(node, ast.BinOp):
        return words_in(node.left) or words_in(node.right)
    if isinstance(node, ast.IfExp):
        return words_in(node.body) or words_in(node.orelse)
    return False


def bypasses(source: str, where: str) -> list[str]:
    """The texts in ``source`` that reach the screen without the catalog."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "Binding":
                shown = node.args[2:3]  # key, action, description
            elif name in SHOWN_BY or name in HEADERS:
                shown = list(node.args)
            elif name in SAYS:
                shown = node.args[:1]
            else:
                shown = []
            shown += [k.value for k in node.keywords if k.arg in TEXT_KEYWORDS]
            found += [f"{where}:{node.lineno}: {name}({ast.unparse(a)})" for a in shown if words_in(a)]
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr in SHOWN_ATTRIBUTES and words_in(node.value):
                    found.append(f"{where}:{node.lineno}: .{target.attr} = {ast.unparse(node.value)}")
    return found


def test_no_text_shown_by_the_client_skips_the_catalog() -> None:
    """A lint over client/: text literals (or f-strings) handed to widgets, bindings, the footer's
    descriptions, notify and the message lines must go through ``_``/``ngettext`` (or ``N_`` where
    a table defines them). It reads calls, not data flow: a text built elsewhere and passed in by
    name is the extraction test's to catch, if it is marked at all."""
    found = [
        line
        for path in sorted(CLIENT.rglob("*.py"))
        if path.relative_to(CLIENT).as_posix() not in DOCS_TOOLS
        for line in bypasses(path.read_text("utf-8"), path.relative_to(CLIENT).as_posix())
    ]
    assert found == []


def test_the_lint_sees_a_bypass() -> None:
    """The lint itself: unmarked texts are found, marked ones and non-words are not."""
    sample = """
self.flash("Nothing to undo", "error")
self.flash(_("Nothing to undo"), "error")
yield Label(f"Room {code}")
yield Label(_("Room {code}").format(code=code))
box.border_title = "Results"
Binding("r", "ready", "Ready")
Binding("r", "ready", N_("Ready"))
Input(placeholder="ws://host:8765")
table.add_column("player", ratio=1)
table.add_column("#", justify="right")
"""
    found = bypasses(sample, "sample")
    assert sorted(int(line.split(":")[1]) for line in found) == [2, 4, 6, 7, 10], found
