"""Run the demo target over Streamable HTTP on 127.0.0.1, bearer-gated, for a test.

One helper for every test that needs a live HTTP target, so each gets the same guarantees: the
wait for the "READY <url>" line is bounded, and the server's whole process group is killed
afterwards, whatever the test did.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Iterator

from tests.support.paths import REPO_ROOT

REPO = REPO_ROOT


@contextlib.contextmanager
def http_demo_target(token_env: str, token: str, *, ready_within: float = 30.0) -> Iterator[str]:
    """Yield the URL of a demo target that demands ``Authorization: Bearer <token>``."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "demo_target", "--http", "0", "--bearer-token-env", token_env],
        cwd=REPO,
        env={**os.environ, token_env: token},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(proc.stdout, selectors.EVENT_READ)
            assert selector.select(ready_within), "the demo target did not start listening"
        line = proc.stdout.readline()
        assert line.startswith("READY "), line
        yield line.split()[1]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
