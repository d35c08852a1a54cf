"""Mission names and descriptions per language (``[names]``, ``[descriptions]``; docs/missions.md
§2): the shipped five carry all five languages; a bad table is one line naming file and key."""

from __future__ import annotations

import pytest

from nochmal.i18n import LANGUAGES
from nochmal.missions import builtin_missions, parse_mission_text

from missions_support import mission_error, mission_toml

GOOD = mission_toml(tables='\n[names]\nde = "Meine"\nen = "Mine"\nnl = "De mijne"\nfr = "La mienne"\npl = "Moja"\n')



def test_shipped_missions_in_five_languages():
    for m in builtin_missions():
        assert [lang for lang, _ in m.names] == sorted(LANGUAGES), m.id
        assert [lang for lang, _ in m.descriptions] == sorted(LANGUAGES), m.id
        assert m.name_in("en") == m.name and m.description_in("en") == " ".join(m.description.split())
        others = {m.name_in(lang) for lang in ("de", "nl", "fr", "pl")}
        assert len(others) == 4 and m.name not in others, m.id
    star = {m.id: m for m in builtin_missions()}["star-hunt"]
    assert star.name_in("de") == "Sternenjagd" and star.description_in("pl").startswith("Wszystkie 15")


def test_a_good_table_and_none_at_all():
    m = parse_mission_text(GOOD, "ok.toml")
    assert m.name_in("fr") == "La mienne" and m.description_in("fr") == "Cross A1 and O7 together."
    bare = parse_mission_text(GOOD.replace('[names]\nde = "Meine"\nen = "Mine"\nnl = "De mijne"\n'
                                           'fr = "La mienne"\npl = "Moja"\n', ""), "ok.toml")
    assert bare.names == () and bare.name_in("de") == "Mine"


@pytest.mark.parametrize("old, new, expected", [
    ('pl = "Moja"\n', 'pl = "Moja"\nja = "Watashi"\n', "bad.toml: key 'names.ja': unknown language (use de, en, nl, fr, pl)"),
    ('pl = "Moja"\n', "", "bad.toml: key 'names.pl' is missing"),
    ('fr = "La mienne"', "fr = 3", "bad.toml: key 'names.fr' must be a non-empty string, got integer 3"),
    ('fr = "La mienne"', 'fr = " "', "bad.toml: key 'names.fr' must be a non-empty string"),
    ('[names]\nde = "Meine"', 'names = "Meine"\n[x]\nde = "Meine"', "bad.toml: key 'names' must be a table"),
])
def test_bad_names_table_named_by_file_and_key(old, new, expected):
    assert old in GOOD
    assert expected in mission_error(GOOD.replace(old, new))


def test_descriptions_table_checked_alike():
    text = GOOD.replace("[[objectives]]", '[descriptions]\nde = "x"\n\n[[objectives]]')
    message = mission_error(text)
    for lang in ("en", "nl", "fr", "pl"):
        assert f"key 'descriptions.{lang}' is missing" in message
