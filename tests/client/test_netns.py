"""The SSRF listener of an isolated target lives in the sandbox's network namespace
(client/transports/netns.py): reachable from inside, never bound in mcprobe's own namespace."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from mcprobe.client.transports.netns import listener_in, netns_member
from mcprobe.client.transports.sandbox import bwrap_problem

_CONNECT = (
    "import socket,sys\n"
    "s=socket.create_connection(('127.0.0.1',int(sys.argv[1])),timeout=5)\n"
    "s.sendall(b'GET /inside HTTP/1.0\\r\\n\\r\\n')\n"
    "print('connected')\n"
)


def test_without_a_process_in_another_namespace_no_listener_is_made_in_ours() -> None:
    assert listener_in(None) == "the target's process is not known"
    assert netns_member(os.getpid()) is None
    assert listener_in(os.getpid()) == "no process of the target's network namespace was found"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="network namespaces are Linux")
def test_a_process_in_the_sandbox_reaches_the_listener_made_in_its_namespace() -> None:
    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"needs bubblewrap and namespaces: {problem}")
    if shutil.which("nsenter") is None:
        pytest.skip("needs nsenter (util-linux) to connect from inside")
    sleeper = subprocess.Popen(
        [
            "bwrap",
            "--unshare-all",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--",
            sys.executable,
            "-c",
            "import time; time.sleep(30)",
        ]
    )
    try:
        deadline = time.monotonic() + 10
        while netns_member(sleeper.pid) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        made = listener_in(sleeper.pid)
        if isinstance(made, str):
            pytest.skip(f"mcprobe may not enter the sandbox's namespace here: {made}")
        with made:
            port = made.getsockname()[1]
            assert made.getsockname()[0] == "127.0.0.1"
            member = netns_member(sleeper.pid)
            inside = subprocess.run(
                [
                    "nsenter",
                    f"--net=/proc/{member}/ns/net",
                    sys.executable,
                    "-c",
                    _CONNECT,
                    str(port),
                ],
                capture_output=True,
                text=True,
                timeout=20,
                check=False,
            )
            # the same port in mcprobe's own namespace is not this listener
            with pytest.raises(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
    finally:
        sleeper.kill()
        sleeper.wait()
    assert "connected" in inside.stdout, inside.stderr
