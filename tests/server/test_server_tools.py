"""mcprobe's six MCP tools, in-memory through the SDK client (legacy handshake, real JSON-RPC).

Targets are the demo target as real stdio subprocesses, because that is what users connect to.
The typed client checks every ``structuredContent`` against the tool's ``outputSchema``, so
each successful call here also proves the output matches its declared schema.
"""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from mcp import MCPError

from mcprobe.server.app import INSTRUCTIONS
from tests.support.mcprobe_server import DEMO, call, mcprobe_client

pytestmark = pytest.mark.anyio


async def test_server_advertises_the_tools_capability_only_and_explains_the_flow() -> None:
    with anyio.fail_after(10):
        async with mcprobe_client() as client:
            caps = client.session.server_capabilities
            instructions = client.session.instructions
    assert caps is not None
    assert caps.model_dump(exclude_none=True) == {"tools": {"list_changed": False}}
    assert instructions == INSTRUCTIONS
    assert re.search(r"probe_connect.*probe_report.*probe_disconnect", INSTRUCTIONS, re.S)


async def test_every_tool_has_an_output_schema_and_the_spec_annotations() -> None:
    with anyio.fail_after(10):
        async with mcprobe_client() as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {
        "probe_audit",
        "probe_connect",
        "probe_lint",
        "probe_fuzz",
        "probe_report",
        "probe_list",
        "probe_disconnect",
    }
    for tool in tools.values():
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
        assert tool.annotations is not None
    hints = {name: t.annotations for name, t in tools.items() if t.annotations}
    assert hints["probe_lint"].read_only_hint is True
    assert hints["probe_list"].read_only_hint is True
    assert hints["probe_fuzz"].destructive_hint is True
    for name in ("probe_connect", "probe_fuzz", "probe_report"):
        assert hints[name].open_world_hint is True
    assert "connectionId" in tools["probe_lint"].input_schema["properties"]
    assert "timeoutSeconds" in tools["probe_connect"].input_schema["properties"]


async def test_connect_lint_list_fuzz_report_disconnect_on_the_demo_target() -> None:
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            error, text, connected = await call(client, "probe_connect", DEMO)
            assert not error, text
            assert connected["connectionId"] == "c1"
            assert connected["defaultConnectionId"] == "c1"
            assert connected["name"] == "demo-target"
            assert connected["counts"]["tools"] == 13
            assert connected["protocolVersion"] == "2025-11-25"

            error, text, listed = await call(client, "probe_list", {})
            assert not error and listed["tools"][5]["inputSchema"] == {}
            assert [t["name"] for t in listed["tools"]].count("reset_database") == 2
            # The demo advertises resources and prompts: probe_list lists them raw too.
            assert [r["uri"] for r in listed["resources"]] == [
                "demo://docs/readme",
                "demo://docs/logo",
            ]
            assert listed["resourceTemplates"][0]["uriTemplate"] == "demo://docs/page-{page}"
            assert [p["name"] for p in listed["prompts"]] == ["summarise"]

            error, text, lint = await call(client, "probe_lint", {"connectionId": "c1"})
            assert not error
            codes = {f["code"] for f in lint["findings"]}
            assert {"tool.missing_description", "param.untyped", "schema.invalid"} <= codes
            assert lint["summary"]["error"] == sum(
                1 for f in lint["findings"] if f["severity"] == "error"
            )

            error, text, fuzz = await call(client, "probe_fuzz", {"tools": ["divide"]})
            assert not error
            assert fuzz["coverage"]["fuzzed"] == ["divide"]
            assert any(r["silentlyAccepted"] for r in fuzz["results"])
            assert "divide" in text

            error, text, report = await call(client, "probe_report", {})
            assert not error
            assert report["coverage"] is None and report["fuzz"] == []
            assert report["markdown"] is None  # the Markdown once: the text content
            assert text.startswith("# mcprobe conformance report")
            assert report["detail"] == "summary" and "## Summary" in text

            error, text, closed = await call(client, "probe_disconnect", {})
            assert not error
    assert closed == {"removed": ["c1"], "remaining": [], "defaultConnectionId": None}


async def test_fuzz_writes_and_fuzz_destructive_are_the_consent_levels_of_fuzz_and_report() -> None:
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            # The consent levels decide only without isolation (inside it every tool is called).
            error, text, _ = await call(client, "probe_connect", {**DEMO, "sandbox": "off"})
            assert not error, text
            _, _, default = await call(client, "probe_fuzz", {"tools": ["set_mode", "greet"]})
            _, _, writes = await call(
                client, "probe_fuzz", {"tools": ["set_mode", "greet"], "fuzzWrites": True}
            )
            _, _, report = await call(
                client, "probe_report", {"fuzz": True, "fuzzWrites": True, "maxTools": 20}
            )
            _, _, every = await call(
                client, "probe_report", {"fuzz": True, "fuzzDestructive": True}
            )
    assert default["coverage"]["fuzzed"] == ["greet"]
    reasons = {s["tool"]: s["reason"] for s in default["coverage"]["skipped"]}
    assert "fuzzWrites" in reasons["set_mode"]
    assert writes["coverage"]["fuzzed"] == ["greet", "set_mode"]
    assert "set_mode" in report["coverage"]["fuzzed"]
    assert [s["tool"] for s in report["coverage"]["skipped"]] == ["reset_database"] * 2
    assert "reset_database" in every["coverage"]["fuzzed"]


