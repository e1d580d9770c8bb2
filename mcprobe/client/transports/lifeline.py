"""A stdio target dies with mcprobe, even when mcprobe itself is SIGKILLed (Linux).

The close sequence (``stdio.open_stdio``) and the CLI's signal handlers stop a target whenever
mcprobe gets to run code. A SIGKILLed mcprobe (the OOM killer, ``kill -9``, a CI runner tearing
down a job) runs nothing, and without the two measures below its target, the target's children
and the daemons they started would run on under init.

1. **PR_SET_PDEATHSIG(SIGKILL)** in the target, set between ``fork`` and ``exec`` next to the
   child-subreaper ``prctl`` (``target_preexec``; both survive ``execve``): the kernel SIGKILLs
   the target the moment its parent goes. The "parent" is the *thread* that forked it: a child
   forked by a worker thread (an anyio ``to_thread`` worker retires after 10 s idle) would be
   killed when that thread exits, in the middle of an audit. ``popen_target`` therefore forks
   on the main thread when it is called there, and otherwise on one spawner thread that lives
   as long as the process. The hook also closes the race where mcprobe dies between ``fork``
   and the ``prctl``: it compares ``getppid()`` with mcprobe's pid and exits if they differ.
2. **A watchdog process** for what PDEATHSIG cannot reach: the target's children (a signal
   setting is not inherited across ``fork``) and the daemons below the target, which the
   target's death re-parents to init. One small stdlib-only Python process per mcprobe process
   (``python -S -E -s``, in a session of its own so a group signal to mcprobe or its target
   spares it), started with the first target. mcprobe tells it over a pipe (its stdin) each
   target it started (pid = process group id, and start time) and each target it closed. While
   targets are registered the watchdog records their trees like mcprobe does
   (``DescendantTracker``, every ``SCAN_INTERVAL``: it also covers the CLI's pre-started target
   during the imports, before mcprobe's own tracker runs). When it reads end-of-file with
   targets still registered, mcprobe died without closing them, and it SIGKILLs, in rounds
   until none is left: the target's process group (unless the group id now belongs to a new
   leader: a reused pid), every recorded descendant still running with its recorded start
   time, and whatever a last scan of the tree still finds. Then it exits. Only mcprobe holds
   the pipe's write end (close-on-exec, closed in a ``fork`` child), so end-of-file means
   mcprobe is gone. The miss left is the one ``descendants.py`` already has: a helper that
   leaves the group less than one scan interval before mcprobe dies.

Why a watchdog and not mcprobe as the subreaper: see ``descendants.py``; and no subreaper helps
once mcprobe is dead. Why not a PID namespace (its init's death kills the namespace): the
target would be pid 1 (which ignores SIGTERM without a handler) in a user namespace, a changed
world for the server under audit. Off Linux both measures are off; the close sequence and the
group kill remain.
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from mcprobe.client.transports.descendants import (
    SCAN_INTERVAL,
    DescendantTracker,
    group_members,
    start_time,
)

__all__ = ["Lifeline", "lifeline", "popen_target", "target_preexec", "watch"]

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_LINUX = sys.platform.startswith("linux")
SANDBOX_PREFIX = "mcprobe-sandbox-"
"""The name start of a sandbox's copy directory (``sandbox.prepare``): the only kind of
directory the watchdog removes."""
_KILL_ROUNDS = 50
"""At most this many kill rounds of 20 ms (1 s) for a tree that keeps forking."""
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])
"""The directory that holds the ``mcprobe`` package (the watchdog imports this module only)."""
_WATCH_CODE = (
    "import sys; sys.path.append({root!r}); "
    "from mcprobe.client.transports.lifeline import watch; watch()"
)


# --------------------------------------------------------------------------- in the child


def target_preexec(limits: Sequence[tuple[int, int]] = ()) -> Callable[[], None] | None:
    """The ``preexec_fn`` of every stdio target: child subreaper, SIGKILL when the parent (the
    forking thread) goes, and an exit if mcprobe already went. None off Linux or when libc
    cannot be loaded. libc and ``prctl`` are resolved here, in the parent, so the function run
    between ``fork`` and ``exec`` makes foreign calls only. ``limits`` are ``(RLIMIT_*, value)``
    pairs set (soft and hard) before the exec: the sandbox's resource limits."""
    if not _LINUX:
        return None
    try:
        import ctypes  # only here: the CLI imports this module before its heavy imports

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()
    setrlimit = _setrlimit() if limits else None

    def prepare() -> None:
        if setrlimit is not None:
            for resource, value in limits:
                setrlimit(resource, (value, value))
        prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        if os.getppid() != parent:  # mcprobe died before the prctl: nobody to send the signal
            os._exit(1)

    return prepare


