"""Fixtures of the rooms tests: a data folder and the app on it, as `nochmal serve` builds it;
for the browser tests, one live server and one Chromium per module."""

import pytest
from fastapi.testclient import TestClient

from rooms_support import ThreadServer, make_app
from webserver import chromium


@pytest.fixture()
def data_dir(tmp_path):
    return tmp_path / "data"


@pytest.fixture()
def client(data_dir):
    return TestClient(make_app(data_dir))


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
