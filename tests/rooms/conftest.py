"""Fixtures of the rooms tests: a data folder and the app on it, as `nochmal serve` builds it,
its rooms on either database (every test using ``client`` runs twice: SQLite in the data
folder, and PostgreSQL, docs/rooms.md "Storage"); for the browser tests, one live server
(SQLite) and one Chromium per module."""

import pytest
from fastapi.testclient import TestClient

from rooms_support import ThreadServer, close_rooms, make_app
from webserver import chromium


@pytest.fixture()
def data_dir(tmp_path):
    return tmp_path / "data"


def pytest_generate_tests(metafunc):
    """``store_url``: both databases, or SQLite alone for a test marked ``sqlite_only`` (its
    weight is the planner's or the status' work, and other tests cover its storage calls on
    PostgreSQL: the suite's time stays in check)."""
    if "store_url" in metafunc.fixturenames:
        both = metafunc.definition.get_closest_marker("sqlite_only") is None
        metafunc.parametrize("store_url", ["sqlite", "postgresql"] if both else ["sqlite"], indirect=True)


@pytest.fixture()
def store_url(request):
    """The rooms' database of the test's app: None (SQLite in the data folder), or the URL of
    the module's database on the tests' PostgreSQL server (tests/pg_support.py; rooms have
    random codes, so the tests of a module share it)."""
    return request.getfixturevalue("postgres_url") if request.param == "postgresql" else None


@pytest.fixture()
def client(data_dir, store_url):
    app = make_app(data_dir, store_url)
    yield TestClient(app)
    close_rooms(app)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app on its own data folder, served on a free loopback port (``server.api``: an
    httpx client on it, called as a TestClient)."""
    with ThreadServer(make_app(tmp_path_factory.mktemp("rooms-data"))) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    with chromium("--no-sandbox") as b:
        yield b
