"""docs/checks.md documents every code, outcome and flag mcprobe can report; every host snippet
in docs/registration.md starts mcprobe as written."""

from __future__ import annotations

import ast
import json
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from mcprobe.core.lint.engine import LINT_RULES
from mcprobe.core.model import Outcome
from mcprobe.report.model import FuzzResultOut

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "docs" / "checks.md"
REGISTRATION = ROOT / "docs" / "registration.md"
PLACEHOLDER = "/path/to/mcprobe/.venv/bin/"
PROBE_TOOLS = {
    "probe_audit",
    "probe_connect",
    "probe_lint",
    "probe_fuzz",
    "probe_report",
    "probe_list",
    "probe_disconnect",
}
_CODE = re.compile(r"(tool|schema|param|server|security)\.[a-z][a-z_]*")
_BEHAVIOUR = re.compile(r"behavior\.[a-z][a-z_]*")
_FLAGS = (
    "silentlyAccepted",
    "emptySuccess",
    "outputSchemaViolation",
    "leak",
    "failureAsSuccess",
    "environment",
    "inconclusive",
)


def _headings() -> set[str]:
    return set(re.findall(r"^### `([^`]+)`$", CHECKS.read_text(encoding="utf-8"), re.M))


def _string_constants(pattern: re.Pattern[str]) -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "mcprobe").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and pattern.fullmatch(value):
                found.add(value)
    return found


def test_every_registered_lint_code_has_a_section() -> None:
    assert set(LINT_RULES) - _headings() == set()


def test_every_finding_code_in_the_source_has_a_section() -> None:
    codes = _string_constants(_CODE)
    assert len(codes) >= len(LINT_RULES)  # the scan sees at least the registry
    assert codes - _headings() == set()


def test_every_outcome_has_a_section() -> None:
    assert {o.value for o in Outcome} - _headings() == set()


def test_every_flag_of_a_fuzz_result_has_a_section() -> None:
    wire_fields = {f.alias for f in FuzzResultOut.model_fields.values()}
    assert set(_FLAGS) <= wire_fields
    assert set(_FLAGS) - _headings() == set()


def test_every_behavioural_sarif_rule_is_documented() -> None:
    rules = _string_constants(_BEHAVIOUR)
    assert rules, "render_sarif defines behavioural rule ids"
    text = CHECKS.read_text(encoding="utf-8")
    assert {r for r in rules if f"`{r}`" not in text} == set()


def test_the_unknown_tool_probe_is_documented_with_its_real_name() -> None:
    from mcprobe.core.cases.selection import unknown_tool_name

    text = CHECKS.read_text(encoding="utf-8")
    assert "## The unknown-tool probe" in text
    assert unknown_tool_name(["divide"]) in text


def test_every_section_explains_meaning_example_and_fix() -> None:
    sections = re.split(r"^### ", CHECKS.read_text(encoding="utf-8"), flags=re.M)[1:]
    assert len(sections) >= len(LINT_RULES) + len(Outcome) + len(_FLAGS)
    for section in sections:
        title = section.splitlines()[0]
        assert "Fix" in section, title
        assert "Example" in section or title.startswith("`server."), title


