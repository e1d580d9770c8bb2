"""Each front-end names the knobs in its own words (issue 20 item 4, issue 23 item 5): CLI
flags on the command line, tool inputs in the MCP server, keyword arguments in the library;
never "(probe_report: fuzz: true)" or "(tool input fuzzDestructive: true)" on the CLI, never a
flag in the MCP server's answer.

The target lists only an additive-write and a destructive tool and runs unsandboxed (an own
target whose tools write nothing), so no tool is called without consent and the reasons and
the not-graded advice are all shown."""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import anyio
import pytest
from mcp import Client

from mcprobe import audit_stdio
from mcprobe.cli.commands import run
from mcprobe.server.app import build_server
from tests.targets import TARGETS_DIR

pytestmark = pytest.mark.anyio

ARGS = [str(TARGETS_DIR / "fragile.py"), "tools=writer,wiper"]
# What a front-end's words must never contain: the other front-ends' spellings.
FOREIGN = {
    "cli": ("tool input", "probe_report:", "fuzzWrites", "fuzzDestructive", "fuzz_writes", "(CLI"),
    "tool": ("--fuzz", "--examples", "--sandbox", "--tools", "CLI", "fuzz_writes="),
    "library": ("--fuzz", "tool input", "fuzzWrites", "fuzzDestructive", "CLI", "fuzz: true"),
}


def _foreign(words: str, text: str) -> list[str]:
    return [w for w in FOREIGN[words] if w in text]


def _words_of(report: dict[str, Any]) -> str:
    """Everything of a JSON report written in mcprobe's words about knobs."""
    texts = [s["reason"] for s in (report.get("coverage") or {}).get("skipped", [])]
    texts += [report.get(key) or "" for key in ("notGraded", "static", "markdown")]
    texts += report.get("notes", [])
    return "\n".join(texts)


@pytest.mark.parametrize("fuzz", [True, False])
def test_the_cli_says_only_cli_flags(fuzz: bool) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = ["audit", "--sandbox", "off", *(["--fuzz"] if fuzz else []), "--json"]
    run([*argv, "--", sys.executable, *ARGS], out, err)
    report = json.loads(out.getvalue())
    shown = _words_of(report) + err.getvalue()
    assert not _foreign("cli", shown), shown
    assert ("--fuzz-writes or --fuzz-destructive" if fuzz else "run with --fuzz") in shown


async def test_the_mcp_server_says_only_tool_inputs() -> None:
    target = {"command": sys.executable, "args": ARGS, "sandbox": "off"}
    with anyio.fail_after(120):
        async with Client(build_server(), mode="legacy") as client:
            for fuzz in (True, False):
                arguments = {**target, "fuzz": fuzz, "detail": "full"}
                result = await client.call_tool("probe_audit", arguments)
                text = "".join(getattr(block, "text", "") for block in result.content)
                report = result.structured_content
                assert not result.is_error and report is not None, text
                shown = text + _words_of({**report, "markdown": text})
                assert not _foreign("tool", shown), shown
                assert (
                    "fuzzWrites: true or fuzzDestructive: true" if fuzz else "fuzz: true"
                ) in shown


async def test_the_library_says_only_its_keywords() -> None:
    with anyio.fail_after(60):
        report = await audit_stdio(sys.executable, ARGS, fuzz=True, sandbox="off")
    shown = _words_of(report.model_dump(by_alias=True, mode="json"))
    assert not _foreign("library", shown), shown
    assert "fuzz_writes=True or fuzz_destructive=True" in shown
