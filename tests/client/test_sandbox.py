"""Isolation of stdio targets (issue 20): a hostile target's escape attempts fail inside the
bubblewrap sandbox, and the same attempts succeed with ``--sandbox off`` (so each assertion can
fail). Every audit here runs inside ``unshare -rn`` (a loopback-only network namespace, its own
PID namespace), so nothing can leave the machine even if isolation broke; the only
non-loopback address used, 203.0.113.1 (TEST-NET-3), is a connect() target the namespaces
must refuse."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from mcprobe.client.transports.sandbox import bwrap_problem, prepare, stopped_by
from mcprobe.core.cases.selection import CALLED_ISOLATED
from mcprobe.core.errors import UsageError
from mcprobe.core.isolation import Isolation, Limits
from tests.targets import TARGETS_DIR

ESCAPER = str(TARGETS_DIR / "escaper.py")
REPO = Path(__file__).resolve().parents[2]
KEY = "-----BEGIN FAKE TEST KEY----- planted-by-mcprobe-test-5e1f"
# --mount-proc: bubblewrap reads /proc/<its pid>/ns, which must be this PID namespace's /proc.
NETNS = ("unshare", "-rn", "--pid", "--fork", "--kill-child", "--mount-proc", "--")

# Runs inside the loopback-only namespace: a listener on its 127.0.0.1 (an isolated target has
# a loopback of its own and cannot reach it), the audit, then a look for the target's daemon.
HELPER = r"""
import json, os, socket, subprocess, sys, threading, time
subprocess.run(["ip", "link", "set", "lo", "up"], check=False, capture_output=True)
mode, fixture, escaper = sys.argv[1:4]
mark = os.environ["ESCAPER_TEST_MARK"]  # not in an argv of ours: only the daemon has it
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(8)
hits = []
def accept():
    while True:
        conn, _ = server.accept()
        hits.append(1)
        conn.close()
threading.Thread(target=accept, daemon=True).start()
port = server.getsockname()[1]
consent = "--fuzz" if mode != "off" else "--fuzz-destructive"  # isolated: --fuzz calls all
argv = [sys.executable, "-m", "mcprobe", "audit", "--json", consent, "--no-config",
        "--sandbox", mode, "--cwd", fixture, "--env", f"ESCAPER_PORT={port}",
        "--env", f"ESCAPER_WRITE_TO={fixture}", "--env", f"ESCAPER_MARK={mark}",
        "--", sys.executable, escaper]
done = subprocess.run(argv, capture_output=True, timeout=240)
time.sleep(0.5)
daemons = 0
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                daemons += mark.encode() in f.read()
        except OSError:
            pass
print(json.dumps({"hits": len(hits), "rc": done.returncode, "daemons": daemons,
                  "stdout": done.stdout.decode("utf-8", "replace"),
                  "stderr": done.stderr.decode("utf-8", "replace")[-2000:]}))
