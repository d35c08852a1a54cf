"""/api/clever (nochmal/web/routers/clever.py): a solo game against a seed played one action
at a time. Oracle: the same actions on a local CleverGame with the dice from
nochmal/clever/dice.py's seeded_throw at each throw's key give the same state; bad input is
a 4xx naming the field, never a traceback."""

import pytest
from fastapi.testclient import TestClient

from nochmal.clever import Action, CleverGame, seeded_throw
from nochmal.clever.state import to_state
from nochmal.web import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    with TestClient(create_app(tmp_path_factory.mktemp("clever"))) as c:
        yield c


def _local(seed: int, actions: list[str]) -> CleverGame:
    game = CleverGame(1)
    for text in [None] + actions:
        if text is not None:
            game.apply_move(Action.parse(text, game.facts))
        while game.is_chance_node():
            game.apply_roll(seeded_throw(seed, game.throw_key(), game.dice_to_throw()))
    return game


def test_a_game_played_through_the_api_is_the_seeds_game(client):
    view = client.post("/api/clever/games", json={"seed": 7}).json()
    assert view["phase"] == "active" and view["round"] == 1 and view["rounds"] == 6 and view["score"] == 0
    played = []
    for k in range(12):
        action = view["legal"][k % len(view["legal"])]
        played.append(action)
        view = client.post(f"/api/clever/games/{view['id']}/actions", json={"action": action}).json()
        assert view["state"] == to_state(_local(7, played))
    assert client.get(f"/api/clever/games/{view['id']}").json() == view
    local = _local(7, played)
    assert view["legal"] == [a.text(local.facts) for a in local.legal_moves()]
    assert {d["die"]: (d["number"], d["where"]) for d in view["dice"]} == {
        d: (n, w) for d, (n, w) in local.dice().items()}


def test_a_whole_game_ends_with_its_rating(client):
    view = client.post("/api/clever/games", json={"seed": 2}).json()
    while not view["over"]:
        view = client.post(f"/api/clever/games/{view['id']}/actions", json={"action": view["legal"][0]}).json()
    assert view["legal"] == [] and view["rating"] and view["phase"] == "over"
    refused = client.post(f"/api/clever/games/{view['id']}/actions", json={"action": "pass"})
    assert refused.status_code == 422 and refused.json()["field"] == "action"


@pytest.mark.parametrize("body, field", [({"action": "take yellow 9 pink"}, "action"),
                                         ({"action": "take white 1 blue:1"}, "action"),
                                         ({"action": "x" * 500}, "action"),
                                         ({"action": "pass", "extra": 1}, "extra")])
def test_a_bad_action_is_refused_naming_the_field(client, body, field):
    gid = client.post("/api/clever/games", json={"seed": 3}).json()["id"]
    answer = client.post(f"/api/clever/games/{gid}/actions", json=body)
    assert answer.status_code == 422
    assert field in str(answer.json()) and "Traceback" not in answer.text


def test_unknown_games_and_bad_seeds_are_refused(client):
    missing = client.get("/api/clever/games/" + "a" * 16)
    assert missing.status_code == 404 and missing.json()["field"] == "game_id"
    assert client.get("/api/clever/games/..%2Fx").status_code in (404, 422)
    assert client.post("/api/clever/games", json={"seed": -1}).status_code == 422
    assert client.post("/api/clever/games", json={"seed": "x"}).status_code == 422


def test_a_game_goes_on_after_a_restart(tmp_path):
    """The house rule: what the server acknowledged survives it. A new app on the same data
    folder (the old one gone) serves the game and plays on as the seed's game."""
    played = []
    with TestClient(create_app(tmp_path)) as first:
        view = first.post("/api/clever/games", json={"seed": 11}).json()
        for k in range(7):
            played.append(view["legal"][(3 * k) % len(view["legal"])])
            view = first.post(f"/api/clever/games/{view['id']}/actions", json={"action": played[-1]}).json()
    with TestClient(create_app(tmp_path)) as second:
        again = second.get(f"/api/clever/games/{view['id']}").json()
        assert again == view and again["state"] == to_state(_local(11, played))
        played.append(again["legal"][-1])
        after = second.post(f"/api/clever/games/{view['id']}/actions", json={"action": played[-1]}).json()
        assert after["state"] == to_state(_local(11, played))


def test_each_address_keeps_its_newest_games():
    from nochmal.web.clever_store import CleverGames
    from nochmal.web.rooms.store_open import open_database

    store = CleverGames(open_database(None, None, "clever.sqlite3"), built=1, per_address=2)
    first, _ = store.new(1, "10.0.0.1")
    other, _ = store.new(1, "10.0.0.2")
    second, _ = store.new(2, "10.0.0.1")
    third, _ = store.new(3, "10.0.0.1")
    with pytest.raises(Exception) as gone:
        store.get(first)
    assert gone.value.status == 404 and gone.value.field == "game_id"
    assert store.get(other).seed == 1 and store.get(second).seed == 2 and store.get(third).seed == 3  # replayed


def test_a_refusal_is_said_in_the_players_language(client):
    gid = client.post("/api/clever/games", json={"seed": 3}).json()["id"]
    said = {}
    for lang in ("en", "de", "fr"):
        answer = client.post(f"/api/clever/games/{gid}/actions", json={"action": "done"}, headers={"Accept-Language": lang})
        assert answer.status_code == 422 and answer.json()["field"] == "action"
        said[lang] = answer.json()["error"]
    assert said["en"].startswith("Done is not possible now")
    assert said["de"].startswith("Fertig") and "not possible" not in said["de"] and "not possible" not in said["fr"]
    typo = client.post(f"/api/clever/games/{gid}/actions", json={"action": "take purple 3 pink"},
                       headers={"Accept-Language": "de"}).json()  # bad notation: the parser's reason, in German too
    assert typo["field"] == "action" and typo["error"].startswith("ungültige Aktion 'take purple 3 pink'")
    labels = client.get(f"/api/clever/games/{gid}", headers={"Accept-Language": "de"}).json()["choices"]
    assert "Passen" in [c["label"] for c in labels] and all("row" not in c["label"] for c in labels)