async def test_report_with_fuzz_sends_one_progress_notification_per_case() -> None:
    events: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        events.append((progress, total, message))

    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            assert not (await call(client, "probe_connect", DEMO))[0]
            result = await client.call_tool(
                "probe_report", {"fuzz": True}, progress_callback=on_progress
            )
            await call(client, "probe_disconnect", {"all": True})
    report = result.structured_content
    assert report is not None and not result.is_error
    total = report["fuzzSummary"]["cases"] + (report["nonObjectProbe"] is not None)
    assert len(events) == total > 0
    assert [e[0] for e in events] == list(range(1, total + 1))
    assert all(e[1] == total for e in events)
    assert all(re.fullmatch(rf"\d+/{total} \S.* \S+", e[2] or "") for e in events)


async def test_several_connections_are_opened_used_and_closed_in_any_order() -> None:
    with anyio.fail_after(90):
        async with mcprobe_client() as client:
            ids: list[str] = []

            async def connect() -> None:
                error, text, connected = await call(client, "probe_connect", DEMO)
                assert not error, text
                ids.append(connected["connectionId"])

            async with anyio.create_task_group() as tg:  # three targets start concurrently
                for _ in range(3):
                    tg.start_soon(connect)
            assert sorted(ids) == ["c1", "c2", "c3"]

            error, _, listed = await call(client, "probe_list", {"connectionId": "c1"})
            assert not error and listed["connectionId"] == "c1"
            _, _, lint = await call(client, "probe_lint", {})
            assert lint["connectionId"] == "c3"

            _, _, closed = await call(client, "probe_disconnect", {"connectionId": "c2"})
            assert closed == {
                "removed": ["c2"],
                "remaining": ["c1", "c3"],
                "defaultConnectionId": "c3",
            }
            error, text, _ = await call(client, "probe_list", {"connectionId": "c2"})
            assert error and "unknown connection id 'c2'" in text

            _, _, closed = await call(client, "probe_disconnect", {})
            assert closed["removed"] == ["c3"] and closed["defaultConnectionId"] == "c1"
            _, _, lint = await call(client, "probe_lint", {})
            assert lint["connectionId"] == "c1"

            _, _, closed = await call(client, "probe_disconnect", {"all": True})
            assert closed == {"removed": ["c1"], "remaining": [], "defaultConnectionId": None}


BAD_CONNECTS: list[tuple[dict[str, Any], str]] = [
    ({}, "give a command"),
    ({"command": "x", "url": "http://127.0.0.1:1/mcp"}, "not both"),
    ({"command": "   "}, "non-empty command"),
    ({"transport": "stdio"}, "non-empty command"),
    ({"transport": "carrier-pigeon", "command": "x"}, "transport"),
    ({"transport": "sse"}, "needs a url"),
    ({"url": "ftp://example.com/mcp"}, "malformed url"),
    ({"url": "http://"}, "malformed url"),
    ({"url": "http://127.0.0.1:99999/mcp"}, "malformed url"),
    ({"command": "x", "args": "not-a-list"}, "args"),
    ({"command": "x", "timeoutSeconds": "3"}, "timeoutSeconds"),
    ({"command": "x", "timeoutSeconds": -1}, "timeoutSeconds"),
    ({"command": "x", "bogus": 1}, "bogus"),
    ({"command": "x", "headers": {"X-Key": "hunter2-secret"}}, "http/sse targets only"),
    ({"url": "http://127.0.0.1:1/mcp", "env": {"K": "v"}}, "stdio targets only"),
]


@pytest.mark.parametrize(("arguments", "expected"), BAD_CONNECTS)
async def test_bad_connect_input_is_a_clear_is_error(
    arguments: dict[str, Any], expected: str
) -> None:
    with anyio.fail_after(10):
        async with mcprobe_client() as client:
            error, text, structured = await call(client, "probe_connect", arguments)
    assert error is True
    assert expected in text
    assert structured is None
    assert "hunter2-secret" not in text


