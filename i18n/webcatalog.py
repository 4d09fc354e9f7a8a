"""The browser client's catalogs: msgids extracted from web/src/*.js and its JSON catalogs.

    python -m i18n.webcatalog extract      # web/src/*.js -> i18n/web.pot -> each language's web.po
    python -m i18n.webcatalog build OUT    # the .po files -> OUT (web/src/catalogs.json)

Both run in scripts/build-web. ``extract`` uses Babel's JavaScript extractor with the browser's
two translate functions, ``t(msgid, params)`` and ``tn(singular, plural, n, params)``, and merges
the template into each language's ``web.po`` the way ``pybabel update`` does (translations kept, an
old one marked fuzzy when its msgid changed a little, and, as with
``--ignore-obsolete``, the ones no source says any more dropped). ``build`` writes one
JSON object per language: its ``Plural-Forms`` expression (Babel's, from CLDR), its messages
(msgid -> text, or the list of plural forms; untranslated and fuzzy ones left out, so the browser
falls back to English) and, when the ``rules`` domain's catalog exists, its rules help.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from .rules_help import TOPICS

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "i18n" / "locale"
TEMPLATE = ROOT / "i18n" / "web.pot"
SOURCES = ROOT / "web" / "src"
LANGUAGES = ("en", "fr", "it", "nl")
KEYWORDS: dict[str, Any] = {"t": None, "tn": (1, 2)}
COMMENT_TAGS = ("TRANSLATORS:",)
# Locations name the file only (write_po's include_lineno=False): line numbers would change the
# catalogs at every edit of the sources.
NO_LINE: Any = None


CONTACT = "i18n@seahaven.invalid"


def _stamp(catalog: Catalog, lang: str | None) -> Catalog:
    """The header every web catalog carries (the rules domain's style): the project, who to write to."""
    catalog.project, catalog.version = "seahaven-race", "0.1.0"
    catalog.copyright_holder = catalog.last_translator = f"Seahaven race <{CONTACT}>"
    catalog.msgid_bugs_address = CONTACT
    catalog.language_team = f"{lang} <{CONTACT}>" if lang else f"<{CONTACT}>"
    what = f"{lang}: the translations" if lang else "the template"
    catalog.header_comment = (
        f"# The browser client's messages (domain 'web'), {what}.\n"
        "# Made by i18n/webcatalog.py from web/src/*.js (scripts/build-web); docs/i18n.md."
    )
    catalog.fuzzy = False
    if lang:
        catalog.revision_date = catalog.creation_date  # the template's, which it was merged from
    return catalog


def po_path(lang: str, domain: str = "web", locale: Path = LOCALE) -> Path:
    return locale / lang / "LC_MESSAGES" / f"{domain}.po"


def template() -> Catalog:
    """The msgids of web/src/*.js, in the order they appear, each with the files it is in."""
    catalog = _stamp(Catalog(domain="web"), None)
    found = extract_from_dir(
        str(SOURCES),
        method_map=[("*.js", "javascript")],
        keywords=KEYWORDS,
        comment_tags=COMMENT_TAGS,
        strip_comment_tags=True,
    )
    for filename, _lineno, message, comments, context in found:
        catalog.add(message, locations=[(f"web/src/{filename}", NO_LINE)], auto_comments=comments, context=context)
    # The presets' titles are data (web/src/presets.json, written by seahaven.vectors): views.js
    # says them through t() with the title as its msgid.
    presets = json.loads((SOURCES / "presets.json").read_text(encoding="utf-8"))
    for preset in presets.values():
        catalog.add(
            preset["title"],
            locations=[("web/src/presets.json", NO_LINE)],
            auto_comments=["the title of a rules preset"],
        )
    return catalog


def _text(catalog: Catalog) -> str:
    out = io.BytesIO()
    write_po(out, catalog, width=100, omit_header=False, include_lineno=False, ignore_obsolete=True)
    return out.getvalue().decode()


DATES = ('"POT-Creation-Date', '"PO-Revision-Date')


def _undated(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith(DATES)]


def _same_messages(old: str, new: str) -> bool:
    """Equal but for the header's dates, which change at every write."""
    return _undated(old) == _undated(new)


def _write(path: Path, catalog: Catalog) -> bool:
    """Writes ``catalog`` unless the file already says the same: False when nothing changed."""
    text = _text(catalog)
    if path.exists() and _same_messages(path.read_text(encoding="utf-8"), text):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def read(path: Path, lang: str) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=lang)


def extract() -> list[Path]:
    """The template from the sources, then each language's catalog updated from it; the files changed."""
    pot = template()
    changed = [TEMPLATE] if _write(TEMPLATE, pot) else []
    for lang in LANGUAGES:
        path = po_path(lang)
        catalog = read(path, lang) if path.exists() else Catalog(locale=lang, domain="web")
        catalog.update(pot, update_header_comment=False)
        _stamp(catalog, lang)
        if _write(path, catalog):
            changed.append(path)
    return changed


def _messages(catalog: Catalog) -> dict[str, str | list[str]]:
    out: dict[str, str | list[str]] = {}
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, tuple):
            forms = [str(s) for s in message.string or ()]
            if all(forms):
                out[str(message.id[0])] = forms
        elif message.string:
            out[str(message.id)] = str(message.string)
    return out


def catalogs(locale: Path = LOCALE) -> dict[str, dict[str, Any]]:
    """Per language: its plural expression, its web messages and (when present) its rules help."""
    out: dict[str, dict[str, Any]] = {}
    for lang in LANGUAGES:
        path = po_path(lang, locale=locale)
        web = read(path, lang) if path.exists() else Catalog(locale=lang)
        entry: dict[str, Any] = {"plural": web.plural_forms, "messages": _messages(web)}
        rules = po_path(lang, "rules", locale)
        if rules.exists():
            entry["rules"] = rules_help(read(rules, lang))
        out[lang] = entry
    return out


def rules_help(catalog: Catalog) -> dict[str, list[list[str]]]:
    """The rules domain as the browser shows it: preset -> [heading, rule] rows in the topics'
    order, each in the catalog's language (English where it has no translation)."""
    said = {str(m.context): str(m.string or m.id) for m in catalog if m.id and m.context and not m.fuzzy}
    presets = sorted({str(m.context).split("/")[0] for m in catalog if m.context and "/" in str(m.context)})
    return {
        preset: [
            [_heading(catalog, heading), said[f"{preset}/{key}"]]
            for key, heading in TOPICS
            if f"{preset}/{key}" in said
        ]
        for preset in presets
    }


def _heading(catalog: Catalog, heading: str) -> str:
    message = catalog.get(heading, context="topic")
    return str(message.string) if message is not None and message.string and not message.fuzzy else heading


def build(out: Path, locale: Path = LOCALE) -> Path:
    text = json.dumps(catalogs(locale), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")
    return out


def main(argv: Iterable[str]) -> int:
    args = list(argv)
    if args == ["extract"]:
        for path in extract():
            print(f"updated {path.relative_to(ROOT)}")
        return 0
    if len(args) == 2 and args[0] == "build":
        print(f"wrote {build(Path(args[1]))}")
        return 0
    print("usage: python -m i18n.webcatalog extract | build OUT.json", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
