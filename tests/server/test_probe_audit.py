"""probe_audit (issue 26 item 5): one call that connects, audits, reports and disconnects, for
clients that start a fresh mcprobe per call; the same checks as ``mcprobe audit`` on both MCP
paths; honest annotations on the tools that start targets."""

from __future__ import annotations

import io
import json
import sys

import anyio
import pytest

from mcprobe.cli.commands import run
from mcprobe.core.lint.engine import lint_server
from mcprobe.server.app import TOOLS
from tests.support.builders import snapshot
from tests.support.mcprobe_server import call

# a new mcprobe per use, as the MCP Inspector CLI starts one per call
from tests.support.mcprobe_server import mcprobe_client as fresh_mcprobe
from tests.support.paths import CLI_TARGET, REPO_ROOT

pytestmark = pytest.mark.anyio

TARGET = {"command": sys.executable, "args": [CLI_TARGET], "cwd": str(REPO_ROOT)}


@pytest.fixture(scope="module")
def cli_check_ids() -> list[str]:
    """The checks ``mcprobe audit`` runs on the target (a sync fixture: the CLI runs its own
    event loop)."""
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", "--json", "--fuzz", "--", sys.executable, CLI_TARGET], out, err)
    assert code == 0, err.getvalue()
    return sorted(c["check"] for c in json.loads(out.getvalue())["surface"]["checks"])


async def test_probe_audit_answers_in_one_call_and_leaves_nothing_open() -> None:
    with anyio.fail_after(90):
        async with fresh_mcprobe() as client:
            error, text, report = await call(
                client, "probe_audit", {**TARGET, "fuzz": True, "detail": "full"}
            )
            assert not error, text
            assert text.startswith("# mcprobe conformance report")
            assert report["server"]["name"] == "cli-target"
            assert report["coverage"]["fuzzedTools"] >= 1
            assert report["grade"] in "ABCDF"
            error, text, closed = await call(client, "probe_disconnect", {"all": True})
            assert not error and closed["removed"] == [] and closed["remaining"] == []


async def test_probe_audit_runs_the_same_checks_as_the_cli_and_probe_report_those_of_one_link(
    cli_check_ids: list[str],
) -> None:
    expected = cli_check_ids
    assert "protocol.version_negotiation" in expected  # a second-connection check
    with anyio.fail_after(120):
        async with fresh_mcprobe() as client:
            error, text, report = await call(
                client, "probe_audit", {**TARGET, "fuzz": True, "detail": "full"}
            )
            assert not error, text
            assert sorted(c["check"] for c in report["surface"]["checks"]) == expected
        async with fresh_mcprobe() as client:
            error, text, _ = await call(client, "probe_connect", TARGET)
            assert not error, text
            error, text, report = await call(
                client, "probe_report", {"fuzz": True, "detail": "full"}
            )
            assert not error, text
            # Documented: the second-connection checks are probe_audit's and the CLI's only.
            second = {"protocol.version_negotiation"} | {
                c for c in expected if c.startswith(("modern.", "http."))
            }
            shown = sorted(c["check"] for c in report["surface"]["checks"])
            assert shown == sorted(set(expected) - second)
            await call(client, "probe_disconnect", {"all": True})


async def test_a_bad_target_is_one_error_result_not_a_hang() -> None:
    with anyio.fail_after(30):
        async with fresh_mcprobe() as client:
            error, text, _ = await call(
                client, "probe_audit", {"command": "/no/such/program", "connectTimeoutSeconds": 5}
            )
    assert error and text.startswith("probe_audit: ") and "/no/such/program" in text


def test_mcprobes_own_tools_pass_its_annotation_checks() -> None:
    listing = [tool.tool().model_dump(by_alias=True, exclude_none=True) for tool in TOOLS]
    codes = {f.code for f in lint_server(snapshot(listing))}
    # No security finding at all: misleading annotations, and no description steering the
    # model to another tool (security.shadowing caught "must use probe_audit" once).
    assert sorted(c for c in codes if c.startswith("security.")) == []
    starts = {t.name: t.annotations for t in TOOLS if t.name in ("probe_audit", "probe_connect")}
    assert all(a.destructive_hint and a.open_world_hint for a in starts.values())
