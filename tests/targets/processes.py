"""Did a target leave anything running? Pids come from the pidfile the target itself wrote."""

from __future__ import annotations

import os
import signal
from contextlib import suppress
from pathlib import Path

import anyio


def read_pids(pidfile: Path) -> list[int]:
    return [int(p) for p in pidfile.read_text().split()]


def pid_running(pid: int) -> bool:
    """``os.kill(pid, 0)`` succeeds and the process is not a zombie waiting for its reaper
    (a grandchild re-parented to a container's pid 1 may stay a zombie: it runs nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


async def survivors(pidfile: Path, grace: float = 3.0) -> list[int]:
    """The pids listed in ``pidfile`` still running after up to ``grace`` seconds of polling."""
    pids = read_pids(pidfile)
    with anyio.move_on_after(grace):
        while any(pid_running(pid) for pid in pids):  # noqa: ASYNC110 (no exit event to await)
            await anyio.sleep(0.05)
    return [pid for pid in pids if pid_running(pid)]


async def survivors_killed(pidfile: Path, grace: float = 3.0) -> list[int]:
    """``survivors``, each then SIGKILLed, so a failing test leaves nothing running."""
    left = await survivors(pidfile, grace)
    for pid in left:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return left


def _stat(pid: str) -> tuple[str, int] | None:
    """(state, process group) of ``pid`` from /proc, or None if it has vanished."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return fields[0], int(fields[2])


def group_gone(pgid: int) -> bool:
    """True when no running (non-zombie) process is left in process group ``pgid``."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(entry)
            if stat is not None and stat[1] == pgid and stat[0] not in ("Z", "X"):
                return False
    return True