async def test_bad_secret_typed_values_are_not_echoed_in_errors() -> None:
    with anyio.fail_after(10):
        async with mcprobe_client() as client:
            error, text, _ = await call(
                client, "probe_connect", {"url": "http://127.0.0.1:1/", "bearer": ["tok-9876543"]}
            )
    assert error and "bearer" in text and "tok-9876543" not in text


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("probe_lint", {}, "no open connection"),
        ("probe_list", {"connectionId": "c7"}, "no open connection"),
        ("probe_fuzz", {"maxTools": "many"}, "maxTools"),
        ("probe_fuzz", {"maxTools": -1}, "maxTools"),
        ("probe_fuzz", {"tools": "divide"}, "tools"),
        ("probe_report", {"fuzz": "yes"}, "fuzz"),
        ("probe_report", {}, "no open connection"),
        ("probe_disconnect", {}, "no open connection"),
        ("probe_disconnect", {"connectionId": "c1", "all": True}, "not both"),
        ("probe_lint", {"connectionId": 5}, "connectionId"),
    ],
)
async def test_bad_input_to_other_tools_is_a_clear_is_error(
    tool: str, arguments: dict[str, Any], expected: str
) -> None:
    with anyio.fail_after(10):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, tool, arguments)
    assert error is True
    assert expected in text
    assert text.startswith(f"{tool}: ")


async def test_a_target_that_cannot_start_is_an_is_error_and_the_server_stays_up() -> None:
    with anyio.fail_after(20):
        async with mcprobe_client() as client:
            error, text, _ = await call(
                client, "probe_connect", {"command": "/nonexistent/mcprobe-no-such-binary"}
            )
            assert error is True and "probe_connect:" in text
            listed = await client.list_tools()
    assert len(listed.tools) == 7


async def test_an_unknown_tool_name_is_a_jsonrpc_error() -> None:
    with anyio.fail_after(10):
        async with mcprobe_client() as client:
            with pytest.raises(MCPError) as excinfo:
                await client.call_tool("probe_everything", {})
    assert excinfo.value.code == -32602


async def test_probe_fuzz_and_probe_report_take_user_examples_and_refuse_an_invalid_one() -> None:
    repo = {"open_repo": {"repo_path": "/srv/repo"}}
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            error, text, _ = await call(client, "probe_connect", DEMO)
            assert not error, text
            _, _, plain = await call(client, "probe_fuzz", {"tools": ["open_repo"]})
            _, _, given = await call(
                client, "probe_fuzz", {"tools": ["open_repo"], "examples": repo}
            )
            error, text, _ = await call(
                client, "probe_fuzz", {"examples": {"open_repo": {"repo_path": 5}}}
            )
            assert error and "tool 'open_repo': example 1 does not match the schema" in text
            error, text, _ = await call(
                client, "probe_report", {"fuzz": True, "examples": {"nope": {}}}
            )
            assert error and "no tool named 'nope'" in text
            _, _, report = await call(client, "probe_report", {"fuzz": True, "examples": repo})
    (synthesized,) = [r for r in plain["results"] if r["case"] == "valid"]
    assert synthesized["source"] == "synthesized" and synthesized["inconclusive"]
    (user,) = [r for r in given["results"] if r["case"] == "valid"]
    assert user["source"] == "user" and user["inconclusive"] is None
    assert user["arguments"] == repo["open_repo"]
    (reported,) = [r for r in report["fuzz"] if r["name"] == "open_repo" and r["case"] == "valid"]
    assert reported["source"] == "user" and reported["inconclusive"] is None


async def test_probe_report_measures_a_tool_given_a_realistic_example_and_is_static_without_fuzz(
    tmp_path: Any,
) -> None:
    repo = tmp_path / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    with anyio.fail_after(60):
        async with mcprobe_client() as client:
            # The example names a path under /tmp: an isolated target sees only its own private /tmp
            # (paths named only in examples get no copy yet).
            error, text, _ = await call(client, "probe_connect", {**DEMO, "sandbox": "off"})
            assert not error, text
            error, text, static = await call(client, "probe_report", {})
            assert not error, text
            _, _, fuzzed = await call(
                client,
                "probe_report",
                {
                    "fuzz": True,
                    "examples": {"open_repo": {"repo_path": str(repo)}},
                    "detail": "full",  # the clean valid call is read below
                },
            )
    # No tool called: graded on what was measured, and marked static (SPEC §6).
    assert isinstance(static["overall"], int) and static["notGraded"] is None
    assert static["static"].startswith("no tool was called (the audit ran without fuzz)")
    assert "static: tools not called" in text  # the Markdown is the text content, once
    assert static["markdown"] is None
    assert fuzzed["notGraded"] is None and isinstance(fuzzed["overall"], int)
    (valid,) = [r for r in fuzzed["fuzz"] if r["name"] == "open_repo" and r["case"] == "valid"]
    assert (valid["source"], valid["outcome"], valid["inconclusive"]) == ("user", "ok", None)
