"""Suite-wide settings.

Starlette's TestClient sends ``Host: testserver``; the apps the tests build answer to that name
as ``nochmal serve --allow-host testserver`` would (nochmal/web/hosts.py). The tests of the
Host check itself build their own ``Access``."""

import os

import pytest

from pg_support import PostgresCluster

os.environ.setdefault("NOCHMAL_ALLOWED_HOSTS", "testserver")


def pytest_terminal_summary(terminalreporter):
    """The HTTP fuzzer's count of inputs (tests/security/test_security_fuzz.py), summed over its tests
    and over the xdist workers (their reports carry the user properties)."""
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])
               if r.when == "call" and "test_security_fuzz" in r.nodeid]
    inputs = sum(value for r in reports for name, value in r.user_properties if name == "http_fuzz_inputs")
    if reports:
        failed = sum(r.failed for r in reports)
        terminalreporter.write_line(f"HTTP fuzzer: {inputs} inputs over {len(reports)} tests, "
                                    f"{failed} failed (any 5xx or a refusal off the JSON shape fails)")


@pytest.fixture
def cpsat_by_work(monkeypatch):
    """Every CP-SAT solver built during the test (missions/cpsolver.py ``cp_solver``) stopped
    by work done, not by the clock: its wall-clock limit in seconds becomes the same number of
    CP-SAT's deterministic time units, with one worker and the caller's seed, so a proof a test
    asserts comes (or fails to come) alike on a fast machine and on a loaded one. Set through
    the environment, so the processes the test starts (the CLI, a server, the web app's
    planner jobs) follow it too."""
    from nochmal.missions import cpsolver

    monkeypatch.setenv(cpsolver.BY_WORK, "1")


@pytest.fixture(scope="session")
def postgres_cluster():
    """A real PostgreSQL server for the session (tests/pg_support.py), one per xdist worker;
    started only when a test asks for it, stopped at the end."""
    with PostgresCluster() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def postgres_url(postgres_cluster):
    """The URL of an empty database of the module's own on that server
    (``postgres_cluster.new_database()`` makes more)."""
    return postgres_cluster.new_database()
