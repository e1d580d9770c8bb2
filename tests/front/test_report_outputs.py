"""One audit, every output (issue 26 item 2): ``--report LIST --report-dir DIR`` writes several
formats from the one audit beside stdout's output, and ``mcprobe render`` renders a saved JSON
report again, to the same bytes."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from mcprobe.cli.commands import EXIT_OK, EXIT_USAGE, run
from tests.support.paths import CLI_TARGET

TARGET = ("--", sys.executable, CLI_TARGET)
URL = "http://127.0.0.1:1/mcp"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    folder = tmp_path_factory.mktemp("reports") / "new" / "dir"  # created by mcprobe
    code, out, err = _run(
        "audit", "--fuzz", "--format", "md", "--report", "json,sarif,html,junit,md",
        "--report-dir", str(folder), "--sarif-artifact", "README.md", *TARGET,
    )  # fmt: skip
    assert code == EXIT_OK, err
    return folder, out, err


@pytest.mark.slow
def test_one_audit_writes_every_requested_format_beside_stdout(
    audited: tuple[Path, str, str],
) -> None:
    folder, out, err = audited
    assert sorted(p.name for p in folder.iterdir()) == [
        "mcprobe-report.html",
        "mcprobe-report.json",
        "mcprobe-report.junit.xml",
        "mcprobe-report.md",
        "mcprobe-report.sarif",
    ]
    assert out.startswith("# mcprobe conformance report")  # stdout keeps its own output
    assert (folder / "mcprobe-report.md").read_text(encoding="utf-8") == out  # the same audit
    for fmt in ("json", "sarif", "html", "junit", "md"):
        assert f"mcprobe: {fmt} report written to {folder}" in err
    sarif = json.loads((folder / "mcprobe-report.sarif").read_text(encoding="utf-8"))
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for run_ in sarif["runs"]
        for result in run_["results"]
        for loc in result.get("locations", [])
    }
    assert uris <= {"README.md"}


@pytest.mark.slow
@pytest.mark.parametrize(("fmt", "name"), [("md", "md"), ("sarif", "sarif"), ("html", "html"),
                                           ("junit", "junit.xml"), ("json", "json")])  # fmt: skip
def test_render_gives_the_same_bytes_from_the_saved_json(
    audited: tuple[Path, str, str], fmt: str, name: str
) -> None:
    folder, _, _ = audited
    extra = ["--sarif-artifact", "README.md"] if fmt == "sarif" else []
    code, out, err = _run("render", str(folder / "mcprobe-report.json"), "--format", fmt, *extra)
    assert code == EXIT_OK, err
    assert out == (folder / f"mcprobe-report.{name}").read_text(encoding="utf-8")


@pytest.mark.slow
def test_render_writes_a_report_directory_too(
    audited: tuple[Path, str, str], tmp_path: Path
) -> None:
    folder, _, _ = audited
    code, _, err = _run(
        "render", str(folder / "mcprobe-report.json"), "--report", "html,junit",
        "--report-dir", str(tmp_path / "again"),
    )  # fmt: skip
    assert code == EXIT_OK, err
    for name in ("mcprobe-report.html", "mcprobe-report.junit.xml"):
        assert (tmp_path / "again" / name).read_bytes() == (folder / name).read_bytes()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["audit", "--report", "json,pdf", URL], "unknown report format 'pdf'"),
        (["audit", "--report-dir", "x", URL], "--report-dir needs --report"),
        (["audit", "--sarif-artifact", "README.md", "--report", "json", URL],
         "--sarif-artifact only applies"),
        (["render"], "needs REPORT.json"),
        (["render", "r.json"], "give --format FORMAT"),
        (["render", "r.json", "--format", "md", "--report", "json"], "give --format FORMAT"),
        (["render", "/no/such.json", "--format", "md"], "cannot read '/no/such.json'"),
    ],
)  # fmt: skip
def test_report_and_render_usage_errors_are_one_line(argv: list[str], message: str) -> None:
    code, _, err = _run(*argv)
    assert code == EXIT_USAGE
    assert message in err and len(err.splitlines()) == 1, err


def test_render_refuses_a_json_file_that_is_not_a_report(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text('{"hello": "world"}', encoding="utf-8")
    code, out, err = _run("render", str(path), "--format", "html")
    assert code == EXIT_USAGE and out == ""
    assert "is not an mcprobe JSON report" in err and len(err.splitlines()) == 1


def test_render_help_is_its_own() -> None:
    code, out, _ = _run("render", "--help")
    assert code == EXIT_OK and out.startswith("usage: mcprobe render REPORT.json")