# --------------------------------------------------------------------------- forking


class _Spawner:
    """One thread, alive as long as the process, that forks targets for callers that are not
    the main thread (so PDEATHSIG never fires because the calling thread retired)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[Any]]]
        self._jobs = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="mcprobe-spawner", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            job, answer = self._jobs.get()
            try:
                answer.put((True, job()))
            except BaseException as exc:  # handed back to the caller, raised there
                answer.put((False, exc))

    def run(self, job: Callable[[], Any]) -> Any:
        answer: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._jobs.put((job, answer))
        ok, value = answer.get()
        if not ok:
            raise value
        return value


_spawner_lock = threading.Lock()
_spawner: _Spawner | None = None


def _on_spawner(job: Callable[[], Any]) -> Any:
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = _Spawner()
        spawner = _spawner
    return spawner.run(job)


def _setrlimit() -> Callable[[int, tuple[int, int]], None] | None:
    try:
        import resource  # only here: the CLI imports this module before its heavy imports
    except ImportError:
        return None
    return resource.setrlimit


def popen_target(
    argv: Sequence[str],
    *,
    env: dict[str, str],
    cwd: str | None,
    limits: Sequence[tuple[int, int]] = (),
) -> subprocess.Popen[bytes]:
    """Start a stdio target: its own session (so its own process group), pipes on all three
    streams, ``target_preexec`` (forked on a thread that outlives it), registered with the
    watchdog. Raises ``OSError`` when it cannot be started."""
    line = lifeline()
    line.start()  # before the target: a SIGKILL right after the fork still finds a watchdog

    def fork() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
            start_new_session=True,
            preexec_fn=target_preexec(limits),
        )

    popen = fork() if threading.current_thread() is threading.main_thread() else _on_spawner(fork)
    line.watch(popen.pid)
    return popen


# --------------------------------------------------------------------------- in mcprobe


class Lifeline:
    """mcprobe's end of the pipe to its watchdog (see the module docstring). Every method is a
    no-op off Linux, when the watchdog cannot be started, or once it is gone; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watchdog: subprocess.Popen[bytes] | None = None
        self._fd: int | None = None
        self._tried = False

    @property
    def watchdog_pid(self) -> int | None:
        with self._lock:
            return self._watchdog.pid if self._watchdog is not None else None

    def start(self) -> None:
        """Start the watchdog unless it runs (or could not be started before)."""
        with self._lock:
            self._start_locked()

    def _start_locked(self) -> None:
        if self._fd is not None or self._tried or not _LINUX or not sys.executable:
            return
        self._tried = True
        try:
            watchdog = subprocess.Popen(
                [sys.executable, "-S", "-E", "-s", "-c", _WATCH_CODE.format(root=_PACKAGE_ROOT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",
                start_new_session=True,
            )
        except OSError:
            return
        assert watchdog.stdin is not None
        self._watchdog = watchdog
        self._fd = watchdog.stdin.fileno()
        os.set_blocking(self._fd, False)  # a stopped watchdog must never block mcprobe

    def _send(self, line: str) -> None:
        with self._lock:
            self._start_locked()
            if self._fd is None:
                return
            try:
                os.write(self._fd, line.encode("ascii") + b"\n")
            except OSError:  # gone (EPIPE) or stuck (EAGAIN): the close sequence is what remains
                self._drop_locked()

    def _drop_locked(self) -> None:
        watchdog, self._watchdog, self._fd = self._watchdog, None, None
        if watchdog is not None and watchdog.stdin is not None:
            with contextlib.suppress(OSError):
                watchdog.stdin.close()

    def watch(self, root: int) -> None:
        """A target (its pid is its process group id) to kill if mcprobe dies."""
        started = start_time(root)
        if started is not None:
            self._send(f"g {root} {started}")

    def release(self, root: int) -> None:
        """Target ``root`` was closed: forget it and its descendants."""
        self._send(f"x {root}")

    def remove_on_death(self, root: int, directory: str) -> None:
        """A directory of target ``root``'s (its sandbox copies) to remove if mcprobe dies
        first; forgotten with ``release`` (mcprobe removes it itself then)."""
        if os.path.basename(directory).startswith(SANDBOX_PREFIX):
            self._send(f"d {root} {directory.encode('utf-8', 'surrogateescape').hex()}")

    def forget_after_fork(self) -> None:
        """In a ``fork`` child: this process is not the one whose death the watchdog awaits."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._watchdog, self._fd, self._tried = None, None, False
        self._lock = threading.Lock()


_LIFELINE = Lifeline()


def lifeline() -> Lifeline:
    """This process's lifeline."""
    return _LIFELINE


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_LIFELINE.forget_after_fork)


# --------------------------------------------------------------------------- the watchdog


class _Watch:
    """The watchdog's state: each registered target with its start time and tracker."""

    def __init__(self) -> None:
        self.roots: dict[int, int] = {}
        self.trackers: dict[int, DescendantTracker] = {}
        self.directories: dict[int, list[str]] = {}

    def apply(self, raw: bytes) -> None:
        """One command; a malformed line is skipped."""
        parts = raw.split()
        if parts[:1] == [b"d"] and len(parts) == 3:
            self._directory(parts[1], parts[2])
            return
        try:
            numbers = [int(p) for p in parts[1:]]
        except ValueError:
            return
        if parts[:1] == [b"g"] and len(numbers) == 2:
            self.roots[numbers[0]] = numbers[1]
            self.trackers.setdefault(numbers[0], DescendantTracker(numbers[0]))
        elif parts[:1] == [b"x"] and len(numbers) == 1:
            self.roots.pop(numbers[0], None)
            self.trackers.pop(numbers[0], None)
            self.directories.pop(numbers[0], None)

    def _directory(self, root: bytes, hexed: bytes) -> None:
        try:
            path = bytes.fromhex(hexed.decode("ascii")).decode("utf-8", "surrogateescape")
            number = int(root)
        except ValueError:
            return
        # Only a sandbox copy directory of mcprobe's, absolute: never anything else.
        if os.path.isabs(path) and os.path.basename(path).startswith(SANDBOX_PREFIX):
            self.directories.setdefault(number, []).append(path)

    def remove_directories(self) -> None:
        """After the kill: the copy directories of the targets mcprobe never released."""
        for paths in self.directories.values():
            for path in paths:
                shutil.rmtree(path, ignore_errors=True)

    def _owned(self, root: int) -> bool:
        """Whether ``root`` is still (or no longer anybody but) the target registered: a live
        process with that pid and another start time is a reused pid, not ours."""
        leader = start_time(root)
        return leader is None or leader == self.roots[root]

    def scan(self) -> None:
        for root, tracker in self.trackers.items():
            if self._owned(root):
                tracker.scan()

    def kill_round(self) -> bool:
        """SIGKILL what is left of each target; whether anything was found running."""
        found = False
        for root, tracker in self.trackers.items():
            if self._owned(root):
                tracker.scan()  # children forked since the last round, while their parents live
                for pid in group_members(root, since=self.roots[root]):
                    found = True
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
            found = bool(tracker.kill_recorded()) or found
        return found

    def kill_all(self) -> None:
        """Kill every registered target's group and tree, in rounds until none runs."""
        for _ in range(_KILL_ROUNDS):
            if not self.kill_round():
                return
            time.sleep(0.02)


def watch(fd: int = 0) -> None:
    """The watchdog's main: follow mcprobe's commands on ``fd`` and scan the registered targets'
    trees every ``SCAN_INTERVAL`` until end-of-file (mcprobe is gone), then kill what is left."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_IGN)
    state = _Watch()
    pending = b""
    while True:
        ready, _, _ = select.select([fd], [], [], SCAN_INTERVAL if state.roots else None)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for raw in lines:
                state.apply(raw)
        state.scan()
    if state.roots:
        state.kill_all()
    state.remove_directories()
