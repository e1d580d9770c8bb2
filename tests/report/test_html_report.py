"""--format html: the Markdown report rendered into one self-contained page, checked in a real
headless Chromium (rendered, screenshotted, no console errors, the score shown, the fuzz table
sorts, exactly the Markdown's sections, hostile target text stays text) and as text (every
target string escaped, nothing loaded from anywhere)."""

from __future__ import annotations

import base64
import hashlib
import html.parser
import io
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from mcprobe.cli.commands import run
from mcprobe.report.model import (
    ConformanceReport,
    CoverageOut,
    DimensionOut,
    DriftOut,
    FindingOut,
    FuzzResultOut,
    LocationOut,
    ServerOut,
    ToolDriftOut,
)
from mcprobe.report.render.html import render_html
from mcprobe.report.render.markdown import render_markdown
from tests.support import synthetic_audits
from tests.support.demo_golden import GOLDEN_JSON
from tests.support.paths import CLI_TARGET
from tests.support.report_samples import whole_server_report

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


def _markdown_sections(markdown: str) -> list[str]:
    return [line[3:] for line in markdown.splitlines() if line.startswith("## ")]


class _Headings(html.parser.HTMLParser):
    """The text of each ``<h2>`` of a page (``html.unescape``d: the Markdown's own words)."""

    def __init__(self) -> None:
        super().__init__()
        self.h2: list[str] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h2":
            self._open = True
            self.h2.append("")

    def handle_endtag(self, tag: str) -> None:
        self._open = self._open and tag != "h2"

    def handle_data(self, data: str) -> None:
        if self._open:
            self.h2[-1] += data


def _h2(page: str) -> list[str]:
    parsed = _Headings()
    parsed.feed(page)
    return parsed.h2


def _real_server_report() -> ConformanceReport:
    """A report shaped like a real server's: tools with every flaw, a prompt finding, resource,
    prompt, protocol and HTTP checks, drift against a lock, the protocol probes."""
    return whole_server_report()


