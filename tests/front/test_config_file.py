"""mcprobe.toml / [tool.mcprobe]: found upward, defaults that the command line overrides, rule
overrides with their reason in the report, gates, and unknown keys as errors with their path."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from mcprobe.cli.commands import EXIT_OK, EXIT_SCORE, EXIT_USAGE, run
from mcprobe.cli.config_file import ConfigFileError, find_config_file, load
from mcprobe.core.lint.suppress import RuleOverride, apply_overrides
from mcprobe.core.model import Finding, Location, Severity
from tests.support.paths import CLI_TARGET

PY = sys.executable
CLI_TARGET = CLI_TARGET
DEMO = ("--", PY, "-m", "demo_target")


def _audit_in(cwd: Path, monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()
    code = run(["audit", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_the_nearest_file_upward_wins_and_pyproject_needs_a_tool_mcprobe_table(
    tmp_path: Path,
) -> None:
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    (tmp_path / "mcprobe.toml").write_text("[audit]\nfuzz = true\n")
    assert find_config_file(deep) == tmp_path / "mcprobe.toml"
    (tmp_path / "a" / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert find_config_file(deep) == tmp_path / "mcprobe.toml"  # no [tool.mcprobe]: skipped
    (tmp_path / "a" / "pyproject.toml").write_text("[tool.mcprobe.audit]\ntimeout = 5\n")
    assert find_config_file(deep) == tmp_path / "a" / "pyproject.toml"
    assert load(tmp_path / "a" / "pyproject.toml").audit == {"timeout": 5}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[audit]\ntimout = 5\n", "mcprobe.toml: audit.timout: unknown key"),
        ("[audti]\n", "mcprobe.toml: audti: unknown key"),
        ("[audit]\nfuzz = 'yes'\n", "audit.fuzz"),
        ("[gates]\nfail-under = 120\n", "gates.fail-under"),
        ('[rules."param.untyped"]\nseverity = "info"\n', "rules.param.untyped.reason"),
        ('[rules."param.untyped"]\nseverity = "loud"\nreason = "x"\n', "severity"),
        (
            '[rules."param.untyped"]\nseverity = "info"\nreason = "x"\nextra = 1\n',
            "extra: unknown key",
        ),
        ('[rules."behavior.timeout"]\nseverity = "ignore"\nreason = "x"\n', "cannot be overridden"),
        ("[audit\n", "not valid TOML"),
    ],
)
def test_bad_config_files_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mcprobe.toml"
    path.write_text(text)
    with pytest.raises(ConfigFileError, match=message.replace(".", r"\.").replace("(", r"\(")):
        load(path)


def test_a_bad_config_is_a_usage_error_of_the_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mcprobe.toml").write_text("[audit]\ntimout = 5\n")
    code, _, err = _audit_in(tmp_path, monkeypatch, "http://127.0.0.1:1/mcp")
    assert code == EXIT_USAGE
    assert "audit.timout: unknown key" in err and len(err.splitlines()) == 1


def _finding(code: str, tool: str | None, severity: Severity = Severity.WARNING) -> Finding:
    return Finding(code, severity, "m", Location(tool=tool), "h")


def test_ignore_removes_the_finding_and_notes_the_reason() -> None:
    kept, notes = apply_overrides(
        [_finding("param.untyped", "a"), _finding("param.untyped", "b"), _finding("tool.x", "a")],
        [RuleOverride("param.untyped", None, "legacy", ("a",))],
    )
    assert [(f.code, f.location.tool) for f in kept] == [("param.untyped", "b"), ("tool.x", "a")]
    assert notes == ["suppressed: param.untyped at a — legacy"]


def test_a_severity_override_regrades_and_notes_it() -> None:
    kept, notes = apply_overrides(
        [_finding("param.untyped", "a")], [RuleOverride("param.untyped", Severity.ERROR, "strict")]
    )
    assert kept[0].severity is Severity.ERROR
    assert notes == ["severity: param.untyped at a warning → error — strict"]


@pytest.mark.slow
def test_defaults_gates_and_suppressions_apply_to_a_real_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base_code, base_out, _ = _audit_in(tmp_path, monkeypatch, "--no-config", "--json", *DEMO)
    before = json.loads(base_out)
    codes = {f["code"] for f in before["findings"]}
    assert base_code == EXIT_OK and codes, "the demo target needs some finding to suppress"
    code_to_drop = "param.untyped"
    assert code_to_drop in codes
    (tmp_path / "mcprobe.toml").write_text(
        "[audit]\nfuzz = true\nformat = 'json'\n[gates]\nfail-under = 100\n"
        f'[rules."{code_to_drop}"]\nseverity = "ignore"\nreason = "accepted for now (#12)"\n'
    )
    code, out, _ = _audit_in(tmp_path, monkeypatch, *DEMO)
    report = json.loads(out)
    schema = {d["key"]: d["score"] for d in report["dimensions"]}["schemaQuality"]
    assert schema > {d["key"]: d["score"] for d in before["dimensions"]}["schemaQuality"]
    assert report["coverage"] is not None  # fuzz = true from the file
    assert code_to_drop not in {f["code"] for f in report["findings"]}
    assert any(
        n.startswith(f"suppressed: {code_to_drop} at ") and n.endswith("accepted for now (#12)")
        for n in report["notes"]
    )
    assert "suppressed: " in report["markdown"]
    assert code == EXIT_SCORE  # the gate from the file
    # the command line wins over the file; --no-config ignores it
    code, out, _ = _audit_in(
        tmp_path,
        monkeypatch,
        "--format",
        "md",
        "--fail-under",
        "0",
        "--",
        PY,
        CLI_TARGET,
        "--clean",
    )
    assert code == EXIT_OK and out.startswith("# mcprobe")
    code, out, _ = _audit_in(
        tmp_path, monkeypatch, "--no-config", "--json", "--", PY, CLI_TARGET, "--clean"
    )
    assert code == EXIT_OK and json.loads(out)["coverage"] is None


def test_fail_on_regression_from_the_file_waits_for_a_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mcprobe.toml").write_text("[gates]\nfail-on-regression = true\n")
    code, _, err = _audit_in(tmp_path, monkeypatch, "--", PY, CLI_TARGET, "--clean")
    assert code == EXIT_OK, err  # no --baseline: the gate is idle, not a usage error
    before = tmp_path / "before.json"
    assert (
        _audit_in(
            tmp_path,
            monkeypatch,
            "--fuzz",
            "--json",
            "--output",
            str(before),
            "--",
            PY,
            CLI_TARGET,
            "--clean",
        )[0]
        == 0
    )
    code, _, err = _audit_in(
        tmp_path, monkeypatch, "--fuzz", "--baseline", str(before), "--", PY, CLI_TARGET
    )
    assert code == 7, err  # with one, the file's gate applies


def test_fuzz_writes_is_a_config_key_beside_fuzz_destructive(tmp_path: Path) -> None:
    (tmp_path / "mcprobe.toml").write_text("[audit]\nfuzz-writes = true\n")
    assert load(tmp_path / "mcprobe.toml").audit == {"fuzz_writes": True}
    (tmp_path / "mcprobe.toml").write_text("[audit]\nfuzz-writes = 'yes'\n")
    with pytest.raises(ConfigFileError, match=r"audit\.fuzz-writes"):
        load(tmp_path / "mcprobe.toml")


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("param.untypd", "unknown finding code; did you mean 'param.untyped'?"),
        ("nothing.like.it", "unknown finding code (docs/checks.md lists every code)"),
        ("protocol.ping", "a protocol check, not a finding code: checks are measured answers"),
    ],
)
def test_a_misspelt_rule_code_is_refused_with_the_nearest_real_one(
    tmp_path: Path, code: str, message: str
) -> None:
    path = tmp_path / "mcprobe.toml"
    path.write_text(f'[rules."{code}"]\nseverity = "ignore"\nreason = "x"\n')
    with pytest.raises(ConfigFileError) as caught:
        load(path)
    assert str(caught.value).startswith(f"mcprobe.toml: rules.{code}: {message}")


def test_session_and_surface_codes_can_be_overridden_like_lint_codes(tmp_path: Path) -> None:
    path = tmp_path / "mcprobe.toml"
    for code in ("server.stdout_noise", "resource.missing_mime_type", "prompt.malformed"):
        path.write_text(f'[rules."{code}"]\nseverity = "info"\nreason = "known"\n')
        assert [o.code for o in load(path).overrides] == [code]


def test_the_audit_says_which_config_file_it_used_and_quiet_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mcprobe.toml").write_text("[audit]\ntimeout = 5\n")
    code, _, err = _audit_in(tmp_path, monkeypatch, "--", PY, CLI_TARGET, "--clean")
    assert code == EXIT_OK, err
    assert f"mcprobe: config file {tmp_path / 'mcprobe.toml'}" in err.splitlines()
    code, _, err = _audit_in(tmp_path, monkeypatch, "-q", "--", PY, CLI_TARGET, "--clean")
    assert code == EXIT_OK and "config file" not in err
    code, _, err = _audit_in(tmp_path, monkeypatch, "--no-config", "--", PY, CLI_TARGET, "--clean")
    assert code == EXIT_OK and "config file" not in err


def test_pin_in_a_project_whose_config_fuzzes_lists_the_tools_and_blames_no_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mcprobe.toml").write_text(
        "[audit]\nfuzz = true\nconnect-timeout = 20\n[gates]\nfail-on-critical = true\n"
    )
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    code = run(["pin", "--", PY, CLI_TARGET, "--clean"], out, err)
    assert code == EXIT_OK, err
    assert json.loads(out.getvalue())["tools"]
    assert err.getvalue().splitlines() == [f"mcprobe: config file {tmp_path / 'mcprobe.toml'}"]
    out, err = io.StringIO(), io.StringIO()
    code = run(["pin", "--fuzz", "--", PY, CLI_TARGET, "--clean"], out, err)
    assert code == EXIT_USAGE and "--fuzz belongs to mcprobe audit" in err.getvalue()
