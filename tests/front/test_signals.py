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
        preexec_fn=default_sigint,
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


def default_sigint() -> None:
    """SIGINT as a terminal leaves it: a shell's background job inherits it ignored, and then
    Python's ``KeyboardInterrupt`` would interrupt any computation, hiding what CI sees (the
    asyncio runner's handler, which only cancels the main task once the event loop runs)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def quiet_for(log: Path, seconds: float) -> bool:
    """Nothing was sent for ``seconds``: the file's last change is that old."""
    return log.exists() and time.time() - log.stat().st_mtime >= seconds


@pytest.mark.slow
def test_a_signal_during_a_long_lint_ends_the_audit_within_seconds_and_the_target_is_gone(
    tmp_path: Path,
) -> None:
    # 5,000 tools: linting them takes far longer than the bound below (minutes before issue 22
    # moved the pure steps off the event loop; the signal used to wait for the whole lint).
    listed, log, pidfile = tmp_path / "listed", tmp_path / "log", tmp_path / "pid"
    audit = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcprobe.cli",
            "audit",
            "--timeout",
            "600",
            "--sandbox",  # the target's files and pid are read from the host
            "off",
            "--",
            sys.executable,
            str(TARGETS_DIR / "huge_listing.py"),
            "count=5000",
            f"listed={listed}",
            f"log={log}",
            f"pidfile={pidfile}",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        assert wait_for(listed.exists, 60), "the target never sent its listing"
        target_pid = int(pidfile.read_text())
        assert wait_for(lambda: quiet_for(log, 2.0), 120), "mcprobe never stopped talking"
        assert audit.poll() is None, "the audit ended before the signal"  # busy: the lint
        signalled = time.monotonic()
        audit.send_signal(signal.SIGTERM)
        _, err = audit.communicate(timeout=60)
        took = time.monotonic() - signalled
    finally:
        if audit.poll() is None:
            audit.kill()
            audit.wait()
    assert audit.returncode == 143, err
    assert err.strip().splitlines()[-1] == "mcprobe: stopped by SIGTERM; the target was shut down"
    # The close sequence of a target that exits on stdin EOF is well under a second; the rest
    # is a loaded machine. The lint alone takes minutes.
    assert took < 15, f"SIGTERM took {took:.1f} s to end the audit"
    assert wait_for(lambda: not pid_running(target_pid), 20)


def test_without_a_signal_the_audit_exits_normally_and_the_handlers_are_restored() -> None:
    from mcprobe.cli import termination

    before = signal.getsignal(signal.SIGTERM)
    with termination.like_interrupt():
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
    assert termination.received() is None
