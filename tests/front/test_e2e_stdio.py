"""End to end over real stdio: mcprobe's MCP server as a subprocess, driven by the SDK client the
way a host drives it, auditing the demo target as its own subprocess."""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from demo_target.demo_client import run_demo
from mcprobe.core.cases.selection import needs_destructive, needs_writes
from tests.support.demo_golden import GOLDEN_JSON, as_json, normalise_canary, normalise_markdown
from tests.support.paths import REPO_ROOT

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ROOT = REPO_ROOT
MCPROBE = [sys.executable, "-m", "mcprobe.server.app"]


# The MCP server names the knobs as tool inputs, the golden (library) report as CLI flags; these
# sentences are the only difference (tests/front/test_front_end_words.py checks them).
_IN_CLI_WORDS = (
    (needs_writes("tool"), needs_writes("cli")),
    (needs_destructive("tool"), needs_destructive("cli")),
    ("realistic example with `examples` or", "realistic example with `--examples FILE` or"),
    ("realistic arguments with `examples` or", "realistic arguments with `--examples FILE` or"),
)


def in_cli_words(text: str) -> str:
    for tool, cli in _IN_CLI_WORDS:
        text = text.replace(json.dumps(tool)[1:-1], json.dumps(cli)[1:-1])
    return text


def normalise(report: dict[str, Any]) -> dict[str, Any]:
    for result in [*report["fuzz"], report["unknownToolProbe"], report.get("nonObjectProbe")]:
        if result is not None:
            result["latencyMs"] = 0
    report["target"]["command"] = "<python>"
    report["target"]["cwd"] = "<checkout>"
    report["target"]["isolation"] = None
    report["markdown"] = normalise_markdown(report["markdown"])
    report["notes"] = [normalise_canary(n) for n in report["notes"]]
    return report


async def test_the_demo_through_the_mcp_server_gives_the_golden_report() -> None:
    with anyio.fail_after(90):
        # sandbox off: the golden is the consent-level audit (isolated, every tool is called).
        report = await run_demo(mcprobe_command=MCPROBE, cwd=str(ROOT), sandbox="off")
    # Same pipeline behind every front-end: the server path reproduces the library's golden,
    # in its own words.
    assert in_cli_words(as_json(normalise(report))) == GOLDEN_JSON.read_text(encoding="utf-8")


async def _tool(session: ClientSession, name: str, arguments: dict[str, Any]) -> Any:
    result = await session.call_tool(name, arguments)
    text = "".join(getattr(block, "text", "") for block in result.content)
    assert not result.is_error, text
    return result.structured_content


async def test_a_target_that_hangs_then_dies_mid_fuzz_is_restarted_and_mcprobe_stays_up() -> None:
    params = StdioServerParameters(command=MCPROBE[0], args=MCPROBE[1:], cwd=str(ROOT))
    target = {
        "command": sys.executable,
        "args": ["-m", "demo_target", "--hazards"],
        "cwd": str(ROOT),
        "timeoutSeconds": 1,
    }
    with anyio.fail_after(90):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            connected = await _tool(session, "probe_connect", target)
            fuzz = await _tool(session, "probe_fuzz", {"concurrency": 1})
            listed = await _tool(session, "probe_list", {})
            status = await _tool(session, "probe_connect", target | {"timeoutSeconds": 10})
            closed = await _tool(session, "probe_disconnect", {"all": True})
    results = {(r["name"], r["case"]): r for r in fuzz["results"]}
    assert results[("hang", "valid")]["outcome"] == "timeout"
    assert results[("explode", "valid")]["outcome"] == "protocolCrash"
    assert "killed the target again" in results[("explode", "valid")]["note"]
    # The target was restarted and the tools listed after explode were all judged.
    after = [r for r in fuzz["results"] if r["name"] not in ("hang", "explode")]
    assert after and not any(r["outcome"] in ("notRun", "protocolCrash") for r in after)
    assert fuzz["unknownToolProbe"] is not None
    assert any("restarted" in note for note in fuzz["notes"])
    assert any(d["replay"] and d["verdict"] == "crash" for d in fuzz["deaths"])
    assert any("explode" in line for line in fuzz["critical"])
    # mcprobe kept serving: the dead connection still lists, a new one opens, both close.
    assert connected["connectionId"] == listed["connectionId"] == "c1"
    assert status["connectionId"] == "c2"
    assert sorted(closed["removed"]) == ["c1", "c2"]
    # No traceback of mcprobe's own anywhere (lookup_user leaks a fake one on purpose).
    own = {**fuzz, "results": [r for r in fuzz["results"] if r["name"] != "lookup_user"]}
    own["critical"] = [line for line in fuzz["critical"] if "lookup_user" not in line]
    own["criticalProblems"] = []
    assert json.dumps(own).count("Traceback") == 0