def test_json_examples_in_checks_parse() -> None:
    blocks = re.findall(r"```json\n(.*?)```", CHECKS.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 8
    for block in blocks:
        json.loads(block)


# --------------------------------------------------------------------------- registration.md


def _real(arg: str) -> str:
    """The snippet's placeholder path → this checkout's venv (what a reader substitutes)."""
    return arg.replace(PLACEHOLDER, str(Path(sys.executable).parent) + "/")


def _snippet_commands() -> dict[str, list[str]]:
    """Every host snippet → the argv the host will start."""
    text = REGISTRATION.read_text(encoding="utf-8")
    found: dict[str, list[str]] = {}
    for n, block in enumerate(re.findall(r"```json\n(.*?)```", text, re.S)):
        entry = json.loads(block)["mcpServers"]["mcprobe"]
        found[f"json#{n}"] = [entry["command"], *entry["args"]]
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        line = block.replace("\\\n", " ").strip()
        argv = shlex.split(line)
        if argv[:3] == ["claude", "mcp", "add"]:
            found[line] = argv[argv.index("--") + 1 :]
        elif argv[:2] == ["npx", "@modelcontextprotocol/inspector"]:
            rest = [a for a in argv[2:] if a != "--cli"]
            found[line] = rest[: rest.index("--method")] if "--method" in rest else rest
    return found


def test_registration_covers_every_host() -> None:
    snippets = _snippet_commands()
    assert sum(label.startswith("json#") for label in snippets) == 2  # Claude Desktop, Cursor
    assert any(label.startswith("claude mcp add mcprobe -- ") for label in snippets)
    assert any("--cli" in label and "--method tools/list" in label for label in snippets)
    assert all(argv and argv[0].startswith(PLACEHOLDER) for argv in snippets.values())


def test_inspector_tool_call_snippet_sends_valid_probe_connect_arguments() -> None:
    from mcprobe.server.app import TOOLS

    (line,) = [c for c in _snippet_commands() if "--tool-name probe_connect" in c]
    argv = shlex.split(line)
    pairs = argv[argv.index("--tool-arg") + 1 :]
    arguments: dict[str, Any] = {}
    for pair in pairs:  # the Inspector parses a value as JSON when it can
        key, value = pair.split("=", 1)
        try:
            arguments[key] = json.loads(value)
        except json.JSONDecodeError:
            arguments[key] = value
    (connect,) = [t for t in TOOLS if t.name == "probe_connect"]
    jsonschema.validate(arguments, connect.tool().input_schema)
    assert arguments["args"] == ["-m", "demo_target"]


@pytest.mark.anyio
@pytest.mark.slow
async def test_every_host_snippet_starts_mcprobe_and_lists_its_tools() -> None:
    commands = {tuple(_real(a) for a in argv) for argv in _snippet_commands().values()}
    for argv in sorted(commands):
        # As a host does it: a fresh process, stdio, initialize, tools/list; the SDK client
        # passes only a minimal environment, like a desktop app that has no shell around it.
        params = StdioServerParameters(command=argv[0], args=list(argv[1:]))
        with anyio.fail_after(60):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(
                    read, write, client_info=types.Implementation(name="host", version="1")
                ) as session,
            ):
                init = await session.initialize()
                tools = {tool.name for tool in (await session.list_tools()).tools}
        assert init.server_info.name == "mcprobe"
        assert tools == PROBE_TOOLS


# --------------------------------------------------------------------------- generated docs


GENERATED = [
    ROOT / "docs" / "agent-usage.md",
    ROOT / "docs" / "transcripts" / "mcp-server-time.md",
    ROOT / "docs" / "transcripts" / "server-everything.md",
]
PROBE_FLOW = ("probe_connect", "probe_report", "probe_disconnect")


def test_generated_walkthroughs_use_the_current_tools_and_report_schema() -> None:
    # Stale after a tool or report-shape change: regenerate with scripts/transcripts.
    from mcprobe.report.model import SCHEMA_VERSION
    from mcprobe.server.app import TOOLS

    schemas = {tool.name: tool.tool().input_schema for tool in TOOLS}
    for path in GENERATED:
        text = path.read_text(encoding="utf-8")
        assert f"report schema {SCHEMA_VERSION}" in text, path.name
        calls = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
        sent = [c for c in calls if set(c) == {"name", "arguments"}]
        assert sent and sent[0]["name"] == "probe_connect", path.name
        for call in sent:
            jsonschema.validate(call["arguments"], schemas[call["name"]])
    usage = GENERATED[0].read_text(encoding="utf-8")
    order = [usage.index(f'"name": "{tool}"') for tool in PROBE_FLOW]
    assert order == sorted(order)