"""


@cache
def _netns_problem() -> str | None:
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    done = subprocess.run([*NETNS, "true"], capture_output=True, check=False)
    if done.returncode != 0:
        return "this kernel or container forbids user namespaces (unshare -rn failed)"
    return bwrap_problem()


def _skip_without_namespaces() -> None:
    problem = _netns_problem()
    if problem is not None:
        pytest.skip(f"isolation tests need namespaces: {problem}")


def _audit(tmp_path: Path, mode: str) -> tuple[dict[str, Any], Path, Path]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY + "\n")
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "data.txt").write_text("the user's real file\n")
    mark = f"escaper-daemon-{os.getpid()}-{mode}"
    env = dict(os.environ, HOME=str(home), PYTHONPATH=str(REPO), ESCAPER_TEST_MARK=mark)
    done = subprocess.run(
        [*NETNS, sys.executable, "-c", HELPER, mode, str(fixture), ESCAPER],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result, home, fixture


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_an_isolated_target_cannot_write_home_read_keys_reach_the_network_or_leave_a_daemon(
    tmp_path: Path,
) -> None:
    _skip_without_namespaces()
    result, home, fixture = _audit(tmp_path, "required")
    assert result["rc"] in (0, 1), result["stderr"]
    report = json.loads(result["stdout"])
    assert report["target"]["isolation"]["isolated"] is True
    assert str(fixture) in report["target"]["isolation"]["copies"]
    called = {entry["name"] for entry in report["fuzz"]}  # plain --fuzz: isolation is consent
    assert called == {"write_home", "read_ssh_key", "connect_out", "fork_daemon"}
    assert {c["reason"] for c in report["coverage"]["called"]} == {CALLED_ISOLATED}
    assert not (home / "escaped-by-mcprobe-target.txt").exists()
    assert _tree(fixture) == {"data.txt": b"the user's real file\n"}
    assert KEY not in result["stdout"]
    assert result["hits"] == 0  # the audit's own loopback was never reached
    assert "could not connect to 203.0.113.1:80" in result["stdout"]
    assert result["daemons"] == 0


def test_the_same_escapes_succeed_without_isolation_so_the_isolated_test_can_fail(
    tmp_path: Path,
) -> None:
    _skip_without_namespaces()
    result, home, fixture = _audit(tmp_path, "off")
    report = json.loads(result["stdout"])
    assert report["target"]["isolation"]["isolated"] is False
    assert (home / "escaped-by-mcprobe-target.txt").exists()
    assert "escaped-by-mcprobe-target.txt" in _tree(fixture)
    assert KEY in result["stdout"]
    assert result["hits"] >= 1
    assert "could not connect to 203.0.113.1:80" in result["stdout"]  # unshare -rn held it


def test_sandbox_required_is_a_usage_error_where_bubblewrap_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    from mcprobe.client.transports import sandbox

    sandbox._bwrap.cache_clear()
    try:
        with pytest.raises(UsageError, match="sandbox required, but no isolation is possible"):
            prepare(["true"], env={}, cwd=None, mode="required")
        fallback = prepare(["true"], env={}, cwd=None, mode="auto")
        assert fallback.argv == ("true",)
        assert fallback.isolation.isolated is False
        assert "bubblewrap (bwrap) is not installed" in (fallback.isolation.reason or "")
    finally:
        sandbox._bwrap.cache_clear()


def _denied_report(tmp_path: Path, *target_args: str, **env: str) -> dict[str, Any]:
    """``mcprobe audit --json --fuzz --sandbox required`` of ``sandbox_denied.py`` with
    ``target_args``, inside the loopback-only namespace, in a fresh fixture; ``env`` is added to
    mcprobe's environment."""
    target = str(TARGETS_DIR / "sandbox_denied.py")
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    argv = [sys.executable, "-m", "mcprobe", "audit", "--json", "--fuzz", "--no-config"]
    argv += ["--sandbox", "required", "--cwd", str(fixture), "--", sys.executable, target]
    done = subprocess.run(
        [*NETNS, *argv, *target_args],
        capture_output=True,
        env=dict(os.environ, PYTHONPATH=str(REPO), **env),
        cwd=tmp_path,
        timeout=240,
        check=False,
    )
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_calls_failing_on_what_the_sandbox_denies_are_inconclusive_and_say_how_to_judge_them(
    tmp_path: Path,
) -> None:
    _skip_without_namespaces()
    note = TARGETS_DIR / "sandbox-denied-note.txt"
    report = _denied_report(tmp_path)
    assert not note.exists(), "the sandboxed write reached the checkout"
    valid = {r["name"]: r for r in report["fuzz"] if r["case"] == "valid"}
    assert "Read-only file system" in valid["save_note"]["message"]
    assert "Network is unreachable" in valid["fetch_status"]["message"]
    for result in valid.values():
        assert result["inconclusive"].endswith("which the sandbox denies"), result
        assert result["verdicts"] == []
    notes = " ".join(report["notes"])
    assert "could not be judged in the sandbox: the tools need a writable file system" in notes
    assert "could not be judged in the sandbox: the tools need network access" in notes
    assert "private writable copy" in notes and "`--sandbox off`" in notes
    # The validation refusals differ from the control's OS error: they stay conclusive.
    rejections = [r for r in report["fuzz"] if r["malformed"]]
    assert len(rejections) == 8 and all(r["inconclusive"] is None for r in rejections)