def _demo_report() -> ConformanceReport:
    return ConformanceReport.model_validate_json(GOLDEN_JSON.read_text(encoding="utf-8"))


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
def test_the_demo_page_in_chromium_has_exactly_the_sections_of_the_demo_markdown(
    tmp_path: Path,
) -> None:
    page = _demo_page(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    argv = ["audit", "-q", "--fuzz", "--format", "md", "--", PY, CLI_TARGET]
    assert run(argv, out, err) == 0, err.getvalue()
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []
    sections = _markdown_sections(out.getvalue())
    assert {"Summary", "Recommended fixes", "Fuzz results", "Protocol probes"} <= set(sections)
    assert _h2(dom.stdout) == sections


@needs_chromium
@pytest.mark.slow
def test_the_real_server_shaped_page_in_chromium_has_exactly_the_markdowns_sections(
    tmp_path: Path,
) -> None:
    report = _real_server_report()
    page = tmp_path / "server.html"
    page.write_text(render_html(report), encoding="utf-8")
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []
    sections = _markdown_sections(render_markdown(report))
    assert {"Resources, prompts and protocol", "Drift against the lock"} <= set(sections)
    assert _h2(dom.stdout) == sections


def _row(dom: str, tool: str, case: str) -> str:
    body = dom.split('id="fuzz"', 1)[1].split("</table>", 1)[0]
    (row,) = [
        r for r in body.split("<tr")[2:] if f"<code>{tool}</code></td>\n<td><code>{case}<" in r
    ]
    return row


@needs_chromium
@pytest.mark.slow
def test_in_chromium_an_inconclusive_call_is_unmarked_and_a_failure_as_success_is_marked(
    tmp_path: Path,
) -> None:
    page = tmp_path / "demo.html"
    page.write_text(render_html(_demo_report()), encoding="utf-8")
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []
    refused = _row(dom.stdout, "open_repo", "valid")  # the tool refused mcprobe's sample
    assert "inconclusive" in refused and 'class="fail"' not in refused
    assert "reproduce" not in refused
    dressed = _row(dom.stdout, "backup_status", "valid")
    assert "failureAsSuccess" in dressed and 'class="fail"' in dressed
    anchor = re.search(r'href="#(repro-\d+)">reproduce', dressed)
    assert anchor is not None
    repro = dom.stdout.split(f'id="{anchor.group(1)}"', 1)[1].split("</section>", 1)[0]
    assert '"method": "tools/call"' in repro and '"name": "backup_status"' in repro
    assert "open_repo" not in dom.stdout.split('class="reproducers"', 1)[1].split("<h2>", 1)[0]


@pytest.mark.parametrize(
    "report",
    [
        pytest.param(_demo_report, id="demo"),
        pytest.param(_real_server_report, id="real-server-shaped"),
        pytest.param(lambda: synthetic_audits.build(synthetic_audits.flawed_audit()), id="flawed"),
        pytest.param(lambda: synthetic_audits.build(synthetic_audits.died_audit()), id="died"),
    ],
)
def test_the_html_has_exactly_the_sections_of_the_markdown(
    report: Callable[[], ConformanceReport],
) -> None:
    built = report()
    sections = _markdown_sections(render_markdown(built))
    assert "Summary" in sections and "Recommended fixes" in sections
    assert _h2(render_html(built)) == sections


def test_the_html_shows_the_surface_checks_the_drift_and_the_fixes() -> None:
    page = render_html(_real_server_report())
    for section in ("Resources, prompts and protocol", "Drift against the lock", "Summary"):
        assert f"<h2>{section}</h2>" in page
    assert "<code>resources.read</code>" in page and "<strong>changed</strong>" in page
    assert "<h2>Recommended fixes</h2>\n<ol>" in page


def test_a_prompt_finding_is_shown_at_its_prompt_not_at_the_server() -> None:
    page = render_html(_real_server_report())
    assert "server.topic" not in page
    assert "prompt <code>summarise</code> › argument <code>topic</code>" in page


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
    # The page's policy runs mcprobe's own script only (by its hash): allow this one too.
    click = "var th=document.querySelectorAll('#fuzz th')[4];th.click();th.click();"
    digest = base64.b64encode(hashlib.sha256(click.encode()).digest()).decode()
    text = text.replace("script-src ", f"script-src 'sha256-{digest}' ", 1)
    page.write_text(text.replace("</body>", f"<script>{click}</script></body>"), encoding="utf-8")
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []
    assert re.search(r'aria-sort="descending"[^>]*>Latency', dom.stdout)
    table = dom.stdout.split('id="fuzz"', 1)[1].split("</table>", 1)[0]
    values = [float(v) for v in re.findall(r">(\d+) ms</td>", table)]
    assert len(values) > 2 and values == sorted(values, reverse=True)


@needs_chromium
@pytest.mark.slow
def test_a_script_the_page_did_not_ship_is_refused_by_its_policy(tmp_path: Path) -> None:
    page = tmp_path / "planted.html"
    planted = "<script>document.title='ran'</script></body>"
    page.write_text(render_html(_demo_report()).replace("</body>", planted), encoding="utf-8")
    dom = _chromium(page, "--dump-dom")
    assert "<title>ran</title>" not in dom.stdout
    assert any("Content Security Policy" in line for line in _console(dom.stderr))


@needs_chromium
@pytest.mark.slow
def test_hostile_target_text_stays_text_in_the_browser(tmp_path: Path) -> None:
    page = tmp_path / "evil.html"
    page.write_text(render_html(_hostile_report()), encoding="utf-8")
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []  # no alert, no blocked load, no script error
    assert "<img" not in dom.stdout.split("<body>", 1)[1].split("<script>")[0]


INJECTIONS = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "[click](javascript:alert(3))",
    "</table></td></tr><h2>Fake</h2>",
    "\u202eevil\u202c zero\u200bwidth",
    "\n## Recommended fixes\n\nNothing to fix.\n",
    "\n| a | b |\n|---|---|\n| c | d |\n",
    "![beacon](http://example.invalid/beacon.png)",
)


def _injecting_report() -> ConformanceReport:
    """Every target string the report quotes tries to inject markup, including a tool
    description (quoted by the drift section) with a Markdown heading and a table."""
    evil = "".join(INJECTIONS)
    built = synthetic_audits.build(synthetic_audits.hostile_audit())
    drift = DriftOut(
        added=[evil],
        removed=[],
        changed=[ToolDriftOut(tool=evil, changes=[f"description: 'Adds' -> {evil!r}"])],
        server=[],
    )
    findings = [f.model_copy(update={"message": f.message + evil}) for f in built.findings]
    fuzz = [r.model_copy(update={"message": evil, "note": evil}) for r in built.fuzz]
    return built.model_copy(update={"drift": drift, "findings": findings, "fuzz": fuzz})


@needs_chromium
@pytest.mark.slow
def test_target_text_injecting_markup_stays_text_in_chromium(tmp_path: Path) -> None:
    report = _injecting_report()
    page = tmp_path / "inject.html"
    page.write_text(render_html(report), encoding="utf-8")
    dom = _chromium(page, "--dump-dom")
    assert _console(dom.stderr) == []  # nothing ran, nothing was loaded or refused
    body = dom.stdout.split("<body>", 1)[1]
    parsed = _Tags()
    parsed.feed(body)
    assert "img" not in parsed.tags and parsed.tags.count("script") == 1  # mcprobe's sorter
    assert parsed.urls == []  # no link or source leaves the page
    assert _h2(body) == _markdown_sections(render_markdown(report))  # no injected section
    assert body.count("<table") == 1  # the fuzz table only: no injected one
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "javascript:alert(3)" in body and 'href="javascript' not in body  # as text only
    assert "\u202e" not in body and "\u200b" not in body
    assert "⟨U+202E⟩" in body and "⟨U+200B⟩" in body


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
    assert "Fuzz: not run" in text and 'id="fuzz"' not in text
