"""probe_report's ``detail`` (issue 10 item 11): an LLM host on a large server gets the summary
by default, the Markdown once (the text content, never also in the structured content), and
the full report on request. Real target processes over real stdio: the 50-tool server
``tests/targets/many_tools.py`` (here with 20 tools, the same shape) and the demo target.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from mcp import Client

from mcprobe.server.app import build_server
from tests.targets import MANY_TOOLS

pytestmark = pytest.mark.anyio


async def _reports(args: list[str], details: list[str | None]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    async with Client(build_server(), mode="legacy") as client:
        connected = await client.call_tool(
            "probe_connect", {"command": sys.executable, "args": args}
        )
        assert not connected.is_error
        for detail in details:
            arguments: dict[str, Any] = {"fuzz": True}
            if detail is not None:
                arguments["detail"] = detail
            result = await client.call_tool("probe_report", arguments)
            assert not result.is_error, result.content
            text = "".join(getattr(c, "text", "") for c in result.content)
            out.append((text, result.structured_content))
        await client.call_tool("probe_disconnect", {"all": True})
    return out


async def test_the_default_is_the_summary_and_the_markdown_is_sent_once() -> None:
    with anyio.fail_after(120):
        (default_text, default), (summary_text, summary), (full_text, full) = await _reports(
            [str(MANY_TOOLS), "20"], [None, "summary", "full"]
        )
    assert default["detail"] == summary["detail"] == "summary" and full["detail"] == "full"
    assert "## Fuzz results" not in default_text
    for text, structured in ((summary_text, summary), (full_text, full)):
        assert structured["markdown"] is None  # the Markdown is the text content, once
        assert text.startswith("# mcprobe conformance report") and "## Summary" in text
    # The summary Markdown stops after the fixes; the full one has every section.
    assert "## Fuzz results" not in summary_text and "## Fuzz results" in full_text
    assert "detail: full" in summary_text
    # The summary keeps the verdicts, and says what it left out.
    assert len(full["fuzz"]) == full["fuzzSummary"]["cases"] == 20 * 6
    flagged = [
        (r["name"], r["case"]) for r in full["fuzz"] if r["failureAsSuccess"] or r["emptySuccess"]
    ]
    assert len(flagged) == 5  # tools 3, 10, 17 answer empty; 5, 16 report failure as success
    assert [(r["name"], r["case"]) for r in summary["fuzz"]] == flagged
    assert summary["omitted"]["fuzz"] == len(full["fuzz"]) - len(flagged)
    assert full["omitted"] is None
    assert summary["fixes"] == full["fixes"] and summary["overall"] == full["overall"]
    assert summary["dimensions"] == full["dimensions"]
    # Smaller: the whole result (text + structured) of the summary is a fraction of the full one.
    size = len(summary_text) + len(json.dumps(summary))
    assert size * 3 < len(full_text) + len(json.dumps(full))


async def test_an_unknown_detail_is_a_clear_error_not_a_report() -> None:
    with anyio.fail_after(60):
        async with Client(build_server(), mode="legacy") as client:
            result = await client.call_tool("probe_report", {"detail": "everything"})
    assert result.is_error
    text = "".join(getattr(c, "text", "") for c in result.content)
    assert text.startswith("probe_report: ") and "detail" in text and "\n" not in text
