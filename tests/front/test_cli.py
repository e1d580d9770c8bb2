"""``mcprobe`` CLI: ``run(argv, stdout, stderr) -> int`` driven with string buffers.

Usage errors are checked without any process; the exit-code paths run real stdio targets
(``tests/targets/cli_target.py``: a raw JSON-RPC server that starts in milliseconds, and the demo
target) and a real Streamable HTTP demo target on 127.0.0.1.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcprobe import ReportFormat, __version__, render_report
from mcprobe.cli.commands import (
    EXIT_CONNECT,
    EXIT_CRITICAL,
    EXIT_INTERNAL,
    EXIT_NOTHING_CALLED,
    EXIT_OK,
    EXIT_SCORE,
    EXIT_USAGE,
    parse_audit,
    run,
)
from mcprobe.core.errors import UsageError
from mcprobe.report.model import ConformanceReport
from tests.support.demo_golden import normalise_canary
from tests.support.golden import check_golden
from tests.support.http_demo import http_demo_target as running_http_demo
from tests.support.paths import CLI_TARGET, GOLDEN, REPO_ROOT
from tests.support.report_samples import sample_report

PY = sys.executable
CLI_TARGET = CLI_TARGET
REPO = REPO_ROOT


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


# --------------------------------------------------------------------------- usage (exit 1)


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["audit", "--frobnicate", "http://127.0.0.1:1/mcp"], "unrecognized arguments"),
        (["audit", "--timeout", "soon", "http://127.0.0.1:1/mcp"], "--timeout"),
        (["audit", "--timeout", "-3", "http://127.0.0.1:1/mcp"], "positive"),
        (["audit", "--timeout", "nan", "http://127.0.0.1:1/mcp"], "positive"),
        (["audit", "--env", "UX_SURELY_UNSET_NAME", "--", PY, CLI_TARGET], "is not set"),
        (["audit", "--env", "bad-name=1", "--", PY, CLI_TARGET], "NAME=VALUE"),
        (["audit", "http://127.0.0.1:1/mcp", "--", PY, CLI_TARGET], "exactly one target"),
        (["audit", "--stdio", "python x.py", "--", PY], "exactly one target"),
        (["audit"], "exactly one target"),
        (["audit", "--"], "nothing after --"),
        (["audit", "--stdio", "python 'unbalanced"], "--stdio"),
        (["audit", "server.py"], "malformed url"),
        (["audit", "--max-tools", "0", "http://127.0.0.1:1/mcp"], "--max-tools"),
        (["audit", "--fail-under", "101", "http://127.0.0.1:1/mcp"], "0 to 100"),
        (["audit", "--format", "pdf", "http://127.0.0.1:1/mcp"], "invalid choice"),
        (["audit", "--fail-on-regression", "http://127.0.0.1:1/mcp"], "needs --baseline"),
        (["audit", "--baseline", "/no/such.json", "http://127.0.0.1:1/mcp"], "not a file"),
        (["audit", "-q", "-v", "http://127.0.0.1:1/mcp"], "not allowed with"),
        (["audit", "--color", "pink", "http://127.0.0.1:1/mcp"], "invalid choice"),
        (["badge"], "expected: mcprobe badge"),
        (["badge", "/no/such/report.json"], "cannot read"),
        (["audit", "--json", "--format", "sarif", "http://127.0.0.1:1/mcp"], "contradicts"),
        (["audit", "--fail-on-critical", "http://127.0.0.1:1/mcp"], "needs --fuzz"),
        (["audit", "--bearer", "tok", "--", PY, CLI_TARGET], "apply to http/sse targets only"),
        (["audit", "--env", "A=1", "http://127.0.0.1:1/mcp"], "apply to stdio targets only"),
        (["audit", "--header", "no colon", "http://127.0.0.1:1/mcp"], "Name: Value"),
        (["audit", "--cwd", "/no/such/dir", "--", PY, CLI_TARGET], "not a directory"),
        (["audit", "--output", "/no/such/dir/r.md", "--", PY, CLI_TARGET], "does not exist"),
        (["audit", "--time", "3", "http://127.0.0.1:1/mcp"], "unrecognized"),  # no abbreviations
        (["frobnicate"], "unknown command"),
        (["serve", "extra"], "no arguments"),
    ],
)
def test_usage_errors_exit_1_with_a_one_line_reason(argv: list[str], reason: str) -> None:
    code, out, err = _run(*argv)
    assert code == EXIT_USAGE
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("mcprobe: usage error: ")
    assert reason in err


def test_a_bad_header_value_is_never_echoed() -> None:
    code, _, err = _run("audit", "--header", "Bad Name: s3cret-value", "http://127.0.0.1:1/mcp")
    assert code == EXIT_USAGE
    assert "s3cret-value" not in err


def test_version_and_help_go_to_stdout_and_exit_0() -> None:
    assert _run("--version") == (EXIT_OK, f"mcprobe {__version__}\n", "")
    code, out, err = _run("--help")
    assert code == EXIT_OK and "mcprobe audit [options] URL" in out and err == ""
    code, out, err = _run("audit", "--help")
    assert code == EXIT_OK and "--fail-on-critical" in out and err == ""


def test_dash_dash_passes_the_command_argv_exactly() -> None:
    argv = ["--fuzz", "--", "my server", "--fuzz", "a b", "--", "-x"]
    invocation = parse_audit(argv, io.StringIO())
    assert invocation.request.spec.transport == "stdio"
    assert invocation.request.spec.command == "my server"
    assert invocation.request.spec.args == ("--fuzz", "a b", "--", "-x")
    assert invocation.request.fuzz


def test_stdio_string_is_split_with_shell_quoting() -> None:
    invocation = parse_audit(["--stdio", "python -m 'my pkg' --flag=\"a b\""], io.StringIO())
    assert invocation.request.spec.command == "python"
    assert invocation.request.spec.args == ("-m", "my pkg", "--flag=a b")


def test_url_target_collects_headers_bearer_and_timeouts() -> None:
    invocation = parse_audit(
        [
            "--header",
            "X-Api-Key: k1",
            "--header",
            "X-Other:  v2 ",
            "--bearer",
            "tok",
            "--timeout",
            "2.5",
            "--connect-timeout",
            "4",
            "--overall-timeout",
            "60",
            "https://example.test/mcp",
        ],
        io.StringIO(),
    )
    spec = invocation.request.spec
    assert spec.transport == "http" and spec.url == "https://example.test/mcp"
    assert spec.headers == {"X-Api-Key": "k1", "X-Other": "v2"}
    assert spec.bearer == "tok"
    assert (spec.call_timeout, spec.connect_timeout) == (2.5, 4.0)
    assert invocation.request.overall_timeout == 60.0


def test_bearer_comes_from_the_environment_when_not_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MCPROBE_TARGET_TOKEN", "from-env")
    assert parse_audit(["http://h.test/mcp"], io.StringIO()).request.spec.bearer == "from-env"
    assert (
        parse_audit(["--bearer", "x", "http://h.test/mcp"], io.StringIO()).request.spec.bearer
        == "x"
    )
    # a stdio target ignores the variable rather than failing
    assert parse_audit(["--", "cmd"], io.StringIO()).request.spec.bearer is None


def test_fuzz_destructive_implies_fuzz_and_tools_are_split() -> None:
    invocation = parse_audit(
        ["--fuzz-destructive", "--tools", "a, b,", "--max-tools", "3", "--", "cmd"], io.StringIO()
    )
    assert invocation.request.fuzz and invocation.request.fuzz_destructive
    assert invocation.request.include == ("a", "b")
    assert invocation.request.max_tools == 3


def test_fuzz_writes_implies_fuzz_and_fuzz_destructive_implies_writes() -> None:
    writes = parse_audit(["--fuzz-writes", "--", "cmd"], io.StringIO())
    assert (
        writes.request.fuzz and writes.request.fuzz_writes and not writes.request.fuzz_destructive
    )
    every = parse_audit(["--fuzz-destructive", "--", "cmd"], io.StringIO())
    assert every.request.fuzz and every.request.fuzz_writes and every.request.fuzz_destructive
    plain = parse_audit(["--fuzz", "--", "cmd"], io.StringIO())
    assert (
        plain.request.fuzz and not plain.request.fuzz_writes and not plain.request.fuzz_destructive
    )


def test_parse_audit_raises_usage_error_for_library_callers() -> None:
    with pytest.raises(UsageError, match="exactly one target"):
        parse_audit([], io.StringIO())


# --------------------------------------------------------------------------- real targets


def _target(*options: str) -> list[str]:
    return ["--", PY, CLI_TARGET, *options]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class _TtyBuffer(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.slow
def test_a_missing_command_exits_2_with_a_clear_message() -> None:
    code, out, err = _run("audit", "--", "/no/such/mcp-server-binary", "--flag")
    assert code == EXIT_CONNECT
    assert out == ""
    assert err.startswith("mcprobe: could not connect to /no/such/mcp-server-binary --flag: ")
    assert "Traceback" not in err


@pytest.mark.slow
def test_a_target_that_dies_at_start_exits_2_quoting_its_stderr_without_secrets() -> None:
    code, _, err = _run(
        "audit", "--env", "CLI_TARGET_SECRET=hunter2-secret", *_target("--fail-start", "no DB")
    )
    assert code == EXIT_CONNECT
    assert "no DB" in err
    assert "hunter2-secret" not in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_a_target_that_never_answers_initialize_exits_2_within_the_timeout_leaving_no_process(
    tmp_path: Path,
) -> None:
    pids_file = tmp_path / "pids"
    started = time.monotonic()
    code, _, err = _run(
        "audit",
        "--sandbox",
        "off",
        "--connect-timeout",
        "1",
        *_target("--hang-initialize", "--spawn-child", str(pids_file)),
    )
    elapsed = time.monotonic() - started
    assert code == EXIT_CONNECT
    assert "could not connect" in err
    # connect timeout + the kill sequence (about 2 s worst case) + 5 s for a loaded machine
    assert elapsed < 1 + 4.0 + 5.0, elapsed
    leader, child = (int(pid) for pid in pids_file.read_text().split())
    deadline = time.monotonic() + 20  # generous: a loaded machine; a survivor still fails
    while (_alive(leader) or _alive(child)) and time.monotonic() < deadline:
        time.sleep(0.05)  # reaping is asynchronous to our return; bounded poll, not a fixed wait
    assert not _alive(leader) and not _alive(child)


# A stdio target is started before mcprobe's heavy imports (``cli._prespawn``) and adopted by
# the transport; the tests above (missing command, silent target with a child that ignores
# SIGTERM) already run through that path. These pin down the adoption and the safety net.


def test_the_environment_a_stdio_target_inherits_is_the_sdks_default_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcp.client.stdio import get_default_environment

    from mcprobe.client.inherited_env import default_environment as _default_environment

    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("SHELL", "() { evil; }")  # an exported shell function is never passed
    monkeypatch.setenv("MCPROBE_TEST_UNRELATED", "x")
    assert _default_environment() == get_default_environment()
    assert "SHELL" not in _default_environment()
    assert _default_environment()["TERM"] == "xterm"


@pytest.mark.slow
def test_the_target_started_early_is_the_one_audited(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcprobe.client.transports.stdio as stdio_transport

    def no_second_start(*_: object, **__: object) -> None:
        raise AssertionError("the transport started a second target")

    monkeypatch.setattr(stdio_transport, "spawn_target", no_second_start)
    code, out, err = _run("audit", "--fuzz", "--json", *_target("--clean"))
    assert code == EXIT_OK, err
    assert json.loads(out)["server"]["name"]


@pytest.mark.slow
def test_a_target_started_early_is_gone_with_its_child_when_interrupted_before_adoption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcprobe.cli.audit_args import AuditArgs, AuditInvocation
    from mcprobe.cli.audit_args import prespawn as real_prespawn

    pids_file = tmp_path / "pids"
    started: list[subprocess.Popen[bytes]] = []

    def prespawn(args: AuditArgs) -> subprocess.Popen[bytes] | None:
        process = real_prespawn(args)
        assert process is not None
        started.append(process)
        return process

    def interrupted_while_importing(args: AuditArgs) -> AuditInvocation:
        deadline = time.monotonic() + 30
        while not pids_file.exists() or len(pids_file.read_text().split()) < 2:
            assert time.monotonic() < deadline, "the target never wrote its pids"
            time.sleep(0.02)  # bounded poll for the target's own pidfile
        raise KeyboardInterrupt

    # (run_audit's own names: cli/audit_run.py imported them from cli/audit_args.py)
    monkeypatch.setattr("mcprobe.cli.audit_run.prespawn", prespawn)
    monkeypatch.setattr("mcprobe.cli.audit_run.invocation_of", interrupted_while_importing)
    # --hang-initialize ignores EOF and SIGTERM; --spawn-child starts a grandchild in its group.
    code, _, err = _run(
        "audit", "--sandbox", "off", *_target("--hang-initialize", "--spawn-child", str(pids_file))
    )
    assert code == 130
    assert "interrupted" in err
    leader, child = (int(pid) for pid in pids_file.read_text().split())
    assert started[0].pid == leader
    assert started[0].returncode is not None  # reaped before run() returned
    deadline = time.monotonic() + 20  # generous: a loaded machine; a survivor still fails
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)  # the grandchild is reaped by init: bounded poll, not a fixed wait
    assert not _alive(leader) and not _alive(child)


@pytest.mark.slow
def test_the_installed_command_flushes_the_whole_report_and_keeps_the_exit_code(
    tmp_path: Path,
) -> None:
    # `mcprobe audit` leaves with os._exit (no interpreter teardown): the report, the gate
    # message and an --output file must all be complete, and the exit code the gate's.
    argv = [PY, "-m", "mcprobe.cli", "audit", "--fuzz", "--json", "--fail-under", "100"]
    done = subprocess.run([*argv, *_target()], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == EXIT_SCORE, done.stderr[-500:]
    assert json.loads(done.stdout)["fuzz"]
    assert "below --fail-under 100" in done.stderr
    report = tmp_path / "report.md"
    done = subprocess.run(
        [*argv[:3], "audit", "--output", str(report), *_target()],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    assert done.returncode == EXIT_OK, done.stderr[-500:]
    assert report.read_text().startswith("# mcprobe conformance report")
    assert "md report written to" in done.stderr
    assert done.stdout == ""


def test_no_target_is_started_for_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcprobe.cli.audit_args import AuditArgs

    def never(args: AuditArgs) -> None:
        raise AssertionError("a target was started for an invalid command line")

    monkeypatch.setattr("mcprobe.cli.audit_run.prespawn", never)
    code, _, err = _run("audit", "--fail-on-critical", "--", PY, CLI_TARGET)
    assert code == EXIT_USAGE
    assert "needs --fuzz" in err


@pytest.mark.slow
def test_a_clean_target_passes_every_gate_with_exit_0() -> None:
    code, out, err = _run(
        "audit", "-q", "--fuzz", "--fail-on-critical", "--fail-under", "50", *_target("--clean")
    )
    assert code == EXIT_OK, err
    assert out.startswith("# mcprobe conformance report")
    assert err == ""  # -q: nothing but errors


@pytest.mark.slow
def test_a_score_below_fail_under_exits_3() -> None:
    code, out, err = _run("audit", "--fuzz", "--fail-under", "100", *_target("--clean"))
    assert code == EXIT_SCORE
    assert out.startswith("# mcprobe conformance report")  # the report is still printed
    assert "below --fail-under 100" in err


@pytest.mark.slow
def test_a_critical_issue_with_fail_on_critical_exits_4_and_wins_over_the_score_gate() -> None:
    code, _, err = _run("audit", "--fuzz", "--fail-on-critical", "--fail-under", "100", *_target())
    assert code == EXIT_CRITICAL
    assert "critical behavioural issue" in err
    assert "below --fail-under" in err  # both reasons are given
    code, _, _ = _run("audit", "--fuzz", *_target())
    assert code == EXIT_OK  # the same findings without the gate


@pytest.mark.slow
def test_env_and_cwd_reach_the_target_and_the_env_value_never_the_report(tmp_path: Path) -> None:
    code, out, err = _run(
        "audit",
        "--fuzz",
        "--json",
        "--env",
        "CLI_TARGET_SECRET=hunter2-secret",
        "--cwd",
        str(tmp_path),
        *_target("--clean"),
    )
    assert code == EXIT_OK, err
    report = json.loads(out)
    valid = next(r for r in report["fuzz"] if r["name"] == "whereami" and r["case"] == "valid")
    assert f"cwd={tmp_path}" in valid["message"]
    assert "reversed-secret=terces-2retnuh" in valid["message"]
    assert "hunter2-secret" not in out
    assert report["target"]["envNames"] == ["CLI_TARGET_SECRET"]
    assert report["target"]["cwd"] == str(tmp_path)


@pytest.mark.slow
def test_env_name_alone_passes_mcprobes_own_value_as_a_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CLI_TARGET_SECRET", "from-the-env-5150")
    code, out, err = _run(
        "audit", "--fuzz", "--json", "--env", "CLI_TARGET_SECRET", *_target("--clean")
    )
    assert code == EXIT_OK, err
    report = json.loads(out)
    valid = next(r for r in report["fuzz"] if r["name"] == "whereami" and r["case"] == "valid")
    assert "reversed-secret=0515-vne-eht-morf" in valid["message"]
    assert "from-the-env-5150" not in out + err
    assert report["target"]["envNames"] == ["CLI_TARGET_SECRET"]


@pytest.mark.slow
def test_stdio_string_target_runs_like_dash_dash() -> None:
    command = shlex.join([PY, CLI_TARGET, "--clean"])
    code, out, _ = _run("audit", "--json", "--stdio", command)
    assert code == EXIT_OK
    report = json.loads(out)
    assert report["server"]["name"] == "cli-target"
    assert report["target"]["args"] == [CLI_TARGET, "--clean"]


@pytest.mark.slow
def test_output_file_receives_the_report_and_stdout_stays_empty(tmp_path: Path) -> None:
    path = tmp_path / "report.sarif"
    code, out, err = _run("audit", "--fuzz", "--format", "sarif", "--output", str(path), *_target())
    assert code == EXIT_OK
    assert out == ""
    assert f"report written to {path}" in err
    log = json.loads(path.read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0"
    assert any(r["ruleId"] == "behavior.silently_accepted" for r in log["runs"][0]["results"])


@pytest.mark.slow
def test_junit_format_parses_as_xml() -> None:
    code, out, _ = _run("audit", "--fuzz", "--format", "junit", *_target())
    assert code == EXIT_OK
    suite = ET.fromstring(out.encode()).find("testsuite")
    assert suite is not None and int(suite.get("failures", "0")) >= 1


@pytest.mark.slow
def test_progress_is_one_overwritten_line_on_a_terminal_and_plain_lines_in_a_log() -> None:
    out, tty = io.StringIO(), _TtyBuffer()
    assert run(["audit", "--fuzz", *_target("--clean")], out, tty) == EXIT_OK
    assert "\r\x1b[2Kmcprobe: fuzzing " in tty.getvalue()
    assert "\n" not in tty.getvalue()
    plain = io.StringIO()
    assert run(["audit", "--fuzz", *_target("--clean")], io.StringIO(), plain) == EXIT_OK
    lines = plain.getvalue().splitlines()
    assert lines and all(line.startswith("mcprobe: fuzzing ") for line in lines)
    assert "\x1b" not in plain.getvalue()
    # at most one line per tool plus the last case: fewer lines than calls
    tools = {line.split()[3] for line in lines}
    assert len(lines) <= len(tools) + 1
    quiet = io.StringIO()
    assert run(["audit", "-q", "--fuzz", *_target("--clean")], io.StringIO(), quiet) == EXIT_OK
    assert quiet.getvalue() == ""


# --------------------------------------------------------------------------- HTTP with secrets


@pytest.fixture(scope="module")
def http_demo_target() -> Iterator[str]:
    with running_http_demo("DEMO_TOKEN", "tok-very-secret-123") as url:
        yield url


@pytest.mark.slow
def test_bearer_and_headers_work_over_http_and_never_appear_in_any_format(
    http_demo_target: str,
) -> None:
    secrets = ("tok-very-secret-123", "hdr-secret-456")
    for fmt in ("md", "json", "sarif", "junit"):
        code, out, err = _run(
            "audit",
            "--format",
            fmt,
            "--bearer",
            secrets[0],
            "--header",
            f"X-Custom: {secrets[1]}",
            http_demo_target,
        )
        assert code == EXIT_OK, err
        assert out
        for secret in secrets:
            assert secret not in out and secret not in err
    report = json.loads(_run("audit", "--json", "--bearer", secrets[0], http_demo_target)[1])
    assert report["target"]["bearer"] is True
    assert report["server"]["name"] == "demo-target"


@pytest.mark.slow
def test_a_wrong_bearer_exits_2_without_echoing_it(http_demo_target: str) -> None:
    code, out, err = _run("audit", "--bearer", "wrong-token-789", http_demo_target)
    assert code == EXIT_CONNECT
    assert out == ""
    assert "wrong-token-789" not in err


# --------------------------------------------------------------------------- golden outputs

GOLDEN = GOLDEN


def _normalised(report_json: str) -> ConformanceReport:
    """The demo report without what varies between runs and machines: latencies, the
    interpreter path, and the embedded Markdown (golden-tested on its own)."""
    data = json.loads(report_json)
    data["target"]["command"] = "python"
    data["target"]["isolation"] = None  # this machine's paths and sandbox (test_sandbox.py)
    data["markdown"] = None
    data["notes"] = [normalise_canary(n) for n in data["notes"]]
    for result in [*data["fuzz"], data["unknownToolProbe"], data.get("nonObjectProbe")]:
        if result is not None:
            result["latencyMs"] = 0.0
    return ConformanceReport.model_validate(data)


@pytest.fixture(scope="module")
def demo_report() -> ConformanceReport:
    out, err = io.StringIO(), io.StringIO()
    # --sandbox off: the golden is the consent-level audit on every machine (isolated, every
    # tool would be called; tests/client/test_sandbox.py covers that).
    argv = ["audit", "--sandbox", "off", "--fuzz", "--json", "--", PY, "-m", "demo_target"]
    code = run(argv, out, err)
    assert code == EXIT_OK, err.getvalue()
    return _normalised(out.getvalue())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("demo_target.json", "json"),
        ("demo_target.sarif", "sarif"),
        ("demo_target.junit.xml", "junit"),
    ],
)
def test_demo_target_output_matches_the_golden_file(
    demo_report: ConformanceReport, name: str, fmt: ReportFormat
) -> None:
    check_golden(name, render_report(demo_report, fmt))


# --------------------------------------------------------------------------- serve


def test_serve_dispatches_to_the_mcp_server(monkeypatch: pytest.MonkeyPatch) -> None:
    import mcprobe.server.app

    calls: list[str] = []
    monkeypatch.setattr(mcprobe.server.app, "main", lambda: calls.append("served"))
    assert _run("serve") == (EXIT_OK, "", "")
    assert calls == ["served"]


@pytest.mark.slow
def test_no_arguments_runs_the_stdio_mcp_server() -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    done = subprocess.run(
        [PY, "-m", "mcprobe.cli"],
        input=json.dumps(initialize) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        cwd=REPO,
    )
    assert done.returncode == EXIT_OK, done.stderr[-500:]
    reply = json.loads(done.stdout.splitlines()[0])
    assert reply["id"] == 1
    assert reply["result"]["serverInfo"]["name"] == "mcprobe"


# --------------------------------------------------------------------------- without a process


@pytest.fixture
def fake_pipeline(monkeypatch: pytest.MonkeyPatch) -> list[Exception]:
    """Replace the audit pipeline with one returning ``sample_report()`` (overall 55, critical
    issues) — or raising the exception put in the returned list."""
    import mcprobe.engine.audit

    raise_this: list[Exception] = []

    async def pipeline(*_: object, **__: object) -> ConformanceReport:
        if raise_this:
            raise raise_this[0]
        return sample_report()

    monkeypatch.setattr(mcprobe.engine.audit, "audit", pipeline)
    return raise_this


def test_score_gate_boundary_is_strictly_below(fake_pipeline: list[Exception]) -> None:
    assert _run("audit", "--fail-under", "55", "--", "x")[0] == EXIT_OK
    assert _run("audit", "--fail-under", "55.5", "--", "x")[0] == EXIT_SCORE


def test_internal_errors_exit_5_with_one_scrubbed_line(
    fake_pipeline: list[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCPROBE_DEBUG", raising=False)
    fake_pipeline.append(RuntimeError("boom with tok-secret-999 inside"))
    code, out, err = _run("audit", "--bearer", "tok-secret-999", "http://127.0.0.1:1/mcp")
    assert code == EXIT_INTERNAL
    assert out == ""
    assert err.strip().splitlines() == [
        "mcprobe: internal error: RuntimeError: boom with [redacted] inside "
        "(set MCPROBE_DEBUG=1 for a traceback)"
    ]


def test_a_closed_stdout_does_not_hide_the_gate(fake_pipeline: list[Exception]) -> None:
    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    err = io.StringIO()
    code = run(["audit", "--fuzz", "--fail-on-critical", "--", "x"], ClosedPipe(), err)
    assert code == EXIT_CRITICAL
    assert "Traceback" not in err.getvalue()


def test_a_fail_under_gate_on_an_unmeasured_score_fails(
    fake_pipeline: list[Exception], monkeypatch: pytest.MonkeyPatch
) -> None:
    unmeasured = sample_report().model_copy(update={"overall": None, "grade": "-"})

    async def pipeline(*_: object, **__: object) -> ConformanceReport:
        return unmeasured

    import mcprobe.engine.audit

    monkeypatch.setattr(mcprobe.engine.audit, "audit", pipeline)
    code, _, err = _run("audit", "--fail-under", "0", "--", "x")
    assert code == EXIT_SCORE
    assert "not measured" in err


@pytest.mark.slow
@pytest.mark.parametrize("gate", [[], ["--fail-under", "0"], ["--fail-on-critical"]])
def test_fuzz_that_called_no_tool_exits_8_naming_why_gates_or_not(gate: list[str]) -> None:
    code, out, err = _run("audit", "--fuzz", "--tools", "ecoh", *gate, *_target("--clean"))
    assert code == EXIT_NOTHING_CALLED == 8, err
    assert out.startswith("# mcprobe conformance report")  # the report is still written
    lines = [line for line in err.splitlines() if "--fuzz called no tool" in line]
    assert len(lines) == 1
    assert "no listed tool is named 'ecoh'" in lines[0]


@pytest.mark.slow
def test_a_gate_on_a_static_report_needs_allow_static() -> None:
    demo = ("--sandbox", "off", "--", PY, "-m", "demo_target")  # its checks measure behaviour
    code, _, err = _run("audit", "--fail-under", "0", *demo)
    assert code == EXIT_USAGE, err
    assert "the report is static" in err and "--allow-static" in err
    code, _, err = _run("audit", "--fail-under", "0", "--allow-static", *demo)
    assert code == EXIT_OK, err


@pytest.mark.slow
def test_a_fuzz_gate_with_a_tool_fuzzed_is_not_a_usage_error() -> None:
    code, _, err = _run("audit", "--fuzz", "--tools", "echo", "--fail-under", "0", *_target())
    assert code == EXIT_OK, err


@pytest.mark.slow
def test_fail_under_on_a_server_with_tools_audited_without_fuzz_is_a_usage_error() -> None:
    """Not graded (no tool was called): the gate cannot judge, so it is neither a pass nor a
    score below the bar."""
    code, out, err = _run("audit", "--fail-under", "0", *_target("--clean"))
    assert code == EXIT_USAGE, err
    assert "**Overall score: not graded**" in out  # the report is still written
    (line,) = [line for line in err.splitlines() if "usage error" in line]
    assert "--fail-under, but the report is not graded: no tool was called" in line
    assert "run with --fuzz" in line


@pytest.mark.slow
def test_fail_under_on_a_server_without_tools_judges_its_static_score() -> None:
    no_tools = ["--", PY, str(REPO / "tests" / "targets" / "surface_server.py"), "no_tools"]
    code, out, err = _run("audit", "--fail-under", "0", *no_tools)
    assert code == EXIT_OK, err
    assert "**Overall score: not graded**" not in out
    code, _, err = _run("audit", "--fail-under", "100", *no_tools, "ping_error")
    assert code == EXIT_SCORE, err  # 98: ping fails, −1 Metadata


# --------------------------------------------------------------------------- env redaction


@pytest.mark.slow
@pytest.mark.parametrize("pair", ["LOG_LEVEL=info", "X=true", "HOME=/root"])
def test_a_configuration_env_value_leaves_the_report_intact(pair: str) -> None:
    demo = ["--cwd", str(REPO), "--", PY, "-m", "demo_target"]
    plain_code, plain_out, _ = _run("audit", "--format", "json", *demo)
    code, out, err = _run("audit", "--format", "json", "--env", pair, *demo)
    assert (plain_code, code) == (EXIT_OK, EXIT_OK), err
    report = json.loads(out)  # valid JSON: `true` and the like are not redacted into it
    plain = json.loads(plain_out)
    severities = sorted(f["severity"] for f in report["findings"])
    assert severities == sorted(f["severity"] for f in plain["findings"])
    assert "info" in severities
    assert "[redacted]" not in out + err
    assert report["target"]["envNames"] == [pair.split("=")[0]]


SECRET_CASES = [
    (["--env", "API_TOKEN=s3cr3t-value-123"], "API_TOKEN", "s3cr3t-value-123"),
    (["--secret-env", "MYVAR", "--env", "MYVAR=hunter2xyz"], "MYVAR", "hunter2xyz"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("options", "name", "value"), SECRET_CASES)
@pytest.mark.parametrize("fmt", ["md", "json", "sarif", "junit", "html"])
def test_a_secret_env_value_echoed_by_the_target_appears_in_no_output(
    options: list[str], name: str, value: str, fmt: str
) -> None:
    code, out, err = _run(
        "audit", "--fuzz", "--format", fmt, *options, *_target("--clean", "--echo-env", name)
    )
    assert code == EXIT_OK, err
    assert value not in out and value not in err
    if fmt != "sarif":  # SARIF carries findings only, not the answers of clean calls
        assert f"{name}=[redacted]" in out  # the target did echo it, and it was redacted


@pytest.mark.slow
def test_a_plain_env_value_echoed_by_the_target_is_reported_as_sent() -> None:
    code, out, err = _run(
        "audit",
        "--fuzz",
        "--json",
        "--env",
        "MYVAR=hunter2xyz",
        *_target("--clean", "--echo-env", "MYVAR"),
    )
    assert code == EXIT_OK, err
    assert "MYVAR=hunter2xyz" in out  # not marked secret, not shaped like one: configuration


@pytest.mark.slow
def test_env_name_alone_copies_a_secret_named_value_and_redacts_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("API_TOKEN", "copied-s3cr3t-77")
    code, out, err = _run(
        "audit",
        "--fuzz",
        "--json",
        "--env",
        "API_TOKEN",
        *_target("--clean", "--echo-env", "API_TOKEN"),
    )
    assert code == EXIT_OK, err
    assert "copied-s3cr3t-77" not in out + err
    assert "API_TOKEN=[redacted]" in out


def test_double_verbose_names_every_start_of_the_target_and_times_every_phase() -> None:
    code, _, err = _run("audit", "--fuzz", "-vv", "--format", "json", *_target("--clean"))
    assert code == 0, err
    starts = [line for line in err.splitlines() if "target start" in line and "started" in line]
    assert any("version negotiation" in line for line in starts), err
    assert any("2026-07-28" in line for line in starts), err
    assert "mcprobe: target start 1: the audit" in err
    for phase in ("fuzz calls", "resource, prompt and protocol checks", "relisting"):
        assert re.search(rf"mcprobe: {phase}[^\n]*: \d+\.\d\d s", err), (phase, err)
    quiet_code, _, quiet_err = _run(
        "audit", "--fuzz", "-v", "--format", "json", *_target("--clean")
    )
    assert quiet_code == 0 and "target start" not in quiet_err  # -v: the calls, not the timeline


def test_a_usage_error_after_the_target_was_pre_started_leaves_no_sandbox_copy(
    tmp_path: Path,
) -> None:
    from mcprobe.client.transports.sandbox import bwrap_problem

    problem = bwrap_problem()
    if problem is not None:
        pytest.skip(f"needs bubblewrap and namespaces: {problem}")
    temp = tmp_path / "tmp"  # mcprobe's TMPDIR: where the copy directories are made
    temp.mkdir()
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "data.txt").write_text("x\n")
    # A lock file is read after the pre-start (the copy is made by then)
    bad = tmp_path / "bad.lock"
    bad.write_text('{"tools": 3}', encoding="utf-8")
    argv = [sys.executable, "-m", "mcprobe", "audit", "--lock", str(bad), "--no-config"]
    argv += ["--sandbox", "required", "--cwd", str(fixture), "--", sys.executable, CLI_TARGET]
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=dict(os.environ, TMPDIR=str(temp)),
        cwd=REPO_ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and "is not an mcprobe lock" in done.stderr
    assert [p.name for p in temp.iterdir() if p.name.startswith("mcprobe-sandbox-")] == []
