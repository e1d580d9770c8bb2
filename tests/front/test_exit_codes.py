"""One exit-code table (mcprobe.cli.exit_codes): equal to the CLI's EXIT_* constants, printed by
--help, and listed in full by the README, docs/cli.md and the agent skill."""

from __future__ import annotations

import io
import re

import pytest

from mcprobe.cli import commands as cli
from mcprobe.cli.exit_codes import EXIT_CODES, PRECEDENCE
from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT
CODES = {entry.code for entry in EXIT_CODES}


def test_the_table_holds_exactly_the_codes_the_cli_defines() -> None:
    defined = {value for name, value in vars(cli).items() if name.startswith("EXIT_")}
    assert defined == CODES, "add the new code to mcprobe/cli/exit_codes.py (and the docs)"
    assert set(PRECEDENCE) <= CODES


def test_audit_help_prints_every_code_examples_and_defaults() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert cli.run(["audit", "--help"], out, err) == 0
    text = out.getvalue()
    for code in CODES:
        assert re.search(rf"^\s+{code}  ", text, re.M), code
    assert "examples:" in text and "(default 30)" in text and "(default 4)" in text


@pytest.mark.parametrize("doc", ["README.md", "docs/cli.md"])
def test_the_docs_exit_code_tables_list_every_code(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    listed = {int(code) for code in re.findall(r"^\| (\d+) \|", text, re.M)}
    assert listed == CODES


def test_the_skill_lists_every_exit_code() -> None:
    text = (ROOT / "skills/mcp-audit/SKILL.md").read_text(encoding="utf-8")
    sentence = text.split("Exit codes:", 1)[1].split("\n\n", 1)[0]
    listed = {int(code) for code in re.findall(r"`(\d+)`", sentence)}
    assert listed == CODES


def test_docs_cli_md_is_the_reference_not_a_proposal() -> None:
    assert "Proposed text" not in (ROOT / "docs/cli.md").read_text(encoding="utf-8")