def test_a_target_killed_at_the_sandboxs_file_size_limit_is_reported_with_that_limit(
    tmp_path: Path,
) -> None:
    _skip_without_namespaces()
    temp = tmp_path / "tmp"  # mcprobe's TMPDIR: one copy directory per target generation
    temp.mkdir()
    report = _denied_report(tmp_path, "big", TMPDIR=str(temp))
    # every generation's private copies are removed, the dead ones' too
    assert [p.name for p in temp.iterdir() if p.name.startswith("mcprobe-sandbox-")] == []
    causes = [death["cause"] for death in report["deaths"]]
    assert causes, report["notes"]
    assert all(
        "killed by SIGXFSZ: a file grew past the sandbox's file-size limit, 256 MiB" in cause
        for cause in causes
    ), causes
    # the limit's doing, not the server's: inconclusive, no crash verdict, not in the score
    (valid,) = [r for r in report["fuzz"] if r["case"] == "valid"]
    assert valid["outcome"] == "protocolCrash" and "crash" not in valid["verdicts"]
    assert valid["inconclusive"].endswith("which the sandbox denies")
    assert "not counted against the server" in " ".join(report["notes"])
    assert report["critical"] == [] and report["criticalProblems"] == []


def test_a_target_that_runs_out_of_memory_in_the_sandbox_is_reported_at_its_memory_limit(
    tmp_path: Path,
) -> None:
    _skip_without_namespaces()
    report = _denied_report(tmp_path, "hog")
    causes = [death["cause"] for death in report["deaths"]]
    assert causes, report["notes"]
    # told apart from an out-of-memory kill: the limit is named, with its size
    limit = "an allocation failed at the sandbox's memory limit, 2048 MiB"
    assert all(limit in cause and "SIGKILL" not in cause for cause in causes), causes
    (valid,) = [r for r in report["fuzz"] if r["case"] == "valid"]
    assert valid["outcome"] == "protocolCrash" and "crash" in valid["verdicts"]  # a verdict


def test_a_death_by_signal_is_named_and_the_sandboxs_file_size_limit_with_its_size() -> None:
    isolated = Isolation(mode="auto", isolated=True, tool="bubblewrap", limits=Limits())
    bare = Isolation(mode="off", isolated=False)
    # bubblewrap relays its child's death as 128 + N
    assert stopped_by(153, isolated) == (
        " (killed by SIGXFSZ: a file grew past the sandbox's file-size limit, 256 MiB)"
    )
    assert stopped_by(137, isolated) == (
        " (killed by SIGKILL: not the sandbox's memory limit, which fails an allocation "
        "instead; the kernel's out-of-memory killer sends SIGKILL)"
    )
    # the memory limit, from what the target said as it died (an exit, or Node's abort)
    memory = "an allocation failed at the sandbox's memory limit, 2048 MiB"
    assert stopped_by(1, isolated, "Traceback ...\nMemoryError\n") == f" ({memory})"
    node = "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"
    assert stopped_by(134, isolated, node) == f" (killed by SIGABRT: {memory})"
    assert stopped_by(1, bare, "MemoryError") == ""  # no sandbox, no limit of mcprobe's
    assert stopped_by(1, isolated, "ValueError: bad input") == ""
    assert stopped_by(0, isolated, "MemoryError") == ""  # a clean exit names no limit
    assert stopped_by(-25, bare) == " (killed by SIGXFSZ: a file grew past the file-size limit)"
    assert stopped_by(-11, None) == " (killed by SIGSEGV)"
    # outside the sandbox 137 is just an exit code; ordinary codes say nothing more
    assert stopped_by(137, bare) == ""
    assert stopped_by(1, isolated) == ""
    assert stopped_by(0, isolated) == ""


