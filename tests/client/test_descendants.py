"""Descendant tracking of stdio targets: the process tree in /proc, start times, the subreaper."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from mcprobe.client.transports.descendants import (
    DescendantTracker,
    process_table,
)
from mcprobe.client.transports.stdio import discard_started, spawn_target
from tests.targets.processes import pid_running

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl")

# Fork, setsid, fork; the middle process exits at once; the daemon sleeps; print its pid once
# the middle process has been reaped (waitpid): the daemon is re-parented while the middle
# process exits, so printing as soon as the pid arrives raced that exit on a loaded machine.
DOUBLE_FORK = (
    "import os,sys,time\n"
    "r,w=os.pipe()\n"
    "m=os.fork()\n"
    "if m==0:\n"
    "    os.setsid()\n"
    "    d=os.fork()\n"
    "    if d==0:\n"
    "        time.sleep(60); os._exit(0)\n"
    "    os.write(w,str(d).encode()); os._exit(0)\n"
    "d=int(os.read(r,32))\n"
    "os.waitpid(m,0)\n"
    "print(d,flush=True)\n"
    "time.sleep(60)\n"
)


def _wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + 30  # generous: a SIGKILLed process on a loaded machine
    while pid_running(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not pid_running(pid)


def test_a_double_forked_daemon_stays_in_the_subreaper_targets_tree_and_is_killed() -> None:
    target = spawn_target(sys.executable, ("-c", DOUBLE_FORK), env={}, cwd=None)
    try:
        assert target.stdout is not None
        daemon = int(target.stdout.readline())
        # The middle process is gone: without the subreaper the daemon would belong to init.
        assert process_table()[daemon][0] == target.pid
        tracker = DescendantTracker(target.pid)
        tracker.scan()
        assert daemon in tracker.recorded
        discard_started(target)  # the group kill: the daemon is in a session of its own
        assert pid_running(daemon)
        assert tracker.kill_recorded() == [daemon]
        assert _wait_gone(daemon)
    finally:
        discard_started(target)


def test_a_recorded_pid_that_now_has_another_start_time_is_never_signalled() -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        tracker = DescendantTracker(1)
        start = process_table()[sleeper.pid][1]
        tracker.recorded[sleeper.pid] = start + 1  # as if the pid had been reused
        assert tracker.kill_recorded() == []
        assert sleeper.poll() is None
        tracker.recorded[sleeper.pid] = start
        assert tracker.kill_recorded() == [sleeper.pid]
        assert sleeper.wait(timeout=5) == -9
    finally:
        sleeper.kill()
        sleeper.wait()
