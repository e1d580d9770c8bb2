"""The library surface: ``import mcprobe`` then ``audit_stdio`` / ``audit_url`` /
``render_report``."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

import mcprobe
from mcprobe.core.errors import ConnectFailed, UsageError
from mcprobe.report.model import SCHEMA_VERSION, ConformanceReport
from tests.support.http_demo import http_demo_target
from tests.support.paths import CLI_TARGET, REPO_ROOT
from tests.support.report_samples import sample_report

PY = sys.executable
CLI_TARGET = CLI_TARGET
REPO = REPO_ROOT


def test_import_mcprobe_loads_neither_the_sdk_nor_pydantic_nor_markdown_it() -> None:
    modules = "('mcp', 'pydantic', 'jsonschema', 'anyio', 'markdown_it')"
    code = f"import sys, mcprobe; print(sorted(m for m in {modules} if m in sys.modules))"
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "[]"


def test_every_public_name_resolves() -> None:
    for name in mcprobe.__all__:
        assert getattr(mcprobe, name) is not None, name
    assert mcprobe.ConnectFailed is ConnectFailed
    assert mcprobe.ConformanceReport is ConformanceReport
    with pytest.raises(AttributeError):
        _ = mcprobe.no_such_name  # type: ignore[attr-defined]


def test_render_report_speaks_every_format() -> None:
    report = sample_report()
    assert mcprobe.render_report(report).startswith("# ")
    assert json.loads(mcprobe.render_report(report, "json"))["schemaVersion"] == SCHEMA_VERSION
    sarif = json.loads(mcprobe.render_report(report, "sarif", sarif_artifact="README.md"))
    location = sarif["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "README.md"
    assert ET.fromstring(mcprobe.render_report(report, "junit").encode()).tag == "testsuites"
    with pytest.raises(UsageError, match="unknown report format"):
        mcprobe.render_report(report, "pdf")  # type: ignore[arg-type]
    assert mcprobe.render_report(report, "html").startswith("<!DOCTYPE html>")


@pytest.mark.anyio
async def test_a_non_positive_timeout_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="timeout"):
        await mcprobe.audit_stdio(PY, [CLI_TARGET], timeout=0)


@pytest.mark.slow
@pytest.mark.anyio
async def test_audit_stdio_fuzzes_with_env_and_cwd(tmp_path: Path) -> None:
    with anyio.fail_after(30):
        report = await mcprobe.audit_stdio(
            PY,
            [CLI_TARGET, "--clean"],
            env={"CLI_TARGET_SECRET": "lib-secret-value"},
            cwd=tmp_path,
            fuzz=True,
            timeout=5,
            connect_timeout=10,
        )
    assert report.server.name == "cli-target"
    assert report.coverage is not None and report.coverage.fuzzed_tools == 2
    valid = next(r for r in report.fuzz if r.name == "whereami" and r.case == "valid")
    assert valid.message is not None and f"cwd={tmp_path}" in valid.message
    assert "eulav-terces-bil" in valid.message
    assert "lib-secret-value" not in report.model_dump_json()


@pytest.mark.slow
@pytest.mark.anyio
async def test_audit_stdio_raises_connect_failed_for_a_missing_command() -> None:
    with anyio.fail_after(30), pytest.raises(mcprobe.ConnectFailed):
        await mcprobe.audit_stdio("/no/such/mcp-server-binary", connect_timeout=5)


@pytest.mark.slow
def test_audit_stdio_sync_runs_outside_an_event_loop() -> None:
    report = mcprobe.audit_stdio_sync(PY, [CLI_TARGET], fuzz=True, tools=["echo"])
    assert report.coverage is not None
    assert report.coverage.fuzzed == ["echo"]
    assert report.critical  # the default target accepts anything


@pytest.fixture
def http_target() -> Iterator[str]:
    with http_demo_target("LIB_TOKEN", "lib-bearer-secret") as url:
        yield url


@pytest.mark.slow
@pytest.mark.anyio
async def test_audit_url_sends_the_bearer_and_keeps_it_out_of_the_report(http_target: str) -> None:
    with anyio.fail_after(30):
        report = await mcprobe.audit_url(
            http_target, bearer="lib-bearer-secret", headers={"X-Trace": "trace-secret-1"}
        )
    assert report.server.name == "demo-target"
    assert report.target is not None and report.target.header_names == ["X-Trace"]
    dumped = report.model_dump_json()
    assert "lib-bearer-secret" not in dumped and "trace-secret-1" not in dumped
    with anyio.fail_after(30), pytest.raises(ConnectFailed):
        await mcprobe.audit_url(http_target, bearer="wrong", connect_timeout=5)
