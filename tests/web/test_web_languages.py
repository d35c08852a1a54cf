"""The web app's language (docs/web.md "Languages"): from the browser, switched by ``?lang=``,
remembered in a cookie; ``<html lang>``, the scripts' JSON catalog and the error text follow it."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from nochmal.web import create_app


@pytest.fixture
def client(tmp_path):
    with TestClient(create_app(tmp_path)) as c:
        yield c


def html_lang(resp) -> str:
    assert resp.status_code == 200, resp.text
    return re.search(r'<html lang="([^"]*)"', resp.text).group(1)


def test_puzzle_page_follows_the_browser(client):
    assert html_lang(client.get("/puzzle", headers={"Accept-Language": "de-DE,de;q=0.9"})) == "de"
    assert html_lang(client.get("/puzzle/7", headers={"Accept-Language": "pl"})) == "pl"
    assert html_lang(client.get("/puzzle", headers={"Accept-Language": "ja"})) == "en"
    assert html_lang(client.get("/rooms", headers={"Accept-Language": "nl-NL"})) == "nl"


def test_switch_by_query_is_remembered_in_a_cookie(client):
    resp = client.get("/puzzle?lang=fr", headers={"Accept-Language": "de"})
    assert html_lang(resp) == "fr"
    assert "nochmal_lang=fr" in resp.headers["set-cookie"] and "Path=/" in resp.headers["set-cookie"]
    # the cookie now outranks the browser, on every page
    assert html_lang(client.get("/play", headers={"Accept-Language": "de"})) == "fr"
    assert html_lang(client.get("/rooms")) == "fr"
    assert "set-cookie" not in client.get("/puzzle").headers  # set once, on the switch
    assert html_lang(client.get("/?lang=pl")) == "pl"
    assert html_lang(client.get("/replay")) == "pl"


def test_unknown_language_is_refused_naming_the_field(client):
    resp = client.get("/puzzle?lang=xx", headers={"Accept-Language": "de"})
    assert resp.status_code == 422
    assert resp.json() == {"error": "unbekannte Sprache (de, en, nl, fr oder pl)", "field": "lang"}
    assert "set-cookie" not in resp.headers


def test_play_setup_lists_missions_by_their_translated_name(client):
    resp = client.get("/play", headers={"Accept-Language": "pl"})
    assert "Polowanie na gwiazdki" in resp.text and "Star hunt" not in resp.text


def test_json_catalog_per_language(client):
    de = client.get("/api/i18n/de").json()
    assert de["lang"] == "de" and de["messages"]["colour joker"] == "Farbjoker"
    assert client.get("/api/i18n/pl").json()["messages"]["number joker"] == "joker liczby"
    # a message said as in English does not travel: the scripts fall back to the English text
    en = client.get("/api/i18n/en").json()
    assert all(k != v for k, v in en["messages"].items()) and len(en["messages"]) < 5
    assert all(k != v for k, v in de["messages"].items()) and len(de["messages"]) > 300
    assert "superhero" not in de["messages"]  # only the scripts' messages travel
    resp = client.get("/api/i18n/xx", headers={"Accept-Language": "nl"})
    assert resp.status_code == 404
    assert resp.json() == {"error": "onbekende taal (gebruik de, en, nl, fr of pl)", "field": "lang"}
