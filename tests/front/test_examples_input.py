"""User examples (``--examples FILE``, ``examples=``, the ``examples`` tool input) against the real
demo target: checked against the schema first, then the valid control with provenance ``user``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcprobe.cli import EXIT_OK, EXIT_USAGE, run
from mcprobe.core.cases.user_examples import checked_examples, normalise_examples
from mcprobe.core.errors import UsageError
from tests.support.paths import REPO_ROOT

DEMO = ["--cwd", str(REPO_ROOT), "--", sys.executable, "-m", "demo_target"]
TOOLS = "open_repo,well_behaved,lookup_user"  # three valid calls: liveness is measured


def _audit(tmp_path: Path, examples: Any, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "examples.json"
    path.write_text(json.dumps(examples), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", "--json", "--examples", str(path), *extra, *DEMO], out, err)
    return code, out.getvalue(), err.getvalue()


def _valid(report: dict[str, Any], tool: str) -> dict[str, Any]:
    return next(r for r in report["fuzz"] if r["name"] == tool and r["case"] == "valid")


@pytest.mark.slow
def test_a_user_example_the_tool_refuses_is_a_real_failure_where_a_synthesized_one_is_inconclusive(
    tmp_path: Path,
) -> None:
    code, out, err = _audit(tmp_path, {}, "--fuzz", "--tools", TOOLS)
    assert code == EXIT_OK, err
    synthesized = _valid(json.loads(out), "open_repo")
    assert synthesized["source"] == "synthesized" and synthesized["inconclusive"]

    examples = {"open_repo": {"repo_path": "/srv/repo"}, "lookup_user": [{"user_id": 7}]}
    code, out, err = _audit(tmp_path, examples, "--fuzz", "--tools", TOOLS)
    assert code == EXIT_OK, err
    report = json.loads(out)
    user = _valid(report, "open_repo")
    assert user["source"] == "user" and user["inconclusive"] is None
    assert user["arguments"] == {"repo_path": "/srv/repo"}
    liveness = next(d for d in report["dimensions"] if d["key"] == "liveness")
    assert any("open_repo valid" in r and "valid call rejected" in r for r in liveness["reasons"])
    assert _valid(report, "lookup_user")["arguments"] == {"user_id": 7}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("examples", "named"),
    [
        ({"open_repo": {"repo_path": 5}}, "tool 'open_repo': example 1 does not match the schema"),
        ({"open_rep": {"repo_path": "/srv"}}, "the server lists no tool named 'open_rep'"),
    ],
)
def test_an_invalid_example_or_one_for_an_unknown_tool_is_a_usage_error_naming_the_tool(
    tmp_path: Path, examples: dict[str, Any], named: str
) -> None:
    code, out, err = _audit(tmp_path, examples, "--fuzz")
    assert code == EXIT_USAGE
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith("mcprobe: usage error: --examples") or "examples" in line
    assert named in line


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("[1]", "expected an object"),
        ('{"a": 1}', "needs an argument object"),
        ('{"a": []}', "needs an argument object"),
        ("{", "is not JSON"),
    ],
)
def test_a_malformed_examples_file_is_a_usage_error_before_the_target_starts(
    tmp_path: Path, content: str, why: str
) -> None:
    path = tmp_path / "examples.json"
    path.write_text(content, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", "--fuzz", "--examples", str(path), "--", "/nonexistent/x"], out, err)
    assert code == EXIT_USAGE
    assert why in err.getvalue() and "Traceback" not in err.getvalue()


def test_examples_without_fuzz_are_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "examples.json"
    path.write_text('{"a": {}}', encoding="utf-8")
    err = io.StringIO()
    assert run(["audit", "--examples", str(path), "--", "x"], io.StringIO(), err) == EXIT_USAGE
    assert "--examples needs --fuzz" in err.getvalue()


def test_examples_are_normalised_and_checked_against_the_listed_schemas() -> None:
    tool = {
        "name": "t",
        "inputSchema": {
            "type": "object",
            "required": ["n"],
            "properties": {"n": {"type": "integer"}},
        },
    }
    given = normalise_examples({"t": {"n": 1}})
    assert given == {"t": ({"n": 1},)}
    assert checked_examples([tool], given) == given
    with pytest.raises(UsageError, match="tool 't': example 2 does not match"):
        checked_examples([tool], normalise_examples({"t": [{"n": 1}, {"n": "x"}]}))
    with pytest.raises(UsageError, match="no tool named 'u'"):
        checked_examples([tool], {"u": ({},)})


@pytest.mark.slow
def test_the_library_takes_examples_and_raises_a_usage_error_for_an_invalid_one() -> None:
    from mcprobe import audit_stdio_sync

    demo: dict[str, Any] = {"cwd": REPO_ROOT, "fuzz": True, "tools": ["open_repo"]}
    report = audit_stdio_sync(
        sys.executable, ["-m", "demo_target"], examples={"open_repo": {"repo_path": "/srv"}}, **demo
    )
    (valid,) = [r for r in report.fuzz if r.name == "open_repo" and r.case == "valid"]
    assert valid.source == "user" and valid.inconclusive is None
    with pytest.raises(UsageError, match="tool 'open_repo': example 1 does not match"):
        audit_stdio_sync(
            sys.executable, ["-m", "demo_target"], examples={"open_repo": {"x": 1}}, **demo
        )
