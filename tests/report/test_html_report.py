"""--format html: one self-contained page, checked in a real headless Chromium (rendered,
screenshotted, no console errors, the score shown, the fuzz table sorts) and as text (every
target string escaped, nothing loaded from anywhere)."""

from __future__ import annotations

import html.parser
import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mcprobe.cli.commands import run
from mcprobe.report.model import (
    ConformanceReport,
    CoverageOut,
    DimensionOut,
    FindingOut,
    FuzzResultOut,
    LocationOut,
    ServerOut,
)
from mcprobe.report.render.html import render_html
from tests.support.paths import CLI_TARGET

PY = sys.executable
CLI_TARGET = CLI_TARGET
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)"
)
EVIL = "<img src=x onerror=alert(1)>\"'</title><script>alert(2)</script>\x1b[2J"


def _chromium(page: Path, *mode: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [
                CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", f"--user-data-dir={profile}", "--enable-logging=stderr",
                "--v=0", "--window-size=1280,1600", *mode, page.as_uri(),
            ],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip


def _console(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def _demo_page(tmp_path: Path) -> Path:
    page = tmp_path / "report.html"
    out, err = io.StringIO(), io.StringIO()
    argv = ["audit", "-q", "--fuzz", "--format", "html", "--output", str(page)]
    assert run([*argv, "--", PY, CLI_TARGET], out, err) == 0, err.getvalue()
    return page


@needs_chromium
@pytest.mark.slow
def test_the_page_renders_in_chromium_with_the_score_and_no_console_error(tmp_path: Path) -> None:
    page = _demo_page(tmp_path)
    shot = tmp_path / "report.png"
    done = _chromium(page, f"--screenshot={shot}")
    assert done.returncode == 0, done.stderr[-2000:]
    assert shot.stat().st_size > 10_000 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _console(done.stderr) == []
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []
    score = re.search(r'<span class="big" id="overall">(\d+)</span>', dom.stdout)
    assert score is not None and 0 <= int(score.group(1)) <= 100
    assert 'id="grade">' in dom.stdout and "Reproducers (" in dom.stdout


@needs_chromium
@pytest.mark.slow
def test_the_console_check_catches_a_script_error(tmp_path: Path) -> None:
    # The negative case of the check above: a broken page does log to the console.
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><p>x</p><script>undefinedFunction();</script>")
    assert any(
        "undefinedFunction" in line for line in _console(_chromium(page, "--dump-dom").stderr)
    )


@needs_chromium
@pytest.mark.slow
def test_clicking_a_heading_sorts_the_fuzz_table(tmp_path: Path) -> None:
    page = _demo_page(tmp_path)
    text = page.read_text(encoding="utf-8")
    # Click "Latency" twice (descending) the way a person would, then read the rows' order.
    click = (
        "<script>var th=document.querySelectorAll('#fuzz th')[5];th.click();th.click();"
        "</script></body>"
    )
    page.write_text(text.replace("</body>", click), encoding="utf-8")
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []
    assert 'aria-sort="descending">Latency' in dom.stdout
    table = dom.stdout.split('id="fuzz"', 1)[1].split("</table>", 1)[0]
    values = [float(v) for v in re.findall(r'data-sort="([\d.]+)"', table)]
    assert len(values) > 2 and values == sorted(values, reverse=True)


@needs_chromium
@pytest.mark.slow
def test_hostile_target_text_stays_text_in_the_browser(tmp_path: Path) -> None:
    page = tmp_path / "evil.html"
    page.write_text(render_html(_hostile_report()), encoding="utf-8")
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []  # no alert, no blocked load, no script error
    assert "<img" not in dom.stdout.split("<body>", 1)[1].split("<script>")[0]


def _hostile_report() -> ConformanceReport:
    failing = FuzzResultOut(
        name=EVIL, case="wrong_type:x", kind="wrong_type", malformed=True, outcome="ok",
        silently_accepted=True, empty_success=False, output_schema_violation=False, leak=False,
        arguments={"x": EVIL}, latency_ms=3.0, message=EVIL,
    )  # fmt: skip
    return ConformanceReport(
        mcprobe_version="0",
        server=ServerOut(name=EVIL, version=EVIL),
        overall=55,
        grade="D",
        dimensions=[DimensionOut(key="k", name=EVIL, score=5.5, measured=True, reasons=[EVIL])],
        coverage=CoverageOut(total_tools=1, fuzzed_tools=1, fuzzed=[EVIL], skipped=[]),
        critical=[EVIL],
        findings=[
            FindingOut(
                code="tool.missing_description",
                severity="error",
                message=EVIL,
                location=LocationOut(tool=EVIL, param=EVIL),
                hint=EVIL,
            )
        ],
        fuzz=[failing],
        notes=[EVIL],
    )


class _Tags(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.urls += [
            v or "" for k, v in attrs if k in ("src", "href") and not (v or "").startswith("#")
        ]


def test_every_target_string_is_escaped_and_nothing_is_loaded() -> None:
    text = render_html(_hostile_report())
    parsed = _Tags()
    parsed.feed(text)
    assert "img" not in parsed.tags
    assert parsed.tags.count("script") == 1  # mcprobe's own sorter only
    assert parsed.urls == []  # no src/href except in-page anchors
    assert "\x1b" not in text
    assert "default-src 'none'" in text
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in text


def test_each_failing_case_has_its_exact_tools_call_reproducer() -> None:
    text = render_html(_hostile_report())
    assert 'id="repro-0"' in text and "&quot;method&quot;: &quot;tools/call&quot;" in text
    assert 'href="#repro-0"' in text


def test_a_report_without_fuzz_says_so_and_has_no_fuzz_table() -> None:
    report = _hostile_report().model_copy(update={"coverage": None, "fuzz": [], "critical": []})
    text = render_html(report)
    assert "Not fuzzed" in text and 'id="fuzz"' not in text
