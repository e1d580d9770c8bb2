"""skills/mcp-audit/SKILL.md: its front matter is valid, and every command and tool call in it
works as written against this repository (the demo target stands in for the user's server)."""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
import yaml
from mcp import Client

from mcprobe.cli.commands import run
from mcprobe.server.app import TOOLS, build_server
from tests.support.http_demo import http_demo_target

ROOT = Path(__file__).resolve().parent.parent
SKILL = ROOT / "skills" / "mcp-audit" / "SKILL.md"
VENV_BIN = str(Path(sys.executable).parent)
HTTP_PLACEHOLDER = "https://mcp.example.com/mcp"
_EXIT = re.compile(r"\s+#\s*→\s*exit\s+(\d+)\s*$")


def _text() -> str:
    return SKILL.read_text(encoding="utf-8")


def _front_matter() -> dict[str, Any]:
    match = re.match(r"^---\n(.*?)\n---\n", _text(), re.S)
    assert match, "SKILL.md starts with YAML front matter"
    data: dict[str, Any] = yaml.safe_load(match.group(1))
    return data


def _shell_commands() -> list[tuple[str, int]]:
    """Every line of every ```bash block: (command, documented exit code)."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", _text(), re.S):
        for line in block.splitlines():
            if line.strip():
                found = _EXIT.search(line)
                commands.append((_EXIT.sub("", line), int(found.group(1)) if found else 0))
    return commands


def _tool_calls() -> list[dict[str, Any]]:
    blocks = re.findall(r"```json\n(.*?)```", _text(), re.S)
    return [json.loads(block) for block in blocks]


def test_front_matter_names_the_skill_and_says_when_to_use_it() -> None:
    meta = _front_matter()
    assert meta["name"] == "mcp-audit" == SKILL.parent.name
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", meta["name"])
    description = meta["description"]
    assert 50 < len(description) <= 1024
    assert "Use it when" in description


def test_skill_covers_safety_credentials_and_reading_the_report() -> None:
    text = _text()
    for needle in (
        "readOnlyHint: true",
        "fuzzWrites",
        "fuzzDestructive",
        "Ask the user first",
        "MCPROBE_TARGET_TOKEN",
        "Never guess",
        "Never echo a secret",
        "Coverage line",
        "⚠ Critical:",
        "Recommended fixes",
        "probe_connect",
        "probe_report",
        "probe_disconnect",
        "probe_audit",
        "Security",
        "The F cap",
        "unshare -rn",
    ):
        assert needle in text, needle


def test_every_tool_call_names_a_real_tool_with_valid_arguments() -> None:
    schemas = {tool.name: tool.tool().input_schema for tool in TOOLS}
    calls = _tool_calls()
    assert [c["tool"] for c in calls] == [
        "probe_audit",
        "probe_connect",
        "probe_connect",
        "probe_report",
        "probe_disconnect",
    ]
    for call in calls:
        jsonschema.validate(call["arguments"], schemas[call["tool"]])


@pytest.fixture
def venv_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The shell of someone who activated the venv, standing in a scratch directory."""
    monkeypatch.setenv("PATH", VENV_BIN + os.pathsep + os.environ["PATH"])
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_three_call_flow_runs_as_written_against_the_demo_target(
    venv_on_path: Path,
) -> None:
    _audit, connect, _http, report, disconnect = _tool_calls()
    with anyio.fail_after(90):
        async with Client(build_server(), mode="legacy") as client:
            results = []
            texts = []
            for call in (connect, report, disconnect):
                result = await client.call_tool(call["tool"], call["arguments"])
                assert not result.is_error, result.content
                results.append(result.structured_content)
                texts.append("".join(getattr(c, "text", "") for c in result.content))
    assert results[0] is not None and results[0]["connectionId"] == "c1"
    assert results[1] is not None and results[1]["coverage"]["fuzzedTools"] > 0
    assert "⚠ Critical:" in texts[1]  # the Markdown is the text content
    assert results[2] == {"removed": ["c1"], "remaining": [], "defaultConnectionId": None}


def test_the_version_command_is_the_installed_console_script(venv_on_path: Path) -> None:
    command, expected = _shell_commands()[0]
    assert command == "mcprobe --version"
    proc = subprocess.run(
        shlex.split(command), capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == expected
    assert proc.stdout.strip().endswith("0.1.0")


@pytest.fixture
def http_demo_url() -> Iterator[str]:
    with http_demo_target("DEMO_TOKEN", "skill-test-token-4242") as url:
        yield url


@pytest.mark.slow
def test_every_cli_command_exits_as_documented(
    venv_on_path: Path, monkeypatch: pytest.MonkeyPatch, http_demo_url: str
) -> None:
    monkeypatch.setenv("MCPROBE_TARGET_TOKEN", "skill-test-token-4242")
    commands = _shell_commands()
    assert len(commands) >= 8
    for command, expected in commands[1:]:
        argv = shlex.split(command.replace(HTTP_PLACEHOLDER, http_demo_url))
        assert argv[0] == "mcprobe", command
        out, err = io.StringIO(), io.StringIO()
        assert run(argv[1:], out, err) == expected, (command, err.getvalue())
    report = json.loads((venv_on_path / "report.json").read_text(encoding="utf-8"))
    assert report["server"]["name"] == "demo-target"
    sarif = json.loads((venv_on_path / "mcprobe.sarif").read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_one_call_probe_audit_runs_as_written_from_a_fresh_mcprobe(
    venv_on_path: Path,
) -> None:
    audit = _tool_calls()[0]
    assert audit["tool"] == "probe_audit"
    with anyio.fail_after(90):
        async with Client(build_server(), mode="legacy") as client:  # nothing connected before
            result = await client.call_tool(audit["tool"], audit["arguments"])
    assert not result.is_error, result.content
    assert result.structured_content is not None
    assert result.structured_content["coverage"]["fuzzedTools"] > 0
    assert "⚠ Critical:" in "".join(getattr(c, "text", "") for c in result.content)
