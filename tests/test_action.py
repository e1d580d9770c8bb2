"""The composite GitHub Action: action.yml's wiring, and scripts/action_audit.sh run locally
against the demo target the way a workflow runs it (fake GITHUB_OUTPUT / GITHUB_STEP_SUMMARY)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.http_demo import http_demo_target

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
SCRIPT = ROOT / "scripts" / "action_audit.sh"
MCPROBE = Path(sys.executable).with_name("mcprobe")
DEMO = f"{sys.executable} -m demo_target"
TIMEOUT = 120


def _action() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return data


def _audit_step() -> dict[str, Any]:
    steps = _action()["runs"]["steps"]
    (step,) = [s for s in steps if s.get("id") == "audit"]
    return dict(step)


def _run(tmp_path: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    github_output = tmp_path / "github_output"
    github_output.touch()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", str(tmp_path)),
        "MCPROBE_BIN": str(MCPROBE),
        "MCPROBE_PYTHON": sys.executable,
        "GITHUB_OUTPUT": str(github_output),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "INPUT_OUTPUT_DIR": str(tmp_path / "reports"),
        **inputs,
    }
    proc = subprocess.run(
        ["bash", str(SCRIPT)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    lines = github_output.read_text(encoding="utf-8").splitlines()
    return proc, dict(line.split("=", 1) for line in lines)


# --------------------------------------------------------------------------- action.yml wiring


def test_action_is_a_composite_that_installs_mcprobe_from_its_own_checkout() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    install = "\n".join(s.get("run", "") for s in action["runs"]["steps"])
    assert 'pip install --quiet --disable-pip-version-check "$GITHUB_ACTION_PATH"' in install
    assert 'bash "$GITHUB_ACTION_PATH/scripts/action_audit.sh"' in _audit_step()["run"]


def test_action_leaves_the_jobs_python_alone() -> None:
    (setup,) = [s for s in _action()["runs"]["steps"] if "setup-python" in s.get("uses", "")]
    assert setup["with"]["update-environment"] is False


def test_every_declared_input_is_used_and_every_used_input_is_declared() -> None:
    text = ACTION.read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)", text))
    assert used == set(_action()["inputs"])
    for name in (
        "command",
        "url",
        "fuzz",
        "fuzz-writes",
        "fuzz-destructive",
        "min-score",
        "python-version",
    ):
        assert name in used


def test_inputs_never_reach_a_shell_script_as_text() -> None:
    # Expressions in `run:` would let an input inject shell code; they must go through env.
    for step in _action()["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")


def test_the_script_reads_exactly_the_inputs_the_action_passes() -> None:
    passed = {k for k in _audit_step()["env"] if k.startswith("INPUT_")}
    read = set(re.findall(r"\$\{?(INPUT_[A-Z_]+)", SCRIPT.read_text(encoding="utf-8")))
    assert passed == read


def test_the_bearer_token_reaches_mcprobe_only_through_its_environment_variable() -> None:
    env = _audit_step()["env"]
    assert env["MCPROBE_TARGET_TOKEN"] == "${{ inputs.bearer-token || env.MCPROBE_TARGET_TOKEN }}"
    assert "bearer" not in SCRIPT.read_text(encoding="utf-8").replace("bearer token", "")


# --------------------------------------------------------------------------- the script, run


def test_bad_inputs_fail_with_a_clear_error_before_anything_runs(tmp_path: Path) -> None:
    proc, _ = _run(tmp_path)
    assert proc.returncode == 1
    assert "set 'command'" in proc.stderr
    proc, _ = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_URL="http://127.0.0.1:9/mcp")
    assert proc.returncode == 1
    assert "not both" in proc.stderr
    proc, _ = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_MIN_SCORE="eighty")
    assert proc.returncode == 1
    assert "min-score" in proc.stderr
    proc, _ = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_FUZZ="maybe")
    assert proc.returncode == 1
    assert "expected true or false" in proc.stderr


@pytest.mark.slow
def test_fuzzed_demo_audit_sets_outputs_and_writes_json_sarif_and_summary(tmp_path: Path) -> None:
    proc, outputs = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_MIN_SCORE="10")
    assert proc.returncode == 0, proc.stderr
    assert set(outputs) == set(_action()["outputs"])
    report = json.loads(Path(outputs["json"]).read_text(encoding="utf-8"))
    assert outputs["score"] == str(report["overall"])
    assert outputs["grade"] == report["grade"]
    assert report["coverage"]["fuzzedTools"] > 0
    assert int(outputs["critical"]) == len(report["critical"]) > 0
    sarif = json.loads(Path(outputs["sarif"]).read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"
    rule_ids = {r["ruleId"] for r in sarif["runs"][0]["results"]}
    assert "behavior.silently_accepted" in rule_ids
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### mcprobe")
    assert f"{report['overall']}/100" in summary
    assert "# mcprobe conformance report" in summary  # the full report, folded


@pytest.mark.slow
def test_score_below_min_score_fails_the_step_but_still_sets_outputs(tmp_path: Path) -> None:
    # Extra args are split like a shell would: only `well_behaved` is fuzzed.
    extra = "--tools 'well_behaved' --max-tools 1"
    proc, outputs = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_ARGS=extra, INPUT_MIN_SCORE="100")
    assert proc.returncode == 3
    # The CLI's own gate and message (min-score is --fail-under): the same code as the CLI.
    assert f"mcprobe: score {outputs['score']}/100, grade" in proc.stderr
    assert "is below --fail-under 100" in proc.stderr
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert (
        "**✗ This step failed: mcprobe exit 3, the overall score is below --fail-under" in summary
    )
    report = json.loads(Path(outputs["json"]).read_text(encoding="utf-8"))
    assert report["coverage"]["fuzzed"] == ["well_behaved"]
    sarif = json.loads(Path(outputs["sarif"]).read_text(encoding="utf-8"))
    locations = [r["locations"][0] for r in sarif["runs"][0]["results"]]
    assert locations
    assert {loc["physicalLocation"]["artifactLocation"]["uri"] for loc in locations} == {
        "README.md"
    }


@pytest.mark.slow
def test_a_target_that_cannot_start_fails_with_exit_2(tmp_path: Path) -> None:
    proc, outputs = _run(tmp_path, INPUT_COMMAND="/nonexistent/mcp-server --stdio")
    assert proc.returncode == 2
    assert "could not connect" in proc.stderr
    assert outputs == {}


@pytest.fixture
def http_demo_with_bearer() -> Iterator[tuple[str, str]]:
    token = "s3cr3t-action-token-7781"
    with http_demo_target("DEMO_TOKEN", token) as url:
        yield url, token


@pytest.mark.slow
def test_http_target_with_bearer_from_env_never_shows_the_token(
    tmp_path: Path, http_demo_with_bearer: tuple[str, str]
) -> None:
    url, token = http_demo_with_bearer
    proc, outputs = _run(tmp_path, INPUT_URL=url, INPUT_FUZZ="false", MCPROBE_TARGET_TOKEN=token)
    assert proc.returncode == 0, proc.stderr
    # fuzz "false" on a server with tools: graded on what was measured, marked static
    assert outputs["grade"] in ("A", "B", "C", "D", "F") and outputs["score"].isdigit()
    report = json.loads((tmp_path / "reports" / "mcprobe-report.json").read_text("utf-8"))
    assert report["notGraded"] is None
    assert report["static"].startswith("no tool was called (the audit ran without fuzz)")
    shown = [proc.stdout, proc.stderr, (tmp_path / "github_output").read_text(encoding="utf-8")]
    shown += [p.read_text(encoding="utf-8") for p in (tmp_path / "reports").iterdir()]
    shown.append((tmp_path / "summary.md").read_text(encoding="utf-8"))
    assert all(token not in text for text in shown)
    assert json.loads(Path(outputs["json"]).read_text(encoding="utf-8"))["target"]["bearer"] is True


# --------------------------------------------------------------------------- every documented input


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ("--format md", "args: --format is set by the action"),
        ("--format=md", "args: --format is set by the action"),
        ("--json", "args: --json is set by the action"),
        ("--output x.md", "args: --output is set by the action"),
        ("--sarif-artifact a", "use the sarif-artifact input"),
        ("--stdio 'python x.py'", "use the command input"),
        ("-- python x.py", "use the command input"),
        ("--baseline old.json", "use the baseline input"),
        ("--config .cursor/mcp.json", "one server per step"),
        ("--timeout 'unbalanced", "args: cannot split"),
    ],
)
def test_args_the_action_controls_fail_with_one_line_before_anything_runs(
    tmp_path: Path, args: str, reason: str
) -> None:
    proc, outputs = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_ARGS=args)
    assert proc.returncode == 1
    errors = [line for line in proc.stderr.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and reason in errors[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert outputs == {}


def test_a_bad_option_in_args_is_mcprobes_one_line_usage_error(tmp_path: Path) -> None:
    proc, _ = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_ARGS="--timeout soon")
    assert proc.returncode == 1
    assert "mcprobe: usage error: argument --timeout" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_target_env_names_must_be_variable_names(tmp_path: Path) -> None:
    proc, _ = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_TARGET_ENV="API_KEY,bad-name", API_KEY="x")
    assert proc.returncode == 1
    assert "target-env: 'bad-name' is not a variable name" in proc.stderr


def test_target_env_that_is_not_set_is_a_one_line_error(tmp_path: Path) -> None:
    proc, _ = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_TARGET_ENV="UX_SURELY_UNSET_VAR")
    assert proc.returncode == 1
    assert "UX_SURELY_UNSET_VAR is not set" in proc.stderr


@pytest.mark.slow
def test_target_env_passes_secrets_from_the_step_env_to_a_stdio_target(tmp_path: Path) -> None:
    secret = "env-secret-value-4242"
    cli_target = ROOT / "tests" / "targets" / "cli_target.py"
    proc, outputs = _run(
        tmp_path,
        INPUT_COMMAND=f"{sys.executable} {cli_target}",
        INPUT_TARGET_ENV="CLI_TARGET_SECRET",
        INPUT_ARGS="--tools whereami",
        CLI_TARGET_SECRET=secret,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(Path(outputs["json"]).read_text(encoding="utf-8"))
    assert report["target"]["envNames"] == ["CLI_TARGET_SECRET"]
    (valid,) = [r for r in report["fuzz"] if r["name"] == "whereami" and r["case"] == "valid"]
    assert f"reversed-secret={secret[::-1]}" in (valid["message"] or "")  # it reached the target
    shown = [proc.stdout, proc.stderr, (tmp_path / "summary.md").read_text(encoding="utf-8")]
    shown += [p.read_text(encoding="utf-8") for p in (tmp_path / "reports").iterdir()]
    assert all(secret not in text for text in shown)


@pytest.mark.slow
def test_the_step_summary_is_short_with_score_dimensions_and_criticals(tmp_path: Path) -> None:
    proc, outputs = _run(tmp_path, INPUT_COMMAND=DEMO)
    assert proc.returncode == 0, proc.stderr
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### mcprobe: `demo-target`")
    assert f"**{outputs['score']}/100**, grade **{outputs['grade']}**" in summary
    assert "| Error Handling |" in summary and "critical:**" in summary
    assert "<details>" in summary  # the full report folded below
    assert Path(outputs["html"]).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.slow
def test_baseline_and_fail_on_regression_fail_the_step_with_exit_7(tmp_path: Path) -> None:
    cli_target = ROOT / "tests" / "targets" / "cli_target.py"
    proc, outputs = _run(tmp_path, INPUT_COMMAND=f"{sys.executable} {cli_target} --clean")
    assert proc.returncode == 0, proc.stderr
    baseline = tmp_path / "baseline.json"
    baseline.write_text(Path(outputs["json"]).read_text(encoding="utf-8"), encoding="utf-8")
    proc, _ = _run(
        tmp_path,
        INPUT_COMMAND=f"{sys.executable} {cli_target}",
        INPUT_BASELINE=str(baseline),
        INPUT_FAIL_ON_REGRESSION="true",
    )
    assert proc.returncode == 7
    assert "mcprobe: worse than --baseline" in proc.stderr  # the CLI's own message
    assert "vs baseline:" in (tmp_path / "summary.md").read_text(encoding="utf-8")


def test_fail_on_regression_needs_a_baseline(tmp_path: Path) -> None:
    proc, _ = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_FAIL_ON_REGRESSION="true")
    assert proc.returncode == 1
    assert "fail-on-regression needs baseline" in proc.stderr


def test_the_readme_documents_uses_with_command_url_and_sarif_upload() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", readme, re.S)
    workflows = [yaml.safe_load(block) for block in blocks]
    steps = [step for doc in workflows for job in doc["jobs"].values() for step in job["steps"]]
    ours = [s for s in steps if str(s.get("uses", "")).startswith("OWNER/mcprobe@v1")]
    assert {k for s in ours for k in s["with"]} >= {"command", "url"}
    declared = set(_action()["inputs"])
    assert all(set(s["with"]) <= declared for s in ours)  # only real inputs
    uploads = [s for s in steps if "upload-sarif" in str(s.get("uses", ""))]
    assert uploads and all("steps." in s["with"]["sarif_file"] for s in uploads)
    assert any("target-env" in s["with"] and s.get("env") for s in ours)


@pytest.mark.slow
def test_min_score_over_a_static_report_exits_like_the_cli(tmp_path: Path) -> None:
    # No tool called: the report is static, and a gate on it is a usage error unless
    # --allow-static (the CLI exits 1; the Action used to exit 3).
    proc, outputs = _run(tmp_path, INPUT_COMMAND=DEMO, INPUT_FUZZ="false", INPUT_MIN_SCORE="10")
    assert proc.returncode == 1, proc.stderr
    assert "mcprobe: usage error: --fail-under, but the report is static" in proc.stderr
    assert outputs["grade"] != "-"
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "**✗ This step failed: mcprobe exit 1, usage error" in summary
