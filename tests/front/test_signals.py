"""SIGTERM and SIGHUP to a running ``mcprobe audit`` clean up like Ctrl-C: the target's process
group is killed, nothing is left running, exit 143 / 129 with a one-line reason (real
subprocesses, real signals)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT
from tests.targets import TARGETS_DIR
from tests.targets.processes import pid_running

ROOT = REPO_ROOT
FRAGILE = str(TARGETS_DIR / "fragile.py")


def wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def started_calls(log: Path) -> int:
    if not log.exists():
        return 0
    return sum(1 for line in log.read_text().splitlines() if json.loads(line)["event"] == "call")


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_mid_audit_kills_the_target_and_exits_with_128_plus_the_signal(
    tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    log, pidfile = tmp_path / "log.jsonl", tmp_path / "pid"
    audit = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcprobe.cli",
            "audit",
            "--sandbox",
            "off",  # the pidfile and the pids are the host's (the sandbox is tested apart)
            "--fuzz",
            "--timeout",
            "60",
            "--",
            sys.executable,
            FRAGILE,
            "tools=slow_silent",
            "ignore_eof",  # only a kill stops it: an orphan would show
            "work=120",
            f"log={log}",
            f"pidfile={pidfile}",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The target is mid-call (it never answers slow_silent): the audit is running.
        assert wait_for(lambda: started_calls(log) >= 1, 60), "the audit never reached a call"
        target_pid = int(pidfile.read_text())
        assert pid_running(target_pid)
        audit.send_signal(sig)
        out, err = audit.communicate(timeout=30)
    finally:
        if audit.poll() is None:
            audit.kill()
            audit.wait()
    assert audit.returncode == code
    assert err.strip().splitlines() == [f"mcprobe: stopped by {sig.name}; the target was shut down"]
    assert out == ""
    # A SIGKILLed target may take a moment to vanish on a loaded machine; an orphan (it ignores
    # EOF and works 120 s) would still be running after the bounded wait.
    assert wait_for(lambda: not pid_running(target_pid), 20)


def test_without_a_signal_the_audit_exits_normally_and_the_handlers_are_restored() -> None:
    from mcprobe.cli import termination

    before = signal.getsignal(signal.SIGTERM)
    with termination.like_interrupt():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
    assert termination.received() is None
