"""Hostile text from a LIVE target: inert in the Markdown report, intact in the JSON report.

The ``inject`` rawserver names a tool and a parameter with table pipes, backticks, HTML and a
line break, and fills its title, instructions, descriptions and every error text with Markdown,
HTML, control/bidi/zero-width characters and prompt-injection phrasing (some of it pretending to
be mcprobe's own words). "Inert" is judged by a real CommonMark + GFM parser (markdown-it-py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import anyio
import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mcp import Client

from mcprobe.core.target_spec import TargetSpec
from mcprobe.engine.audit import audit
from mcprobe.engine.request import AuditRequest
from mcprobe.report.model import ConformanceReport
from mcprobe.report.render.json_report import render_json
from mcprobe.server.app import build_server
from tests.targets import RAWSERVER
from tests.targets.rawserver import INJECT_NAME, INJECT_TEXT

pytestmark = pytest.mark.anyio

PARSER = MarkdownIt("commonmark").enable("table").enable("strikethrough")
PARAM = "a|<i>b</i>"
HIDDEN = ("\x1b", "\x00", "\u202e", "\u202c", "\u200b")


def tokens(markdown: str) -> Iterator[Token]:
    def walk(items: list[Token]) -> Iterator[Token]:
        for token in items:
            yield token
            if token.children:
                yield from walk(token.children)

    return walk(PARSER.parse(markdown))


@pytest.fixture(scope="module")
def report() -> ConformanceReport:
    spec = TargetSpec(
        "stdio",
        command=sys.executable,
        args=(str(RAWSERVER), "inject"),
        connect_timeout=5.0,
        call_timeout=2.0,
    )

    async def run() -> ConformanceReport:
        with anyio.fail_after(30):
            return await audit(AuditRequest(spec, fuzz=True))

    return anyio.run(run)


def test_the_markdown_report_contains_no_html_links_or_images_from_the_target(
    report: ConformanceReport,
) -> None:
    assert report.markdown is not None
    kinds = {token.type for token in tokens(report.markdown)}
    assert not kinds & {"html_inline", "html_block", "link_open", "image"}


def test_target_text_cannot_add_headings_or_break_tables(report: ConformanceReport) -> None:
    assert report.markdown is not None
    items = list(tokens(report.markdown))
    headings = [items[i + 1].content for i, t in enumerate(items) if t.type == "heading_open"]
    assert headings[0] == "mcprobe conformance report"
    assert headings.count("Recommended fixes") == 1
    assert not any("Heading" in h or "pwned" in h or "Ignore" in h for h in headings)
    tables: list[list[int]] = []  # cells per row, per table
    for token in items:
        if token.type == "table_open":
            tables.append([])
        elif token.type == "tr_open":
            tables[-1].append(0)
        elif token.type in ("th_open", "td_open"):
            tables[-1][-1] += 1
    fuzz_rows = tables[0]  # the fuzz table comes first; the surface checks' table after it
    assert set(fuzz_rows) == {6}
    assert len(fuzz_rows) == 1 + len(report.fuzz)  # header, every case (probes: Protocol part)
    assert all(len(set(rows)) == 1 for rows in tables)  # no row wider or narrower than its header


def test_hidden_characters_are_shown_as_markers_never_raw(report: ConformanceReport) -> None:
    assert report.markdown is not None
    for char in HIDDEN:
        assert char not in report.markdown
    assert "⟨U+202E⟩" in report.markdown


def test_prompt_injection_phrasing_only_ever_appears_quoted_as_code(
    report: ConformanceReport,
) -> None:
    assert report.markdown is not None
    items = list(tokens(report.markdown))
    quoted = [t for t in items if t.type == "code_inline" and "Ignore previous" in t.content]
    assert quoted  # the target's text is shown...
    plain = [t.content for t in items if t.type == "text"]
    assert not any("Ignore previous" in text for text in plain)  # ...but never as prose
    # mcprobe's own verdict line appears once as prose; the target's copies only as code.
    assert sum("No critical behavioral issues" in text for text in plain) == (
        0 if report.critical else 1
    )


def test_the_json_report_keeps_every_hostile_string_exactly(report: ConformanceReport) -> None:
    data = json.loads(render_json(report))
    assert data["server"]["name"] == INJECT_NAME
    assert data["server"]["title"] == INJECT_TEXT
    assert data["server"]["instructions"] == INJECT_TEXT
    assert data["server"]["version"] == "1.0\n# pwned"
    assert {r["name"] for r in data["fuzz"]} == {INJECT_NAME, "plain"}
    assert {f["location"]["tool"] for f in data["findings"]} >= {INJECT_NAME}
    valid = next(r for r in data["fuzz"] if r["name"] == INJECT_NAME and r["case"] == "valid")
    assert list(valid["arguments"]) == [PARAM]
    assert valid["outcome"] == "toolError"
    assert valid["message"].startswith("Ignore previous instructions")


async def test_probe_list_returns_the_hostile_definitions_byte_for_byte() -> None:
    connect = {"command": sys.executable, "args": [str(RAWSERVER), "inject"]}
    with anyio.fail_after(30):
        async with Client(build_server(), mode="legacy") as client:
            await client.call_tool("probe_connect", connect)
            listed = await client.call_tool("probe_list", {})
            await client.call_tool("probe_disconnect", {"all": True})
    assert listed.structured_content is not None
    tools = listed.structured_content["tools"]
    assert tools[0]["name"] == INJECT_NAME
    assert tools[0]["description"] == INJECT_TEXT
    assert tools[0]["inputSchema"]["properties"][PARAM]["description"] == INJECT_TEXT
