"""Baseline and lock guard rails (issue 26 item 4): a baseline of another server is refused,
one written by another mcprobe or report schema is compared with a caution and never fails
the regression gate, the CLI says what it compared, ``--baseline-update`` writes the new
baseline, and a lock whose hash no longer matches its definition is refused."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from mcprobe.cli.commands import EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, run
from mcprobe.core.errors import UsageError
from mcprobe.report.baseline import comparability, load_baseline
from mcprobe.report.pinning import parse_lock
from tests.support.paths import CLI_TARGET

TARGET = ("--", sys.executable, CLI_TARGET)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def _doc(name: str = "srv", mcprobe: str = "0.1.0", schema: str = "1.8") -> dict[str, object]:
    return {
        "mcprobeVersion": mcprobe,
        "schemaVersion": schema,
        "server": {"name": name, "version": "1"},
        "overall": 80,
        "dimensions": [],
    }


def test_another_server_is_refused_and_another_mcprobe_is_a_caution() -> None:
    same = comparability(load_baseline(_doc()), load_baseline(_doc()))
    assert same.refusal is None and same.caution is None
    assert same.compared == "server 'srv' 1, written by mcprobe 0.1.0, report schema 1.8"
    other = comparability(load_baseline(_doc("other")), load_baseline(_doc()))
    assert other.refusal == "the baseline is of server 'other' 1, this audit of server 'srv' 1"
    older = comparability(load_baseline(_doc(mcprobe="0.0.9", schema="1.7")), load_baseline(_doc()))
    assert older.refusal is None
    assert older.caution is not None and "mcprobe 0.0.9, report schema 1.7" in older.caution
    unknown = comparability(load_baseline({"dimensions": []}), load_baseline(_doc()))
    assert unknown.caution is not None and "an unknown version" in unknown.caution


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    path = tmp_path_factory.mktemp("b") / "b.json"
    code, _, err = _run("audit", "--fuzz", "--json", "--output", str(path), *TARGET)
    assert code == EXIT_OK, err
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _write(tmp_path: Path, data: dict[str, object], **changes: object) -> Path:
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps({**data, **changes}), encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_baseline_of_another_server_compares_nothing_and_is_a_usage_error(
    tmp_path: Path, baseline: dict[str, object]
) -> None:
    path = _write(tmp_path, baseline, server={"name": "someone-else"})
    code, out, err = _run("audit", "--fuzz", "--json", "--baseline", str(path), *TARGET)
    assert code == EXIT_USAGE
    assert json.loads(out)["server"]["name"] == "cli-target"  # the report is still written
    assert "the baseline is of server 'someone-else'" in err and "nothing compared" in err
    assert "vs baseline" not in err


@pytest.mark.slow
def test_a_baseline_of_another_mcprobe_never_fails_the_regression_gate(
    tmp_path: Path, baseline: dict[str, object]
) -> None:
    better = {"overall": 100, "grade": "A"}
    path = _write(tmp_path, baseline, **better)
    code, _, err = _run("audit", "--fuzz", "--baseline", str(path), "--fail-on-regression", *TARGET)
    assert code == EXIT_REGRESSION, err  # same mcprobe: a real regression
    assert f"mcprobe: compared with --baseline {path}: server 'cli-target'" in err
    path = _write(tmp_path, baseline, mcprobeVersion="0.0.1", **better)
    code, _, err = _run("audit", "--fuzz", "--baseline", str(path), "--fail-on-regression", *TARGET)
    assert code == EXIT_OK, err
    assert "written by mcprobe 0.0.1" in err and "may be mcprobe's own" in err
    assert "--fail-on-regression not applied" in err


@pytest.mark.slow
def test_baseline_update_writes_this_audit_as_the_baseline(tmp_path: Path) -> None:
    path = tmp_path / "new" / "baseline.json"
    code, _, err = _run("audit", "--baseline", str(path), "--baseline-update", *TARGET)
    assert code == EXIT_USAGE and "directory of" in err
    path = tmp_path / "baseline.json"
    code, _, err = _run("audit", "--fuzz", "--baseline", str(path), "--baseline-update", *TARGET)
    assert code == EXIT_OK, err
    assert json.loads(path.read_text(encoding="utf-8"))["server"]["name"] == "cli-target"
    assert f"this audit is the new baseline in {path}" in err
    code, _, err = _run(
        "audit", "--baseline", str(path), "--baseline-update", "--fail-on-regression", *TARGET
    )
    assert code == EXIT_USAGE and "cannot also --fail-on-regression" in err


def _lock() -> dict[str, object]:
    from mcprobe.report.pinning import lock_of
    from tests.support.builders import snapshot

    tools = [{"name": "greet", "description": "Say hello.", "inputSchema": {"type": "object"}}]
    return lock_of(snapshot(tools))


def test_a_lock_whose_hash_no_longer_matches_its_definition_is_refused() -> None:
    lock = _lock()
    parse_lock(json.dumps(lock), "--lock x")  # consistent: accepted
    tools = lock["tools"]
    assert isinstance(tools, list)
    tools[0]["definition"]["description"] = "Say hello and more."
    with pytest.raises(UsageError, match=r"tool 'greet': its sha256 does not match"):
        parse_lock(json.dumps(lock), "--lock x")
