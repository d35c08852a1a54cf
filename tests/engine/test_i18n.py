"""The players' languages (nochmal/i18n.py, docs/web.md "Languages"): every catalog complete
and compiled as committed, the browser's choice, the edition's terms and the rating verdicts."""

from __future__ import annotations

import io
import re

import pytest
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po

from nochmal import i18n
from nochmal.game import rating

PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")


def po(lang: str):
    with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.po", "rb") as fh:
        return read_po(fh)


def template_ids() -> set:
    with open(i18n.LOCALE_DIR / f"{i18n.DOMAIN}.pot", "rb") as fh:
        return {m.id for m in read_po(fh) if m.id}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_message_translated_without_placeholders_lost_or_added(lang):
    catalog = po(lang)
    assert str(catalog.locale) == lang
    assert {m.id for m in catalog if m.id} == template_ids()  # nochmal.pot merged in (pybabel update)
    for m in catalog:
        if not m.id:
            continue
        singular = m.id if isinstance(m.id, str) else m.id[0]
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert "fuzzy" not in m.flags, f"{lang}: fuzzy {singular!r}"
        for text in strings:
            assert text.strip(), f"{lang}: {singular!r} has no translation"
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(singular)), \
                f"{lang}: {singular!r} -> {text!r} changes the placeholders"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_committed_mo_is_the_po_compiled(lang):
    catalog = po(lang)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    with open(i18n.LOCALE_DIR / lang / "LC_MESSAGES" / f"{i18n.DOMAIN}.mo", "rb") as fh:
        kept = read_mo(fh)
    compiled.seek(0)
    fresh = read_mo(compiled)
    assert entries(kept) == entries(fresh), "run pybabel compile (docs/web.md)"


def entries(catalog) -> dict:
    """msgid -> msgstr of a compiled catalog (a plural message's ids and forms as tuples)."""
    plain = lambda value: tuple(value) if isinstance(value, list) else value  # noqa: E731
    return {plain(m.id): plain(m.string) for m in catalog if m.id}


@pytest.mark.parametrize("header, lang", [
    ("de-DE,de;q=0.9", "de"), ("pl", "pl"), ("ja", "en"), ("", "en"), (None, "en"),
    ("nl-BE;q=0.4,fr-CA;q=0.8", "fr"), ("en-GB,en;q=0.9,de;q=0.8", "en"), ("de;q=0,pl;q=0.1", "pl"),
    ("de;q=abc, fr", "fr"), ("FR-fr", "fr"), ("*", "en"),
])
def test_negotiate(header, lang):
    assert i18n.negotiate(header) == lang


def test_edition_terms():
    assert {lang: i18n.term("game", lang) for lang in i18n.LANGUAGES} == {
        "de": "Noch mal!", "en": "Encore!", "fr": "Encore!", "nl": "Keer op Keer", "pl": "Jeszcze raz!"}
    assert i18n.term("b", "de") == "blau" and i18n.term("later", "pl") == "później"


def test_english_says_the_source_words_but_the_editions_name():
    """The English catalog is the source text itself, but for the English edition's name: an
    English msgstr that says something else shows English players the wrong sentence (a fuzzy
    match carried one message's words over to another once)."""
    kept = {i18n.TERMS["game"]}
    for m in po("en"):
        if m.id and m.id not in kept and (m.id if isinstance(m.id, str) else m.id[0]) not in kept:
            assert m.string == m.id or tuple(m.string) == tuple(m.id), f"en: {m.id!r} -> {m.string!r}"


JS_CALL = re.compile(r'(?<![\w.])(?:NM\.)?(?:t|ngettext)\(\s*"((?:[^"\\]|\\.)*)"\s*[,)]')


def test_every_script_message_is_extracted_from_its_file():
    """Every t("…") / ngettext("…", …) of the pages' scripts is in the catalogs with that file
    among its places: pybabel's JavaScript reader skips a t() inside another t()'s arguments,
    and such a message stays English in every language (it happened to "and" and "your move")."""
    root = i18n.LOCALE_DIR.parents[1]
    with open(i18n.LOCALE_DIR / f"{i18n.DOMAIN}.pot", "rb") as fh:
        places = {(m.id if isinstance(m.id, str) else m.id[0]): {path for path, _ in m.locations} for m in read_po(fh) if m.id}
    scripts = sorted((root / "nochmal" / "web").rglob("*.js"))
    assert len(scripts) > 10
    found = []
    for script in scripts:
        name = script.relative_to(root).as_posix()
        for line in script.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("//"):
                continue
            found += [(name, text) for text in JS_CALL.findall(line)]
    assert len(found) > 200
    assert [(name, text) for name, text in found if name not in places.get(text, ())] == []


def test_rating_verdicts_in_every_language():
    assert i18n.rating(41, "de") == "Es gibt also doch Superhelden!"  # the German rulebook's line
    assert i18n.rating(41, "en") == rating(41) == "superhero"
    scores = (41, 37, 33, 29, 25, 21, 17, 13, 9, 5, 1, 0, -1)
    for lang in i18n.LANGUAGES:
        verdicts = [i18n.rating(s, lang) for s in scores]
        assert all(verdicts), lang
        if lang != "en":
            # every band its own words, none left in English (super is super in all five)
            assert sum(v == rating(s) for v, s in zip(verdicts, scores)) <= 1, (lang, verdicts)
        assert len(set(verdicts)) == len(scores), (lang, verdicts)
    assert i18n.rating(-5, "nl") == "Probeer het nog eens!" and i18n.rating(50, "fr").startswith("Les super-héros")
