"""The demo target's full audit (with fuzz) is a golden file, Markdown and JSON.

Volatile fields are normalised before comparing: latencies (``latencyMs`` and the table's
``N ms`` cells), the interpreter path and the checkout directory in ``target``.
Regenerate after an intended change with::

    MCPROBE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/engine/test_demo_golden.py

and review the diff of ``tests/golden/demo_report.md`` / ``.json`` before committing.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from typing import Any

import anyio
import pytest

from mcprobe.client.connection import open_target
from mcprobe.core.target_spec import TargetSpec
from mcprobe.report.model import ConformanceReport
from tests.support.demo_golden import (
    CANARY_SHOWN,
    GOLDEN,
    GOLDEN_JSON,
    as_json,
    normalise_canary,
    normalise_markdown,
)
from tests.support.fake_target import audit_open
from tests.support.golden import check_golden
from tests.support.paths import REPO_ROOT

pytestmark = pytest.mark.anyio

ROOT = REPO_ROOT
GOLDEN_MD = GOLDEN / "demo_report.md"

DEMO_SPEC = TargetSpec(
    "stdio", command=sys.executable, args=("-m", "demo_target"), cwd=str(ROOT), call_timeout=10
)


# The spec the report describes: the demo's, with the canary as shown (the target was started
# from DEMO_SPEC; the report's canary note and canary checks read this one).
SHOWN_SPEC = dataclasses.replace(
    DEMO_SPEC, env={CANARY_SHOWN.split("=")[0]: CANARY_SHOWN.split("=")[1]}
)


def normalise_report(report: ConformanceReport) -> dict[str, Any]:
    data = report.model_dump(by_alias=True, mode="json")
    for result in [*data["fuzz"], data["unknownToolProbe"], data["nonObjectProbe"]]:
        if result is not None:
            result["latencyMs"] = 0
    if data["target"] is not None:
        data["target"]["command"] = "<python>"
        data["target"]["cwd"] = "<checkout>"
        data["target"]["isolation"] = None
    data["markdown"] = normalise_markdown(data["markdown"])
    data["notes"] = [normalise_canary(n) for n in data["notes"]]
    return data


async def audit_demo_twice() -> tuple[ConformanceReport, ConformanceReport]:
    async with open_target(DEMO_SPEC) as target:
        reports = [
            await audit_open(target, spec=SHOWN_SPEC, fuzz=True, connection_id="c1")
            for _ in range(2)
        ]
    return reports[0], reports[1]


async def test_demo_report_matches_the_golden_files_and_is_stable_across_runs() -> None:
    with anyio.fail_after(60):
        first, second = await audit_demo_twice()
    assert as_json(normalise_report(first)) == as_json(normalise_report(second))
    markdown = normalise_markdown(first.markdown or "")
    data = as_json(normalise_report(first))
    check_golden(GOLDEN_MD, markdown)
    check_golden(GOLDEN_JSON, data)


def test_golden_demo_report_shows_every_behaviour_a_live_target_can_survive() -> None:
    """The demo exists to show these; a golden regenerated without them is a regression."""
    data = json.loads(GOLDEN_JSON.read_text(encoding="utf-8"))
    outcomes = {r["outcome"] for r in data["fuzz"]}
    assert {"ok", "toolError", "protocolError"} <= outcomes
    for flag in (
        "silentlyAccepted",
        "emptySuccess",
        "outputSchemaViolation",
        "leak",
        "failureAsSuccess",
        "environment",
        "inconclusive",
    ):
        assert any(r[flag] for r in data["fuzz"]), flag
    sources = {r["source"] for r in data["fuzz"]}
    assert {"schema", "synthesized"} <= sources, sources
    # a refused placeholder is inconclusive; rejections that name validation stay conclusive
    repo = [r for r in data["fuzz"] if r["name"] == "open_repo"]
    assert repo[0]["inconclusive"] and any(not r["inconclusive"] for r in repo[1:])
    codes = {f["code"] for f in data["findings"]}
    assert len(codes & LINT_CODES) >= 11, sorted(LINT_CODES - codes)
    assert data["coverage"]["skipped"], "an unannotated tool must show up as skipped"
    assert data["unknownToolProbe"]["outcome"] == "protocolError"
    assert all(d["measured"] for d in data["dimensions"])


LINT_CODES = {
    "tool.missing_description",
    "tool.thin_description",
    "tool.duplicate_name",
    "tool.unusual_name",
    "tool.no_input_schema",
    "tool.no_annotations",
    "schema.invalid",
    "schema.root_not_object",
    "schema.no_required",
    "param.untyped",
    "param.missing_description",
    "server.no_tools",
}


async def test_a_static_audit_of_the_demo_target_is_graded_but_says_its_tools_were_not_called() -> (
    None
):
    """Issue 20 item 4 (replacing #10 item 8's "no overall"): a static audit of a server with
    tools is graded on what was measured, marked static in its headline (a gate on it needs
    --allow-static); the fuzzed audit of the same server is a plain grade."""
    with anyio.fail_after(60):
        async with open_target(DEMO_SPEC) as target:
            static = await audit_open(target, spec=DEMO_SPEC, connection_id="c1")
            fuzzed = await audit_open(target, spec=DEMO_SPEC, fuzz=True, connection_id="c1")
    assert static.not_graded is None and static.overall is not None and static.grade != "-"
    assert static.static is not None
    assert static.static.startswith("no tool was called (the audit ran without fuzz)")
    assert {d.key for d in static.dimensions if d.measured} >= {"metadata", "schemaQuality"}
    assert f"grade {static.grade} (static: tools not called)**" in (static.markdown or "")
    assert fuzzed.static is None and fuzzed.overall is not None and fuzzed.grade != "-"
    assert "static: tools not called" not in (fuzzed.markdown or "")
