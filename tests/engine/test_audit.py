"""The audit pipeline (lint → fuzz → score → report → Markdown) on an in-memory fake target."""

from __future__ import annotations

import json

import anyio
import pytest

from mcprobe.core.model import JSON, Finding, Location, RawCall, Severity
from mcprobe.core.target_spec import TargetSpec
from mcprobe.report.render.markdown import render_markdown
from tests.support.fake_target import (
    FakeTarget,
    audit_open,
    int_tool,
    ok_text,
    snapshot_of,
    tool_error,
)

pytestmark = pytest.mark.anyio

STDOUT_NOISE = Finding(
    code="server.stdout_noise",
    severity=Severity.WARNING,
    message="The server printed non-JSON-RPC text on stdout.",
    location=Location(),
    hint="Log to stderr.",
)


def target_with(*tools: JSON, **kwargs: object) -> FakeTarget:
    return FakeTarget(snapshot=snapshot_of(tuple(tools)), **kwargs)  # type: ignore[arg-type]


async def test_lint_only_audit_has_findings_markdown_and_no_fuzz_section() -> None:
    target = target_with({"name": "bare", "inputSchema": {"type": "object"}})
    with anyio.fail_after(5):
        report = await audit_open(target, connection_id="c4")
    assert target.calls == []
    assert report.coverage is None and report.fuzz == [] and report.fuzz_summary is None
    assert "tool.missing_description" in {f.code for f in report.findings}
    assert report.connection_id == "c4"
    assert report.markdown == render_markdown(report.model_copy(update={"markdown": None}))
    measured = {d.key for d in report.dimensions if d.measured}
    assert measured == {"metadata", "schemaQuality", "security"}


async def test_session_findings_join_the_lint_findings_once() -> None:
    target = target_with(int_tool("alpha"), findings=(STDOUT_NOISE, STDOUT_NOISE))
    with anyio.fail_after(5):
        report = await audit_open(target)
    assert [f.code for f in report.findings].count("server.stdout_noise") == 1


async def test_fuzzing_audit_scores_behaviour_and_names_critical_tools() -> None:
    async def respond(name: str, arguments: JSON) -> RawCall:
        return ok_text("accepted") if name.startswith("sloppy") else tool_error("rejected")

    # three accepted valid calls (strict's synthesized one is refused: inconclusive), so that
    # liveness has the 3 conclusive cases it needs to be measured
    names = ["strict", "sloppy", "sloppy_b", "sloppy_c"]
    target = target_with(*(int_tool(n) for n in names), respond=respond)
    with anyio.fail_after(5):
        report = await audit_open(target, fuzz=True, concurrency=2)
    assert report.coverage is not None and report.coverage.fuzzed == names
    assert {d.key for d in report.dimensions if d.measured} == {
        "metadata",
        "schemaQuality",
        "errorHandling",
        "liveness",
        "security",
    }
    sloppy = [r for r in report.fuzz if r.name == "sloppy" and r.malformed]
    assert sloppy and all(r.silently_accepted for r in sloppy)
    assert any("sloppy" in line for line in report.critical)
    assert not any("`strict`" in line for line in report.critical)
    assert report.markdown is not None and "⚠ Critical" in report.markdown


async def test_options_reach_the_fuzzer() -> None:
    tools = (int_tool("alpha"), int_tool("beta"), int_tool("gamma"))
    target = target_with(*tools)
    with anyio.fail_after(5):
        report = await audit_open(
            target, fuzz=True, max_tools=1, include=("beta", "gamma"), call_timeout=2.5
        )
    assert report.coverage is not None
    assert report.coverage.fuzzed == ["beta"]
    assert {name for name, _ in target.calls} == {"beta", "mcprobe_nonexistent_tool"}
    assert set(target.timeouts) == {2.5}


async def test_secret_values_are_scrubbed_from_every_string_of_the_report() -> None:
    secret = "s3cr3t-token-value"

    async def respond(name: str, arguments: JSON) -> RawCall:
        return tool_error(f"bad token {secret}")

    snapshot = snapshot_of((int_tool("alpha"),), instructions=f"uses {secret}")
    target = FakeTarget(snapshot=snapshot, respond=respond)
    spec = TargetSpec("http", url="http://127.0.0.1:1/mcp", bearer=secret)
    with anyio.fail_after(5):
        report = await audit_open(target, spec=spec, fuzz=True, connection_id="c1")
    dumped = json.dumps(report.model_dump(by_alias=True, mode="json"))
    assert secret not in dumped
    assert "[redacted]" in dumped
    assert report.markdown is not None and secret not in report.markdown


async def test_overall_timeout_stops_a_hanging_target_and_says_so() -> None:
    async def respond(name: str, arguments: JSON) -> RawCall:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    target = target_with(int_tool("alpha"), respond=respond)
    with anyio.fail_after(5):
        report = await audit_open(target, fuzz=True, overall_timeout=0.05)
    assert report.fuzz and all(r.outcome == "notRun" for r in report.fuzz)
    assert any("deadline" in note for note in report.notes)


async def test_a_target_death_is_reported_with_its_stderr_tail_and_blames_no_unreplayed_case() -> (
    None
):
    class DyingTarget(FakeTarget):
        def stderr_tail(self) -> str:
            return "Segmentation fault (core dumped)"

    tools = (int_tool("bomb"), int_tool("after"))
    target = DyingTarget(snapshot=snapshot_of(tools), dies_on="bomb")
    with anyio.fail_after(5):
        report = await audit_open(target, fuzz=True, concurrency=1)
    assert any("Segmentation fault" in note for note in report.notes)
    assert any("target died and this kind of target cannot be restarted" in n for n in report.notes)
    assert all(r.outcome == "notRun" for r in report.fuzz if r.name == "after")
    assert not any(r.outcome == "protocolCrash" for r in report.fuzz)  # not replayed: no blame
