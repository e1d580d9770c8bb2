"""A stdio target dies with mcprobe even when mcprobe is SIGKILLed (lifeline.py): PDEATHSIG in
the target, forks on a thread that outlives the target, and the watchdog that kills the rest
(real processes, real signals; Linux only)."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import pytest

from mcprobe.client.transports.descendants import SCAN_INTERVAL, process_table, start_time
from mcprobe.client.transports.lifeline import lifeline, popen_target, target_preexec
from mcprobe.client.transports.stdio import discard_started
from tests.support.paths import REPO_ROOT
from tests.targets import TARGETS_DIR
from tests.targets.processes import pid_running

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG, /proc and the watchdog: Linux"
)

RAW = str(TARGETS_DIR / "rawserver.py")
# Ignores SIGTERM and stdin EOF, has a child in its group that ignores SIGTERM too, a helper in
# a session of its own and a double-forked daemon: nothing but a kill of each one stops them.
STUBBORN = ("ignore_term", "escape_setsid")
SETTLE = 3 * SCAN_INTERVAL
"""Setup, not an assertion: long enough for the watchdog's tree scan to have seen the helpers
(a helper leaving the group less than one scan before mcprobe dies is the documented miss)."""
WATCH_CODE = "from mcprobe.client.transports.lifeline import watch; watch()"


def wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def stubborn_pids(pidfile: Path) -> list[int]:
    """The target's four pids once it wrote them all, else []."""
    with suppress(FileNotFoundError, ValueError):
        pids = [int(p) for p in pidfile.read_text().split()]
        if len(pids) == 4:
            return pids
    return []


def watchdog_of(parent: int) -> int | None:
    for pid, (ppid, _) in process_table().items():
        if ppid == parent:
            with suppress(OSError):
                if b"lifeline import watch" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return pid
    return None


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


@contextmanager
def started(argv: list[str], **kwargs: Any) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(argv, cwd=REPO_ROOT, **kwargs)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def assert_sigkill_leaves_nothing(mcprobe: subprocess.Popen[bytes], pidfile: Path) -> None:
    """Wait for the stubborn target and mcprobe's watchdog, SIGKILL mcprobe, then every one of
    them must be gone within a bounded wait."""
    pids: list[int] = []
    try:
        assert wait_for(lambda: bool(stubborn_pids(pidfile)), 60), "the target never started"
        pids = stubborn_pids(pidfile)
        assert all(pid_running(pid) for pid in pids)
        watchdog = watchdog_of(mcprobe.pid)
        assert watchdog is not None, "mcprobe started no watchdog"
        pids.append(watchdog)
        time.sleep(SETTLE)
        mcprobe.kill()
        mcprobe.wait()
        # Generous: SIGKILLed processes vanish slowly on a loaded machine; an orphan (each one
        # ignores SIGTERM and EOF and sleeps 10 minutes) would still be running.
        assert wait_for(lambda: not any(pid_running(pid) for pid in pids), 30), [
            pid for pid in pids if pid_running(pid)
        ]
    finally:
        kill_all(pids)


