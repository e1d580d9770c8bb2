"""A check on a fresh connection closes that connection with the short grace: nothing more is
wanted from the process, so a server whose timers keep it alive past stdin EOF (the official
server-everything does) must not hold the audit for the polite EOF grace (real stdio target)."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

from mcprobe.client.transports.stdio import AFTER_REPORT_GRACE, EOF_GRACE, StdioProcess
from mcprobe.core.checks.records import Verdict
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.protocol_probes import probe_version_negotiation
from tests.targets import TARGETS_DIR
from tests.targets.processes import survivors

pytestmark = pytest.mark.anyio


async def test_the_version_negotiation_connection_waits_only_the_short_grace_for_an_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "pid"
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(
            str(TARGETS_DIR / "fragile.py"),
            "tools=healthy_a",
            "ignore_eof",
            f"pidfile={pidfile}",
        ),
        sandbox="off",
    )
    waits: list[float] = []
    real_wait = StdioProcess.wait_exit

    async def recorded(self: StdioProcess, seconds: float) -> bool:
        waits.append(seconds)
        return await real_wait(self, seconds)

    monkeypatch.setattr(StdioProcess, "wait_exit", recorded)
    with anyio.fail_after(30):
        check = await probe_version_negotiation(spec, None)
    assert check.verdict is not Verdict.NOT_APPLICABLE  # the second connection was made
    # The first wait is the one after stdin EOF: the short grace, not EOF_GRACE.
    assert waits[:1] == [AFTER_REPORT_GRACE] != [EOF_GRACE]
    assert pidfile.exists() and await survivors(pidfile) == []
