"""Suite-wide settings.

Starlette's TestClient sends ``Host: testserver``; the apps the tests build answer to that name
as ``nochmal serve --allow-host testserver`` would (nochmal/web/hosts.py). The tests of the
Host check itself build their own ``Access``."""

import os

os.environ.setdefault("NOCHMAL_ALLOWED_HOSTS", "testserver")
