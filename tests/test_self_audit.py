"""mcprobe audited by mcprobe, and the bad-input cases of its own tools that
``test_server_tools.py`` does not already cover."""

from __future__ import annotations

import sys
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError

from mcprobe.server.app import build_server
from scripts.self_audit import self_audit, summary
from tests.targets import RAWSERVER

pytestmark = pytest.mark.anyio

HEALTHY = {"command": sys.executable, "args": [str(RAWSERVER), "tools=echo"]}


async def test_auditing_mcprobe_with_mcprobe_finds_no_silent_accept_crash_or_timeout() -> None:
    with anyio.fail_after(120):
        report = await self_audit()
    fs = report.fuzz_summary
    assert fs is not None and report.coverage is not None
    assert report.coverage.fuzzed_tools == 7  # every tool, destructive ones included
    malformed = [r for r in report.fuzz if r.malformed]
    assert malformed and all(r.outcome in ("toolError", "protocolError") for r in malformed)
    assert (fs.silently_accepted, fs.timeout, fs.protocol_crash, fs.leak) == (0, 0, 0, 0)
    assert report.unknown_tool_probe is not None
    assert report.unknown_tool_probe.outcome == "protocolError"
    assert report.critical == []
    assert summary(report)[0] == f"mcprobe on itself: {report.overall}/100, grade {report.grade}"


BAD_WITH_A_CONNECTION: list[tuple[str, dict[str, Any], str]] = [
    ("probe_lint", {"connectionId": "c9"}, "unknown connection id 'c9'; open connections: c1"),
    ("probe_fuzz", {"connectionId": "c9"}, "unknown connection id 'c9'"),
    ("probe_report", {"connectionId": "c9", "fuzz": True}, "unknown connection id 'c9'"),
    ("probe_disconnect", {"connectionId": "c9"}, "unknown connection id 'c9'"),
    ("probe_fuzz", {"concurrency": 0}, "concurrency"),
    ("probe_fuzz", {"concurrency": 2.5}, "concurrency"),
    ("probe_report", {"maxTools": True}, "maxTools"),
    ("probe_connect", {"command": "x", "args": [1, 2]}, "args"),
    ("probe_connect", {"command": "x", "env": {"K": 5}}, "env"),
    ("probe_connect", {"command": ""}, "non-empty command"),
    ("probe_connect", {"url": "http://127.0.0.1:1/", "headers": ["X: y"]}, "headers"),
    ("probe_connect", {"url": "not a url"}, "malformed url"),
    ("probe_connect", {"url": "http://user:pw@127.0.0.1/"}, "not in the url"),
    ("probe_connect", {"transport": "websocket", "url": "ws://x"}, "transport"),
    ("probe_connect", {"transport": "http", "command": "x"}, "needs a url"),
    ("probe_connect", {"command": "x", "connectTimeoutSeconds": 0}, "connectTimeoutSeconds"),
    ("probe_connect", {"command": "x", "connectTimeoutSeconds": "5"}, "connectTimeoutSeconds"),
]


async def test_bad_input_with_a_connection_open_is_a_clear_is_error_and_changes_nothing() -> None:
    with anyio.fail_after(60):
        async with Client(build_server(), mode="legacy") as client:
            opened = await client.call_tool("probe_connect", HEALTHY)
            assert not opened.is_error
            texts: list[tuple[str, bool, str]] = []
            for tool, arguments, _ in BAD_WITH_A_CONNECTION:
                result = await client.call_tool(tool, arguments)
                text = "".join(getattr(block, "text", "") for block in result.content)
                texts.append((tool, result.is_error, text))
            listed = await client.call_tool("probe_list", {})
            closed = await client.call_tool("probe_disconnect", {"all": True})
    for (tool, arguments, expected), (_, is_error, text) in zip(
        BAD_WITH_A_CONNECTION, texts, strict=True
    ):
        assert is_error, (tool, arguments, text)
        assert text.startswith(f"{tool}: ") and expected in text, (tool, arguments, text)
    assert listed.structured_content is not None
    assert listed.structured_content["connectionId"] == "c1"  # still open, still the default
    assert closed.structured_content == {
        "removed": ["c1"],
        "remaining": [],
        "defaultConnectionId": None,
    }


async def test_a_tools_list_cursor_mcprobe_never_issued_is_invalid_params() -> None:
    with anyio.fail_after(10):
        async with Client(build_server(), mode="legacy") as client:
            assert len((await client.list_tools()).tools) == 7
            with pytest.raises(MCPError) as info:
                await client.list_tools(cursor="bogus")
    assert info.value.code == -32602
    assert "invalid cursor" in str(info.value)


async def test_every_tool_states_explicitly_that_its_arguments_are_optional() -> None:
    with anyio.fail_after(10):
        async with Client(build_server(), mode="legacy") as client:
            tools = (await client.list_tools()).tools
    assert all(tool.input_schema.get("required") == [] for tool in tools)
