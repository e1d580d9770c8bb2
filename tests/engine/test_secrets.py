"""Secrets given for a target (env values, header values, the bearer token) never come back out.

The targets here echo every secret they receive everywhere they can: serverInfo, instructions,
tool descriptions, tool results, ``isError`` texts, JSON-RPC error messages and data, and stderr.
Each test then searches every output mcprobe produces: the report in every format, every log
record and everything written to stderr, ``ConnectFailed`` texts, and every result of mcprobe's
own MCP tools (text and structured content).
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

import anyio
import pytest
from mcp import Client

from mcprobe.core.errors import ConnectFailed
from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.json_report import render_json
from mcprobe.report.render.junit import render_junit
from mcprobe.report.render.sarif import render_sarif
from mcprobe.server.app import build_server
from tests.targets import RAWSERVER
from tests.targets.hostile_http import echo_secrets, serve

pytestmark = pytest.mark.anyio

PY = sys.executable
ENV_SECRET = "env-Secret-7f3a9c21"
BEARER = "bearer-Secret-55e1d0"
HEADER = "header-Secret-c0ffee42"
SECRETS = (ENV_SECRET, BEARER, HEADER)
ECHO_TOOLS = "tools=echo,leak_text,leak_error,leak_rpc"


def every_format(report: ConformanceReport) -> dict[str, str]:
    return {
        "markdown": report.markdown or "",
        "json": render_json(report),
        "sarif": render_sarif(report),
        "junit": render_junit(report),
        "repr": repr(report),
    }


def assert_no_secret(where: str, text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked into {where}"
        assert json.dumps(secret)[1:-1] not in text


@pytest.fixture
def all_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    return caplog


def stdio_spec(*argv: str, connect_timeout: float = 5.0) -> TargetSpec:
    return TargetSpec(
        "stdio",
        command=PY,
        args=(str(RAWSERVER), *argv),
        env={"PROBE_TOKEN": ENV_SECRET},
        connect_timeout=connect_timeout,
        call_timeout=2.0,
    )


async def test_env_secrets_echoed_by_a_stdio_target_appear_in_no_report_format_or_log(
    all_logs: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    with anyio.fail_after(30):
        report = await audit(
            AuditRequest(stdio_spec("echo_secrets", ECHO_TOOLS), fuzz_destructive=True)
        )
    # The target did echo it (scrubbed): otherwise this test would prove nothing.
    assert report.server.instructions == "the secret is [redacted]"
    assert any("[redacted]" in (r.message or "") for r in report.fuzz if r.name == "leak_error")
    assert report.target is not None and report.target.env_names == ["PROBE_TOKEN"]
    for name, text in every_format(report).items():
        assert_no_secret(name, text)
    assert_no_secret("logs", "\n".join(r.getMessage() for r in all_logs.records))
    assert_no_secret("log tracebacks", "\n".join(str(r.exc_info) for r in all_logs.records))
    captured = capfd.readouterr()
    assert_no_secret("stderr", captured.err)
    assert_no_secret("stdout", captured.out)


async def test_a_connect_failure_quoting_the_targets_stderr_does_not_leak_the_secret() -> None:
    spec = stdio_spec("echo_secrets", "silent", connect_timeout=1.0)
    with anyio.fail_after(15), pytest.raises(ConnectFailed) as info:
        await audit(AuditRequest(spec, fuzz=False))
    assert "starting with PROBE_TOKEN=[redacted]" in str(info.value)
    assert_no_secret("ConnectFailed", str(info.value))
    assert_no_secret("ConnectFailed.stderr_tail", info.value.stderr_tail)


async def test_bearer_and_header_values_echoed_by_an_http_target_appear_nowhere(
    all_logs: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    with anyio.fail_after(30):
        async with serve(echo_secrets) as base:
            spec = TargetSpec(
                "http",
                url=f"{base}/mcp",
                headers={"X-Api-Key": HEADER},
                bearer=BEARER,
                connect_timeout=5.0,
                call_timeout=2.0,
            )
            report = await audit(AuditRequest(spec, fuzz=True))
    assert report.server.instructions == "auth=Bearer [redacted] key=[redacted]"
    # the echo in the initialize answer is a finding of its own, at the server (one per kind)
    at_server = [
        f for f in report.findings if f.code == "security.secret_echo" and f.location.tool is None
    ]
    assert len(at_server) == 2 and all("initialize answer" in f.message for f in at_server)
    assert report.target is not None and report.target.header_names == ["X-Api-Key"]
    assert {r.name for r in report.fuzz} == {"whoami"}
    for name, text in every_format(report).items():
        assert_no_secret(name, text)
    assert_no_secret("logs", "\n".join(r.getMessage() for r in all_logs.records))
    assert_no_secret("stderr", capfd.readouterr().err)


async def _all_tool_outputs(client: Client, connect: dict[str, Any]) -> list[str]:
    """Connect, then every tool of mcprobe once; the text and structured content of each."""
    outputs: list[str] = []
    calls: list[tuple[str, dict[str, Any]]] = [
        ("probe_connect", connect),
        ("probe_list", {}),
        ("probe_lint", {}),
        ("probe_fuzz", {"fuzzDestructive": True}),
        ("probe_report", {"fuzz": True, "fuzzDestructive": True}),
        ("probe_disconnect", {}),
    ]
    for name, arguments in calls:
        result = await client.call_tool(name, arguments)
        text = "".join(getattr(block, "text", "") for block in result.content)
        assert not result.is_error, text
        outputs += [text, json.dumps(result.structured_content)]
    return outputs


async def test_no_result_of_mcprobes_own_tools_leaks_a_stdio_or_http_targets_secrets(
    all_logs: pytest.LogCaptureFixture,
) -> None:
    stdio = {
        "command": PY,
        "args": [str(RAWSERVER), "echo_secrets", ECHO_TOOLS],
        "env": {"PROBE_TOKEN": ENV_SECRET},
        "timeoutSeconds": 2,
    }
    with anyio.fail_after(60):
        async with Client(build_server(), mode="legacy") as client, serve(echo_secrets) as base:
            outputs = await _all_tool_outputs(client, stdio)
            http = {"url": f"{base}/mcp", "headers": {"X-Api-Key": HEADER}, "bearer": BEARER}
            outputs += await _all_tool_outputs(client, http)
            failed = await client.call_tool(
                "probe_connect",
                {
                    "command": PY,
                    "args": [str(RAWSERVER), "echo_secrets", "silent"],
                    "env": {"PROBE_TOKEN": ENV_SECRET},
                    "connectTimeoutSeconds": 1,
                },
            )
    failure = "".join(getattr(block, "text", "") for block in failed.content)
    assert failed.is_error and "PROBE_TOKEN=[redacted]" in failure
    assert sum("[redacted]" in text for text in outputs) > 4  # the targets did echo them
    for index, text in enumerate([*outputs, failure]):
        assert_no_secret(f"tool output {index}", text)
    assert_no_secret("logs", "\n".join(r.getMessage() for r in all_logs.records))