@pytest.mark.slow
def test_a_sigkilled_cli_audit_takes_its_stubborn_target_and_all_its_descendants_along(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pids"
    argv = [sys.executable, "-m", "mcprobe.cli", "audit", "--sandbox", "off"]  # host pids
    argv += ["--connect-timeout", "120", "--"]
    argv += [sys.executable, RAW, "silent", *STUBBORN, f"pidfile={pidfile}"]
    with started(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as audit:
        assert_sigkill_leaves_nothing(audit, pidfile)


def _rpc_line(proc: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _reply(proc: subprocess.Popen[bytes], rid: int, seconds: float) -> dict[str, Any]:
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = time.monotonic() + seconds
    buffer = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            continue
        chunk = os.read(fd, 65536)
        assert chunk, "the server closed its stdout"
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if message.get("id") == rid:
                return dict(message)
    raise AssertionError(f"no reply to request {rid}")


@pytest.mark.slow
def test_a_sigkilled_mcp_server_takes_its_connected_stubborn_target_along(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    argv = [sys.executable, "-m", "mcprobe.server"]
    pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL}
    with started(argv, **pipes) as server:
        init = {"protocolVersion": "2025-06-18", "capabilities": {}}
        init["clientInfo"] = {"name": "test", "version": "1"}
        _rpc_line(server, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
        _reply(server, 1, 60)
        _rpc_line(server, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        arguments = {
            "command": sys.executable,
            "args": [RAW, *STUBBORN, f"pidfile={pidfile}"],
            "sandbox": "off",  # the pidfile and its pids are the host's
        }
        params = {"name": "probe_connect", "arguments": arguments}
        _rpc_line(server, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
        connected = _reply(server, 2, 60)
        assert connected["result"].get("isError") is not True, connected
        assert_sigkill_leaves_nothing(server, pidfile)


def _thread_gone(native_id: int) -> bool:
    return not Path(f"/proc/self/task/{native_id}").exists()


def _answers_initialize(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the rawserver target still answers (a killed one gives end-of-file)."""
    assert proc.stdin is not None and proc.stdout is not None
    with suppress(BrokenPipeError):
        _rpc_line(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        return bool(proc.stdout.readline())
    return False


def _in_a_thread_that_retires(job: Callable[[], subprocess.Popen[bytes]]) -> Any:
    """Run ``job`` in a fresh thread, wait until the OS thread is gone, return its result."""
    box: dict[str, Any] = {}

    def run() -> None:
        box["native_id"] = threading.get_native_id()
        box["popen"] = job()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert wait_for(lambda: _thread_gone(box["native_id"]), 30)
    return box["popen"]


def test_pdeathsig_would_kill_a_target_forked_by_a_thread_that_then_retires() -> None:
    # The control: what popen_target avoids. PDEATHSIG fires when the forking thread exits.
    def fork() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, RAW],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=target_preexec(),
        )

    target = _in_a_thread_that_retires(fork)
    try:
        assert wait_for(lambda: target.poll() is not None, 30)
        assert target.returncode == -signal.SIGKILL
    finally:
        discard_started(target)


def test_a_target_started_from_an_anyio_worker_thread_survives_that_threads_exit() -> None:
    workers: list[int] = []

    def spawn() -> subprocess.Popen[bytes]:
        workers.append(threading.get_native_id())
        return popen_target([sys.executable, RAW], env=dict(os.environ), cwd=None)

    async def from_worker() -> subprocess.Popen[bytes]:
        return await anyio.to_thread.run_sync(spawn)

    target = _in_a_thread_that_retires(lambda: anyio.run(from_worker))
    try:
        # The worker retires with its event loop or after its idle time (10 s), then the
        # signal would have been sent.
        assert wait_for(lambda: _thread_gone(workers[0]), 30)
        assert target.poll() is None
        assert _answers_initialize(target)
    finally:
        discard_started(target)


def test_a_target_started_on_the_main_thread_survives_and_is_watched() -> None:
    target = popen_target([sys.executable, RAW], env=dict(os.environ), cwd=None)
    try:
        assert _answers_initialize(target)
        assert lifeline().watchdog_pid is not None
        assert pid_running(lifeline().watchdog_pid or 0)
    finally:
        discard_started(target)


# ------------------------------------------------------------------ the watchdog on its own


@contextmanager
def sleeper_group() -> Iterator[subprocess.Popen[bytes]]:
    """A process in a group of its own, ignoring SIGTERM, with a child in the same group."""
    code = (
        "import signal,subprocess,sys,time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "c=subprocess.Popen([sys.executable,'-c','import time; time.sleep(600)'])\n"
        "print(c.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, start_new_session=True
    )
    try:
        yield proc
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run_watchdog(commands: list[str]) -> None:
    """A real watchdog process fed ``commands``, then end-of-file (as if mcprobe died); returns
    once it exited."""
    watchdog = subprocess.Popen(
        [sys.executable, "-S", "-E", "-s", "-c", WATCH_CODE],
        stdin=subprocess.PIPE,
        cwd=REPO_ROOT,
    )
    assert watchdog.stdin is not None
    watchdog.stdin.write("".join(c + "\n" for c in commands).encode())
    watchdog.stdin.close()
    assert watchdog.wait(timeout=30) == 0


def test_the_watchdog_kills_a_registered_group_when_its_pipe_closes() -> None:
    with sleeper_group() as group:
        assert group.stdout is not None
        child = int(group.stdout.readline())
        run_watchdog([f"g {group.pid} {start_time(group.pid)}"])
        assert wait_for(lambda: group.poll() is not None, 30)
        assert wait_for(lambda: not pid_running(child), 30)


@pytest.mark.parametrize(
    "commands",
    [
        pytest.param(lambda pid, start: [f"g {pid} {start}", f"x {pid}"], id="released"),
        pytest.param(lambda pid, start: [f"g {pid} {start + 1}"], id="pid-reused"),
        pytest.param(lambda pid, start: ["g nonsense", f"g {pid}"], id="malformed"),
    ],
)
def test_the_watchdog_spares_a_released_reused_or_malformed_registration(
    commands: Callable[[int, int], list[str]],
) -> None:
    with sleeper_group() as group:
        assert group.stdout is not None
        child = int(group.stdout.readline())
        started_at = start_time(group.pid)
        assert started_at is not None
        run_watchdog(commands(group.pid, started_at))
        assert group.poll() is None
        assert pid_running(child)


@pytest.mark.slow
def test_a_sigkilled_audit_leaves_no_sandbox_copy_behind(tmp_path: Path) -> None:
    from mcprobe.client.transports.sandbox import bwrap_problem

    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"needs bubblewrap and namespaces: {problem}")
    temp = tmp_path / "tmp"  # mcprobe's TMPDIR: where its copy directories are made
    temp.mkdir()
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "data.txt").write_text("the user's file\n")
    argv = [sys.executable, "-m", "mcprobe.cli", "audit", "--sandbox", "required"]
    argv += ["--connect-timeout", "120", "--cwd", str(fixture), "--"]
    argv += [sys.executable, RAW, "silent"]  # never answers: mcprobe waits, the copy exists
    env = dict(os.environ, TMPDIR=str(temp))

    def copies() -> list[Path]:
        return [p for p in temp.iterdir() if p.name.startswith("mcprobe-sandbox-")]

    with started(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env) as audit:
        assert wait_for(lambda: bool(copies()) and watchdog_of(audit.pid) is not None, 60)
        assert (copies()[0] / "0" / "data.txt").exists()  # the private copy of the fixture
        time.sleep(SETTLE)
        audit.kill()
        audit.wait()
        assert wait_for(lambda: not copies(), 30), copies()
    assert (fixture / "data.txt").read_text() == "the user's file\n"


def test_the_watchdog_removes_only_sandbox_copy_directories(tmp_path: Path) -> None:
    copy = tmp_path / "mcprobe-sandbox-abc"
    copy.mkdir()
    other = tmp_path / "the-users-dir"
    other.mkdir()
    watchdog = subprocess.Popen(
        [sys.executable, "-c", WATCH_CODE], stdin=subprocess.PIPE, cwd=REPO_ROOT
    )
    assert watchdog.stdin is not None
    for path in (copy, other, Path("mcprobe-sandbox-relative")):
        watchdog.stdin.write(f"d 1 {str(path).encode().hex()}\n".encode())
    watchdog.stdin.write(b"d 1 not-hex\nd x 00\n")
    watchdog.stdin.close()
    watchdog.wait(30)
    assert not copy.exists()
    assert other.is_dir()
