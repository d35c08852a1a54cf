"""The web tests' shared fixtures: the app served on a free port and one Chromium, each once
per test module (tests/webserver.py)."""

from __future__ import annotations

import pytest

from webserver import LiveServer, chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Jobs capped short (6 s, abandoned after 20 s without a poll): a test sees a job end."""
    with LiveServer(tmp_path_factory.mktemp("webdata"), job_time_cap=6.0, abandon_after=20.0) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser():
    with chromium() as br:
        yield br
