"""Fixtures of the rooms tests: a data folder and the app on it, as `nochmal serve` builds it."""

import pytest
from fastapi.testclient import TestClient

from rooms_support import make_app


@pytest.fixture()
def data_dir(tmp_path):
    return tmp_path / "data"


@pytest.fixture()
def client(data_dir):
    return TestClient(make_app(data_dir))
