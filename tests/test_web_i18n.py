"""The browser client's catalogs (i18n/locale/*/LC_MESSAGES/web.po, issue 26): every language has
every message of the template with the same placeholders and the right number of plural forms;
the template, the .po files and web/src/catalogs.json are what the build makes; every error code
has words; and no user-facing text in the translated sources bypasses t()/tn()."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message

from i18n import webcatalog
from protocol.errors import ErrorCode

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "web" / "src"
TRANSLATED = ("fr", "it", "nl")
PLACEHOLDER = re.compile(r"\{(\w+)\}")

# No user-facing text of their own: the rules port (the engine's English, like the server's),
# plumbing, and the catalog machinery.
NO_TEXT = {
    "rules.js",
    "dealing.js",
    "replay.js",
    "records_api.js",
    "dom.js",
    "patch.js",
    "motion.js",
    "i18n.js",
    "plural.js",
}


def template() -> Catalog:
    return webcatalog.template()


def messages(catalog: Catalog) -> dict[str, Message]:
    return {str(m.id if isinstance(m.id, str) else m.id[0]): m for m in catalog if m.id}


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_catalog_has_every_message_with_the_same_placeholders(lang: str) -> None:
    catalog = webcatalog.read(webcatalog.po_path(lang), lang)
    found = messages(catalog)
    wanted = messages(template())
    assert set(wanted) - set(found) == set(), f"{lang}: missing"
    for msgid, source in wanted.items():
        message = found[msgid]
        assert not message.fuzzy, f"{lang}: {msgid!r} is fuzzy"
        if isinstance(source.id, tuple):
            forms = list(message.string or ())
            assert len(forms) == catalog.num_plurals, f"{lang}: {msgid!r} has {len(forms)} forms"
            english = placeholders(source.id[0]) | placeholders(source.id[1])
            for form in forms:
                assert form, f"{lang}: {msgid!r} has an empty plural form"
                # A singular may spell the one out ("een zet"), but never name what the msgid does not.
                assert placeholders(form) <= english and placeholders(form) >= english - {"n"}, (lang, msgid, form)
        else:
            assert message.string, f"{lang}: {msgid!r} is not translated"
            assert placeholders(str(message.string)) == placeholders(msgid), (lang, msgid, message.string)


def test_the_english_catalog_is_the_source_and_every_catalog_has_nothing_else() -> None:
    wanted = set(messages(template()))
    for lang in ("en", *TRANSLATED):
        catalog = webcatalog.read(webcatalog.po_path(lang), lang)
        live = {k for k, m in messages(catalog).items() if not m.id or m.id not in catalog.obsolete}
        assert live == wanted, lang


def test_the_template_and_catalogs_json_are_what_the_build_makes(tmp_path: Path) -> None:
    committed = messages(webcatalog.read(webcatalog.TEMPLATE, "en"))
    fresh = messages(template())
    assert list(committed) == list(fresh), "i18n/web.pot is stale: run scripts/build-web"
    out = webcatalog.build(tmp_path / "catalogs.json")
    assert (SRC / "catalogs.json").read_text() == out.read_text(), (
        "web/src/catalogs.json is stale: run scripts/build-web"
    )


def test_the_build_takes_the_rules_domain_when_it_is_there(tmp_path: Path) -> None:
    locale = tmp_path / "locale"
    shutil.copytree(webcatalog.LOCALE, locale, ignore=shutil.ignore_patterns("rules.po"))
    absent = webcatalog.catalogs(locale)
    assert all("rules" not in entry for entry in absent.values())
    (locale / "nl" / "LC_MESSAGES" / "rules.po").write_text(
        'msgid ""\nmsgstr ""\n"Language: nl\\n"\n\n'
        'msgctxt "topic"\nmsgid "Goal"\nmsgstr "Doel"\n\n'
        'msgctxt "topic"\nmsgid "About"\nmsgstr "In het kort"\n\n'
        'msgctxt "penguin/goal"\nmsgid "All cards home."\nmsgstr "Alle kaarten naar huis."\n\n'
        'msgctxt "penguin/about"\nmsgid "A bird."\nmsgstr ""\n',
        encoding="utf-8",
    )
    present = webcatalog.catalogs(locale)
    # The topics' order (about before goal), the headings translated, English where a rule is not.
    assert present["nl"]["rules"] == {"penguin": [["In het kort", "A bird."], ["Doel", "Alle kaarten naar huis."]]}
    assert "rules" not in present["fr"]


def test_every_error_code_has_words() -> None:
    node = shutil.which("node")
    assert node is not None, "node is not on the PATH"
    script = "import('./src/explain.js').then((m) => console.log(JSON.stringify(m.KNOWN_CODES)))"
    run = subprocess.run([node, "-e", script], cwd=ROOT / "web", capture_output=True, text=True, timeout=60, check=True)
    known = set(json.loads(run.stdout))
    assert {code.value for code in ErrorCode} - known == set()


# -- no user-facing text bypasses the catalogs -----------------------------------------------------

WORDS = r"[^\"'`]*[A-Za-z]{2,}[^\"'`]*"
BYPASSES = [
    # a literal put where people read it: text, titles, labels, placeholders
    re.compile(rf"""(?:textContent|innerText|title|placeholder|"aria-label"|alt)\s*[:=]\s*(["'`]){WORDS}\1"""),
    # a literal child of an element: h("p", {...}, "Some words")
    re.compile(rf"""\bh\(\s*"[a-z0-9]+"\s*,\s*(?:\{{[^{{}}]*\}}|\w+)\s*,\s*(["'`]){WORDS}\1"""),
    # a literal said, asked or announced
    re.compile(rf"""\b(?:say|confirm|alert|announce|push|toast)\(\s*(["'`]){WORDS}\1"""),
    # a sentence returned
    re.compile(r"""\breturn\s+(["'`])[A-Z][a-z]+ [a-z]"""),
    # a template literal with words of its own (class names aside)
    re.compile(r"""(?<!class: )(?<!cls = )`[^`]*[A-Za-z]{2,} [A-Za-z]{2,}[^`]*`"""),
]
# What a template literal puts in (${...}, one level of braces inside) is code, not text.
INTERPOLATION = re.compile(r"\$\{(?:[^{}]|\{[^{}]*\})*\}")


def bypasses(text: str) -> list[str]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = re.sub(r"^\s*(//|/\*\*?|\*).*$", "", line)  # comment lines
        code = INTERPOLATION.sub("${}", code)
        code = re.sub(r"""\bt\(\s*"(?:[^"\\]|\\.)*"|\btn\(\s*"(?:[^"\\]|\\.)*"\s*,\s*"(?:[^"\\]|\\.)*\"""", "t()", code)
        for pattern in BYPASSES:
            if pattern.search(code):
                found.append(f"{number}: {line.strip()}")
                break
    return found


@pytest.mark.parametrize("source", sorted(p.name for p in SRC.glob("*.js") if p.name not in NO_TEXT))
def test_no_user_facing_text_bypasses_the_catalogs(source: str) -> None:
    assert bypasses((SRC / source).read_text()) == []


def test_the_bypass_scan_finds_bypasses() -> None:
    for line in (
        'el.textContent = "Starting soon";',
        'h("button", { class: "quiet" }, "Leave room")',
        "app.say(`Hint: ${move}`);",
        '{ "aria-label": "race clock" }',
        "return `${n} moves left`;",
    ):
        assert bypasses(line), line
    assert bypasses('h("button", {}, t("Leave room"))') == []
    assert bypasses('h("span", { class: `status ${r.status}` }, x)') == []
