"""A mis-tap on one sheet (docs/rooms.md, *A mis-tap*): a warning on that sheet naming the
cells that break it, the team status worked out on what can be counted, and an undo of the
seat's last sheet edit that says what it took back."""

from __future__ import annotations

from rooms_support import auth, new_room, put_cells as put_sheet, sit

CENTRE = [f"{c}{r}" for c in "GHI" for r in range(1, 8)]  # lockstep's columns G, H, I


def won_room(client):
    """A two-seat lockstep room both seats have won (G, H, I complete on both sheets)."""
    code = new_room(client, mission="lockstep", difficulty="normal", players=2)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    assert client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 20}, headers=auth(anna)).status_code == 200
    put_sheet(client, code, 0, anna, CENTRE)
    assert put_sheet(client, code, 1, ben, CENTRE)["status"]["state"] == "won"
    return code, anna, ben


def test_a_mis_tap_keeps_the_team_status_and_is_said_on_that_sheet(client):
    code, _, ben = won_room(client)
    status = put_sheet(client, code, 1, ben, CENTRE + ["A1"])["status"]
    assert status["state"] == "won"  # not blanked: Ben's sheet counts without A1
    assert status["objectives"] and status["objectives"][0]["met"]
    [warning] = status["impossible"]
    assert warning["seat"] == 1 and warning["name"] == "Ben" and warning["cells"] == ["A1"]
    assert warning["problems"] == ["A1 is not connected to column H"] and not warning["left_out"]
    assert warning["warning"] == "Ben's sheet is counted without A1: A1 is not connected to column H."
    # every phone reads the same
    assert client.get(f"/api/rooms/{code}").json()["status"]["impossible"] == [warning]


def test_a_sheet_that_cannot_be_fixed_by_cells_is_left_out(client):
    code = new_room(client, mission="lockstep", difficulty="normal", players=2)
    _, anna = sit(client, code, "Anna")
    _, ben = sit(client, code, "Ben")
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 1}, headers=auth(anna))
    put_sheet(client, code, 0, anna, ["H4"])
    status = put_sheet(client, code, 1, ben, CENTRE[:12])["status"]  # 12 cells in one roll
    [warning] = status["impossible"]
    assert warning["left_out"] and warning["cells"] == []
    assert warning["warning"].startswith("Ben's sheet is left out: 12 crosses take at least ")
    assert warning["warning"].endswith(" rolls, and this is roll 2.")  # roll 1 counted, roll 2 in play
    assert status["state"] == "in progress" and status["objectives"]
    assert status["objectives"][0]["progress"] == 0  # Anna's H4 completes nothing; Ben's sheet adds nothing


def test_undo_takes_back_the_last_tap_and_says_so(client):
    code, _, ben = won_room(client)
    put_sheet(client, code, 1, ben, CENTRE + ["A1"])
    version = client.get(f"/api/rooms/{code}").json()["seats"][1]["sheet_version"]
    res = client.post(f"/api/rooms/{code}/seats/1/undo", json={"version": version}, headers=auth(ben))
    assert res.status_code == 200, res.text
    body = res.json()
    assert body["undone"] == "A1 uncrossed"
    assert sorted(body["seat"]["cells"]) == sorted(CENTRE) and body["status"]["impossible"] == []
    assert body["status"]["state"] == "won"
    # a second undo goes one edit further back (Ben's G, H, I), it never redoes A1
    res = client.post(f"/api/rooms/{code}/seats/1/undo", json={"version": version + 1}, headers=auth(ben))
    assert res.status_code == 200 and res.json()["seat"]["cells"] == []
    assert res.json()["undone"] == " ".join(sorted(CENTRE, key=lambda c: (int(c[1:]), c[0]))) + " uncrossed"
    # then nothing is left: the join started from an empty sheet
    res = client.post(f"/api/rooms/{code}/seats/1/undo", json={"version": version + 2}, headers=auth(ben))
    assert res.status_code == 409 and res.json() == {"error": "nothing to undo on this sheet", "field": "undo"}


def test_undo_refusals(client):
    code, anna, ben = won_room(client)
    version = client.get(f"/api/rooms/{code}").json()["seats"][1]["sheet_version"]
    url = f"/api/rooms/{code}/seats/1/undo"
    assert client.post(url, json={"version": version}).status_code == 401
    assert client.post(url, json={"version": version}, headers=auth(anna)).status_code == 403
    stale = client.post(url, json={"version": version - 1}, headers=auth(ben))
    assert stale.status_code == 409 and stale.json()["field"] == "version"
    missing = client.post(url, json={}, headers=auth(ben))
    assert missing.status_code == 422 and missing.json()["field"] == "version"
    assert client.get(f"/api/rooms/{code}").json()["seats"][1]["sheet_version"] == version  # nothing changed


def test_undo_survives_a_restart(data_dir):
    """The undo is an edit like any other: a new app on the same data folder has it."""
    from fastapi.testclient import TestClient

    from rooms_support import make_app

    client = TestClient(make_app(data_dir))
    code, _, ben = won_room(client)
    put_sheet(client, code, 1, ben, CENTRE + ["A1"])
    version = client.get(f"/api/rooms/{code}").json()["seats"][1]["sheet_version"]
    assert client.post(f"/api/rooms/{code}/seats/1/undo", json={"version": version}, headers=auth(ben)).status_code == 200
    again = TestClient(make_app(data_dir))
    assert "A1" not in again.get(f"/api/rooms/{code}").json()["seats"][1]["cells"]


def test_competitive_warning_names_the_cells(client):
    code = new_room(client, mode="competitive", board="classic", players=2)
    _, anna = sit(client, code, "Anna")
    client.put(f"/api/rooms/{code}/rolls", json={"rolls_used": 2}, headers=auth(anna))
    status = put_sheet(client, code, 0, anna, ["H4", "O7", "N7"])["status"]
    [warning] = status["impossible"]
    assert warning["cells"] == ["N7", "O7"] and warning["warning"] == \
        "Anna's sheet cannot come from a legal game: N7 and O7 are not connected to column H."  # scored as it is
