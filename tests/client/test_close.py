"""The close comes last: the report is out while the target still runs, then the target gets a
short grace to exit on stdin EOF, and nothing is left running (real stdio targets)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import anyio
import pytest

from mcprobe.cli.commands import EXIT_OK, EXIT_USAGE, run
from mcprobe.client.transports.stdio import AFTER_REPORT_GRACE, EOF_GRACE
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.targets import TARGETS_DIR
from tests.targets.processes import pid_running, survivors

pytestmark = pytest.mark.anyio

FRAGILE = str(TARGETS_DIR / "fragile.py")


async def test_the_report_is_handed_over_while_the_target_runs_and_then_it_is_stopped(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pid"
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(FRAGILE, "tools=healthy_a", "ignore_eof", f"pidfile={pidfile}"),
    )
    alive_at_report: list[bool] = []

    def on_report(report: ConformanceReport) -> None:
        assert report.fuzz  # the whole report, fuzz included
        alive_at_report.append(pid_running(int(pidfile.read_text())))

    with anyio.fail_after(60):
        # surface=False: the version-negotiation and era checks start the target again on
        # short second connections, and each start rewrites the pidfile this test reads.
        await audit(AuditRequest(spec, fuzz=True, surface=False), on_report=on_report)
    assert alive_at_report == [True]
    assert await survivors(pidfile) == []


def test_the_grace_after_the_report_is_shorter_than_the_polite_one() -> None:
    assert 0 < AFTER_REPORT_GRACE < EOF_GRACE
    assert AuditRequest(TargetSpec("stdio", command=FRAGILE)).close_grace == AFTER_REPORT_GRACE


@pytest.mark.slow
def test_the_cli_writes_the_report_and_leaves_no_target_that_ignores_stdin_eof(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "pid"
    out, err = io.StringIO(), io.StringIO()
    argv = ["audit", "--sandbox", "off", "--fuzz", "--format", "md", "--", sys.executable, FRAGILE]
    code = run([*argv, "tools=healthy_a", "ignore_eof", f"pidfile={pidfile}"], out, err)
    assert code == EXIT_OK, err.getvalue()
    assert out.getvalue().startswith("# mcprobe conformance report")
    assert not pid_running(int(pidfile.read_text()))


def test_a_bad_close_grace_is_a_usage_error_before_anything_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("MCPROBE_CLOSE_GRACE", "soon")
    out, err = io.StringIO(), io.StringIO()
    code = run(
        ["audit", "--sandbox", "off", "--", sys.executable, FRAGILE, f"pidfile={pidfile}"], out, err
    )
    assert code == EXIT_USAGE
    assert "MCPROBE_CLOSE_GRACE" in err.getvalue()
    assert not pidfile.exists()  # the target was never started
