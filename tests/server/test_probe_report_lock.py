"""probe_report's `pin` output and `lock` input: the MCP server path of `mcprobe pin` /
`audit --lock`, against mcprobe's own test server as a real stdio subprocess."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest

from tests.support.mcprobe_server import call, mcprobe_client
from tests.targets import POISONED

pytestmark = pytest.mark.anyio


def _target(mode: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(POISONED), mode]}


async def test_a_pinned_lock_shows_no_drift_on_the_same_server_and_drift_on_its_next_release() -> (
    None
):
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, "probe_connect", _target("honest"))
            assert not error, text
            error, text, first = await call(client, "probe_report", {"pin": True})
            assert not error, text
            lock = first["lock"]
            assert lock["tools"][0]["name"] == "get_ticket"
            assert first["drift"] is None
            error, text, same = await call(client, "probe_report", {"lock": lock})
            assert not error and same["drift"]["changed"] == [] and same["lock"] is None
            assert "No drift" in text

            error, text, _ = await call(client, "probe_connect", _target("honest-v2"))
            assert not error, text
            error, text, later = await call(client, "probe_report", {"lock": lock})
            assert not error, text
            assert later["drift"]["added"] == ["close_ticket"]
            assert [c["tool"] for c in later["drift"]["changed"]] == ["list_tickets"]
            assert "## Drift against the lock" in text

            error, text, _ = await call(client, "probe_report", {"lock": {"tools": 1}})
            assert error and "not an mcprobe lock" in text
            await call(client, "probe_disconnect", {"all": True})


async def test_probe_lint_counts_the_critical_findings_of_a_poisoned_server() -> None:
    """A critical security finding once made probe_lint fail (its summary had no such key)."""
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, "probe_connect", _target("poisoned"))
            assert not error, text
            error, text, lint = await call(client, "probe_lint", {})
    assert not error, text
    critical = [f for f in lint["findings"] if f["severity"] == "critical"]
    assert critical and lint["summary"]["critical"] == len(critical)
    assert f"{len(critical)} critical" in text
