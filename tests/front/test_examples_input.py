"""User examples (``--examples FILE``, ``examples=``, the ``examples`` tool input) against the real
demo target: checked against the schema first, then the valid control with provenance ``user``."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from mcprobe.cli.commands import EXIT_OK, EXIT_USAGE, run
from mcprobe.core.cases.user_examples import checked_examples, normalise_examples
from mcprobe.core.errors import UsageError
from tests.support.paths import REPO_ROOT

DEMO = ["--cwd", str(REPO_ROOT), "--", sys.executable, "-m", "demo_target"]
TOOLS = "open_repo,well_behaved,lookup_user"  # three valid calls: liveness is measured


def _audit(tmp_path: Path, examples: Any, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "examples.json"
    path.write_text(json.dumps(examples), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    # --sandbox off: the example's repository is outside the target's args, env and cwd, so
    # an isolated target would not see it (paths in --examples get no private copy).
    argv = ["audit", "--sandbox", "off", "--json", "--examples", str(path), *extra, *DEMO]
    code = run(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def _valid(report: dict[str, Any], tool: str) -> dict[str, Any]:
    return next(r for r in report["fuzz"] if r["name"] == tool and r["case"] == "valid")


def git_checkout(root: Path) -> Path:
    """A fresh fixture directory that looks like a git checkout (``.git/HEAD`` on ``main``):
    what the demo's ``open_repo`` needs to answer, as mcp-server-git needs its repository."""
    repo = root / "checkout"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    return repo


def _liveness(report: dict[str, Any]) -> dict[str, Any]:
    return next(d for d in report["dimensions"] if d["key"] == "liveness")


@pytest.mark.slow
def test_a_realistic_example_turns_a_refused_placeholder_into_a_measured_clean_call(
    tmp_path: Path,
) -> None:
    code, out, err = _audit(tmp_path, {}, "--fuzz", "--tools", TOOLS)
    assert code == EXIT_OK, err
    before = json.loads(out)
    assert _valid(before, "open_repo")["inconclusive"]  # "example.txt" proves nothing
    # two conclusive valid calls are too few for a rate: the tool calls do not measure Liveness
    assert not _liveness(before)["reasons"][0].startswith("2 of 2")
    assert _liveness(before)["reasons"][0].startswith("measured by the resource/prompt checks")
    repo = git_checkout(tmp_path)
    code, out, err = _audit(
        tmp_path, {"open_repo": {"repo_path": str(repo)}}, "--fuzz", "--tools", TOOLS
    )
    assert code == EXIT_OK, err
    after = json.loads(out)
    valid = _valid(after, "open_repo")
    assert (valid["source"], valid["outcome"], valid["inconclusive"]) == ("user", "ok", None)
    assert valid["message"] == "On branch main"
    assert _liveness(after)["reasons"][0].startswith("3 of 3 valid calls succeeded cleanly")
    # the example is also the base of the malformed cases: the path is the user's, not ours
    extra = next(
        r for r in after["fuzz"] if r["name"] == "open_repo" and r["case"] == "extra_garbage"
    )
    assert extra["arguments"]["repo_path"] == str(repo)


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


@pytest.mark.slow
def test_the_library_with_a_realistic_example_gets_a_clean_measured_call(tmp_path: Path) -> None:
    from mcprobe import audit_stdio_sync

    repo = git_checkout(tmp_path)
    report = audit_stdio_sync(
        sys.executable,
        ["-m", "demo_target"],
        cwd=REPO_ROOT,
        fuzz=True,
        tools=["open_repo"],
        examples={"open_repo": [{"repo_path": str(repo)}]},
        sandbox="off",  # the repository is not among the target's args, env or cwd
    )
    (valid,) = [r for r in report.fuzz if r.name == "open_repo" and r.case == "valid"]
    assert (valid.source, valid.outcome, valid.inconclusive) == ("user", "ok", None)
    assert report.not_graded is None and report.overall is not None
    static = audit_stdio_sync(sys.executable, ["-m", "demo_target"], cwd=REPO_ROOT)
    assert static.static is not None and static.overall is not None  # graded, marked static


