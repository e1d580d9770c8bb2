"""What a person sees on a terminal: the CLI run as a subprocess on a real pseudo-terminal (pty),
plus the pure summary renderer on hostile input."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys

import pytest

from mcprobe.report.model import ConformanceReport, DimensionOut, ServerOut
from mcprobe.report.render.terminal import dimension_bar, render_terminal
from tests.support.paths import CLI_TARGET

PY = sys.executable
CLI_TARGET = CLI_TARGET
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _on_a_pty(*argv: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """Run ``mcprobe`` with stdin, stdout and stderr on one pty; return (exit code, output)."""
    master, slave = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    environ |= {"TERM": "xterm-256color"} | (env or {})
    proc = subprocess.Popen(
        [PY, "-m", "mcprobe.cli", *argv],
        stdin=slave, stdout=slave, stderr=slave, env=environ, close_fds=True,
    )  # fmt: skip
    os.close(slave)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
        code = proc.wait(timeout=60)
    return code, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_a_terminal_gets_a_coloured_summary_with_score_grade_bars_and_criticals() -> None:
    code, screen = _on_a_pty("audit", "--fuzz", "--", PY, CLI_TARGET)
    assert code == 0
    assert "\x1b[" in screen  # coloured
    plain = _ANSI.sub("", screen)
    assert re.search(r"score \d+/100  grade [A-F]", plain)
    assert "Error Handling" in plain and "█" in plain
    assert "critical:" in plain and "`echo`: silently accepts malformed input" in plain
    assert "# mcprobe conformance report" not in plain  # the summary replaces the Markdown
    assert "\r\x1b[2Kmcprobe: fuzzing" in screen  # the live progress line


@pytest.mark.slow
def test_no_color_and_color_never_turn_the_colour_off_on_a_terminal() -> None:
    for argv, env in (((), {"NO_COLOR": "1"}), (("--color", "never"), {})):
        code, screen = _on_a_pty("audit", *argv, "--", PY, CLI_TARGET, "--clean", env=env)
        assert code == 0
        summary = screen.rpartition("\r\x1b[2K")[2]  # what follows the cleared progress line
        assert "\x1b[" not in summary
        assert "score " in summary and "grade " in summary


@pytest.mark.slow
def test_format_md_on_a_terminal_still_prints_the_markdown() -> None:
    code, screen = _on_a_pty("audit", "--format", "md", "--", PY, CLI_TARGET, "--clean")
    assert code == 0
    assert "# mcprobe conformance report" in screen
    assert "█" not in screen


@pytest.mark.slow
def test_a_pipe_gets_the_markdown_and_plain_per_tool_progress() -> None:
    done = subprocess.run(
        [PY, "-m", "mcprobe.cli", "audit", "--fuzz", "--", PY, CLI_TARGET],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.stdout.startswith("# mcprobe conformance report")
    assert "mcprobe: fuzzing " in done.stderr and "\x1b" not in done.stderr


@pytest.mark.slow
def test_verbose_prints_a_line_per_call_and_vv_adds_latency() -> None:
    one = subprocess.run(
        [PY, "-m", "mcprobe.cli", "audit", "-v", "--fuzz", "--", PY, CLI_TARGET],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    calls = [line for line in one.stderr.splitlines() if line.startswith("mcprobe: call ")]
    assert any("echo valid → ok" in line for line in calls)
    assert not any(line.endswith(" ms") for line in calls)
    two = subprocess.run(
        [PY, "-m", "mcprobe.cli", "audit", "-vv", "--fuzz", "--", PY, CLI_TARGET],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    calls = [line for line in two.stderr.splitlines() if line.startswith("mcprobe: call ")]
    assert calls and all(re.search(r" \d+ ms$", line) for line in calls)


def _report(name: str, critical: list[str]) -> ConformanceReport:
    return ConformanceReport(
        mcprobe_version="0",
        server=ServerOut(name=name),
        overall=42,
        grade="D",
        dimensions=[
            DimensionOut(key="a", name="Alpha", score=10.0, measured=True, reasons=[]),
            DimensionOut(key="b", name="Beta", score=None, measured=False, reasons=[]),
        ],
        findings=[],
        critical=critical,
    )


def test_hostile_server_text_cannot_reach_the_terminal_as_escape_sequences() -> None:
    text = render_terminal(
        _report("evil\x1b]0;pwned\x07\x1b[2J\nname", ["x\x1b[31m\rline"]), colour=False
    )
    assert "\x1b" not in text and "\r" not in text
    assert "evil" in text


def test_the_bar_is_full_at_10_and_a_dotted_track_when_not_measured() -> None:
    report = _report("s", [])
    assert dimension_bar(report.dimensions[0], 10) == "█" * 10
    assert dimension_bar(report.dimensions[1], 10) == "·" * 10
    assert "not measured" in render_terminal(report, colour=False)
    assert "\x1b[" in render_terminal(report, colour=True)
