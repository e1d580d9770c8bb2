"""docs/checks.md documents every code, outcome and flag mcprobe can report."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from mcprobe.lint import LINT_RULES
from mcprobe.model import Outcome
from mcprobe.report_model import FuzzResultOut

ROOT = Path(__file__).resolve().parent.parent
CHECKS = ROOT / "docs" / "checks.md"
_CODE = re.compile(r"(tool|schema|param|server)\.[a-z][a-z_]*")
_BEHAVIOUR = re.compile(r"behavior\.[a-z][a-z_]*")
_FLAGS = ("silentlyAccepted", "emptySuccess", "outputSchemaViolation", "leak")


def _headings() -> set[str]:
    return set(re.findall(r"^### `([^`]+)`$", CHECKS.read_text(encoding="utf-8"), re.M))


def _string_constants(pattern: re.Pattern[str]) -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "mcprobe").glob("*.py"):
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
    from mcprobe.selection import unknown_tool_name

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