def test_a_path_named_only_in_the_examples_gets_a_private_copy_so_the_write_is_judged(
    tmp_path: Path,
) -> None:
    """Issue 20: a file the user names only in ``--examples`` gets a private writable copy like
    a path in the target's arguments: the write-tool call on it is conclusive (not EROFS,
    inconclusive) and the real file keeps its bytes. Outside ``/tmp`` (the sandbox's ``/tmp``
    is private anyway), where the host is read-only inside the sandbox."""
    _skip_without_namespaces()
    outside = Path(tempfile.mkdtemp(prefix="mcprobe-example-copy-", dir="/var/tmp"))
    try:
        real = outside / "notes.txt"
        real.write_bytes(b"the user's real notes\n")
        before = real.read_bytes()
        examples = tmp_path / "examples.json"
        written = {"path": str(real), "text": "overwritten by the audit\n"}
        examples.write_text(json.dumps({"write_file": written}), encoding="utf-8")
        fixture = tmp_path / "fixture"
        fixture.mkdir()
        target = str(TARGETS_DIR / "example_writer.py")
        argv = [sys.executable, "-m", "mcprobe", "audit", "--json", "--fuzz", "--no-config"]
        argv += ["--sandbox", "required", "--cwd", str(fixture), "--examples", str(examples)]
        done = subprocess.run(
            [*NETNS, *argv, "--", sys.executable, target],
            capture_output=True,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
            cwd=tmp_path,
            timeout=240,
            check=False,
        )
        report: dict[str, Any] = json.loads(done.stdout)
        assert real.read_bytes() == before, "the audit wrote to the user's real file"
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    isolation = report["target"]["isolation"]
    assert isolation["isolated"] and str(real) in isolation["copies"], isolation
    assert str(real) in isolation["summary"]
    (valid,) = [r for r in report["fuzz"] if r["case"] == "valid"]
    assert valid["source"] == "user" and valid["arguments"] == written
    assert valid["outcome"] == "ok" and valid["inconclusive"] is None, valid
    assert "wrote 25 characters" in valid["message"]


def test_the_library_copies_the_paths_of_its_examples_too(tmp_path: Path) -> None:
    """``audit_stdio(..., examples=)`` builds the same spec (``target_spec(examples=)``)."""
    import anyio

    from mcprobe import audit_stdio

    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"needs the sandbox: {problem}")
    outside = Path(tempfile.mkdtemp(prefix="mcprobe-example-copy-", dir="/var/tmp"))
    try:
        real = outside / "notes.txt"
        real.write_bytes(b"the user's real notes\n")
        written = {"path": str(real), "text": "overwritten by the audit\n"}

        async def audit() -> Any:
            with anyio.fail_after(120):
                return await audit_stdio(
                    sys.executable,
                    [str(TARGETS_DIR / "example_writer.py")],
                    cwd=tmp_path,
                    fuzz=True,
                    sandbox="required",
                    examples={"write_file": written},
                )

        report = anyio.run(audit)
        assert real.read_bytes() == b"the user's real notes\n"
    finally:
        shutil.rmtree(outside, ignore_errors=True)
    assert report.target.isolation is not None and str(real) in report.target.isolation.copies
    (valid,) = [r for r in report.fuzz if r.case == "valid"]
    assert valid.outcome == "ok" and valid.inconclusive is None


def test_a_target_that_closes_its_stdout_in_the_sandbox_dies_at_once_not_at_each_timeout(
    tmp_path: Path,
) -> None:
    """Issue 22 item 3 under the default sandbox: both bubblewrap processes used to hold the
    stdout pipe, so a closed stdout never read as end-of-file (every call waited its timeout:
    783 s, every case ``timeout``). Now it is a death with the crash verdict, in seconds."""
    _skip_without_namespaces()
    import time

    target = str(TARGETS_DIR / "closes_stdout.py")
    argv = [sys.executable, "-m", "mcprobe", "audit", "--json", "--fuzz", "--no-config"]
    argv += ["--sandbox", "required", "--timeout", "5", "--cwd", str(tmp_path), "--"]
    started = time.monotonic()
    done = subprocess.run(
        [*argv, sys.executable, target],
        capture_output=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    wall = time.monotonic() - started
    text = done.stdout.decode()
    assert '"protocolCrash"' in text, done.stderr.decode()[-2000:]
    assert wall < 30, f"{wall:.1f} s"
    leftovers = subprocess.run(["pgrep", "-f", target], capture_output=True, check=False)
    assert leftovers.stdout == b"", leftovers.stdout
