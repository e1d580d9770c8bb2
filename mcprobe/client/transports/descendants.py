"""Find and kill every process a stdio target started, including those that left its group.

Killing the target's process group (``stdio``) misses a helper that called ``setsid()`` (or
``setpgid``): it is in a group of its own and would outlive the audit. Two measures, Linux only
(elsewhere both are no-ops and the group kill is all there is):

1. **The target is a child subreaper** (``prctl(PR_SET_CHILD_SUBREAPER)``, set in the child
   between ``fork`` and ``exec`` by ``lifeline.target_preexec``; the attribute survives
   ``execve``).
   An orphan anywhere below the target — the classic daemon double fork: fork, ``setsid``, fork,
   the middle process exits — is re-parented to the target instead of to init, so it stays in
   the target's process tree while the target lives.
2. **``DescendantTracker`` records the tree** by scanning ``/proc`` (every ``SCAN_INTERVAL``
   while the target runs, and once more just before the close sequence): every process whose
   parent chain leads to the target or to a process already recorded, with its start time.
   After the close sequence killed the group, ``kill_recorded`` SIGKILLs each recorded process
   that still runs *with the same start time* (a pid reused by an unrelated process is never
   touched).

Why both: the subreaper alone loses the tree when the target itself dies first (its children
go to init), and the scan alone misses a double fork that completes between two scans. Together
the only miss is a helper started less than one scan interval before the target died on its
own. Why not make mcprobe the subreaper: orphans would then arrive as mcprobe's own children,
with nothing to tell which of several open targets (mcprobe's server) they came from, or a
library user's other children apart. Why not an environment marker: a target could read it and
behave differently under audit.

The watchdog of ``lifeline.py`` keeps a tracker of its own per target, for the tree left when
mcprobe itself is SIGKILLed.

Cost: one ``/proc`` scan reads one small file per process of the machine; with a few hundred
processes that is about a millisecond, five times a second.
"""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

__all__ = ["SCAN_INTERVAL", "DescendantTracker", "group_members", "process_table", "start_time"]

SCAN_INTERVAL = 0.2
"""Seconds between two scans of the target's process tree while it runs."""
MAX_RECORDED = 4096
"""A fork bomb must not grow the record without bound; beyond this, the group kill remains."""
_PROC = Path("/proc")


def _stat(pid_dir: Path) -> tuple[int, int, int, int] | None:
    """(pid, ppid, start time in clock ticks, process group) of one /proc entry, None if it
    vanished or is a zombie (a zombie runs nothing; its parent reaps it)."""
    try:
        text = (pid_dir / "stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may contain spaces or ")".
    head, _, rest = text.rpartition(")")
    fields = rest.split()
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    try:
        return int(head.split(" ", 1)[0]), int(fields[1]), int(fields[19]), int(fields[2])
    except ValueError:
        return None


def _stats() -> list[tuple[int, int, int, int]]:
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return []
    return [found for entry in entries if entry.name.isdigit() and (found := _stat(entry))]


def process_table() -> dict[int, tuple[int, int]]:
    """Every live process: pid → (ppid, start time). Empty where there is no /proc."""
    return {pid: (ppid, start) for pid, ppid, start, _ in _stats()}


def group_members(pgid: int, *, since: int) -> list[int]:
    """Live processes in process group ``pgid`` started at or after ``since`` (clock ticks)."""
    return [pid for pid, _, start, group in _stats() if group == pgid and start >= since]


def start_time(pid: int) -> int | None:
    """The start time of a live process, None if it is gone (or there is no /proc)."""
    found = _stat(_PROC / str(pid))
    return found[2] if found is not None else None


class DescendantTracker:
    """The processes below one target (see the module docstring)."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.recorded: dict[int, int] = {}  # pid → start time
        self.enabled = _PROC.is_dir()

    def scan(self) -> None:
        """Record every process now below the root or below a process already recorded."""
        if not self.enabled:
            return
        table = process_table()
        # Parents we follow: the root, and every recorded process still running as itself.
        parents = {self.root} | {
            pid for pid, start in self.recorded.items() if table.get(pid, (0, -1))[1] == start
        }
        children: dict[int, list[int]] = {}
        for pid, (ppid, _) in table.items():
            children.setdefault(ppid, []).append(pid)
        stack = list(parents)
        while stack and len(self.recorded) < MAX_RECORDED:
            for child in children.get(stack.pop(), ()):
                if child != self.root and child not in self.recorded:
                    self.recorded[child] = table[child][1]
                    stack.append(child)

    def kill_recorded(self) -> list[int]:
        """SIGKILL every recorded process still running with its recorded start time; the pids
        signalled. Synchronous and quick, so it also runs while being cancelled."""
        if not self.recorded:
            return []
        table = process_table()
        killed: list[int] = []
        for pid, start in self.recorded.items():
            if table.get(pid, (0, -1))[1] != start:
                continue  # gone, or the pid now belongs to someone else
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        return killed

    def survivors(self) -> list[int]:
        """Recorded processes still running as themselves (for tests and diagnostics)."""
        table = process_table()
        return [pid for pid, start in self.recorded.items() if table.get(pid, (0, -1))[1] == start]