def _audit_with_config(
    cwd: Path, monkeypatch: pytest.MonkeyPatch, *argv: str
) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", "--json", *argv, *DEMO], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.slow
def test_examples_in_mcprobe_toml_are_read_relative_to_the_file_and_used_when_fuzzing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "conf").mkdir(parents=True)
    repo = git_checkout(tmp_path)
    (project / "conf" / "ex.json").write_text(
        json.dumps({"open_repo": {"repo_path": str(repo)}}), encoding="utf-8"
    )
    # sandbox off: the example's repository is outside the target's args, env and cwd.
    (project / "mcprobe.toml").write_text(
        '[audit]\nexamples = "conf/ex.json"\nsandbox = "off"\n', encoding="utf-8"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # Found upward from a subfolder, and named from another folder: both read conf/ex.json
    # next to the file, not next to the working directory.
    for cwd, extra in (
        (project / "conf", ()),
        (elsewhere, ("--config-file", str(project / "mcprobe.toml"))),
    ):
        code, out, err = _audit_with_config(cwd, monkeypatch, *extra, "--fuzz", "--tools", TOOLS)
        assert code == EXIT_OK, err
        valid = _valid(json.loads(out), "open_repo")
        assert (valid["source"], valid["outcome"]) == ("user", "ok")
    # Without fuzz the file's examples wait (no usage error); the command line's win over them.
    code, out, err = _audit_with_config(project, monkeypatch)
    assert code == EXIT_OK, err
    assert json.loads(out)["static"] is not None  # graded on what was measured, marked static
    cli_file = tmp_path / "cli.json"
    cli_file.write_text(json.dumps({"open_repo": {"repo_path": "/srv/none"}}), encoding="utf-8")
    code, out, err = _audit_with_config(
        project, monkeypatch, "--examples", str(cli_file), "--fuzz", "--tools", "open_repo"
    )
    assert code == EXIT_OK, err
    assert _valid(json.loads(out), "open_repo")["arguments"] == {"repo_path": "/srv/none"}


@pytest.mark.parametrize(
    ("toml", "files", "why"),
    [
        ('[audit]\nexamples = "missing.json"\n', {}, "audit.examples: cannot read"),
        ('[audit]\nexamples = "ex.json"\n', {"ex.json": "[1]"}, "audit.examples: "),
        ("[audit]\nexamples = 3\n", {}, "audit.examples"),
        ('[audit]\nexamples = "ex.json"\n', {"ex.json": '{"a": 1}'}, "needs an argument object"),
    ],
)
def test_a_bad_examples_entry_in_the_config_file_is_a_usage_error_naming_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toml: str, files: dict[str, str], why: str
) -> None:
    (tmp_path / "mcprobe.toml").write_text(toml, encoding="utf-8")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", "--fuzz", "--", "/nonexistent/x"], out, err)
    assert code == EXIT_USAGE
    (line,) = err.getvalue().splitlines()
    assert "mcprobe.toml" in line and why in line and "Traceback" not in line


def test_examples_for_several_host_servers_are_a_usage_error(tmp_path: Path) -> None:
    hosts = tmp_path / "claude_desktop_config.json"
    servers = {n: {"command": sys.executable, "args": ["-m", "demo_target"]} for n in ("a", "b")}
    hosts.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    examples = tmp_path / "ex.json"
    examples.write_text('{"open_repo": {"repo_path": "/x"}}', encoding="utf-8")
    err = io.StringIO()
    code = run(
        ["audit", "--config", str(hosts), "--fuzz", "--examples", str(examples)], io.StringIO(), err
    )
    assert code == EXIT_USAGE
    assert "--examples apply to one --server" in err.getvalue()
