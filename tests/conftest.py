"""Suite-wide settings.

Starlette's TestClient sends ``Host: testserver``; the apps the tests build answer to that name
as ``nochmal serve --allow-host testserver`` would (nochmal/web/hosts.py). The tests of the
Host check itself build their own ``Access``."""

import os

os.environ.setdefault("NOCHMAL_ALLOWED_HOSTS", "testserver")


def pytest_terminal_summary(terminalreporter):
    """The HTTP fuzzer's count of inputs (tests/test_security_fuzz.py), summed over its tests
    and over the xdist workers (their reports carry the user properties)."""
    reports = [r for key in ("passed", "failed") for r in terminalreporter.stats.get(key, [])
               if r.when == "call" and "test_security_fuzz" in r.nodeid]
    inputs = sum(value for r in reports for name, value in r.user_properties if name == "http_fuzz_inputs")
    if reports:
        failed = sum(r.failed for r in reports)
        terminalreporter.write_line(f"HTTP fuzzer: {inputs} inputs over {len(reports)} tests, "
                                    f"{failed} failed (any 5xx or a refusal off the JSON shape fails)")
