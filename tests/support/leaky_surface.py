"""Helpers several test modules share, from tests/client/test_canary_channels.py
(no test module imports another)."""

from __future__ import annotations

import sys

import anyio

from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from tests.targets import LEAKY_SURFACE


def audit_leaky_surface(*words: str) -> ConformanceReport:
    """An audit with fuzz (so it is graded) of tests/targets/leaky_surface.py given ``words``."""
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(str(LEAKY_SURFACE), *words),
        connect_timeout=10.0,
        call_timeout=5.0,
    )

    async def run() -> ConformanceReport:
        with anyio.fail_after(60):
            return await audit(AuditRequest(spec, fuzz=True))

    return anyio.run(run)
