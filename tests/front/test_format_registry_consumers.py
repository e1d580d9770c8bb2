"""The output-format registry has all its consumers: a format added to ``report.formats.FORMATS``
is accepted by ``--format``, by ``format`` in ``mcprobe.toml`` and by ``probe_report``'s input
description, and ``--config --output-dir`` names its files by the record's suffix.

Before they read the registry, ``mcprobe.toml`` refused a new format (its own ``Literal``) and
``--config --output-dir`` crashed with ``KeyError`` (its own extension table)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from mcprobe.cli.commands import EXIT_OK, run
from mcprobe.cli.config_file import ConfigFileError, load
from mcprobe.report import formats
from mcprobe.report.formats import FORMATS, OutputFormat, RenderOptions
from mcprobe.report.model import ConformanceReport
from tests.support.paths import CLI_TARGET

PY = sys.executable


def _plain(report: ConformanceReport, _: RenderOptions) -> str:
    return f"grade {report.grade}\n"


PLAIN = OutputFormat("plain", "Plain text", "text/plain", ".txt", _plain)


@pytest.fixture
def plain_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry with one more format, as adding its record would make it."""
    monkeypatch.setattr(formats, "FORMATS", (*FORMATS, PLAIN))
    monkeypatch.setattr(formats, "FORMAT_NAMES", (*formats.FORMAT_NAMES, PLAIN.name))


def test_mcprobe_toml_accepts_a_registered_format(tmp_path: Path, plain_registered: None) -> None:
    path = tmp_path / "mcprobe.toml"
    path.write_text("[audit]\nformat = 'plain'\n")
    assert load(path).audit == {"format": "plain"}


def test_mcprobe_toml_names_the_registered_formats_for_an_unknown_one(tmp_path: Path) -> None:
    path = tmp_path / "mcprobe.toml"
    path.write_text("[audit]\nformat = 'plain'\n")
    with pytest.raises(ConfigFileError) as caught:
        load(path)
    assert str(caught.value) == (
        "mcprobe.toml: audit.format: unknown report format 'plain': expected "
        + formats.expected_names()
    )


@pytest.mark.slow
def test_config_output_dir_writes_a_registered_format_under_its_suffix(
    tmp_path: Path, plain_registered: None
) -> None:
    hosts = tmp_path / "claude_desktop_config.json"
    servers = {name: {"command": PY, "args": [CLI_TARGET, "--clean"]} for name in ("one", "two")}
    hosts.write_text(json.dumps({"mcpServers": servers}))
    out_dir = tmp_path / "reports"
    out_dir.mkdir()
    out, err = io.StringIO(), io.StringIO()
    argv = ["audit", "--no-config", "--config", str(hosts), "--output-dir", str(out_dir)]
    code = run([*argv, "--format", "plain"], stdout=out, stderr=err)
    assert code == EXIT_OK, err.getvalue()
    assert sorted(p.name for p in out_dir.iterdir()) == ["one.txt", "two.txt"]
    assert (out_dir / "one.txt").read_text().startswith("grade ")


@pytest.mark.parametrize("found", FORMATS, ids=[f.name for f in FORMATS])
def test_every_format_has_one_output_dir_suffix_and_the_help_names_it(found: OutputFormat) -> None:
    assert found.suffix.startswith(".") and found.suffix.endswith(found.extension)
    out = io.StringIO()
    run(["audit", "--help"], stdout=out, stderr=io.StringIO())
    assert found.name in out.getvalue()


def test_probe_report_describes_every_registered_format() -> None:
    from mcprobe.server.models import ReportInput

    described = ReportInput.model_fields["format"].description or ""
    assert all(f"{f.name}" in described for f in FORMATS)
    assert formats.expected_names() in described
